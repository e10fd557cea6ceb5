#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for sbdd, for developing the clients without the daemon.

Serves org.sbd.Sbd1 from the project's introspection XML on the bus given by
--address (or the session bus), with an in-memory "kernel" that validates the
way contract.md says sbd.ko does.  It is a development aid only: the clients'
real tests run against sbdd (tests/integration).  Every device also gets an
attribute the XML does not know (Extra, s), as the real daemon mirrors every
sysfs attribute.

    dbus-daemon --session --print-address --fork   # prints ADDRESS
    /usr/bin/python3 clients/devel/fake-sbdd.py --address ADDRESS &
    sbdctl --address ADDRESS list
"""

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = 'org.sbd.Sbd1'
ROOT = '/org/sbd/Sbd1'
PROPS = 'org.freedesktop.DBus.Properties'
OM = 'org.freedesktop.DBus.ObjectManager'
ERR = 'org.sbd.Sbd1.Error.'
XML = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'dbus', 'org.sbd.Sbd1.xml')
MAX_SIZE = 1 << 30


def load_interfaces():
    tree = ET.parse(XML)
    ifaces = {}
    for i in tree.getroot().findall('interface'):
        props = {p.get('name'): (p.get('type'), p.get('access')) for p in i.findall('property')}
        ifaces[i.get('name')] = (i, props)
    dev = ifaces['org.sbd.Sbd1.Device']
    ET.SubElement(dev[0], 'property', name='Extra', type='s', access='read')
    dev[1]['Extra'] = ('s', 'read')
    return ifaces


IFACES = load_interfaces()


def fail(name, msg):
    raise dbus.exceptions.DBusException(msg, name=name)


def variant(sig, value):
    conv = {'s': dbus.String, 'o': dbus.ObjectPath, 't': dbus.UInt64, 'u': dbus.UInt32, 'b': dbus.Boolean}
    if sig == 'ao':
        return dbus.Array([dbus.ObjectPath(p) for p in value], signature='o')
    if sig == 'a{ss}':
        return dbus.Dictionary(value, signature='ss')
    return conv[sig](value)


class Service(dbus.service.FallbackObject):
    def __init__(self, bus):
        super().__init__(bus, ROOT)
        self.loaded = True
        self.devices = {}
        self.add(0, 16 << 20)

    # the "kernel" ------------------------------------------------------
    def add(self, n, size):
        self.devices[n] = {'SysName': 'sbd%d' % n, 'SysPath': '/sys/devices/system/sbd/sbd%d' % n,
                           'Driver': ROOT + '/drivers/sbd', 'BlockDevice': '/dev/sbd%d' % n,
                           'Name': 'Simple block device', 'Device': 'fe00', 'Size': size,
                           'ReadOnly': False, 'Label': 'sbd%d' % n, 'Online': True, 'Uevent': '',
                           'PowerControl': 'auto', 'PowerRuntimeStatus': 'active',
                           'PowerRuntimeActiveTime': '0', 'PowerRuntimeSuspendedTime': '0',
                           'PowerAutosuspendDelayMs': '', 'Extra': 'not in the XML'}

    def objects(self):
        o = {ROOT: ('org.sbd.Sbd1.Manager', self.manager_props()),
             ROOT + '/module': ('org.sbd.Sbd1.Module', self.module_props())}
        if self.loaded:
            o[ROOT + '/drivers/sbd'] = ('org.sbd.Sbd1.Driver', self.driver_props())
            for n, d in self.devices.items():
                o[ROOT + '/devices/sbd%d' % n] = ('org.sbd.Sbd1.Device', d)
        return o

    def dev_paths(self):
        return [ROOT + '/devices/sbd%d' % n for n in sorted(self.devices)] if self.loaded else []

    def manager_props(self):
        return {'Version': '0.1.0-fake', 'Drivers': [ROOT + '/drivers/sbd'] if self.loaded else [],
                'Devices': self.dev_paths()}

    def module_props(self):
        return {'Name': 'sbd', 'State': 'live' if self.loaded else 'unloaded', 'RefCount': 0,
                'Parameters': {'ndevices': '1', 'size': '16M', 'max_size': '1G'} if self.loaded else {}}

    def driver_props(self):
        return {'SysName': 'sbd', 'SysPath': '/sys/bus/sbd/drivers/sbd', 'Devices': self.dev_paths(),
                'Version': '1.0', 'Ndevices': len(self.devices), 'Uevent': ''}

    def lookup(self, path):
        o = self.objects().get(path)
        if not o:
            fail('org.freedesktop.DBus.Error.UnknownObject', 'Unknown object %s' % path)
        return o

    def typed(self, iface, props):
        types = IFACES[iface][1]
        return dbus.Dictionary({k: variant(types[k][0], v) for k, v in props.items()}, signature='sv')

    # org.freedesktop.DBus.Introspectable ------------------------------
    @dbus.service.method('org.freedesktop.DBus.Introspectable', out_signature='s', rel_path_keyword='rel')
    def Introspect(self, rel):
        path = ROOT + ('' if rel == '/' else rel)
        o = self.objects().get(path)
        xml = '<node>\n'
        std = ('<interface name="org.freedesktop.DBus.Properties"><method name="Get"/></interface>'
               '<interface name="org.freedesktop.DBus.Introspectable"><method name="Introspect"/></interface>')
        if o:
            xml += std + ET.tostring(IFACES[o[0]][0], encoding='unicode')
            if path == ROOT:
                xml += '<interface name="%s"/>' % OM
        for p in self.objects():
            if p.startswith(path + '/') and '/' not in p[len(path) + 1:]:
                xml += '<node name="%s"/>' % p[len(path) + 1:]
        kids = {p[len(path) + 1:].split('/')[0] for p in self.objects() if p.startswith(path + '/')}
        for k in kids:
            if '<node name="%s"/>' % k not in xml:
                xml += '<node name="%s"/>' % k
        return xml + '</node>\n'

    # org.freedesktop.DBus.Properties ----------------------------------
    @dbus.service.method(PROPS, in_signature='ss', out_signature='v', rel_path_keyword='rel')
    def Get(self, iface, name, rel):
        iname, props = self.lookup(ROOT + rel if rel != '/' else ROOT)
        if iface != iname or name not in props:
            fail('org.freedesktop.DBus.Error.UnknownProperty', 'Unknown property %s' % name)
        return self.typed(iname, {name: props[name]})[name]

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}', rel_path_keyword='rel')
    def GetAll(self, iface, rel):
        iname, props = self.lookup(ROOT + rel if rel != '/' else ROOT)
        if iface != iname:
            fail('org.freedesktop.DBus.Error.UnknownInterface', 'Unknown interface %s' % iface)
        return self.typed(iname, props)

    @dbus.service.method(PROPS, in_signature='ssv', rel_path_keyword='rel')
    def Set(self, iface, name, value, rel):
        path = ROOT + rel if rel != '/' else ROOT
        iname, props = self.lookup(path)
        types = IFACES[iname][1]
        if iface != iname or name not in props:
            fail('org.freedesktop.DBus.Error.UnknownProperty', 'Unknown property %s' % name)
        if types[name][1] != 'readwrite':
            fail('org.freedesktop.DBus.Error.PropertyReadOnly', "Property '%s' is not writable." % name)
        if value.signature if hasattr(value, 'signature') else None:
            pass
        self.store(props, name, value)
        self.PropertiesChanged(iname, self.typed(iname, {name: props[name]}), [], rel=rel)

    def store(self, props, name, value):
        if name == 'Size':
            if not isinstance(value, (dbus.UInt64,)):
                fail(ERR + 'InvalidValue', 'Size must be of type t')
            if value == 0 or value % 512 or value > MAX_SIZE:
                fail(ERR + 'InvalidValue', 'Invalid size %d: Invalid argument' % value)
        elif name in ('ReadOnly', 'Online'):
            if not isinstance(value, dbus.Boolean):
                fail(ERR + 'InvalidValue', '%s must be of type b' % name)
            value = bool(value)
        elif name == 'Label':
            if not re.fullmatch(r'[\x20-\x7e]{1,31}', str(value)):
                fail(ERR + 'InvalidValue', 'Invalid label: Invalid argument')
            value = str(value)
        else:
            value = str(value)
        props[name] = value

    @dbus.service.signal(PROPS, signature='sa{sv}as', rel_path_keyword='rel')
    def PropertiesChanged(self, iface, changed, invalidated, rel=None):
        pass

    # org.freedesktop.DBus.ObjectManager -------------------------------
    @dbus.service.method(OM, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        return {p: {i: self.typed(i, props)} for p, (i, props) in self.objects().items()}

    @dbus.service.signal(OM, signature='oa{sa{sv}}')
    def InterfacesAdded(self, path, ifaces):
        pass

    @dbus.service.signal(OM, signature='oas')
    def InterfacesRemoved(self, path, ifaces):
        pass

    # org.sbd.Sbd1.Manager ----------------------------------------------
    @dbus.service.method('org.sbd.Sbd1.Manager', in_signature='ta{sv}', out_signature='o')
    def AddDevice(self, size, options):
        if not self.loaded:
            fail(ERR + 'ModuleNotLoaded', 'The sbd module is not loaded')
        n = int(options.get('id', min(set(range(len(self.devices) + 1)) - set(self.devices))))
        if n in self.devices:
            fail(ERR + 'Exists', 'Device sbd%d exists: File exists' % n)
        if size == 0 or size % 512 or size > MAX_SIZE:
            fail(ERR + 'InvalidValue', 'Invalid size %d: Invalid argument' % size)
        self.add(n, int(size))
        path = ROOT + '/devices/sbd%d' % n
        self.InterfacesAdded(path, {'org.sbd.Sbd1.Device': self.typed('org.sbd.Sbd1.Device', self.devices[n])})
        self.manager_changed()
        return path

    @dbus.service.method('org.sbd.Sbd1.Manager', in_signature='oa{sv}')
    def RemoveDevice(self, path, options):
        m = re.fullmatch(re.escape(ROOT) + r'/devices/sbd(\d+)', path)
        if not m or int(m.group(1)) not in self.devices:
            fail(ERR + 'DeviceGone', 'No such device %s' % path)
        del self.devices[int(m.group(1))]
        self.InterfacesRemoved(path, ['org.sbd.Sbd1.Device'])
        self.manager_changed()

    def manager_changed(self):
        self.PropertiesChanged('org.sbd.Sbd1.Manager',
                               self.typed('org.sbd.Sbd1.Manager', {'Devices': self.dev_paths()}), [], rel='/')

    # org.sbd.Sbd1.Module -----------------------------------------------
    @dbus.service.method('org.sbd.Sbd1.Module', in_signature='a{ss}')
    def Load(self, params):
        for k in params:
            if k not in ('ndevices', 'size', 'max_size'):
                fail(ERR + 'InvalidValue', 'Unknown parameter %s' % k)
        if not self.loaded:
            self.loaded = True
            self.devices = {}
            self.add(0, 16 << 20)

    @dbus.service.method('org.sbd.Sbd1.Module')
    def Unload(self):
        if not self.loaded:
            fail(ERR + 'ModuleNotLoaded', 'The sbd module is not loaded')
        self.loaded = False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--address')
    a = ap.parse_args()
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(a.address) if a.address else dbus.SessionBus()
    svc = Service(bus)
    name = dbus.service.BusName(NAME, bus)
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, loop.quit)
    print('ready', flush=True)
    loop.run()
    del name, svc


if __name__ == '__main__':
    sys.exit(main())
