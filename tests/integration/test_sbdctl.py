#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sbdctl against the real sbdd: every command, its JSON, bad input, refused
writes, and monitor seeing changes made behind the daemon's back.

sbdctl runs without umockdev's preload (it must never touch sysfs) and talks
to the private system bus through $DBUS_SYSTEM_BUS_ADDRESS, as it would to
the real one.
"""

import json
import os
import fcntl
import pty
import select
import shutil
import tempfile
import termios
import signal
import subprocess
import time

import sbdtest
from sbdtest import DEVICE_IFACE, ERR, device_path

M16 = 16 << 20
PROPERTY_READ_ONLY = 'org.freedesktop.DBus.Error.PropertyReadOnly'


def client_env():
    return sbdtest.env_outside_testbed('SYSTEMD_PAGER', 'PAGER', 'SYSTEMD_COLORS', 'NO_COLOR', 'SYSTEMD_LESS')


class SbdctlTestCase(sbdtest.SbdTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.sbdctl_path = sbdtest.program_from_env('SBDCTL', 'sbdctl')

    def sbdctl(self, *args, status=0, uid=None, stdin=subprocess.DEVNULL, timeout=30):
        """Runs sbdctl to its end; checks the exit status; returns (stdout, stderr)."""
        cmd = [self.sbdctl_path] + list(args)
        if uid is not None:
            cmd = ['setpriv', '--reuid=%d' % uid, '--regid=%d' % uid, '--clear-groups'] + cmd
        p = subprocess.run(cmd, env=client_env(), capture_output=True, text=True, timeout=timeout,
                           stdin=stdin)
        self.assertEqual(p.returncode, status, 'sbdctl %s: exit %d\nstdout: %s\nstderr: %s' % (
            ' '.join(args), p.returncode, p.stdout, p.stderr))
        return p.stdout, p.stderr

    def sbdctl_json(self, *args):
        out, err = self.sbdctl('--json', *args)
        self.assertEqual(err, '')
        return json.loads(out)

    def sbdctl_start(self, *args):
        return subprocess.Popen([self.sbdctl_path] + list(args), env=client_env(), text=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish(self, p, status=0):
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, status, 'stdout: %s\nstderr: %s' % (out, err))
        return out, err

    def attr(self, n, a):
        return self.testbed.read(self.testbed.device_attr(n, a))

    def refuse_like_kernel(self, n, a, target='/proc/self/oom_score_adj'):
        """Makes attribute a answer writes as a kernel store() refusing them."""
        f = self.testbed.real(self.testbed.device_attr(n, a))
        os.unlink(f)
        os.symlink(target, f)


class Read(SbdctlTestCase):

    def setUp(self):
        super().setUp()

    def test_list(self):
        self.testbed.write(self.testbed.device_attr(1, 'label'), 'data\n')
        self.testbed.uevent(self.testbed.device_syspath(1), 'change')
        self.wait_for(lambda: self.get(device_path(1), DEVICE_IFACE, 'Label') == 'data')
        out, err = self.sbdctl('list')
        self.assertEqual(err, '')
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ['DEVICE', 'SIZE', 'READ-ONLY', 'ONLINE', 'LABEL', 'BLOCK'])
        self.assertEqual(lines[1].split(), ['sbd0', '16.0M', 'no', 'yes', 'sbd0', '/dev/sbd0'])
        self.assertEqual(lines[2].split(), ['sbd1', '16.0M', 'no', 'yes', 'data', '/dev/sbd1'])
        self.assertEqual(lines[3:], ['', '2 devices listed.'])
        # no escape sequences when not on a terminal
        self.assertNotIn('\x1b', out)
        # columns are aligned
        self.assertEqual(lines[1].index('16.0M'), lines[0].index('SIZE'))
        # the default command is list
        self.assertEqual(self.sbdctl()[0], out)

    def test_list_no_legend(self):
        out, _ = self.sbdctl('list', '--no-legend')
        self.assertEqual([line.split()[0] for line in out.splitlines()], ['sbd0', 'sbd1'])

    def test_list_json(self):
        self.assertEqual(self.sbdctl_json('list'), [
            {'name': 'sbd%d' % n, 'path': device_path(n), 'size': M16, 'read_only': False,
             'online': True, 'label': 'sbd%d' % n, 'block_device': '/dev/sbd%d' % n} for n in range(2)])

    def test_list_sorted_naturally(self):
        self.testbed.add_device(10, size=1 << 20)
        self.testbed.add_device(2, size=1 << 20)
        self.wait_for(lambda: len(self.get(sbdtest.ROOT, sbdtest.MANAGER_IFACE, 'Devices')) == 4)
        self.assertEqual([d['name'] for d in self.sbdctl_json('list')], ['sbd0', 'sbd1', 'sbd2', 'sbd10'])
        out, _ = self.sbdctl('list', '--no-legend')
        self.assertEqual(out.splitlines()[2].split()[:2], ['sbd2', '1.0M'])

    def test_show(self):
        # an attribute this project does not know (a newer module's) is shown too, as s
        self.stop_sbdd()
        self.testbed.write(self.testbed.device_attr(0, 'new_attr'), 'hello\n', 0o444)
        self.start_sbdd()
        out, err = self.sbdctl('show', 'sbd0')
        self.assertEqual(err, '')
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ['PROPERTY', 'TYPE', 'ACCESS', 'VALUE'])
        self.assertEqual(lines[-2], '')
        rows = {line.split()[0]: line.split(None, 3)[1:] for line in lines[1:-2]}
        self.assertEqual(rows['Size'], ['t', 'readwrite', '16.0M (16777216)'])
        self.assertEqual(rows['ReadOnly'], ['b', 'readwrite', 'no'])
        self.assertEqual(rows['Online'], ['b', 'readwrite', 'yes'])
        self.assertEqual(rows['Label'], ['s', 'readwrite', 'sbd0'])
        self.assertEqual(rows['Name'], ['s', 'read', 'Simple block device'])
        self.assertEqual(rows['SysName'], ['s', 'read', 'sbd0'])
        self.assertEqual(rows['Driver'], ['o', 'read', '/org/sbd/Sbd1/drivers/sbd'])
        self.assertEqual(rows['NewAttr'], ['s', 'read', 'hello'])
        # the live power/ attributes GetAll leaves out are read by name
        self.assertEqual(rows['PowerRuntimeStatus'], ['s', 'read', 'suspended'])
        self.assertEqual(rows['PowerControl'], ['s', 'readwrite', 'auto'])
        # every property the daemon has, and nothing else
        names = set(self.get_all_variants(device_path(0), DEVICE_IFACE)) | {
            'PowerControl', 'PowerRuntimeStatus', 'PowerRuntimeActiveTime', 'PowerRuntimeSuspendedTime',
            'PowerAutosuspendDelayMs', 'MemUsed'}
        self.assertEqual(set(rows), names)
        self.assertEqual(lines[-1], '%d properties of sbd0 (%s).' % (len(names), device_path(0)))
        # sorted by name
        self.assertEqual(list(rows), sorted(rows))

    def test_show_json(self):
        doc = self.sbdctl_json('show', device_path(1))
        self.assertEqual(doc['path'], device_path(1))
        self.assertEqual(doc['name'], 'sbd1')
        props = doc['properties']
        self.assertEqual(props['Size'], M16)
        self.assertIs(props['ReadOnly'], False)
        self.assertIs(props['Online'], True)
        self.assertEqual(props['Label'], 'sbd1')
        self.assertEqual(props['BlockDevice'], '/dev/sbd1')
        self.assertEqual(props['PowerRuntimeSuspendedTime'], '1234')
        self.assertEqual(set(props) - set(self.get_all_variants(device_path(1), DEVICE_IFACE)), {
            'PowerControl', 'PowerRuntimeStatus', 'PowerRuntimeActiveTime', 'PowerRuntimeSuspendedTime',
            'PowerAutosuspendDelayMs', 'MemUsed'})

    def test_get(self):
        for attr in ('size', 'Size'):
            self.assertEqual(self.sbdctl('get', 'sbd0', attr), ('%d\n' % M16, ''))
        self.assertEqual(self.sbdctl('get', 'sbd1', 'read_only')[0], 'no\n')
        self.assertEqual(self.sbdctl('get', '/dev/sbd1', 'ReadOnly')[0], 'no\n')
        self.assertEqual(self.sbdctl('get', 'sbd1', 'label')[0], 'sbd1\n')
        self.assertEqual(self.sbdctl('get', 'sbd1', 'power/control')[0], 'auto\n')
        self.assertEqual(self.sbdctl('get', device_path(0), 'name')[0], 'Simple block device\n')
        # also on the driver, by object path
        self.assertEqual(self.sbdctl('get', sbdtest.DRIVER, 'version')[0], '1.0\n')

    def test_get_json(self):
        self.assertEqual(self.sbdctl_json('get', 'sbd0', 'size'),
                         {'path': device_path(0), 'property': 'Size', 'type': 't', 'value': M16})
        self.assertEqual(self.sbdctl_json('get', 'sbd0', 'read_only'),
                         {'path': device_path(0), 'property': 'ReadOnly', 'type': 'b', 'value': False})
        self.assertEqual(self.sbdctl_json('get', sbdtest.DRIVER, 'ndevices'),
                         {'path': sbdtest.DRIVER, 'property': 'Ndevices', 'type': 'u', 'value': 2})

    def test_get_bad(self):
        _, err = self.sbdctl('get', 'sbd7', 'size', status=1)
        self.assertIn('sbd7', err)
        self.assertIn('org.freedesktop.DBus.Error.UnknownObject', err)
        _, err = self.sbdctl('get', 'sbd0', 'no_such_attribute', status=1)
        self.assertEqual(err, "sbdctl: sbd0 has no attribute 'no_such_attribute' (no property NoSuchAttribute).\n")
        _, err = self.sbdctl('get', 'sbd0', 'bad-name', status=1)
        self.assertEqual(err, "sbdctl: Invalid attribute name 'bad-name'.\n")
        _, err = self.sbdctl('get', 'sbd/0', 'size', status=1)
        self.assertIn("Invalid device 'sbd/0'", err)
        # write-only attributes are no properties
        _, err = self.sbdctl('get', sbdtest.DRIVER, 'new_device', status=1)
        self.assertIn('no property NewDevice', err)
        _, err = self.sbdctl('get', 'sbd0', status=1)
        self.assertIn('Too few arguments', err)

    def test_module(self):
        out, err = self.sbdctl('module')
        self.assertEqual(err, '')
        fields = dict(line.strip().split(': ', 1) for line in out.splitlines())
        self.assertEqual(fields['Name'], 'sbd')
        self.assertEqual(fields['State'], 'live')
        self.assertEqual(fields['RefCount'], '0')
        self.assertEqual(sorted(fields['Parameters'].split()), ['max_size=1G', 'ndevices=2', 'size=16M'])
        self.assertEqual(fields['Version'], '1.0')
        self.assertEqual(fields['Daemon'], '0.1.0')

    def test_module_json(self):
        self.assertEqual(self.sbdctl_json('module'), {
            'name': 'sbd', 'state': 'live', 'ref_count': 0,
            'parameters': {'ndevices': '2', 'size': '16M', 'max_size': '1G'},
            'version': '1.0', 'daemon_version': '0.1.0'})

    def test_help_and_version(self):
        out, _ = self.sbdctl('--help')
        for verb in ('list', 'show DEV', 'get DEV ATTR', 'set DEV ATTR VALUE', 'add SIZE', 'remove DEV',
                     'module', 'monitor', '--json', '--no-pager', '--no-legend', '--address'):
            self.assertIn(verb, out)
        self.assertRegex(self.sbdctl('--version')[0], r'^sbdctl \d+\.\d+')

    def test_usage_errors(self):
        for args, text in ((['frobnicate'], "Unknown command 'frobnicate'"),
                           (['--frobnicate'], 'unrecognized option'),
                           (['list', 'extra'], "Too many arguments for 'list'"),
                           (['list', '--id', '3'], '--id is only valid with the add command'),
                           (['module', 'frob'], "Unknown module command 'frob'"),
                           (['module', 'unload', 'now'], 'takes no arguments')):
            _, err = self.sbdctl(*args, status=1)
            self.assertIn(text, err)

    def test_daemon_not_running(self):
        self.stop_sbdd()
        _, err = self.sbdctl('list', status=1)
        self.assertIn('sbdctl: Failed to list the devices: ', err)
        self.assertIn('(org.freedesktop.DBus.Error.ServiceUnknown)', err)
        _, err = self.sbdctl('--address', 'unix:path=/nonexistent', 'list', status=1)
        self.assertIn('Failed to connect to unix:path=/nonexistent', err)


class Write(SbdctlTestCase):

    def setUp(self):
        super().setUp()
        self.subscribe('PropertiesChanged')

    def test_set_typed_from_introspection(self):
        for value, sysfs in (('yes', '1'), ('off', '0'), ('TRUE', '1'), ('0', '0'), ('on', '1')):
            self.assertEqual(self.sbdctl('set', 'sbd0', 'read_only', value), ('', ''))
            self.assertEqual(self.attr(0, 'read_only'), sysfs)
        self.sbdctl('set', 'sbd0', 'Online', 'no')
        self.assertEqual(self.attr(0, 'online'), '0')
        self.sbdctl('set', 'sbd0', 'size', '64M')
        self.assertEqual(self.attr(0, 'size'), str(64 << 20))
        self.sbdctl('set', 'sbd0', 'size', '1048576')
        self.assertEqual(self.attr(0, 'size'), '1048576')
        self.sbdctl('set', 'sbd1', 'label', 'my disk')
        self.assertEqual(self.attr(1, 'label'), 'my disk')
        self.sbdctl('set', 'sbd1', 'power/control', 'on')
        self.assertEqual(self.attr(1, 'power/control'), 'on')
        self.wait_for(lambda: self.properties_changed(device_path(1)).get('Label') == 'my disk')

    def test_set_json_prints_the_read_back(self):
        self.assertEqual(self.sbdctl_json('set', 'sbd0', 'size', '32M'),
                         {'path': device_path(0), 'property': 'Size', 'type': 't', 'value': 32 << 20})
        self.assertEqual(self.sbdctl_json('set', 'sbd0', 'ReadOnly', 'yes'),
                         {'path': device_path(0), 'property': 'ReadOnly', 'type': 'b', 'value': True})

    def assert_unchanged(self):
        self.assertEqual(self.attr(0, 'size'), '%d\n' % M16)
        self.assertEqual(self.attr(0, 'read_only'), '0\n')
        self.assertEqual(self.attr(0, 'label'), 'sbd0\n')

    def test_set_bad_values_refused_by_the_daemon(self):
        # text that is no value of the property's type goes to the daemon
        # as it is: its InvalidValue is the answer, with sbdctl's hint
        _, err = self.sbdctl('set', 'sbd0', 'size', '12x', status=1)
        self.assertEqual(err, "sbdctl: Failed to set Size of sbd0 to '12x': Property Size takes a value "
                              "of type 't', not 's'. (org.sbd.Sbd1.Error.InvalidValue)\n"
                              "sbdctl: Size (t) takes a size in bytes, optionally with a K, M, G, T, P "
                              "or E suffix.\n")
        _, err = self.sbdctl('set', 'sbd0', 'read_only', 'maybe', status=1)
        self.assertIn("Property ReadOnly takes a value of type 'b', not 's'. "
                      "(org.sbd.Sbd1.Error.InvalidValue)", err)
        _, err = self.sbdctl('set', 'sbd0', 'size', '--', '-1', status=1)
        self.assertIn("to '-1': Property Size takes a value of type 't'", err)
        _, err = self.sbdctl('set', 'sbd0', 'size', '99999999999999999999', status=1)
        self.assertIn("(org.sbd.Sbd1.Error.InvalidValue)", err)
        # the same for a caller polkit would refuse: the type is checked first
        _, err = self.sbdctl('set', 'sbd0', 'size', '12x', status=1, uid=sbdtest.NOBODY)
        self.assertIn("(org.sbd.Sbd1.Error.InvalidValue)", err)
        self.assert_unchanged()

    def test_set_refused_by_the_daemon(self):
        _, err = self.sbdctl('set', 'sbd0', 'label', 'a' * 5000, status=1)
        self.assertIn('(org.sbd.Sbd1.Error.InvalidValue)', err)
        self.assertIn('too long', err)
        self.assertTrue(err.startswith('sbdctl: Failed to set Label of sbd0 to '), err)
        self.assert_unchanged()

    def test_set_refused_by_the_kernel(self):
        self.refuse_like_kernel(0, 'size')
        # (5120: 5000 is refused by sbdd itself, below)
        _, err = self.sbdctl('set', 'sbd0', 'size', '5120', status=1)
        self.assertTrue(err.startswith("sbdctl: Failed to set Size of sbd0 to '5120': "), err)
        self.assertIn('Invalid argument', err)
        self.assertTrue(err.endswith('(org.sbd.Sbd1.Error.InvalidValue)\n'), err)
        _, err = self.sbdctl('set', 'sbd0', 'size', '5000', status=1)
        self.assertIn('Size takes a positive multiple of 512 bytes.', err)
        self.assertTrue(err.endswith('(org.sbd.Sbd1.Error.InvalidValue)\n'), err)
        self.refuse_like_kernel(0, 'label', '/dev/full')
        _, err = self.sbdctl('set', 'sbd0', 'label', 'x', status=1)
        self.assertIn('(org.sbd.Sbd1.Error.KernelError)', err)

    def test_set_read_only_property(self):
        _, err = self.sbdctl('set', 'sbd0', 'name', 'other', status=1)
        self.assertTrue(err.startswith("sbdctl: Failed to set Name of sbd0 to 'other': "), err)
        self.assertTrue(err.endswith('(%s)\n' % PROPERTY_READ_ONLY), err)
        _, err = self.sbdctl('set', 'sbd0', 'SysName', 'sbd9', status=1)
        self.assertIn(PROPERTY_READ_ONLY, err)
        _, err = self.sbdctl('set', 'sbd0', 'power/runtime_status', 'active', status=1)
        self.assertIn(PROPERTY_READ_ONLY, err)
        self.assertEqual(self.attr(0, 'name'), 'Simple block device\n')

    def test_set_unknown(self):
        _, err = self.sbdctl('set', 'sbd5', 'label', 'x', status=1)
        self.assertIn('org.freedesktop.DBus.Error.UnknownObject', err)
        _, err = self.sbdctl('set', 'sbd0', 'colour', 'red', status=1)
        self.assertIn("sbd0 has no attribute 'colour'", err)

    def test_set_not_authorized(self):
        # no polkit on the bus: only root may write
        _, err = self.sbdctl('set', 'sbd0', 'label', 'fromuser', status=1, uid=sbdtest.NOBODY)
        self.assertIn('(org.sbd.Sbd1.Error.NotAuthorized)', err)
        self.start_polkit(allowed=[])
        _, err = self.sbdctl('set', 'sbd0', 'label', 'fromuser', status=1, uid=sbdtest.NOBODY)
        self.assertIn('(org.sbd.Sbd1.Error.NotAuthorized)', err)
        self.assert_unchanged()
        self.polkit_set_allowed(['org.sbd.sbd1.set-attribute'])
        self.sbdctl('set', 'sbd0', 'label', 'fromuser', uid=sbdtest.NOBODY)
        self.assertEqual(self.attr(0, 'label'), 'fromuser')

    def test_polkit_that_never_answers(self):
        # polkit holds the check. sbdd gives up at its 25 s, cancels the
        # check and answers NotAuthorized; sbdctl, waiting 60 s, reports
        # that answer (with sd-bus's default of 25 s it reported its own
        # timeout, a failure the daemon could still turn into a write).
        # The yes that polkit gives afterwards writes nothing.
        import os.path
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'],
                          template=os.path.join(sbdtest.HERE, 'polkitd_challenge.py'))
        mock = sbdtest.dbusmock.MOCK_IFACE
        self.polkit_obj.SimulateHangActions(['org.sbd.sbd1.set-attribute'], dbus_interface=mock)
        start = time.monotonic()
        _, err = self.sbdctl('set', 'sbd0', 'label', 'late', status=1, uid=sbdtest.NOBODY, timeout=90)
        self.assertGreaterEqual(time.monotonic() - start, 24)
        self.assertIn('(org.sbd.Sbd1.Error.NotAuthorized)', err)
        [check] = self.polkit_obj.GetMethodCalls('CheckAuthorization', dbus_interface=mock)
        cancels = self.polkit_obj.GetMethodCalls('CancelCheckAuthorization', dbus_interface=mock)
        self.assertEqual([c[1][0] for c in cancels], [check[1][4]])
        self.polkit_obj.ReleaseHangingCalls(dbus_interface=mock)
        self.settle(0.5)
        self.assert_unchanged()

    def test_interactive_authorization_only_from_a_terminal(self):
        # polkit may ask for a password only when sbdctl's stdin is a
        # terminal: the daemon passes the call's flag on as polkit's
        # AllowUserInteraction (CheckAuthorization's 4th argument)
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])

        def flags_of_last_check():
            calls = self.polkit_obj.GetMethodCalls('CheckAuthorization',
                                                   dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
            self.assertTrue(calls, 'the Set never reached polkit')
            return int(calls[-1][1][3])

        self.sbdctl('set', 'sbd0', 'label', 'batch', uid=sbdtest.NOBODY)
        self.assertEqual(flags_of_last_check(), 0)
        leader, follower = pty.openpty()
        try:
            self.sbdctl('set', 'sbd0', 'label', 'typed', uid=sbdtest.NOBODY, stdin=follower)
        finally:
            os.close(follower)
            os.close(leader)
        self.assertEqual(flags_of_last_check(), 1)
        self.assertEqual(self.attr(0, 'label'), 'typed')

    def test_unprivileged_reads(self):
        out, _ = self.sbdctl('list', '--no-legend', uid=sbdtest.NOBODY)
        self.assertEqual(len(out.splitlines()), 2)
        self.assertEqual(self.sbdctl('get', 'sbd0', 'size', uid=sbdtest.NOBODY)[0], '%d\n' % M16)


class Devices(SbdctlTestCase):

    def play_kernel_new_device(self):
        """Waits for sbdd's write to new_device and creates the disk as the kernel would."""
        f = '/sys/bus/sbd/drivers/sbd/new_device'
        self.wait_for(lambda: self.testbed.read(f) != '', message='sbdd did not write new_device')
        value = self.testbed.read(f)
        parts = value.split()
        self.testbed.add_device(int(parts[1]) if len(parts) > 1 else 2, size=int(parts[0]))
        return value

    def play_kernel_delete_device(self, n):
        f = '/sys/bus/sbd/drivers/sbd/delete_device'
        self.wait_for(lambda: self.testbed.read(f) != '', message='sbdd did not write delete_device')
        value = self.testbed.read(f)
        self.testbed.remove_device(n)
        return value

    def test_add(self):
        p = self.sbdctl_start('add', '8M', '--id', '3')
        self.assertEqual(self.play_kernel_new_device(), '%d 3' % (8 << 20))
        self.assertEqual(self.finish(p), ('Created sbd3 (%s).\n' % device_path(3), ''))
        self.assertEqual(self.get(device_path(3), DEVICE_IFACE, 'Size'), 8 << 20)

    def test_add_json_lowest_free_id(self):
        p = self.sbdctl_start('--json', 'add', '1048576')
        self.assertEqual(self.play_kernel_new_device(), '1048576 2')  # sbdd picks the id itself
        out, err = self.finish(p)
        self.assertEqual(json.loads(out), {'name': 'sbd2', 'path': device_path(2)})

    def test_add_bad(self):
        _, err = self.sbdctl('add', '12x', status=1)
        self.assertEqual(err, "sbdctl: Invalid size '12x': expected a size in bytes, optionally with a K, M, "
                              "G, T, P or E suffix.\n")
        _, err = self.sbdctl('add', '1M', '--id', 'two', status=1)
        self.assertIn("Invalid device id 'two'", err)
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')
        # the kernel refuses (EINVAL)
        f = self.testbed.real('/sys/bus/sbd/drivers/sbd/new_device')
        os.unlink(f)
        os.symlink('/proc/self/oom_score_adj', f)
        _, err = self.sbdctl('add', '4095', status=1)
        self.assertTrue(err.startswith('sbdctl: Failed to add a device of 4095: '), err)
        self.assertTrue(err.endswith('(org.sbd.Sbd1.Error.InvalidValue)\n'), err)

    def test_add_not_authorized(self):
        _, err = self.sbdctl('add', '1M', status=1, uid=sbdtest.NOBODY)
        self.assertIn('(org.sbd.Sbd1.Error.NotAuthorized)', err)
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')

    def test_remove(self):
        p = self.sbdctl_start('remove', 'sbd1')
        self.assertEqual(self.play_kernel_delete_device(1), 'sbd1')
        self.assertEqual(self.finish(p), ('', ''))
        self.assertEqual([d['name'] for d in self.sbdctl_json('list')], ['sbd0'])

    def test_remove_json_by_path(self):
        p = self.sbdctl_start('--json', 'remove', device_path(0))
        self.assertEqual(self.play_kernel_delete_device(0), 'sbd0')
        out, _ = self.finish(p)
        self.assertEqual(json.loads(out), {'name': 'sbd0', 'path': device_path(0)})

    def test_remove_unknown(self):
        _, err = self.sbdctl('remove', 'sbd4', status=1)
        self.assertTrue(err.startswith('sbdctl: Failed to remove sbd4: '), err)
        self.assertTrue(err.endswith('(org.sbd.Sbd1.Error.DeviceGone)\n'), err)
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device'), '')

    def test_module_load(self):
        # live already: not an error
        self.assertEqual(self.sbdctl('module', 'load'), ('', ''))
        _, err = self.sbdctl('module', 'load', 'size=16 M', status=1)
        self.assertIn('(org.sbd.Sbd1.Error.InvalidValue)', err)
        _, err = self.sbdctl('module', 'load', 'size', status=1)
        self.assertEqual(err, "sbdctl: Invalid module parameter 'size': expected PARAM=VALUE.\n")
        _, err = self.sbdctl('module', 'unload', status=1, uid=sbdtest.NOBODY)
        self.assertIn('(org.sbd.Sbd1.Error.NotAuthorized)', err)


