#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile and careless callers (issue 10): input is checked before polkit
is asked, limits answer LimitsExceeded, forged events and root-only or
non-UTF-8 attributes cannot mislead the tree, and a request acts on the
kobject it was asked about. Each case changes nothing it should not."""

import errno
import os
import shutil

import sbdtest
from sbdtest import (DEVICE_IFACE, ERR, MANAGER_IFACE, MODULE, MODULE_IFACE, NOBODY, ROOT, GLib,
                     device_path)

P0 = device_path(0)
PROPS = 'org.freedesktop.DBus.Properties'
INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'
LIMITS = 'org.freedesktop.DBus.Error.LimitsExceeded'
# other unprivileged users: base-passwd's fixed system users (dbus-daemon
# refuses a connection whose uid has no passwd entry)
USERS = (NOBODY, 1, 2, 3, 5, 6, 7, 8, 9)


def set_expr(prop, vtype, value):
    return "GLib.Variant('(ssv)', ('org.sbd.Sbd1.Device', %r, GLib.Variant(%r, %r)))" % (prop, vtype, value)


class Validation(sbdtest.SbdTestCase):
    """Everything that can be checked without the kernel, before polkit."""
    ndevices = 1

    def setUp(self):
        super().setUp()
        # max_size as the kernel shows it (param_get_ullong: plain bytes)
        self.testbed.write('/sys/module/sbd/parameters/max_size', '1073741824\n', 0o444)

    def label(self):
        return self.testbed.read(self.testbed.device_attr(0, 'label'))

    def test_set_with_trailing_arguments_refused(self):
        big = GLib.Variant('ay', b'x' * (1 << 20))
        args = GLib.Variant.new_tuple(GLib.Variant('s', DEVICE_IFACE), GLib.Variant('s', 'Label'),
                                      GLib.Variant('v', GLib.Variant('s', 'smuggled')), big)
        self.assertDBusError(INVALID_ARGS, self.call, P0, PROPS, 'Set', args)
        self.assertDBusError(INVALID_ARGS, self.call, P0, PROPS, 'Set',
                             GLib.Variant('(ssvs)', (DEVICE_IFACE, 'Label', GLib.Variant('s', 'x'), 'y')))
        self.assertDBusError(INVALID_ARGS, self.call, P0, PROPS, 'Set', GLib.Variant('(ss)', (DEVICE_IFACE, 'Label')))
        self.assertEqual(self.label(), 'sbd0\n')

    def test_empty_string_refused(self):
        msg = self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, 'Label', GLib.Variant('s', ''))
        self.assertIn('empty', msg)
        self.assertEqual(self.label(), 'sbd0\n')

    def test_same_value_needs_no_polkit(self):
        self.start_polkit(allowed=[])
        for prop, vtype, value in (('Label', 's', 'sbd0'), ('Size', 't', 16 << 20), ('ReadOnly', 'b', False)):
            err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr(prop, vtype, value))
            self.assertIsNone(err, '%s: %s' % (prop, msg))
        err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Label', 's', 'other'))
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        self.assertEqual(self.polkit_obj.GetMethodCalls('CheckAuthorization', dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
                         .__len__(), 1)
        self.assertEqual(self.label(), 'sbd0\n')

    def checks(self):
        return self.polkit_obj.GetMethodCalls('CheckAuthorization', dbus_interface=sbdtest.dbusmock.MOCK_IFACE)

    def test_set_checked_before_polkit(self):
        # issue 19: values the module refuses went to polkit (a password
        # asked for nothing); now each rule is checked first
        self.start_polkit(allowed=[])
        self.testbed.write('/sys/module/sbd/parameters/max_total', '536870912\n', 0o444)
        for prop, vtype, value, rule in (
                ('Size', 't', 1000, 'positive multiple of 512'), ('Size', 't', 0, 'positive multiple of 512'),
                ('Size', 't', 2 << 30, "max_size of 1073741824 bytes"),
                ('Size', 't', 768 << 20, 'memory budget (max_total) of 536870912 bytes'),
                ('Label', 's', 'x' * 32, '1 to 31 characters, not 32'), ('Label', 's', 'two\nlines', 'printable ASCII'),
                ('Label', 's', 'tab\there', 'printable ASCII'), ('Label', 's', 'caf\u00e9', 'printable ASCII')):
            err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr(prop, vtype, value))
            self.assertEqual(err, ERR + 'InvalidValue', '%s=%r: %s' % (prop, value, msg))
            self.assertIn(rule, msg)
            # root gets the same answer: there is nothing to write
            self.assertDBusError(ERR + 'InvalidValue', self.set, P0, DEVICE_IFACE, prop, GLib.Variant(vtype, value))
        self.assertEqual(self.checks(), [])
        self.assertEqual(self.label(), 'sbd0\n')
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'size')), '%d\n' % (16 << 20))
        # what passes still goes to polkit, and on to the kernel
        err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Label', 's', '~' * 31))
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Size', 't', 512 << 20))
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        self.assertEqual(len(self.checks()), 2)

    def test_dialog_shows_a_harmless_copy(self):
        # 4 KiB of text with newlines could pose as other text in the dialog
        self.start_polkit(allowed=[])
        raw = 'Authentication is required\n' * 150
        err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Label', 's', raw))
        self.assertEqual(err, ERR + 'InvalidValue', msg)
        self.assertEqual(self.checks(), [])
        # an attribute with no rules of sbdd's goes to polkit: shortened, escaped
        for value, want in ((raw, 'Authentication is required\\nAuthentication is required\\nAuthenti...'),
                            ('a\u00e9\x1b[31m\\', 'a\\xc3\\xa9\\x1b[31m\\\\')):
            err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('PowerControl', 's', value))
            self.assertEqual(err, ERR + 'NotAuthorized', msg)
            shown = dict(self.checks()[-1][1][2])['value']
            self.assertEqual(shown, want)
            self.assertRegex(shown, r'^[\x20-\x7e]{1,67}$')
        self.assertEqual(len(self.checks()), 2)

    def load_as_nobody(self, params):
        return self.call_as(NOBODY, MODULE, MODULE_IFACE, 'Load', "GLib.Variant('(a{ss})', (%r,))" % (params,))

    def test_load_unload_with_nothing_to_do_ask_nobody(self):
        self.start_polkit(allowed=[])
        # live, with the parameters asked for (none: the configured ones)
        for params in ({}, {'ndevices': '1'}, {'ndevices': '1', 'max_size': '1073741824'}):
            err, msg = self.load_as_nobody(params)
            self.assertIsNone(err, '%r: %s' % (params, msg))
        self.assertEqual(self.checks(), [])
        # other parameters are a request polkit decides
        err, msg = self.load_as_nobody({'ndevices': '2'})
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        self.assertEqual(len(self.checks()), 1)
        # not loaded: Unload answers at once, Load asks
        shutil.rmtree(self.testbed.real('/sys/module/sbd'))
        err, msg = self.call_as(NOBODY, MODULE, MODULE_IFACE, 'Unload', None)
        self.assertEqual(err, ERR + 'ModuleNotLoaded', msg)
        self.assertEqual(len(self.checks()), 1)
        err, msg = self.load_as_nobody({})
        self.assertEqual(err, ERR + 'NotAuthorized', msg)
        self.assertEqual(len(self.checks()), 2)

    def test_method_signatures_exact(self):
        for path, iface, method, args in (
                (ROOT, MANAGER_IFACE, 'AddDevice', GLib.Variant('(t)', (1 << 20,))),
                (ROOT, MANAGER_IFACE, 'AddDevice', GLib.Variant('(ta{sv}s)', (1 << 20, {}, 'x'))),
                (ROOT, MANAGER_IFACE, 'RemoveDevice', GLib.Variant('(o)', (P0,))),
                (MODULE, MODULE_IFACE, 'Load', GLib.Variant('(a{sv})', ({},))),
                (MODULE, MODULE_IFACE, 'Unload', GLib.Variant('(s)', ('now',)))):
            self.assertDBusError(INVALID_ARGS, self.call, path, iface, method, args)
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device'), '')

    def load_args(self, pairs):
        entries = [GLib.Variant.new_dict_entry(GLib.Variant('s', k), GLib.Variant('s', v)) for k, v in pairs]
        return GLib.Variant.new_tuple(GLib.Variant.new_array(GLib.VariantType('{ss}'), entries))

    def test_load_parameters_bounded(self):
        # 40,000 parameters once kept sbdd busy for minutes before polkit
        pairs = [('p%d' % i, '1') for i in range(40000)]
        msg = self.assertDBusError(LIMITS, self.call, MODULE, MODULE_IFACE, 'Load', self.load_args(pairs))
        self.assertIn('64', msg)
        self.assertDBusError(LIMITS, self.call, MODULE, MODULE_IFACE, 'Load', self.load_args(pairs[:65]))
        self.assertDBusError(ERR + 'InvalidValue', self.call, MODULE, MODULE_IFACE, 'Load',
                             self.load_args([('size', '1M'), ('size', '2M')]))
        self.assertDBusError(ERR + 'InvalidValue', self.call, MODULE, MODULE_IFACE, 'Load',
                             self.load_args([('size', '1' * 300)]))
        # and it still answers at once
        self.assertEqual(self.get(MODULE, MODULE_IFACE, 'State'), 'live')

    def test_load_checked_before_polkit(self):
        self.start_polkit(allowed=[])
        expr = "GLib.Variant('(a{ss})', ({'p%d' % i: '1' for i in range(65)},))"
        err, msg = self.call_as(NOBODY, MODULE, MODULE_IFACE, 'Load', expr)
        self.assertEqual(err, LIMITS, msg)
        self.assertEqual(len(self.polkit_obj.GetMethodCalls('CheckAuthorization',
                                                            dbus_interface=sbdtest.dbusmock.MOCK_IFACE)), 0)

    def test_load_key_length_bounded_before_polkit(self):
        # No .ko on the test bed, so the module's parameter names are
        # unknown: only the length bounds a key (NAME_MAX, 255 bytes).
        self.start_polkit(allowed=[])
        for length, want in ((256, ERR + 'InvalidValue'), (1 << 20, ERR + 'InvalidValue'),
                             (255, ERR + 'NotAuthorized')):
            expr = "GLib.Variant('(a{ss})', ({'k' * %d: '1'},))" % length
            err, msg = self.call_as(NOBODY, MODULE, MODULE_IFACE, 'Load', expr)
            self.assertEqual(err, want, '%d: %s' % (length, msg[:300]))
            if length > 255:
                self.assertIn('longer than 255 bytes', msg)
        # only the key of 255 bytes reached polkit
        checks = self.polkit_obj.GetMethodCalls('CheckAuthorization', dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        self.assertEqual([dict(c[1][2])['parameters'] for c in checks], ['k' * 255 + '=1'])

    def add_as_nobody(self, size, options='{}'):
        return self.call_as(NOBODY, ROOT, MANAGER_IFACE, 'AddDevice', "GLib.Variant('(ta{sv})', (%d, %s))" % (size, options))

    def test_add_device_checked_before_polkit(self):
        for size in (0, 1000, 2 << 30):
            err, msg = self.add_as_nobody(size)
            self.assertEqual(err, ERR + 'InvalidValue', '%d: %s' % (size, msg))
        err, msg = self.add_as_nobody(1 << 20, "{'id': GLib.Variant('u', 0)}")
        self.assertEqual(err, ERR + 'Exists', msg)
        self.assertDBusError(ERR + 'InvalidValue', self.call, ROOT, MANAGER_IFACE, 'AddDevice', GLib.Variant.new_tuple(
            GLib.Variant('t', 1 << 20), GLib.Variant.new_array(GLib.VariantType('{sv}'), [
                GLib.Variant.new_dict_entry(GLib.Variant('s', 'id'), GLib.Variant('v', GLib.Variant('u', i)))
                for i in (5, 6)])), '(o)')
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')


class Introspection(sbdtest.SbdTestCase):
    ndevices = 1

    def test_writable_properties_not_marked_privileged(self):
        # polkit decides, so no org.freedesktop.systemd1.Privileged (root only)
        xml = self.call(P0, 'org.freedesktop.DBus.Introspectable', 'Introspect', None, '(s)')[0]
        self.assertIn('name="Label" type="s" access="readwrite"', xml)
        self.assertNotIn('org.freedesktop.systemd1.Privileged', xml)


class Events(sbdtest.SbdTestCase):
    """Believe the kernel, not forged events or root-only files."""
    ndevices = 2
    start_daemon = False

    def test_forged_remove_ignored(self):
        self.start_sbdd()
        s = self.testbed.device_syspath(0)
        # what writing "remove" to the uevent file makes the kernel send
        self.testbed.write(s + '/uevent', 'DRIVER=sbd\nSYNTH_UUID=0\n')
        self.testbed.uevent(s, 'remove')
        self.settle(0.5)
        self.assertIn(P0, self.get(ROOT, MANAGER_IFACE, 'Devices'))
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'Label'), 'sbd0')
        # a genuine remove (no SYNTH_UUID) is believed
        self.testbed.write(s + '/uevent', 'DRIVER=sbd\n')
        self.testbed.remove_device(0)
        self.wait_for(lambda: P0 not in self.get(ROOT, MANAGER_IFACE, 'Devices'), message='sbd0 not removed')

    def test_forged_module_remove_ignored(self):
        self.start_sbdd()
        self.subscribe('PropertiesChanged', path=MODULE)
        before = self.managed_objects()
        # what writing "remove" to /sys/module/sbd/uevent makes the kernel
        # send while the module, its driver and disks are all there
        self.testbed.write('/sys/module/sbd/uevent', 'SYNTH_UUID=0\n')
        self.testbed.uevent('/sys/module/sbd', 'remove')
        self.wait_for(lambda: 'uevent remove module /sys/module/sbd' in self.daemon_output(),
                      message='sbdd did not see the module remove uevent')
        self.settle(0.3)
        self.assertEqual(self.get(MODULE, MODULE_IFACE, 'State'), 'live')
        self.assertEqual(self.managed_objects(), before)
        self.assertEqual(self.properties_changed(MODULE, MODULE_IFACE), {})

    def test_uevent_not_writable(self):
        self.start_sbdd()
        self.assertDBusError('org.freedesktop.DBus.Error.PropertyReadOnly', self.set, P0, DEVICE_IFACE, 'Uevent',
                             GLib.Variant('s', 'remove'))
        self.assertEqual(self.testbed.read(self.testbed.device_syspath(0) + '/uevent'), 'DRIVER=sbd\n')

    def test_root_only_attributes_hidden(self):
        for n in range(2):
            self.testbed.write(self.testbed.device_attr(n, 'secret'), 'key\n', 0o600)
            self.testbed.write(self.testbed.device_attr(n, 'note'), 'open\n', 0o644)
        self.start_sbdd()
        props = self.get_all_variants(P0, DEVICE_IFACE)
        # listed (its name is in sysfs for all to see), its value never shown
        self.assertEqual(props['Secret'].unpack(), '')
        self.assertEqual(props['Note'].unpack(), 'open')
        self.assertDBusError(ERR + 'PermissionDenied', self.get, P0, DEVICE_IFACE, 'Secret')
        self.assertNotIn('key', repr(self.managed_objects()))

    def chmod(self, n, attr, mode):
        os.chmod(self.testbed.real(self.testbed.device_attr(n, attr)), mode)

    def test_chmod_followed(self):
        # issue 19, point 6: readability was taken from the first object
        # that had the attribute and never looked at again
        self.testbed.write(self.testbed.device_attr(1, 'secret'), 'key\n', 0o600)
        self.start_sbdd()
        self.subscribe('PropertiesChanged', device_path(1))
        self.assertEqual(self.get(device_path(1), DEVICE_IFACE, 'Label'), 'sbd1')
        # a chmod while sbdd runs (no uevent, no sysfs_notify) hides a value
        self.chmod(1, 'label', 0o600)
        self.wait_for(lambda: 'Label' in self.properties_changed(device_path(1)), message='Label hidden, signalled')
        self.assertEqual(self.properties_changed(device_path(1))['Label'], '')
        self.assertDBusError(ERR + 'PermissionDenied', self.get, device_path(1), DEVICE_IFACE, 'Label')
        self.assertEqual(self.get_all_variants(device_path(1), DEVICE_IFACE)['Label'].unpack(), '')
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'Label'), 'sbd0')  # only that object's file changed
        # and shows it again, as it shows a root-only file made readable
        self.signals.clear()
        self.chmod(1, 'label', 0o644)
        self.chmod(1, 'secret', 0o644)
        self.wait_for(lambda: {'Label', 'Secret'} <= set(self.properties_changed(device_path(1))),
                      message='Label and Secret shown, signalled')
        self.assertEqual(self.get(device_path(1), DEVICE_IFACE, 'Label'), 'sbd1')
        self.assertEqual(self.get(device_path(1), DEVICE_IFACE, 'Secret'), 'key')
        # a live attribute (read on each Get) is checked on each Get
        self.assertEqual(self.get(P0, DEVICE_IFACE, 'PowerControl'), 'auto')
        self.chmod(0, 'power/control', 0o600)
        self.assertDBusError(ERR + 'PermissionDenied', self.get, P0, DEVICE_IFACE, 'PowerControl')

    def test_chmod_followed_although_looking_failed(self):
        # A chmod whose fstatat() failed for want of memory was taken for a
        # file gone meanwhile and dropped: the value stayed shown to all.
        armed = os.path.join(self.logdir, 'refuse-read-armed')
        self.start_sbdd(refuse_read='label|%d|%s|stat' % (errno.ENOMEM, armed))
        self.subscribe('PropertiesChanged', device_path(1))
        open(armed, 'w').close()
        self.chmod(1, 'label', 0o600)
        self.wait_for(lambda: 'Cannot look at the mode of' in self.daemon_output(),
                      message='sbdd did not look at the mode')
        os.unlink(armed)
        self.wait_for(lambda: 'Label' in self.properties_changed(device_path(1)),
                      message='Label hidden once its mode could be looked at')
        self.assertEqual(self.properties_changed(device_path(1))['Label'], '')
        self.assertDBusError(ERR + 'PermissionDenied', self.get, device_path(1), DEVICE_IFACE, 'Label')

    def test_module_parameters_honour_modes(self):
        self.testbed.write('/sys/module/sbd/parameters/secret', 'key\n', 0o600)
        self.start_sbdd()
        params = self.get(MODULE, MODULE_IFACE, 'Parameters')
        self.assertNotIn('secret', params)
        self.assertEqual(params['size'], '16M')
        os.chmod(self.testbed.real('/sys/module/sbd/parameters/size'), 0o400)
        self.assertNotIn('size', self.get(MODULE, MODULE_IFACE, 'Parameters'))
        os.chmod(self.testbed.real('/sys/module/sbd/parameters/secret'), 0o444)
        self.assertEqual(self.get(MODULE, MODULE_IFACE, 'Parameters')['secret'], 'key')

    def test_non_utf8_text(self):
        self.start_sbdd()
        with open(self.testbed.real(self.testbed.device_attr(1, 'label')), 'wb') as f:
            f.write(b'ok\xff\xc3(\n')
        self.testbed.uevent(self.testbed.device_syspath(1), 'change')
        self.wait_for(lambda: self.get(device_path(1), DEVICE_IFACE, 'Label') == 'ok\ufffd\ufffd(',
                      message='Label with U+FFFD')
        self.assertEqual(self.get_all_variants(device_path(1), DEVICE_IFACE)['Label'].unpack(), 'ok\ufffd\ufffd(')
        objects = self.managed_objects()
        self.assertEqual(objects[device_path(1)][DEVICE_IFACE]['Label'], 'ok\ufffd\ufffd(')
        self.assertEqual(objects[P0][DEVICE_IFACE]['Label'], 'sbd0')


class UeventBuffer(sbdtest.SbdTestCase):
    start_daemon = False

    def test_small_buffer_is_a_warning(self):
        # as under the shipped unit: no CAP_NET_ADMIN, so no SO_RCVBUFFORCE
        self.start_sbdd(wrapper=('setpriv', '--bounding-set=-net_admin', '--inh-caps=-net_admin'))
        self.call(P0, 'org.freedesktop.DBus.Peer', 'Ping')
        self.assertRegex(self.daemon_output(), r'The uevent receive buffer is \d+ KiB, not the 128 MiB wanted')

    def test_full_buffer_as_root(self):
        self.start_sbdd()
        self.assertIn('The uevent receive buffer is 128 MiB.', self.daemon_output())


class Limits(sbdtest.SbdTestCase):
    ndevices = 1

    def test_authorizations_in_flight_bounded(self):
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])
        self.polkit_obj.SimulateHangActions(['org.sbd.sbd1.set-attribute'], dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        # one connection, many Sets in flight (the per-caller cap is 8)
        script = (
            "import json\n"
            "from gi.repository import GLib, Gio\n"
            "bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)\n"
            "res = []\n"
            "loop = GLib.MainLoop()\n"
            "def done(c, r):\n"
            "    try:\n"
            "        c.call_finish(r); res.append(None)\n"
            "    except GLib.Error as e:\n"
            "        res.append(Gio.DBusError.get_remote_error(e))\n"
            "    if len(res) == 12: loop.quit()\n"
            "for i in range(12):\n"
            "    bus.call('org.sbd.Sbd1', '%s', 'org.freedesktop.DBus.Properties', 'Set',\n"
            "             GLib.Variant('(ssv)', ('org.sbd.Sbd1.Device', 'Label', GLib.Variant('s', 'v%%d' %% i))),\n"
            "             None, 0, 60000, None, done)\n"
            "loop.run()\n"
            "print(json.dumps(res))\n") % P0
        import json
        import subprocess
        import sys
        p = subprocess.Popen(['setpriv', '--reuid=%d' % NOBODY, '--regid=%d' % NOBODY, '--clear-groups',
                              sys.executable, '-c', script], env=sbdtest.env_outside_testbed(),
                             stdout=subprocess.PIPE, text=True)
        self.wait_for(lambda: len(self.polkit_obj.GetMethodCalls('CheckAuthorization',
                                                                 dbus_interface=sbdtest.dbusmock.MOCK_IFACE)) >= 8,
                      message='8 checks reached polkit')
        self.settle(0.5)
        self.polkit_obj.ReleaseHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        out, _ = p.communicate(timeout=60)
        res = json.loads(out)
        self.assertEqual(res.count(LIMITS), 4, res)
        self.assertEqual(res.count(None), 8, res)
        self.assertEqual(len(self.polkit_obj.GetMethodCalls('CheckAuthorization',
                                                            dbus_interface=sbdtest.dbusmock.MOCK_IFACE)), 8)

    def checks(self, method='CheckAuthorization'):
        return len(self.polkit_obj.GetMethodCalls(method, dbus_interface=sbdtest.dbusmock.MOCK_IFACE))

    @staticmethod
    def set_label(conn, i, value=None):
        return {'conn': conn, 'tag': 'set %d %d' % (conn, i), 'path': P0, 'iface': PROPS, 'method': 'Set',
                'args': set_expr('Label', 's', value or 'c%dr%d' % (conn, i))}

    def test_authorizations_in_flight_bounded_in_all(self):
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute', 'org.sbd.sbd1.manage-devices'])
        self.polkit_obj.SimulateHangActions(['org.sbd.sbd1.set-attribute'], dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        # 8 users with 8 each: 64, every one of them waiting for polkit
        users = [sbdtest.CallMany(self, uid) for uid in USERS]
        for u in range(8):
            users[u].send([self.set_label(u, i) for i in range(8)])
        self.wait_for(lambda: self.checks() == 64, timeout=30, message='64 checks reached polkit')
        # a 9th user, with nothing of its own in flight, is refused at
        # once: the total is full (an action polkit would answer at once
        # is refused the same)
        users[8].send([self.set_label(8, i) for i in range(2)] + [
            {'conn': 8, 'tag': 'add', 'path': ROOT, 'iface': MANAGER_IFACE, 'method': 'AddDevice',
             'args': "GLib.Variant('(ta{sv})', (1048576, {}))"}])
        refused = users[8].answers(3)
        self.assertEqual(sorted(a['tag'] for a in refused), ['add', 'set 8 0', 'set 8 1'])
        for a in refused:
            self.assertEqual(a['error'], LIMITS, a)
            self.assertIn('(64 in all, 8 per user)', a['message'])
        # root is never refused: it needs no polkit
        self.set(P0, DEVICE_IFACE, 'ReadOnly', GLib.Variant('b', True))
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'read_only')), '1')
        # once polkit answers, the 64 are carried out
        self.polkit_obj.ReleaseHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        for u in range(8):
            users[u].p.stdin.close()
            self.assertEqual([a for a in users[u].answers(8) if a['error'] is not None], [])
        # and nothing refused was: no device, no label of the 9th user,
        # polkit never asked about it
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')
        self.assertRegex(self.testbed.read(self.testbed.device_attr(0, 'label')), r'^c[0-7]r[0-7]$')
        self.assertNotIn("'c8r", self.daemon_output())
        self.assertEqual(self.checks(), 64)

    def test_one_user_cannot_starve_others(self):
        # issue 19: the caps counted per connection, before the uid was
        # known, so one user's connections filled the total and root's
        # writes were refused with the rest
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])
        self.polkit_obj.SimulateHangActions(['org.sbd.sbd1.set-attribute'], dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        flood = sbdtest.CallMany(self, NOBODY)
        flood.send([self.set_label(conn, i) for conn in range(9) for i in range(8)])
        # 8 per user reach polkit, the other 64 are refused
        refused = flood.answers(64)
        self.assertEqual({a['error'] for a in refused}, {LIMITS}, refused[:3])
        self.assertIn('8 per user', refused[0]['message'])
        self.wait_for(lambda: self.checks() == 8, message='8 checks reached polkit')
        # root, on one connection with many writes at once, is never refused
        root = sbdtest.CallMany(self)
        root.send([{'conn': 0, 'tag': 'root %d' % i, 'path': P0, 'iface': PROPS, 'method': 'Set',
                    'args': set_expr('ReadOnly', 'b', i % 2 == 0)} for i in range(12)])
        self.assertEqual([a for a in root.answers(12) if a['error'] is not None], [])
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'read_only')), '0')
        # another user still reaches polkit
        other = sbdtest.CallMany(self, USERS[1])
        other.send([self.set_label(0, i, 'other%d' % i) for i in range(2)])
        self.wait_for(lambda: self.checks() == 10, message="the other user's checks reached polkit")
        self.polkit_obj.ReleaseHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        other.p.stdin.close()
        self.assertEqual([a for a in other.answers(2) if a['error'] is not None], [])
        flood.p.stdin.close()
        self.assertEqual([a for a in flood.answers(8) if a['error'] is not None], [])

    def test_disconnected_caller_frees_its_places(self):
        # the template with CancelCheckAuthorization, to see the cancels
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'],
                          template=os.path.join(sbdtest.HERE, 'polkitd_challenge.py'))
        self.polkit_obj.SimulateHangActions(['org.sbd.sbd1.set-attribute'], dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        gone = sbdtest.CallMany(self, NOBODY)
        gone.send([self.set_label(0, i, 'gone%d' % i) for i in range(8)])
        self.wait_for(lambda: self.checks() == 8, message='8 checks reached polkit')
        # the user's 8 places are taken, on any connection
        err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Label', 's', 'refused'))
        self.assertEqual(err, LIMITS, msg)
        # the caller leaves the bus: its checks are cancelled at once
        gone.close()
        self.wait_for(lambda: self.checks('CancelCheckAuthorization') == 8, message='8 checks cancelled')
        # and its places are free again, long before polkit would time out
        again = sbdtest.CallMany(self, NOBODY)
        again.send([self.set_label(0, i, 'again%d' % i) for i in range(8)])
        self.wait_for(lambda: self.checks() == 16, message='the new 8 checks reached polkit')
        self.polkit_obj.ReleaseHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        again.p.stdin.close()
        self.assertEqual([a for a in again.answers(8) if a['error'] is not None], [])
        # the late answers about the ones that left changed nothing
        self.assertRegex(self.testbed.read(self.testbed.device_attr(0, 'label')), r'^again[0-7]$')
        self.assertNotIn("'gone", self.daemon_output())

    def test_get_managed_objects_beyond_message_size(self):
        self.stop_sbdd()
        for n in range(1, 24):
            self.testbed.add_device(n, label='x' * 4000, event=False)
        conf = os.path.join(self.logdir, 'sbdd.conf')
        with open(conf, 'w') as f:
            f.write('[Daemon]\nMaxMessageSize=65536\n')
        self.start_sbdd('--config=' + conf)
        msg = self.assertDBusError(LIMITS, self.managed_objects)
        self.assertIn('65536', msg)
        # still connected, still serving
        self.assertEqual(self.get_name_owner(sbdtest.BUS_NAME), self.sbdd_unique_name)
        self.assertEqual(len(self.get(ROOT, MANAGER_IFACE, 'Devices')), 24)
        self.call(P0, 'org.freedesktop.DBus.Peer', 'Ping')


class Waiters(sbdtest.SbdTestCase):
    """AddDevice and RemoveDevice wait for the kernel's uevent: 8 per user
    and 64 in all may wait there, root's never count."""
    ndevices = 1

    @staticmethod
    def add(conn, n):
        return {'conn': conn, 'tag': 'add %d' % n, 'path': ROOT, 'iface': MANAGER_IFACE, 'method': 'AddDevice',
                'args': "GLib.Variant('(ta{sv})', (1048576, {'id': GLib.Variant('u', %d)}))" % n}

    def created(self):
        return self.daemon_output().count('Created a device with')

    def test_device_waiters_bounded(self):
        self.start_polkit(allowed=['org.sbd.sbd1.manage-devices'])
        # root: 9 on one connection, none refused (no limit refuses root)
        root = sbdtest.CallMany(self)
        root.send([self.add(0, n) for n in range(1, 10)])
        self.wait_for(lambda: self.created() == 9, message="root's 9 writes to new_device")
        # one user: 8 wait for their device, a 9th is refused, also from
        # another connection of the same user
        users = [sbdtest.CallMany(self, uid) for uid in USERS]
        users[0].send([self.add(0, n) for n in range(10, 18)])
        self.wait_for(lambda: self.created() == 17, message="the user's 8 writes to new_device")
        users[0].send([self.add(1, 100)])
        [a] = users[0].answers(1)
        self.assertEqual((a['tag'], a['error']), ('add 100', LIMITS), a)
        self.assertIn('waiting for devices (at most 64 in all, 8 per user)', a['message'])
        # 8 users with 8 each: 64 in all, and a 9th user with none of
        # its own waiting is refused, AddDevice and RemoveDevice alike
        for u in range(1, 8):
            users[u].send([self.add(0, 18 + 8 * (u - 1) + i) for i in range(8)])
        self.wait_for(lambda: self.created() == 73, message='64 writes of users to new_device')
        users[8].send([self.add(0, 101), {'conn': 0, 'tag': 'remove', 'path': ROOT, 'iface': MANAGER_IFACE,
                                          'method': 'RemoveDevice', 'args': "GLib.Variant('(oa{sv})', ('%s', {}))" % P0}])
        refused = users[8].answers(2)
        self.assertEqual(sorted(a['tag'] for a in refused), ['add 101', 'remove'])
        for a in refused:
            self.assertEqual(a['error'], LIMITS, a)
            self.assertIn('waiting for devices', a['message'])
        # root still is not
        root.send([self.add(0, 102)])
        self.wait_for(lambda: self.created() == 74, message="root's 10th write to new_device")
        # the kernel makes the devices: each request is answered
        for n in list(range(1, 74)) + [102]:
            self.testbed.add_device(n, size=1048576)
        root.p.stdin.close()
        self.assertEqual([a for a in root.answers(10) if a['error'] is not None], [])
        for u in range(8):
            users[u].p.stdin.close()
            self.assertEqual([a for a in users[u].answers(8) if a['error'] is not None], [])
        # and the refused ones were never written
        self.assertEqual(self.created(), 74)
        for n in (100, 101):
            self.assertNotIn("'1048576 %d'" % n, self.daemon_output())
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device'), '')
        self.assertEqual(len(self.get(ROOT, MANAGER_IFACE, 'Devices')), 75)


