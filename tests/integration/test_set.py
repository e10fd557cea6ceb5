#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Properties.Set: forwarding to sysfs, read-back, signals and every bad input."""

import os

import sbdtest
from sbdtest import DEVICE_IFACE, DRIVER, DRIVER_IFACE, ERR, MODULE, MODULE_IFACE, GLib, device_path

P0 = device_path(0)


class Set(sbdtest.SbdTestCase):

    def setUp(self):
        super().setUp()
        self.subscribe('PropertiesChanged')

    def attr(self, a, n=0):
        return self.testbed.device_attr(n, a)

    def test_set_label_forwarded_and_signalled(self):
        self.set(P0, DEVICE_IFACE, 'Label', GLib.Variant('s', 'scratch'))
        # the exact value, in one write, without a newline
        self.assertEqual(self.testbed.read(self.attr('label')), 'scratch')
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'Label'), 'scratch')
        self.wait_for(lambda: self.properties_changed(P0).get('Label') == 'scratch',
                      message='no PropertiesChanged for Label')

    def test_set_typed(self):
        self.set(P0, DEVICE_IFACE, 'ReadOnly', GLib.Variant('b', True))
        self.assertEqual(self.testbed.read(self.attr('read_only')), '1')
        self.set(P0, DEVICE_IFACE, 'Online', GLib.Variant('b', False))
        self.assertEqual(self.testbed.read(self.attr('online')), '0')
        self.set(P0, DEVICE_IFACE, 'Size', GLib.Variant('t', 64 * 1024 * 1024))
        self.assertEqual(self.testbed.read(self.attr('size')), str(64 * 1024 * 1024))
        self.wait_for(lambda: self.properties_changed(P0) == {
            'ReadOnly': True, 'Online': False, 'Size': 64 * 1024 * 1024},
            message='PropertiesChanged with the typed values')
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'Size'), 64 * 1024 * 1024)
        self.assertIs(self.get(P0, DEVICE_IFACE, 'ReadOnly'), True)

    def test_set_same_value_no_signal(self):
        # the same value as the cache: answered without writing (or polkit)
        self.set(P0, DEVICE_IFACE, 'Label', GLib.Variant('s', 'sbd0'))
        self.assertEqual(self.testbed.read(self.attr('label')), 'sbd0\n')
        self.settle()
        self.assertEqual(self.properties_changed(P0), {})

    def test_set_power_control_live(self):
        self.set(P0, DEVICE_IFACE, 'PowerControl', GLib.Variant('s', 'on'))
        self.assertEqual(self.testbed.read(self.attr('power/control')), 'on')
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'PowerControl'), 'on')

    def test_kernel_normalises_value(self):
        # the test plays a kernel that stores "1" for "y": the read-back wins
        self.set(P0, DEVICE_IFACE, 'Label', GLib.Variant('s', 'x'))
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'Label'), 'x')

    # bad input: each gets a clear error and leaves sysfs unchanged

    def assert_unchanged(self):
        self.assertEqual(self.testbed.read(self.attr('label')), 'sbd0\n')
        self.assertEqual(self.testbed.read(self.attr('size')), '%d\n' % (16 << 20))
        self.assertEqual(self.testbed.read(self.attr('read_only')), '0\n')

    def test_wrong_variant_types(self):
        for prop, v in (('Size', GLib.Variant('s', '1M')), ('Size', GLib.Variant('u', 4096)),
                        ('Size', GLib.Variant('i', -1)), ('ReadOnly', GLib.Variant('s', '1')),
                        ('ReadOnly', GLib.Variant('u', 1)), ('Label', GLib.Variant('b', True)),
                        ('Label', GLib.Variant('as', ['a']))):
            self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, prop, v)
        self.assert_unchanged()

    def test_huge_string_refused_before_writing(self):
        for n in (4096, 4097, 100000):
            msg = self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, 'Label',
                                       GLib.Variant('s', 'a' * n))
            self.assertIn('too long', msg)
        # one byte less than a page goes through to the kernel (to an
        # attribute without rules of sbdd's: a label has at most 31)
        self.set(P0, DEVICE_IFACE, 'PowerControl', GLib.Variant('s', 'b' * 4095))
        self.assertEqual(self.testbed.read(self.attr('power/control')), 'b' * 4095)

    def test_huge_string_unchanged(self):
        self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, 'Label',
                             GLib.Variant('s', 'a' * 5000))
        self.assert_unchanged()
        self.settle()
        self.assertEqual(self.properties_changed(P0), {})

    def test_kernel_einval(self):
        # The test plays a kernel whose store() answers EINVAL: the attribute
        # file is a link to a file that refuses the value the same way
        # (oom_score_adj takes -1000..1000 only).
        os.unlink(self.testbed.real(self.attr('size')))
        os.symlink('/proc/self/oom_score_adj', self.testbed.real(self.attr('size')))
        # (5120 passes sbdd's own checks: a multiple of 512)
        msg = self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, 'Size',
                                   GLib.Variant('t', 5120))
        self.assertIn('Invalid argument', msg)
        # ERANGE is InvalidValue too
        msg = self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, 'Size',
                                   GLib.Variant('t', 1 << 62))
        self.assertIn('ERANGE', msg)
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'Size'), 16 << 20)

    def test_kernel_other_errno(self):
        # a store() failing with ENOSPC: KernelError carrying the errno's text
        os.unlink(self.testbed.real(self.attr('label')))
        os.symlink('/dev/full', self.testbed.real(self.attr('label')))
        msg = self.assertDBusError(ERR + 'KernelError', self.set, P0, DEVICE_IFACE, 'Label',
                                   GLib.Variant('s', 'x'))
        self.assertIn('No space left on device', msg)

    def test_read_only_properties(self):
        for path, iface, prop, v in (
                (P0, DEVICE_IFACE, 'Name', GLib.Variant('s', 'x')),
                (P0, DEVICE_IFACE, 'Device', GLib.Variant('s', 'x')),
                (P0, DEVICE_IFACE, 'PowerRuntimeStatus', GLib.Variant('s', 'active')),
                (P0, DEVICE_IFACE, 'SysName', GLib.Variant('s', 'x')),
                (P0, DEVICE_IFACE, 'Driver', GLib.Variant('o', '/')),
                (DRIVER, DRIVER_IFACE, 'Version', GLib.Variant('s', 'x')),
                (DRIVER, DRIVER_IFACE, 'Ndevices', GLib.Variant('u', 5)),
                (MODULE, MODULE_IFACE, 'State', GLib.Variant('s', 'x'))):
            self.assertDBusError('org.freedesktop.DBus.Error.PropertyReadOnly', self.set, path, iface, prop, v)
        self.assertEqual(self.testbed.read(self.attr('name')), 'Simple block device\n')
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/version'), '1.0\n')

    def test_unknown_device_and_property(self):
        self.assertDBusError('org.freedesktop.DBus.Error.UnknownObject', self.set, device_path(9),
                             DEVICE_IFACE, 'Label', GLib.Variant('s', 'x'))
        self.assertDBusError('org.freedesktop.DBus.Error.UnknownProperty', self.set, P0,
                             DEVICE_IFACE, 'NoSuchThing', GLib.Variant('s', 'x'))
        # sd-bus answers an unknown interface in Set with UnknownProperty
        self.assertDBusError('org.freedesktop.DBus.Error.UnknownProperty', self.set, P0,
                             'org.sbd.Sbd1.Nope', 'Label', GLib.Variant('s', 'x'))

    def test_device_removed_behind_our_back(self):
        # the directory is gone (no uevent yet): the write finds no device
        self.testbed.remove_device(0, event=False)
        self.assertDBusError(ERR + 'DeviceGone', self.set, P0, DEVICE_IFACE, 'Label', GLib.Variant('s', 'x'))