class Monitor(SbdctlTestCase):

    def start_monitor(self, *args):
        p = self.sbdctl_start('monitor', *args)
        p.pending = b''
        # the line comes once the match rules are in place
        self.assertEqual(p.stderr.readline(), 'Monitoring org.sbd.Sbd1; press Ctrl+C to stop.\n')
        return p

    def read_line(self, p):
        """The next line of stdout, or a failure after a while (never a hang)."""
        import select
        fd = p.stdout.fileno()
        end = time.monotonic() + 20
        while b'\n' not in p.pending:
            ready, _, _ = select.select([fd], [], [], max(0, end - time.monotonic()))
            self.assertTrue(ready, 'monitor printed nothing more after: %r' % p.pending)
            chunk = os.read(fd, 4096)
            self.assertTrue(chunk, 'monitor closed its output')
            p.pending += chunk
        line, p.pending = p.pending.split(b'\n', 1)
        return line.decode() + '\n'

    def stop_monitor(self, p, sig=signal.SIGINT):
        p.send_signal(sig)
        p.wait(10)
        err = p.stderr.read()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(err, '')

    def test_monitor_change_behind_our_back(self):
        p = self.start_monitor()
        tb = self.testbed
        tb.write(tb.device_attr(1, 'label'), 'outside\n')
        tb.write(tb.device_attr(1, 'size'), '%d\n' % (32 << 20))
        tb.uevent(tb.device_syspath(1), 'change')
        line = self.read_line(p)
        self.assertTrue(line.startswith('sbd1: '), line)
        self.assertEqual(sorted(line[len('sbd1: '):].split()), ['Label=outside', 'Size=32.0M'])
        self.stop_monitor(p)

    def test_monitor_json_add_remove(self):
        p = self.start_monitor('--json')
        self.testbed.add_device(4, size=1 << 20)
        events = []
        while not any(e['event'] == 'added' for e in events):
            events.append(json.loads(self.read_line(p)))
        added = [e for e in events if e['event'] == 'added'][0]
        self.assertEqual(added['path'], device_path(4))
        self.assertEqual(added['name'], 'sbd4')
        self.assertEqual(added['interfaces'][DEVICE_IFACE]['Size'], 1 << 20)
        self.assertIs(added['interfaces'][DEVICE_IFACE]['ReadOnly'], False)

        self.testbed.write(self.testbed.device_attr(4, 'read_only'), '1\n')
        self.testbed.uevent(self.testbed.device_syspath(4), 'change')
        while True:
            e = json.loads(self.read_line(p))
            if e['event'] == 'changed' and e['path'] == device_path(4):
                break
        self.assertEqual(e, {'event': 'changed', 'path': device_path(4), 'name': 'sbd4',
                             'interface': DEVICE_IFACE, 'changed': {'ReadOnly': True}, 'invalidated': []})

        self.testbed.remove_device(4)
        while True:
            e = json.loads(self.read_line(p))
            if e['event'] == 'removed':
                break
        self.assertEqual(e, {'event': 'removed', 'path': device_path(4), 'name': 'sbd4',
                             'interfaces': [DEVICE_IFACE]})
        self.stop_monitor(p, signal.SIGTERM)

    def test_monitor_own_write_and_daemon_stop(self):
        p = self.start_monitor()
        self.sbdctl('set', 'sbd0', 'read_only', 'yes')
        self.assertEqual(self.read_line(p), 'sbd0: ReadOnly=yes\n')
        self.stop_sbdd()
        self.assertEqual(self.read_line(p), 'org.sbd.Sbd1: daemon stopped\n')
        self.stop_monitor(p)


