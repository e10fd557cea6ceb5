# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared harness of the sbdd integration tests.

Each test case gets a fresh umockdev test bed shaped like the sbd module's
sysfs (the module's layout) and its own sbdd, started with --no-load
--uevent-source=udev under umockdev's preload, on the private system bus
that dbus-test-runner started with tests/integration/system-bus.conf.
The test plays the kernel: it reads what sbdd wrote to an attribute,
sets the result and sends the uevent.
"""

import os
import sys

# umockdev's uevent sender looks the device up in /sys through the
# preload library, so the test itself must run under it too.
if 'libumockdev-preload' not in os.environ.get('LD_PRELOAD', ''):
    os.execvp('umockdev-wrapper', ['umockdev-wrapper', sys.executable] + sys.argv)

import json
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import unittest

import gi
gi.require_version('UMockdev', '1.0')
from gi.repository import GLib, Gio, UMockdev  # noqa: E402

import dbus  # noqa: E402  (for dbusmock's proxies)
import dbusmock  # noqa: E402

from uevent_send import UeventSender  # noqa: E402

BUS_NAME = 'org.sbd.Sbd1'
ROOT = '/org/sbd/Sbd1'
MODULE = ROOT + '/module'
DRIVER = ROOT + '/drivers/sbd'
MANAGER_IFACE = 'org.sbd.Sbd1.Manager'
MODULE_IFACE = 'org.sbd.Sbd1.Module'
DRIVER_IFACE = 'org.sbd.Sbd1.Driver'
DEVICE_IFACE = 'org.sbd.Sbd1.Device'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'
OM_IFACE = 'org.freedesktop.DBus.ObjectManager'
ERR = 'org.sbd.Sbd1.Error.'

HERE = os.path.dirname(os.path.abspath(__file__))
NOBODY = 65534


def device_path(n):
    return '%s/devices/sbd%d' % (ROOT, n)


def require_environment():
    """Fail (never skip) when something the tests need is missing."""
    missing = []
    if not os.environ.get('SBDD') or not os.access(os.environ['SBDD'], os.X_OK):
        missing.append('$SBDD must name the sbdd binary (meson sets it)')
    if not os.environ.get('DBUS_SYSTEM_BUS_ADDRESS'):
        missing.append('no private system bus: run under dbus-test-runner --bus-type=system')
    for tool in ('setpriv', 'umockdev-wrapper'):
        if not shutil.which(tool):
            missing.append('%s is not installed' % tool)
    if os.geteuid() != 0:
        missing.append('the tests run as root (they drop to uid %d for unprivileged callers)' % NOBODY)
    if missing:
        raise RuntimeError('cannot run the integration tests: ' + '; '.join(missing))


class Testbed:
    """The sbd module's sysfs in a umockdev test bed."""

    PAGE = 4096

    def __init__(self):
        self.tb = UMockdev.Testbed.new()
        self.root = self.tb.get_root_dir()
        self.sender = UeventSender(self.root)

    def real(self, syspath):
        return self.root + syspath

    def write(self, syspath, value, mode=None):
        """Give the file its new content in one step, as sysfs does.

        sbdd may read any attribute at any moment (a uevent still being
        handled, a resync): open('w') truncates first and writes after,
        and CI once caught read_only read back as '' in between, seen as
        ReadOnly=false. So the content is written beside /sys and renamed
        over the file, keeping its mode; an explicit mode is set after, as
        a chmod, so that sbdd's mode watch sees it as before.

        Except the live attributes (power/*, mem_used): sbdd reads those
        only at a Get, through fds it keeps open (umockdev's preload makes
        the test bed look like sysfs, whose files are never replaced), so
        they are written in place and a renamed file would never be seen.
        """
        p = os.path.realpath(self.real(syspath))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if '/power/' in syspath or syspath.endswith('/mem_used'):
            with open(p, 'w') as f:
                f.write(value)
            if mode is not None:
                os.chmod(p, mode)
            return
        try:
            keep = stat.S_IMODE(os.stat(p).st_mode)
        except FileNotFoundError:
            keep = 0o644
        staging = os.path.join(self.root, 'staging')  # outside /sys: no watch of sbdd's sees it
        os.makedirs(staging, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=staging)
        with os.fdopen(fd, 'w') as f:
            f.write(value)
        os.chmod(tmp, keep)
        os.rename(tmp, p)
        if mode is not None:
            os.chmod(p, mode)

    def read(self, syspath):
        with open(self.real(syspath)) as f:
            return f.read()

    def link(self, syspath, target):
        p = self.real(syspath)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)

    def uevent(self, syspath, action):
        # not self.tb.uevent(): see uevent_send.py
        self.sender.send(syspath, action)

    # the module, bus and driver (what insmod sbd creates besides disks)
    def add_module(self, ndevices=0, version='1.0'):
        self.write('/sys/module/sbd/initstate', 'live\n', 0o444)
        self.write('/sys/module/sbd/refcnt', '0\n', 0o444)
        self.write('/sys/module/sbd/parameters/ndevices', '%d\n' % ndevices, 0o444)
        self.write('/sys/module/sbd/parameters/size', '16M\n', 0o444)
        self.write('/sys/module/sbd/parameters/max_size', '1G\n', 0o444)
        self.write('/sys/module/sbd/uevent', '', 0o200)
        self.write('/sys/bus/sbd/uevent', '', 0o200)
        self.write('/sys/bus/sbd/drivers_autoprobe', '1\n', 0o644)
        self.write('/sys/bus/sbd/drivers_probe', '', 0o200)
        os.makedirs(self.real('/sys/bus/sbd/devices'), exist_ok=True)
        d = '/sys/bus/sbd/drivers/sbd'
        self.write(d + '/version', version + '\n', 0o444)
        self.write(d + '/ndevices', '%d\n' % ndevices, 0o444)
        self.write(d + '/mem_max', '%d\n' % (1 << 30), 0o444)
        self.write(d + '/mem_used', '0\n', 0o444)
        for wo in ('new_device', 'delete_device', 'uevent', 'bind', 'unbind'):
            self.write(d + '/' + wo, '', 0o200)
        self.link(d + '/module', '../../../../module/sbd')
        self.write('/sys/devices/system/sbd/uevent', '', 0o644)

    def set_ndevices(self, n):
        self.write('/sys/bus/sbd/drivers/sbd/ndevices', '%d\n' % n, 0o444)

    def device_syspath(self, n):
        return '/sys/devices/system/sbd/sbd%d' % n

    def add_device(self, n, size=16 * 1024 * 1024, read_only=0, label=None, online=1, event=True):
        s = self.device_syspath(n)
        name = 'sbd%d' % n
        self.write(s + '/uevent', 'DRIVER=sbd\n', 0o644)
        self.write(s + '/name', 'Simple block device\n', 0o444)
        self.write(s + '/device', 'fd00\n', 0o444)
        self.write(s + '/size', '%d\n' % size, 0o644)
        self.write(s + '/read_only', '%d\n' % read_only, 0o644)
        self.write(s + '/label', '%s\n' % (label if label is not None else name), 0o644)
        self.write(s + '/online', '%d\n' % online, 0o644)
        self.write(s + '/mem_used', '8192\n', 0o444)
        self.write(s + '/power/control', 'auto\n', 0o644)
        self.write(s + '/power/runtime_status', 'suspended\n', 0o444)
        self.write(s + '/power/runtime_active_time', '0\n', 0o444)
        self.write(s + '/power/runtime_suspended_time', '1234\n', 0o444)
        self.write(s + '/power/autosuspend_delay_ms', '', 0o644)
        self.link(s + '/subsystem', '../../../../bus/sbd')
        self.link(s + '/driver', '../../../../bus/sbd/drivers/sbd')
        b = s + '/block/' + name
        self.write(b + '/uevent', 'MAJOR=253\nMINOR=%d\nDEVNAME=%s\nDEVTYPE=disk\n' % (n * 16, name), 0o644)
        self.write(b + '/dev', '253:%d\n' % (n * 16), 0o444)
        self.write(b + '/size', '%d\n' % (size // 512), 0o444)
        self.write(b + '/ro', '%d\n' % read_only, 0o444)
        self.link(b + '/subsystem', '../../../../../../class/block')
        os.makedirs(self.real('/sys/class/block'), exist_ok=True)
        self.link('/sys/class/block/' + name, '../../devices/system/sbd/%s/block/%s' % (name, name))
        self.link('/sys/bus/sbd/devices/' + name, '../../../devices/system/sbd/' + name)
        self.link('/sys/bus/sbd/drivers/sbd/' + name, '../../../../devices/system/sbd/' + name)
        if event:
            self.uevent(s, 'add')
            self.uevent(s + '/block/' + name, 'add')
            self.uevent(s, 'bind')

    def remove_device(self, n, event=True):
        s = self.device_syspath(n)
        name = 'sbd%d' % n
        if event:
            # umockdev 0.17.16 sends nothing from remove_device(): the
            # events go first, while the device can still be looked up.
            self.uevent(s + '/block/' + name, 'remove')
            self.uevent(s, 'unbind')
            self.uevent(s, 'remove')
        for link in ('/sys/class/block/' + name, '/sys/bus/sbd/devices/' + name,
                     '/sys/bus/sbd/drivers/sbd/' + name):
            if os.path.lexists(self.real(link)):
                os.unlink(self.real(link))
        shutil.rmtree(self.real(s))

    def device_attr(self, n, attr):
        return self.device_syspath(n) + '/' + attr

    def unload_module(self, ndevices=2):
        """What rmmod does, in the kernel's order: the disks, then the
        driver and the bus, then the module's own event."""
        for n in range(ndevices):
            self.remove_device(n)
        self.uevent('/sys/bus/sbd/drivers/sbd', 'remove')
        shutil.rmtree(self.real('/sys/bus/sbd'))
        shutil.rmtree(self.real('/sys/devices/system/sbd'))
        self.uevent('/sys/module/sbd', 'remove')
        shutil.rmtree(self.real('/sys/module/sbd'))


class SbdTestCase(unittest.TestCase):
    """A test bed with the module and ndevices disks, and a running sbdd."""

    ndevices = 2
    start_daemon = True
    # sbdd's journal entries (its audit records) go to a socket of the
    # test's: see start_journal()
    capture_journal = False

    @classmethod
    def setUpClass(cls):
        require_environment()
        cls.bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)

    def setUp(self):
        self.testbed = Testbed()
        self.testbed.add_module(self.ndevices)
        for n in range(self.ndevices):
            self.testbed.add_device(n, event=False)
        self.daemon = None
        self.journal = None
        self.polkit = None
        self.signals = []
        self._subscriptions = []
        self.logdir = tempfile.mkdtemp(prefix='sbdd-test-')
        if self.start_daemon:
            self.start_sbdd()

    def tearDown(self):
        for s in self._subscriptions:
            self.bus.signal_unsubscribe(s)
        self.stop_sbdd()
        self.stop_polkit()
        self.stop_journal()
        shutil.rmtree(self.logdir, ignore_errors=True)
        del self.testbed

    # the daemon

    def start_sbdd(self, *extra, wrapper=(), refuse_write=None, refuse_read=None, kmod_gate=None):
        """refuse_write: 'FILE|PREFIX|ERRNO', writes that fail as a
        store() refusing them would (refuse_write.c). refuse_read:
        'FILE|ERRNO|ARMED', reads of FILE that fail with ERRNO while the
        file ARMED exists (refuse_read.c). kmod_gate: a path; module loads
        and unloads wait until it exists (slow_kmod.c)."""
        env = dict(os.environ)
        env['UMOCKDEV_DIR'] = self.testbed.root
        if kmod_gate is not None:
            env['LD_PRELOAD'] = program_from_env('SBDTEST_SLOW_KMOD_LIB', 'slow_kmod.c shim') + \
                ':' + env.get('LD_PRELOAD', '')
            env['SBDTEST_KMOD_GATE'] = kmod_gate
        if refuse_write is not None:
            env['LD_PRELOAD'] = program_from_env('SBDTEST_REFUSE_WRITE_LIB', 'refuse_write.c shim') + \
                ':' + env.get('LD_PRELOAD', '')
            env['SBDTEST_REFUSE_WRITE'] = refuse_write
        if refuse_read is not None:
            env['LD_PRELOAD'] = program_from_env('SBDTEST_REFUSE_READ_LIB', 'refuse_read.c shim') + \
                ':' + env.get('LD_PRELOAD', '')
            env['SBDTEST_REFUSE_READ'] = refuse_read
        env.setdefault('ASAN_OPTIONS', 'verify_asan_link_order=0')
        cmd = list(wrapper) + [os.environ['SBDD'], '--no-load', '--uevent-source=udev', '--log-level=debug'] + list(extra)
        if os.environ.get('SBDD_VALGRIND'):
            cmd = ['valgrind', '--quiet', '--error-exitcode=99', '--leak-check=full',
                   '--errors-for-leak-kinds=definite'] + cmd
        if self.capture_journal:
            cmd = self.start_journal() + cmd
        self.daemon_log = os.path.join(self.logdir, 'sbdd-%d.log' % time.monotonic_ns())
        self.daemon = subprocess.Popen(cmd, env=env, stdout=open(self.daemon_log, 'w'),
                                       stderr=subprocess.STDOUT)
        self.wait_for(lambda: self.name_has_owner(BUS_NAME) or self.daemon.poll() is not None,
                      timeout=60 if os.environ.get('SBDD_VALGRIND') else 15,
                      message='sbdd did not take its bus name')
        if self.daemon.poll() is not None:
            self.fail('sbdd exited with %d:\n%s' % (self.daemon.returncode, self.daemon_output()))
        self.sbdd_unique_name = self.get_name_owner(BUS_NAME)

    def stop_sbdd(self, check=True):
        if not self.daemon:
            return
        d, self.daemon = self.daemon, None
        if d.poll() is None:
            d.send_signal(signal.SIGTERM)
            try:
                d.wait(60)
            except subprocess.TimeoutExpired:
                d.kill()
                d.wait()
                self.fail('sbdd did not exit on SIGTERM:\n' + self._read_log())
        out = self._read_log()
        if check:
            self.assertEqual(d.returncode, 0, 'sbdd exited with %d:\n%s' % (d.returncode, out))
            for bad in ('ERROR: AddressSanitizer', 'runtime error:', 'ERROR: LeakSanitizer'):
                self.assertNotIn(bad, out, out)
        self.wait_for(lambda: not self.name_has_owner(BUS_NAME), message='bus name still owned')

    def _read_log(self):
        with open(self.daemon_log) as f:
            return f.read()

    def daemon_output(self):
        return self._read_log()

    # the journal: sbdd's real sd_journal_send() path, in a private mount
    # namespace whose /run/systemd/journal/socket is journal-sink.py's

    def start_journal(self):
        """Start the sink (once per case); returns the prefix that runs
        sbdd with its journal socket."""
        jdir = os.path.join(self.logdir, 'journal')
        if not self.journal:
            os.makedirs(jdir, exist_ok=True)
            self.journal_out = os.path.join(self.logdir, 'journal.jsonl')
            ready = os.path.join(self.logdir, 'journal-ready')
            self.journal = subprocess.Popen(['/usr/bin/python3', os.path.join(HERE, 'journal-sink.py'),
                                             os.path.join(jdir, 'socket'), ready, self.journal_out],
                                            env=env_outside_testbed())
            self.wait_for(lambda: os.path.exists(ready), message='journal-sink.py did not start')
        return ['unshare', '--mount', '--propagation', 'private', 'sh', '-ec',
                'mkdir -p /run/systemd; mount -t tmpfs sbdtest-run /run/systemd; mkdir /run/systemd/journal; '
                'mount --bind "$0" /run/systemd/journal; exec "$@"', jdir]

    def stop_journal(self):
        if self.journal:
            self.journal.terminate()
            self.journal.wait()
            self.journal = None

    def journal_entries(self, **match):
        """The entries so far whose fields equal match's."""
        if not os.path.exists(self.journal_out):
            return []
        with open(self.journal_out) as f:
            entries = [json.loads(line) for line in f if line.endswith('\n')]
        return [e for e in entries if all(e.get(k) == v for k, v in match.items())]

    def wait_journal(self, n=1, timeout=10, **match):
        """Wait for n entries matching; returns them all."""
        self.wait_for(lambda: len(self.journal_entries(**match)) >= n, timeout=timeout,
                      message='no %d journal entries with %r: %r' % (n, match, self.journal_entries()))
        return self.journal_entries(**match)

    # polkit (python-dbusmock's polkitd template)

    def start_polkit(self, allowed=(), template='polkitd'):
        self.polkit, obj = dbusmock.DBusTestCase.spawn_server_template(
            template, {}, stdout=subprocess.DEVNULL, system_bus=True)
        self.polkit_obj = obj
        self.polkit_set_allowed(allowed)

    def polkit_set_allowed(self, actions):
        self.polkit_obj.SetAllowed(dbus.Array(list(actions), signature='s'),
                                   dbus_interface=dbusmock.MOCK_IFACE)

    def stop_polkit(self):
        if self.polkit:
            self.polkit.terminate()
            self.polkit.wait()
            self.polkit = None

    # D-Bus helpers

    def wait_for(self, cond, timeout=10, message='condition not met'):
        ctx = GLib.MainContext.default()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            while ctx.iteration(False):
                pass
            if cond():
                return
            time.sleep(0.01)
        while ctx.iteration(False):
            pass
        if not cond():
            log = ''
            if getattr(self, 'daemon', None):
                log = '\n--- sbdd log (tail) ---\n' + '\n'.join(self._read_log().splitlines()[-25:])
            self.fail('%s within %ss%s' % (message, timeout, log))

    def settle(self, seconds=0.2):
        """Give signals that must NOT come a chance to arrive."""
        ctx = GLib.MainContext.default()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            while ctx.iteration(False):
                pass
            time.sleep(0.01)

    def dbus_call(self, dest, path, iface, method, args=None, reply=None, flags=0):
        return self.bus.call_sync(dest, path, iface, method, args,
                                  GLib.VariantType(reply) if reply else None,
                                  flags, 20000, None)

    def name_has_owner(self, name):
        return self.dbus_call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                              'NameHasOwner', GLib.Variant('(s)', (name,)), '(b)').unpack()[0]

    def get_name_owner(self, name):
        return self.dbus_call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                              'GetNameOwner', GLib.Variant('(s)', (name,)), '(s)').unpack()[0]

    def call(self, path, iface, method, args=None, reply=None):
        r = self.dbus_call(BUS_NAME, path, iface, method, args, reply)
        return r.unpack() if r is not None else None

    def get(self, path, iface, prop):
        return self.call(path, PROPS_IFACE, 'Get', GLib.Variant('(ss)', (iface, prop)), '(v)')[0]

    def get_variant(self, path, iface, prop):
        r = self.dbus_call(BUS_NAME, path, PROPS_IFACE, 'Get', GLib.Variant('(ss)', (iface, prop)), '(v)')
        return r.get_child_value(0).get_variant()

    def get_all_variants(self, path, iface):
        r = self.dbus_call(BUS_NAME, path, PROPS_IFACE, 'GetAll', GLib.Variant('(s)', (iface,)), '(a{sv})')
        d = r.get_child_value(0)
        return {d.get_child_value(i).get_child_value(0).get_string():
                d.get_child_value(i).get_child_value(1).get_variant() for i in range(d.n_children())}

    def set(self, path, iface, prop, variant):
        return self.call(path, PROPS_IFACE, 'Set', GLib.Variant('(ssv)', (iface, prop, variant)))

    def managed_objects(self):
        return self.call(ROOT, OM_IFACE, 'GetManagedObjects', None, '(a{oa{sa{sv}}})')[0]

    def assertDBusError(self, name, fn, *args, **kwargs):
        with self.assertRaises(GLib.Error) as cm:
            fn(*args, **kwargs)
        remote = Gio.DBusError.get_remote_error(cm.exception)
        self.assertEqual(remote, name, cm.exception.message)
        return cm.exception.message

    def subscribe(self, member=None, path=None, iface=None):
        def cb(conn, sender, opath, oiface, signame, params):
            self.signals.append((opath, oiface, signame, params.unpack()))
        self._subscriptions.append(self.bus.signal_subscribe(
            self.sbdd_unique_name, iface, member, path, None, Gio.DBusSignalFlags.NONE, cb))
        # make sure the match rule is in place before anything happens
        self.name_has_owner(BUS_NAME)

    def properties_changed(self, path, iface=DEVICE_IFACE):
        """The merged changed properties of PropertiesChanged on path."""
        out = {}
        for opath, oiface, name, params in self.signals:
            if opath == path and name == 'PropertiesChanged' and params[0] == iface:
                out.update(params[1])
        return out

    # unprivileged callers

    def call_as_start(self, uid, path, iface, method, args_expr, interactive=False):
        """Start a call as another uid through call_as.py (a fresh process
        and connection, so that the real bus policy and polkit path apply).
        Returns the process; its stdout is call_as.py's JSON answer."""
        cmd = ['setpriv', '--reuid=%d' % uid, '--regid=%d' % uid, '--clear-groups',
               sys.executable, os.path.join(HERE, 'call_as.py'),
               json.dumps({'dest': BUS_NAME, 'path': path, 'iface': iface, 'method': method,
                           'args': args_expr, 'interactive': interactive})]
        return subprocess.Popen(cmd, env=env_outside_testbed(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def call_as_finish(self, p):
        """Wait for call_as_start's process: (error_name or None, message or result)."""
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        r = json.loads(out)
        return r.get('error'), r.get('message', r.get('result'))

    def call_as(self, uid, path, iface, method, args_expr, interactive=False):
        """call_as_start and call_as_finish in one."""
        return self.call_as_finish(self.call_as_start(uid, path, iface, method, args_expr, interactive))


class CallMany:
    """call_many.py: calls in flight from several connections at once, as
    uid (None: as this process, root). send() starts calls, answers() reads
    the next n answers as they come (in the order they come)."""

    def __init__(self, test, uid=None):
        cmd = [sys.executable, os.path.join(HERE, 'call_many.py')]
        if uid is not None:
            cmd = ['setpriv', '--reuid=%d' % uid, '--regid=%d' % uid, '--clear-groups'] + cmd
        self.p = subprocess.Popen(cmd, env=env_outside_testbed(), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.buf = b''
        test.addCleanup(self.close)

    def send(self, calls):
        self.p.stdin.write(b''.join(json.dumps(c).encode() + b'\n' for c in calls))
        self.p.stdin.flush()

    def answers(self, n, timeout=30):
        import select
        out = []
        end = time.monotonic() + timeout
        while len(out) < n:
            if b'\n' in self.buf:
                line, self.buf = self.buf.split(b'\n', 1)
                out.append(json.loads(line))
                continue
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise AssertionError('%d of %d answers within %ss: %s' % (len(out), n, timeout, out))
            data = os.read(self.p.stdout.fileno(), 65536)
            if not data:
                raise AssertionError('call_many.py exited after %d of %d answers' % (len(out), n))
            self.buf += data
        return out

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        self.p.stdin.close()
        self.p.stdout.close()


def program_from_env(variable, name):
    """The program meson names in $variable; a RuntimeError when it cannot
    run (the test layer then fails and says why)."""
    path = os.environ.get(variable)
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError('$%s must name the %s binary (meson sets it)' % (variable, name))
    return path


def env_outside_testbed(*also):
    """This process's environment for a program that must see the real
    files, not umockdev's test bed (and without the variables in also)."""
    drop = ('LD_PRELOAD', 'UMOCKDEV_DIR') + also
    return {k: v for k, v in os.environ.items() if k not in drop}


class WholeLines:
    """A stream that passes on only whole lines.

    dbus-test-runner reads its task's output a line at a time with a
    blocking read, and pets the watchdog that guards its bus from the same
    main loop; unittest writes "test_name ... " and the rest of the line
    only when the case ends. So a case longer than the watchdog's 60 s
    had its bus killed under it (CI: "DBus Daemon exited abruptly!", the
    case then failing on the lost bus). Held back until the newline, the
    runner never blocks.
    """

    def __init__(self, stream):
        self.stream = stream
        self.pending = ''

    def write(self, text):
        self.pending += text
        if '\n' in self.pending:
            done, self.pending = self.pending.rsplit('\n', 1)
            self.stream.write(done + '\n')
            self.stream.flush()

    def flush(self):
        pass  # a partial line waits for its end; close() writes it

    def close(self):
        if self.pending:
            self.stream.write(self.pending + '\n')
            self.stream.flush()
        self.pending = ''


def main():
    out = WholeLines(sys.stdout)
    try:
        unittest.main(testRunner=unittest.TextTestRunner(stream=out, verbosity=2))
    finally:
        out.close()