class SetAuthorization(sbdtest.SbdTestCase):
    ndevices = 1

    def set_as_nobody(self, value='fromuser', interactive=False):
        return self.call_as(sbdtest.NOBODY, P0, 'org.freedesktop.DBus.Properties', 'Set',
                            "GLib.Variant('(ssv)', ('org.sbd.Sbd1.Device', 'Label', GLib.Variant('s', %r)))" % value,
                            interactive=interactive)

    def test_nobody_can_read(self):
        err, result = self.call_as(sbdtest.NOBODY, P0, 'org.freedesktop.DBus.Properties', 'Get',
                                   "GLib.Variant('(ss)', ('org.sbd.Sbd1.Device', 'Label'))")
        self.assertIsNone(err, result)
        self.assertIn('sbd0', result)

    def test_no_polkit_only_root(self):
        err, msg = self.set_as_nobody()
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        self.assertIn('polkit is not available', msg)
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'label')), 'sbd0\n')
        self.set(P0, DEVICE_IFACE, 'Label', GLib.Variant('s', 'byroot'))
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'label')), 'byroot')

    def test_polkit_denies(self):
        self.start_polkit(allowed=[])
        err, msg = self.set_as_nobody()
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'label')), 'sbd0\n')
        # another action does not help
        self.polkit_set_allowed(['org.sbd.sbd1.manage-devices'])
        err, msg = self.set_as_nobody()
        self.assertEqual(err, ERR + 'NotAuthorized', msg)

    def test_polkit_allows(self):
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])
        err, msg = self.set_as_nobody('granted', interactive=True)
        self.assertIsNone(err, msg)
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'label')), 'granted')
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'Label'), 'granted')

    def test_bad_input_refused_before_polkit(self):
        self.start_polkit(allowed=[])
        err, msg = self.call_as(sbdtest.NOBODY, P0, 'org.freedesktop.DBus.Properties', 'Set',
                                "GLib.Variant('(ssv)', ('org.sbd.Sbd1.Device', 'Size', GLib.Variant('s', 'big')))")
        self.assertEqual(err, ERR + 'InvalidValue', msg)

    def test_device_removed_while_polkit_thinks(self):
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])
        self.polkit_obj.SimulateHangActions(['org.sbd.sbd1.set-attribute'], dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        p = self.call_as_start(sbdtest.NOBODY, P0, 'org.freedesktop.DBus.Properties', 'Set',
                               "GLib.Variant('(ssv)', ('org.sbd.Sbd1.Device', 'Label', GLib.Variant('s', 'late')))")
        self.wait_for(lambda: self.polkit_obj.HaveHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE),
                      message='the Set did not reach polkit')
        self.testbed.remove_device(0)
        self.wait_for(lambda: self.get(sbdtest.ROOT, sbdtest.MANAGER_IFACE, 'Devices') == [],
                      message='device not removed')
        self.polkit_obj.ReleaseHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        err, msg = self.call_as_finish(p)
        self.assertEqual(err, ERR + 'DeviceGone', msg)


if __name__ == '__main__':
    sbdtest.main()