class Completion(SbdctlTestCase):
    """clients/completion/sbdctl, asking the running daemon through sbdctl."""

    def complete(self, line):
        script = os.path.join(sbdtest.HERE, '..', '..', 'clients', 'completion', 'sbdctl')
        env = client_env()
        env['PATH'] = os.path.dirname(self.sbdctl_path) + ':' + env['PATH']
        env['LINE'] = line
        p = subprocess.run(['bash', '-c', 'source "$0"; COMP_LINE=$LINE; COMP_POINT=${#LINE}; _sbdctl; '
                            'printf "%s\\n" "${COMPREPLY[@]}"', script],
                           env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        return [w for w in p.stdout.splitlines() if w]

    def test_commands_and_options(self):
        self.assertEqual(self.complete('sbdctl '),
                         ['list', 'show', 'get', 'set', 'add', 'remove', 'module', 'monitor', 'help'])
        self.assertEqual(self.complete('sbdctl s'), ['show', 'set'])
        self.assertEqual(self.complete('sbdctl --no-l'), ['--no-legend'])
        self.assertEqual(self.complete('sbdctl module '), ['load', 'unload'])
        self.assertEqual(self.complete('sbdctl module load max'), ['max_size='])

    def test_devices_from_the_daemon(self):
        self.testbed.add_device(12, size=1 << 20)
        self.wait_for(lambda: len(self.get(sbdtest.ROOT, sbdtest.MANAGER_IFACE, 'Devices')) == 3)
        self.assertEqual(self.complete('sbdctl show '), ['sbd0', 'sbd1', 'sbd12'])
        self.assertEqual(self.complete('sbdctl --json remove sbd1'), ['sbd1', 'sbd12'])
        self.assertEqual(self.complete('sbdctl --address=%s get ' % os.environ['DBUS_SYSTEM_BUS_ADDRESS']),
                         ['sbd0', 'sbd1', 'sbd12'])

    def test_options_of_systemds_tools(self):
        self.assertEqual(self.complete('sbdctl --json='), ['--json=short', '--json=pretty', '--json=off'])
        self.assertEqual(self.complete('sbdctl --ho'), ['--host='])
        self.assertEqual(self.complete('sbdctl --no-a'), ['--no-ask-password', '--no-auto-start'])

    def test_never_starts_the_daemon(self):
        # completion asks with --no-auto-start (and never for a password)
        script = os.path.join(sbdtest.HERE, '..', '..', 'clients', 'completion', 'sbdctl')
        with open(script) as f:
            self.assertIn('--no-auto-start --no-ask-password', f.read())
        self.stop_sbdd()
        self.assertEqual(self.complete('sbdctl show '), [])

    def test_attributes_from_the_daemon(self):
        self.assertEqual(self.complete('sbdctl get sbd0 Re'), ['ReadOnly'])
        self.assertEqual(self.complete('sbdctl set sbd1 Power'),
                         ['PowerAutosuspendDelayMs', 'PowerControl', 'PowerRuntimeActiveTime',
                          'PowerRuntimeStatus', 'PowerRuntimeSuspendedTime'])
        self.assertEqual(self.complete('sbdctl set sbd0 read_only '), ['yes', 'no'])
        self.assertEqual(self.complete('sbdctl set sbd0 Online n'), ['no'])
        self.assertEqual(self.complete('sbdctl set sbd0 label '), [])
        self.assertEqual(self.complete('sbdctl get sbd9 '), [])



class SystemdStyle(SbdctlTestCase):
    """What sbdctl shares with systemd's tools: --json modes, the pager and
    colours through a terminal, polkit's text agent, -H and -M."""

    def on_terminal(self, *args, env=None, uid=None):
        """Runs sbdctl with stdin, stdout and stderr on a new pseudo-terminal,
        as on a console; returns (exit status, everything the terminal got)."""
        cmd = [self.sbdctl_path] + list(args)
        if uid is not None:
            cmd = ['setpriv', '--reuid=%d' % uid, '--regid=%d' % uid, '--clear-groups'] + cmd
        e = client_env()
        e['TERM'] = 'xterm'
        e.update(env or {})
        leader, follower = pty.openpty()
        try:
            def controlling_terminal():  # as a login shell has it (pkttyagent opens /dev/tty)
                os.setsid()
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            p = subprocess.Popen(cmd, env=e, stdin=follower, stdout=follower, stderr=follower,
                                 preexec_fn=controlling_terminal)
            os.close(follower)
            follower = None
            out = b''
            end = time.monotonic() + 30
            while time.monotonic() < end:
                ready, _, _ = select.select([leader], [], [], 1)
                if ready:
                    try:
                        chunk = os.read(leader, 65536)
                    except OSError:  # EIO: every writer closed the terminal
                        break
                    if not chunk:
                        break
                    out += chunk
                elif p.poll() is not None:
                    break
            status = p.wait(30)
        finally:
            if follower is not None:
                os.close(follower)
            os.close(leader)
        return status, out.decode().replace('\r\n', '\n')

    def test_json_modes(self):
        short, _ = self.sbdctl('--json=short', 'list')
        pretty, _ = self.sbdctl('--json=pretty', 'list')
        self.assertEqual(len(short.splitlines()), 1)
        self.assertGreater(len(pretty.splitlines()), 10)
        self.assertIn('\n  {\n    "name": "sbd0",\n', pretty)
        self.assertEqual(json.loads(pretty), json.loads(short))
        self.assertEqual(self.sbdctl('--json', 'list')[0], short)  # --json alone: short
        self.assertEqual(self.sbdctl('--json=off', 'list')[0], self.sbdctl('list')[0])
        self.assertEqual(self.sbdctl('-j', 'list')[0], short)  # not a terminal: short
        self.assertEqual(json.loads(self.sbdctl('--json=pretty', 'show', 'sbd0')[0])['name'], 'sbd0')
        self.assertEqual(self.sbdctl('--json=help')[0], 'short\npretty\noff\n')
        _, err = self.sbdctl('--json=long', 'list', status=1)
        self.assertIn("Unknown --json mode 'long'", err)
        # on a terminal, -j is pretty
        status, out = self.on_terminal('-j', 'get', 'sbd0', 'size')
        self.assertEqual(status, 0, out)
        self.assertIn('{\n  "path": "/org/sbd/Sbd1/devices/sbd0",\n', out)

    def test_pager(self):
        pager = 'sed "s/^/PAGED:/"'
        self.on_terminal = lambda *a, env: SystemdStyle.on_terminal(self, *a, env=dict(env, NO_COLOR='1'))
        status, out = self.on_terminal('list', env={'SYSTEMD_PAGER': pager, 'PAGER': 'false'})
        self.assertEqual(status, 0, out)
        self.assertRegex(out, r'(?m)^PAGED:sbd0 ')
        _, out = self.on_terminal('list', env={'PAGER': pager})
        self.assertRegex(out, r'(?m)^PAGED:sbd0 ')
        # an empty SYSTEMD_PAGER turns paging off, whatever PAGER says; so does cat
        for env in ({'SYSTEMD_PAGER': '', 'PAGER': pager}, {'PAGER': ''}, {'SYSTEMD_PAGER': 'cat'}):
            status, out = self.on_terminal('list', env=env)
            self.assertEqual(status, 0, out)
            self.assertRegex(out, r'(?m)^sbd0 ', env)
            self.assertNotIn('PAGED:', out)
        _, out = self.on_terminal('--no-pager', 'list', env={'PAGER': pager})
        self.assertNotIn('PAGED:', out)
        # SYSTEMD_LESS is less's LESS
        _, out = self.on_terminal('list', env={'PAGER': 'echo "LESS=$LESS"; cat >/dev/null',
                                               'SYSTEMD_LESS': 'FRX', 'LESS': 'other'})
        self.assertIn('LESS=FRX', out)

    def test_colors(self):
        ansi = '\x1b['
        _, out = self.on_terminal('--no-pager', 'list')
        self.assertIn(ansi, out)
        for env in ({'NO_COLOR': '1'}, {'SYSTEMD_COLORS': '0'}, {'TERM': 'dumb'}):
            _, out = self.on_terminal('--no-pager', 'list', env=env)
            self.assertNotIn(ansi, out, env)
            self.assertRegex(out, r'(?m)^sbd0 ')
        # SYSTEMD_COLORS forces them, also into a pipe, and wins over NO_COLOR
        for value in ('1', 'yes', '256', '24bit'):
            env = client_env()
            env.update({'SYSTEMD_COLORS': value, 'NO_COLOR': '1'})
            p = subprocess.run([self.sbdctl_path, 'list'], env=env, capture_output=True, text=True)
            self.assertIn(ansi, p.stdout, value)
        self.assertNotIn(ansi, self.sbdctl('list')[0])

    def agent_registrations(self):
        return self.polkit_obj.GetMethodCalls('RegisterAuthenticationAgentWithOptions',
                                             dbus_interface=sbdtest.dbusmock.MOCK_IFACE)

    def check_flags(self):
        calls = self.polkit_obj.GetMethodCalls('CheckAuthorization', dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        return [int(c[1][3]) for c in calls]

    def test_polkit_agent_on_a_terminal(self):
        # as an unprivileged user on a terminal, sbdctl starts polkit's text
        # agent (pkttyagent), which registers with polkit before the call
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])
        # what pkttyagent --fallback calls (dbusmock's polkitd template lacks it)
        self.polkit_obj.AddMethod('org.freedesktop.PolicyKit1.Authority', 'RegisterAuthenticationAgentWithOptions',
                                  '(sa{sv})ssa{sv}', '', '', dbus_interface=sbdtest.dbusmock.MOCK_IFACE)
        status, out = self.on_terminal('set', 'sbd0', 'label', 'typed', uid=sbdtest.NOBODY)
        self.assertEqual(status, 0, out)
        self.assertEqual(self.attr(0, 'label'), 'typed')
        self.assertEqual(len(self.agent_registrations()), 1, out)
        self.assertEqual(self.check_flags(), [1])  # interactive authorization allowed
        # --no-ask-password: no agent, no interaction
        status, out = self.on_terminal('--no-ask-password', 'set', 'sbd0', 'label', 'quiet', uid=sbdtest.NOBODY)
        self.assertEqual(status, 0, out)
        self.assertEqual(len(self.agent_registrations()), 1)
        self.assertEqual(self.check_flags(), [1, 0])
        # not a terminal: no agent; reads never start one
        self.sbdctl('set', 'sbd0', 'label', 'batch', uid=sbdtest.NOBODY)
        self.on_terminal('--no-pager', 'list', uid=sbdtest.NOBODY)
        self.on_terminal('--no-pager', 'module', uid=sbdtest.NOBODY)
        self.assertEqual(len(self.agent_registrations()), 1)
        self.assertEqual(self.attr(0, 'label'), 'batch')
        # root needs no agent
        self.on_terminal('set', 'sbd0', 'label', 'root')
        self.assertEqual(len(self.agent_registrations()), 1)

    def test_no_auto_start(self):
        self.assertRegex(self.sbdctl('--no-auto-start', '--no-legend', 'list')[0], r'^sbd0 ')
        self.stop_sbdd()
        _, err = self.sbdctl('--no-auto-start', 'list', status=1)
        self.assertIn('sbdd is not running, and --no-auto-start does not start it', err)
        self.assertIn('(org.freedesktop.DBus.Error.NameHasNoOwner)', err)

    def test_machine(self):
        # no systemd-machined here: the error names the machine
        _, err = self.sbdctl('-M', 'nosuchbox', 'list', status=1)
        self.assertIn('Failed to connect to the system bus of machine nosuchbox: ', err)

    def test_host_over_ssh(self):
        """-H: sd-bus runs ssh -xT HOST systemd-stdio-bridge. A real sshd on
        the loopback, with its own host key and a key for this user, whose
        sessions see the test's system bus; ssh is found first in PATH as a
        wrapper that adds this test's identity and known hosts. The remote
        systemd-stdio-bridge (systemd 252's ignores DBUS_SYSTEM_BUS_ADDRESS)
        is the real one, pointed at the test's bus with --bus-path by a
        wrapper first in the session's PATH."""
        sshd = shutil.which('sshd') or '/usr/sbin/sshd'
        if not os.path.exists(sshd) or not shutil.which('ssh'):
            self.fail('openssh-server and openssh-client are needed (.ci/install-deps)')
        d = tempfile.mkdtemp(prefix='sbdctl-ssh-')
        self.addCleanup(shutil.rmtree, d, True)
        os.chmod(d, 0o700)
        for key in ('host', 'user'):
            subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', os.path.join(d, key)], check=True)
        shutil.copy(os.path.join(d, 'user.pub'), os.path.join(d, 'authorized_keys'))
        os.makedirs('/run/sshd', exist_ok=True)  # sshd's privilege separation directory
        with socketserver_port() as port:
            pass
        with open(os.path.join(d, 'sshd_config'), 'w') as f:
            f.write('ListenAddress 127.0.0.1:%d\nHostKey %s/host\nAuthorizedKeysFile %s/authorized_keys\n'
                    'PermitRootLogin prohibit-password\nPasswordAuthentication no\nStrictModes no\n'
                    'UsePAM no\nPidFile none\nSetEnv DBUS_SYSTEM_BUS_ADDRESS=%s PATH=%s/rbin:/usr/bin:/bin\n'
                    % (port, d, d, os.environ['DBUS_SYSTEM_BUS_ADDRESS'], d))
        os.mkdir(os.path.join(d, 'rbin'))
        with open(os.path.join(d, 'rbin', 'systemd-stdio-bridge'), 'w') as f:
            f.write('#!/bin/sh\nexec /usr/bin/systemd-stdio-bridge --bus-path="$DBUS_SYSTEM_BUS_ADDRESS" "$@"\n')
        os.chmod(os.path.join(d, 'rbin', 'systemd-stdio-bridge'), 0o755)
        daemon = subprocess.Popen([sshd, '-D', '-e', '-f', os.path.join(d, 'sshd_config')],
                                  env=client_env(), stderr=subprocess.PIPE)
        self.addCleanup(daemon.wait, 20)
        self.addCleanup(daemon.terminate)
        bindir = os.path.join(d, 'bin')
        os.mkdir(bindir)
        with open(os.path.join(bindir, 'ssh'), 'w') as f:
            f.write('#!/bin/sh\nexec %s -i %s/user -o UserKnownHostsFile=%s/known -o StrictHostKeyChecking=accept-new '
                    '-o BatchMode=yes "$@"\n' % (shutil.which('ssh'), d, d))
        os.chmod(os.path.join(bindir, 'ssh'), 0o755)
        env = client_env()
        env['PATH'] = bindir + ':' + env['PATH']
        target = 'root@127.0.0.1:%d' % port

        def remote(*args, status=0):
            p = subprocess.run([self.sbdctl_path, '-H', target] + list(args), env=env, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, status, p.stderr)
            return p

        end = time.monotonic() + 30
        while True:  # sshd listening
            p = subprocess.run([self.sbdctl_path, '-H', target, '--json', 'list'], env=env, capture_output=True,
                               text=True, timeout=60)
            if p.returncode == 0 or time.monotonic() > end or daemon.poll() is not None:
                break
            time.sleep(0.5)
        self.assertEqual(p.returncode, 0, p.stderr + (daemon.stderr.read().decode() if daemon.poll() else ''))
        self.assertEqual([d['name'] for d in json.loads(p.stdout)], ['sbd0', 'sbd1'])
        remote('set', 'sbd1', 'label', 'viassh')
        self.assertEqual(self.attr(1, 'label'), 'viassh')
        self.assertEqual(remote('get', 'sbd1', 'label').stdout, 'viassh\n')
        p = remote('-H', 'root@127.0.0.1:1', 'list', status=1)
        self.assertIn('Failed to', p.stderr)


class socketserver_port:
    """A free TCP port on the loopback (bound, then released for sshd)."""

    def __enter__(self):
        import socket
        self.s = socket.socket()
        self.s.bind(('127.0.0.1', 0))
        return self.s.getsockname()[1]

    def __exit__(self, *exc):
        self.s.close()


if __name__ == '__main__':
    sbdtest.main()
