#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The audit trail: sbdd's structured journal entries, read from its real
sd_journal_send() path (a journal socket of the test's, sbdtest.py)."""

import os

import sbdtest
from sbdtest import DEVICE_IFACE, ERR, MANAGER_IFACE, ROOT, GLib, device_path

# the catalog's (systemd/sbdd.catalog) and audit.c's
SET = 'd5335123e8434d6e94ffa9cd24e12892'
ADDED = 'bf576c9807694788b492093b0882207a'
REMOVED = 'fb9146c576cb4fb0b75d598baec7ff63'
REFUSED = '9a076503942c44a9a3710a3c3417426f'
SUPPRESSED = '8db0b74e78b642ec87686d469433969e'
P0 = device_path(0)
LABEL_SET = "GLib.Variant('(ssv)', ('org.sbd.Sbd1.Device', 'Label', GLib.Variant('s', %r)))"


class Audit(sbdtest.SbdTestCase):
    ndevices = 1
    capture_journal = True

    def assertFields(self, entry, **fields):
        self.assertEqual({k: entry.get(k) for k in fields}, fields, entry)

    def test_set_by_root(self):
        self.set(P0, DEVICE_IFACE, 'Label', GLib.Variant('s', 'scratch'))
        [e] = self.wait_journal(MESSAGE_ID=SET)
        self.assertFields(e, SBD_ORIGIN='sbdd', SBD_OPERATION='Set', SBD_OBJECT=P0, SBD_ATTRIBUTE='label',
                          SBD_OLD_VALUE='sbd0', SBD_NEW_VALUE='scratch', SBD_RESULT='success',
                          SBD_CALLER_UID='0', SBD_CALLER_PID=str(os.getpid()), OBJECT_PID=str(os.getpid()),
                          SBD_POLKIT='not-asked', PRIORITY='6')
        self.assertTrue(e['SBD_CALLER_BUS_NAME'].startswith(':'), e)
        self.assertIn('label', e['MESSAGE'])
        # the uevent that follows the kernel's change is not a second record
        self.testbed.uevent(self.testbed.device_syspath(0), 'change')
        self.settle(0.5)
        self.assertEqual(len(self.journal_entries(MESSAGE_ID=SET)), 1, self.journal_entries())

    def test_set_by_user_through_polkit(self):
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])
        err, msg = self.call_as(sbdtest.NOBODY, P0, sbdtest.PROPS_IFACE, 'Set', LABEL_SET % 'granted')
        self.assertIsNone(err, msg)
        [e] = self.wait_journal(MESSAGE_ID=SET)
        self.assertFields(e, SBD_ORIGIN='sbdd', SBD_NEW_VALUE='granted', SBD_RESULT='success',
                          SBD_CALLER_UID=str(sbdtest.NOBODY), SBD_POLKIT='allowed')

    def test_refused_invalid_value(self):
        # hostile text is escaped and cut, as for polkit's dialog
        bad = 'a\nfake=entry' + 'x' * 200
        self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, 'Label', GLib.Variant('s', bad))
        [e] = self.wait_journal(MESSAGE_ID=REFUSED)
        self.assertFields(e, SBD_ORIGIN='sbdd', SBD_OPERATION='Set', SBD_OBJECT=P0, SBD_ATTRIBUTE='label',
                          SBD_RESULT=ERR + 'InvalidValue', SBD_POLKIT='not-reached', PRIORITY='5')
        self.assertTrue(e['SBD_NEW_VALUE'].startswith('a\\nfake=entry'), e)
        self.assertLessEqual(len(e['SBD_NEW_VALUE']), 70, e)
        self.assertNotIn('fake', self.journal_entries()[0].keys())
        self.assertEqual(self.journal_entries(MESSAGE_ID=SET), [])

    def test_refused_by_polkit(self):
        self.start_polkit(allowed=[])
        err, msg = self.call_as(sbdtest.NOBODY, P0, sbdtest.PROPS_IFACE, 'Set', LABEL_SET % 'nope')
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        [e] = self.wait_journal(MESSAGE_ID=REFUSED)
        self.assertFields(e, SBD_ORIGIN='sbdd', SBD_ATTRIBUTE='label', SBD_NEW_VALUE='nope',
                          SBD_RESULT=ERR + 'NotAuthorized', SBD_CALLER_UID=str(sbdtest.NOBODY),
                          SBD_POLKIT='denied')
        self.assertIn('SBD_CALLER_PID', e)

    def test_add_and_remove_device(self):
        result = []
        self.bus.call(sbdtest.BUS_NAME, ROOT, MANAGER_IFACE, 'AddDevice',
                      GLib.Variant('(ta{sv})', (1 << 20, {'id': GLib.Variant('u', 3)})), GLib.VariantType('(o)'),
                      0, 20000, None, lambda c, res: result.append(c.call_finish(res).unpack()))
        self.wait_for(lambda: self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device') != '',
                      message='sbdd did not write new_device')
        self.testbed.add_device(3, size=1 << 20)
        self.wait_for(lambda: result, message='AddDevice reply')
        [e] = self.wait_journal(MESSAGE_ID=ADDED)
        self.assertFields(e, SBD_ORIGIN='sbdd', SBD_OPERATION='AddDevice', SBD_OBJECT=device_path(3),
                          SBD_NEW_VALUE=str(1 << 20), SBD_RESULT='success', SBD_CALLER_UID='0')

        self.assertDBusError(ERR + 'DeviceGone', self.call, ROOT, MANAGER_IFACE, 'RemoveDevice',
                             GLib.Variant('(oa{sv})', (device_path(4), {})))
        [e] = self.wait_journal(MESSAGE_ID=REFUSED)
        self.assertFields(e, SBD_OPERATION='RemoveDevice', SBD_OBJECT=device_path(4), SBD_RESULT=ERR + 'DeviceGone')

        result = []
        self.bus.call(sbdtest.BUS_NAME, ROOT, MANAGER_IFACE, 'RemoveDevice',
                      GLib.Variant('(oa{sv})', (device_path(3), {})), None,
                      0, 20000, None, lambda c, res: result.append(c.call_finish(res)))
        self.wait_for(lambda: self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device') == 'sbd3',
                      message='sbdd did not write delete_device')
        self.testbed.remove_device(3)
        self.wait_for(lambda: result, message='RemoveDevice reply')
        [e] = self.wait_journal(MESSAGE_ID=REMOVED)
        self.assertFields(e, SBD_ORIGIN='sbdd', SBD_OPERATION='RemoveDevice', SBD_OBJECT=device_path(3),
                          SBD_RESULT='success', SBD_CALLER_UID='0')

    def test_changes_seen_from_uevents(self):
        # a direct write to sysfs, and another process's new_device and
        # delete_device: recorded, as not made through sbdd
        self.testbed.write(self.testbed.device_attr(0, 'label'), 'direct\n')
        self.testbed.uevent(self.testbed.device_syspath(0), 'change')
        [e] = self.wait_journal(MESSAGE_ID=SET)
        self.assertFields(e, SBD_ORIGIN='kernel', SBD_OPERATION='uevent', SBD_OBJECT=P0, SBD_ATTRIBUTE='label',
                          SBD_OLD_VALUE='sbd0', SBD_NEW_VALUE='direct', SBD_RESULT='success')
        self.assertNotIn('SBD_CALLER_UID', e)
        self.testbed.add_device(5)
        [e] = self.wait_journal(MESSAGE_ID=ADDED)
        self.assertFields(e, SBD_ORIGIN='kernel', SBD_OBJECT=device_path(5))
        self.testbed.remove_device(5)
        [e] = self.wait_journal(MESSAGE_ID=REMOVED)
        self.assertFields(e, SBD_ORIGIN='kernel', SBD_OBJECT=device_path(5))

    def test_flood_is_rate_limited(self):
        conf = os.path.join(self.logdir, 'sbdd.conf')
        with open(conf, 'w') as f:
            f.write('[Daemon]\nAuditRateLimitIntervalSec=2\nAuditRateLimitBurst=5\n')
        self.stop_sbdd()
        self.start_sbdd('--config=' + conf)
        for i in range(20):
            self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, 'Size', GLib.Variant('t', 1000 + i))
        # other kinds have their own budget
        self.set(P0, DEVICE_IFACE, 'Label', GLib.Variant('s', 'still'))
        self.wait_journal(MESSAGE_ID=SET, SBD_NEW_VALUE='still')
        [s] = self.wait_journal(MESSAGE_ID=SUPPRESSED, timeout=10)
        self.assertEqual(len(self.journal_entries(MESSAGE_ID=REFUSED)), 5)
        self.assertFields(s, SBD_SUPPRESSED='15', SBD_SUPPRESSED_KIND='refused')
        self.assertIn('Suppressed 15', s['MESSAGE'])


if __name__ == '__main__':
    sbdtest.main()