class Polkit(sbdtest.SbdTestCase):
    ndevices = 1

    def checks(self):
        return self.polkit_obj.GetMethodCalls('CheckAuthorization', dbus_interface=sbdtest.dbusmock.MOCK_IFACE)

    def test_details(self):
        self.start_polkit(allowed=[])
        self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Size', 't', 32 << 20))
        self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Label', 's', 'new'))
        self.call_as(NOBODY, ROOT, MANAGER_IFACE, 'AddDevice', "GLib.Variant('(ta{sv})', (%d, {}))" % (8 << 20))
        self.call_as(NOBODY, ROOT, MANAGER_IFACE, 'AddDevice',
                     "GLib.Variant('(ta{sv})', (%d, {'id': GLib.Variant('u', 7)}))" % (8 << 20))
        self.call_as(NOBODY, ROOT, MANAGER_IFACE, 'RemoveDevice', "GLib.Variant('(oa{sv})', ('%s', {}))" % P0)
        self.call_as(NOBODY, MODULE, MODULE_IFACE, 'Load', "GLib.Variant('(a{ss})', ({'size': '32M', 'ndevices': '2'},))")
        # (Load of the live module with its own parameters asks nobody:
        # Validation.test_load_unload_with_nothing_to_do_ask_nobody)
        self.call_as(NOBODY, MODULE, MODULE_IFACE, 'Load', "GLib.Variant('(a{ss})', ({},))")
        self.call_as(NOBODY, MODULE, MODULE_IFACE, 'Unload', None)
        calls = [(c[1][1], dict(c[1][2])) for c in self.checks()]
        # one action creates and deletes (loads and unloads): the dialog's
        # sentence for each comes as polkit.message, which polkitd expands
        # with the details as it does the .policy file's messages
        msg = 'Authentication is required to '
        self.assertEqual(calls, [
            ('org.sbd.sbd1.set-attribute', {'device': 'sbd0', 'attribute': 'size', 'value': str(32 << 20),
                                            'destructive': 'true'}),
            ('org.sbd.sbd1.set-attribute', {'device': 'sbd0', 'attribute': 'label', 'value': 'new',
                                            'destructive': 'false'}),
            ('org.sbd.sbd1.manage-devices', {
                'size': str(8 << 20),
                'polkit.message': msg + 'create a simple block device of $(size) bytes.'}),
            ('org.sbd.sbd1.manage-devices', {
                'size': str(8 << 20), 'id': '7',
                'polkit.message': msg + 'create the simple block device sbd$(id) of $(size) bytes.'}),
            ('org.sbd.sbd1.manage-devices', {
                'device': 'sbd0', 'destructive': 'true',
                'polkit.message': msg + 'delete the simple block device $(device) and the data on it.'}),
            ('org.sbd.sbd1.manage-module', {
                'module': 'sbd', 'parameters': 'size=32M ndevices=2',
                'polkit.message': msg + 'load the kernel module $(module) with the parameters $(parameters).'}),
            ('org.sbd.sbd1.manage-module', {
                'module': 'sbd', 'destructive': 'true',
                'polkit.message': msg + 'unload the kernel module $(module), deleting its simple block devices '
                                        'and the data on them.'})])

    def test_interactive_authorization_required(self):
        self.start_polkit(template=os.path.join(sbdtest.HERE, 'polkitd_challenge.py'))
        self.polkit_obj.SetChallenge(['org.sbd.sbd1.set-attribute'], dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Label', 's', 'new'))
        self.assertEqual(err, 'org.freedesktop.DBus.Error.InteractiveAuthorizationRequired', msg)
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'label')), 'sbd0\n')
        err, msg = self.call_as(NOBODY, P0, PROPS, 'Set', set_expr('Label', 's', 'new'), interactive=True)
        self.assertIsNone(err, msg)
        self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'label')), 'new')


