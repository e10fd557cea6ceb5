#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""dbus/org.sbd.Sbd1.xml, the API's source of truth, agrees with the running daemon."""

import os
import xml.etree.ElementTree as ET

import sbdtest
from sbdtest import DRIVER, MODULE, ROOT, device_path

XML = os.path.join(sbdtest.HERE, '..', '..', 'dbus', 'org.sbd.Sbd1.xml')
OBJECTS = {
    'org.sbd.Sbd1.Manager': ROOT,
    'org.sbd.Sbd1.Module': MODULE,
    'org.sbd.Sbd1.Driver': DRIVER,
    'org.sbd.Sbd1.Device': device_path(0),
}
EMITS = 'org.freedesktop.DBus.Property.EmitsChangedSignal'


def members(iface_el):
    props, methods, signals = {}, {}, {}
    for p in iface_el.findall('property'):
        ann = {a.get('name'): a.get('value') for a in p.findall('annotation')}
        props[p.get('name')] = (p.get('type'), p.get('access'), ann.get(EMITS, 'true'))
    for m in iface_el.findall('method'):
        methods[m.get('name')] = (
            ''.join(a.get('type') for a in m.findall('arg') if a.get('direction', 'in') == 'in'),
            ''.join(a.get('type') for a in m.findall('arg') if a.get('direction') == 'out'))
    for s in iface_el.findall('signal'):
        signals[s.get('name')] = ''.join(a.get('type') for a in s.findall('arg'))
    return props, methods, signals


class Introspection(sbdtest.SbdTestCase):
    ndevices = 1

    def live(self, path, iface):
        xml = self.call(path, 'org.freedesktop.DBus.Introspectable', 'Introspect', None, '(s)')[0]
        for el in ET.fromstring(xml).findall('interface'):
            if el.get('name') == iface:
                return members(el)
        self.fail('%s has no interface %s' % (path, iface))

    def test_xml_matches_daemon(self):
        doc = ET.parse(XML).getroot()
        ifaces = {el.get('name'): el for el in doc.findall('interface')}
        self.assertEqual(sorted(ifaces), sorted(OBJECTS))
        for name, el in ifaces.items():
            want = members(el)
            have = self.live(OBJECTS[name], name)
            for kind, w, h in zip(('property', 'method', 'signal'), want, have):
                for member, sig in w.items():
                    self.assertIn(member, h, '%s.%s (%s) documented but not served' % (name, member, kind))
                    self.assertEqual(h[member], sig, '%s.%s (%s) differs' % (name, member, kind))
                # nothing undocumented on the test bed, which has exactly the module's attributes
                self.assertEqual(sorted(h), sorted(w), '%s: %ss served but not documented' % (name, kind))

    def test_every_member_documented(self):
        # each member carries a comment saying what it does
        text = open(XML).read()
        doc = ET.parse(XML).getroot()
        for el in doc.findall('interface'):
            for m in list(el.findall('property')) + list(el.findall('method')):
                self.assertIn('%s:' % m.get('name'), text, '%s.%s undocumented' % (el.get('name'), m.get('name')))


if __name__ == '__main__':
    sbdtest.main()