class Identity(sbdtest.SbdTestCase):
    ndevices = 1

    def test_set_after_recreation_goes_nowhere(self):
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute', 'org.sbd.sbd1.manage-devices'])
        for method, expr in (('Set', set_expr('Label', 's', 'late')),
                             ('RemoveDevice', "GLib.Variant('(oa{sv})', ('%s', {}))" % P0)):
            self.polkit_obj.SimulateHang(True, dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
            iface = PROPS if method == 'Set' else MANAGER_IFACE
            p = self.call_as_start(NOBODY, ROOT if method != 'Set' else P0, iface, method, expr)
            self.wait_for(lambda: self.polkit_obj.HaveHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE),
                          message='the call did not reach polkit')
            # sbd0 is deleted and a new sbd0 created while polkit thinks;
            # the old directory is held open so that the test bed's file
            # system cannot give the new one its inode number (kernfs
            # numbers its nodes cyclically and never does that at once)
            old = os.open(self.testbed.real(self.testbed.device_syspath(0)), os.O_RDONLY | os.O_DIRECTORY)
            self.addCleanup(os.close, old)
            self.testbed.remove_device(0)
            self.wait_for(lambda: self.get(ROOT, MANAGER_IFACE, 'Devices') == [], message='not removed')
            self.testbed.add_device(0, label='newborn')
            self.wait_for(lambda: self.get(ROOT, MANAGER_IFACE, 'Devices') == [P0], message='not re-added')
            self.polkit_obj.SimulateHang(False, dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
            self.polkit_obj.ReleaseHangingCalls(dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
            err, msg = self.call_as_finish(p)
            self.assertEqual(err, ERR + 'DeviceGone', '%s: %s' % (method, msg))
            self.assertEqual(self.testbed.read(self.testbed.device_attr(0, 'label')), 'newborn\n')
            self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device'), '')


if __name__ == '__main__':
    sbdtest.main()
