#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sbd-manager against the real sbdd, under Xvfb.

What the window shows is read from its widgets (--dump-model prints them as
JSON; --watch prints again on every change). Edits are made with the test
actions --set/--add/--remove, which emit the very widget signals a user's
Enter key or click emits (GtkEntry::activate, GtkSwitch's active property,
GtkButton::clicked), so they take the same path to the daemon as an edit.
sbd-manager runs without umockdev's preload: it never touches sysfs.
"""

import json
import os
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import unittest

import sbdtest
from sbdtest import DEVICE_IFACE, device_path

M16 = 16 << 20


def client_env():
    env = sbdtest.env_outside_testbed()
    # no accessibility bus, and no session bus: GIO would otherwise autolaunch
    # one on the X display (dbus-launch), which outlives the test
    env['GTK_A11Y'] = 'none'
    env['NO_AT_BRIDGE'] = '1'
    env['DBUS_SESSION_BUS_ADDRESS'] = 'unix:path=/nonexistent/no-session-bus'
    return env


def device(n, label=None, size='16M', read_only=False, online=True):
    return {'name': 'sbd%d' % n, 'label': label or 'sbd%d' % n, 'size': size,
            'read_only': read_only, 'online': online}


class ManagerTestCase(sbdtest.SbdTestCase):
    """Starts one Xvfb per test class; sbd-manager runs on it directly (not
    through xvfb-run, so that signals reach sbd-manager itself)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.manager_path = sbdtest.program_from_env('SBD_MANAGER', 'sbd-manager')
        if not shutil.which('Xvfb'):
            raise RuntimeError('Xvfb (package xvfb) is not installed')
        # Xvfb writes the display it found into a file: this process runs under
        # umockdev's preload, whose wrappers must not see Xvfb's descriptor.
        cls.xvfb_dir = tempfile.mkdtemp(prefix='sbd-xvfb-')
        number_file = os.path.join(cls.xvfb_dir, 'display')
        open(number_file, 'w').close()  # read below before the shell may have created it
        cls.xvfb = subprocess.Popen(['sh', '-c', 'exec Xvfb -displayfd 3 -noreset -nolisten tcp '
                                     '-screen 0 1024x768x24 3>"$0"', number_file],
                                    env=client_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        end = time.monotonic() + 30
        number = ''
        while time.monotonic() < end and cls.xvfb.poll() is None and not number.endswith('\n'):
            time.sleep(0.05)
            with open(number_file) as f:
                number = f.read()
        number = number.strip()
        if not number:
            cls.xvfb.kill()
            raise RuntimeError('Xvfb did not start: %s' % cls.xvfb.communicate()[1].decode())
        cls.display = ':' + number

    @classmethod
    def tearDownClass(cls):
        cls.xvfb.terminate()
        cls.xvfb.wait(20)
        shutil.rmtree(cls.xvfb_dir, ignore_errors=True)
        super().tearDownClass()

    def start(self, *args, uid=None, env_add=None):
        env = client_env()
        env['DISPLAY'] = self.display
        env['GDK_BACKEND'] = 'x11'
        env.update(env_add or {})
        cmd = [self.manager_path] + list(args)
        if uid is not None:
            cmd = ['setpriv', '--reuid=%d' % uid, '--regid=%d' % uid, '--clear-groups'] + cmd
            env['XDG_RUNTIME_DIR'] = tempfile.mkdtemp()
            os.chown(env['XDG_RUNTIME_DIR'], uid, uid)
        assert self.xvfb.poll() is None, 'Xvfb died (%s): %s' % (self.display, self.xvfb.communicate()[1].decode())
        p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        p.pending = b''
        return p

    def run_manager(self, *args, status=0, uid=None, env_add=None):
        p = self.start(*args, uid=uid, env_add=env_add)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, status, 'sbd-manager %s: exit %d\nstdout: %s\nstderr: %s' % (
            ' '.join(args), p.returncode, out.decode(), err.decode()))
        return [json.loads(line) for line in out.decode().splitlines()], err.decode()

    def read_json(self, p, timeout=30):
        """The next JSON line sbd-manager prints (never hangs)."""
        fd = p.stdout.fileno()
        end = time.monotonic() + timeout
        while b'\n' not in p.pending:
            ready, _, _ = select.select([fd], [], [], max(0, end - time.monotonic()))
            self.assertTrue(ready, 'sbd-manager printed nothing more after %r' % p.pending)
            chunk = os.read(fd, 65536)
            if not chunk:
                self.fail('sbd-manager ended: %s' % p.stderr.read().decode())
            p.pending += chunk
        line, p.pending = p.pending.split(b'\n', 1)
        return json.loads(line)

    def model(self, **kw):
        m = {'module_state': 'live', 'module_version': '1.0', 'daemon_version': '0.1.0',
             'devices': [device(0), device(1)], 'error': None}
        m.update(kw)
        return m

    def attr(self, n, a):
        return self.testbed.read(self.testbed.device_attr(n, a))

    def german(self):
        """The variables that make sbd-manager speak German with the build
        tree's translation: i18n.gettext builds clients/po/de/LC_MESSAGES/
        sbd-manager.mo, the layout bindtextdomain wants, and the binary takes
        that directory from SBD_MANAGER_LOCALEDIR. gettext honours LANGUAGE
        in any locale but C, so C.UTF-8 (built into glibc) does, and no
        de_DE locale has to be generated on the test machine."""
        localedir = os.path.join(os.path.dirname(self.manager_path), '..', 'po')
        mo = os.path.join(localedir, 'de', 'LC_MESSAGES', 'sbd-manager.mo')
        self.assertTrue(os.path.exists(mo), '%s was not built (is de in clients/po/LINGUAS?)' % mo)
        return {'LANGUAGE': 'de', 'LC_ALL': 'C.UTF-8', 'SBD_MANAGER_LOCALEDIR': localedir}


class Show(ManagerTestCase):

    def test_dump_model(self):
        self.testbed.write(self.testbed.device_attr(1, 'label'), 'data\n')
        self.testbed.write(self.testbed.device_attr(1, 'read_only'), '1\n')
        self.testbed.uevent(self.testbed.device_syspath(1), 'change')
        self.wait_for(lambda: self.get(device_path(1), DEVICE_IFACE, 'ReadOnly'))
        expected = [self.model(devices=[device(0), device(1, label='data', read_only=True)])]
        lines, err = self.run_manager('--dump-model')
        self.assertEqual(lines, expected)
        # the same bus, named with --address
        lines, err = self.run_manager('--dump-model', '--address', os.environ['DBUS_SYSTEM_BUS_ADDRESS'])
        self.assertEqual(lines, expected)
        lines, err = self.run_manager('--dump-model', '--address', 'unix:path=/nonexistent', status=1)
        self.assertRegex(lines[0]['error'], r'^Could not connect to the bus: ')
        self.assertEqual(lines[0]['devices'], [])

    def test_screenshot(self):
        tb = self.testbed
        tb.write(tb.device_attr(1, 'label'), 'scratch\n')
        tb.write(tb.device_attr(1, 'read_only'), '1\n')
        tb.uevent(tb.device_syspath(1), 'change')
        tb.add_device(2, size=64 << 20, label='build cache')
        self.wait_for(lambda: len(self.get(sbdtest.ROOT, sbdtest.MANAGER_IFACE, 'Devices')) == 3 and
                      self.get(device_path(1), DEVICE_IFACE, 'Label') == 'scratch')
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, 'window.png')
            # a device expanded, as the README shows it; and an error's toast
            lines, _ = self.run_manager('--dump-model', '--expand', 'sbd1', '--add', '12x', '--screenshot', png,
                                        status=1)
            self.assertEqual(lines[0], {'action': 'expand sbd1', 'error': None})
            self.assertRegex(lines[1]['error'], r'^Could not add a device: “12x” is not a size')
            with open(png, 'rb') as f:
                head = f.read(24)
            self.assertEqual(head[:8], b'\x89PNG\r\n\x1a\n')
            width, height = struct.unpack('>II', head[16:24])
            self.assertGreater(width, 300)
            self.assertGreater(height, 200)
            if os.environ.get('SBD_SCREENSHOT_DIR'):  # for the README
                shutil.copy(png, os.path.join(os.environ['SBD_SCREENSHOT_DIR'], 'sbd-manager.png'))

    def test_daemon_not_running(self):
        self.stop_sbdd()
        lines, _ = self.run_manager('--dump-model')
        self.assertEqual(lines[0]['module_state'], 'unknown (sbdd is not running)')
        self.assertEqual(lines[0]['devices'], [])

    def test_follows_changes_behind_its_back(self):
        p = self.start('--dump-model', '--watch')
        try:
            self.assertEqual(self.read_json(p), self.model())
            tb = self.testbed
            # a change made directly in sysfs, announced by a uevent
            tb.write(tb.device_attr(1, 'label'), 'outside\n')
            tb.write(tb.device_attr(1, 'size'), '%d\n' % (32 << 20))
            tb.uevent(tb.device_syspath(1), 'change')
            self.assertEqual(self.read_json(p)['devices'], [device(0), device(1, label='outside', size='32M')])
            tb.write(tb.device_attr(0, 'online'), '0\n')
            tb.uevent(tb.device_syspath(0), 'offline')
            self.assertEqual(self.read_json(p)['devices'][0], device(0, online=False))
            # a disk appears and goes
            tb.add_device(7, size=1 << 20)
            m = self.read_json(p)
            while len(m['devices']) < 3:
                m = self.read_json(p)
            self.assertEqual(m['devices'][2], device(7, size='1M'))
            tb.remove_device(7)
            m = self.read_json(p)
            while len(m['devices']) > 2:
                m = self.read_json(p)
            self.assertEqual([d['name'] for d in m['devices']], ['sbd0', 'sbd1'])
            # the daemon goes away and comes back
            self.stop_sbdd()
            m = self.read_json(p)
            while m['module_state'] != 'unknown (sbdd is not running)':
                m = self.read_json(p)
            self.start_sbdd()
            m = self.read_json(p)
            while len(m['devices']) < 2 or m['module_state'] != 'live':
                m = self.read_json(p)
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(20)
        self.assertEqual(p.returncode, 0, p.stderr.read().decode())


class Edit(ManagerTestCase):

    def test_edits_reach_sysfs(self):
        lines, err = self.run_manager('--dump-model', '--set', 'sbd0:Label=fromgui', '--set', 'sbd1:read_only=yes',
                                      '--set', 'sbd0:size=64M', '--set', 'sbd1:Online=off')
        self.assertEqual(err, '')
        self.assertEqual(self.attr(0, 'label'), 'fromgui')
        self.assertEqual(self.attr(1, 'read_only'), '1')
        self.assertEqual(self.attr(0, 'size'), str(64 << 20))
        self.assertEqual(self.attr(1, 'online'), '0')
        self.assertEqual(lines[:4], [{'action': a, 'error': None} for a in (
            'set sbd0:Label=fromgui', 'set sbd1:read_only=yes', 'set sbd0:size=64M', 'set sbd1:Online=off')])
        self.assertEqual(lines[4], self.model(devices=[device(0, label='fromgui', size='64M'),
                                                       device(1, read_only=True, online=False)]))

    def test_refused_edits_are_shown_and_lose_nothing(self):
        # the kernel refuses the size (EINVAL); the daemon refuses a huge label
        os.unlink(self.testbed.real(self.testbed.device_attr(0, 'size')))
        os.symlink('/proc/self/oom_score_adj', self.testbed.real(self.testbed.device_attr(0, 'size')))
        # (5120: a size sbdd's own checks let through to the kernel)
        lines, err = self.run_manager('--dump-model', '--set', 'sbd1:Label=kept', '--set', 'sbd0:Size=5120',
                                      '--set', 'sbd1:Label=' + 'a' * 5000, '--set', 'sbd1:Size=12x', status=1)
        self.assertEqual(lines[0], {'action': 'set sbd1:Label=kept', 'error': None})
        self.assertEqual(lines[1]['action'], 'set sbd0:Size=5120')
        self.assertRegex(lines[1]['error'], r'^Could not set Size of sbd0 to “5120”: the value is not valid '
                                            r'\(.*Invalid argument.*\)\.$')
        self.assertRegex(lines[2]['error'], r'^Could not set Label of sbd1 to “a+”: the value is not valid '
                                            r'\(.*too long.*\)\.$')
        self.assertEqual(lines[3]['error'], 'Could not set Size of sbd1: “12x” is not a size '
                                            '(expected bytes, or a number with K, M or G).')
        # each refused field shows the daemon's value again, the accepted edit stays
        self.assertEqual(lines[4]['devices'], [device(0), device(1, label='kept')])
        self.assertEqual(lines[4]['error'], lines[3]['error'])
        self.assertEqual(self.attr(1, 'label'), 'kept')
        self.assertEqual(self.attr(1, 'size'), '%d\n' % M16)
        self.assertIn('Could not set Size of sbd0', err)

    def test_not_authorized(self):
        # no polkit on the bus: only root may write; the user sees why, nothing changes
        lines, err = self.run_manager('--dump-model', '--set', 'sbd0:Label=fromuser', status=1, uid=sbdtest.NOBODY)
        self.assertEqual(lines[0]['error'], 'Could not set Label of sbd0 to “fromuser”: you are not '
                                            'authorized to do this (%s).' % lines[0]['error'].split(' (', 1)[1][:-2])
        self.assertEqual(lines[1]['devices'][0], device(0))
        self.assertEqual(self.attr(0, 'label'), 'sbd0\n')
        self.start_polkit(allowed=['org.sbd.sbd1.set-attribute'])
        lines, err = self.run_manager('--dump-model', '--set', 'sbd0:Label=fromuser', uid=sbdtest.NOBODY)
        self.assertEqual(lines[0], {'action': 'set sbd0:Label=fromuser', 'error': None})
        self.assertEqual(self.attr(0, 'label'), 'fromuser')

    def play_kernel(self, attr, make):
        f = '/sys/bus/sbd/drivers/sbd/' + attr
        self.wait_for(lambda: self.testbed.read(f) != '', timeout=30, message='sbdd did not write ' + attr)
        value = self.testbed.read(f)
        make(value)
        return value

    def test_add_and_remove_buttons(self):
        p = self.start('--dump-model', '--add', '8M:3')
        self.assertEqual(self.play_kernel('new_device', lambda v: self.testbed.add_device(3, size=8 << 20)),
                         '%d 3' % (8 << 20))
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        lines = [json.loads(line) for line in out.decode().splitlines()]
        self.assertEqual(lines[0], {'action': 'add 8M:3', 'error': None})
        self.assertEqual(lines[1]['devices'], [device(0), device(1), device(3, size='8M')])

        p = self.start('--dump-model', '--remove', 'sbd1')
        self.assertEqual(self.play_kernel('delete_device', lambda v: self.testbed.remove_device(1)), 'sbd1')
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        lines = [json.loads(line) for line in out.decode().splitlines()]
        self.assertEqual(lines[0], {'action': 'remove sbd1', 'error': None})
        self.assertEqual([d['name'] for d in lines[1]['devices']], ['sbd0', 'sbd3'])

    def test_add_refused(self):
        lines, _ = self.run_manager('--dump-model', '--add', '12x', status=1)
        self.assertEqual(lines[0]['error'], 'Could not add a device: “12x” is not a size '
                                            '(expected bytes, or a number with K, M or G).')
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')
        f = self.testbed.real('/sys/bus/sbd/drivers/sbd/new_device')
        os.unlink(f)
        os.symlink('/proc/self/oom_score_adj', f)
        lines, _ = self.run_manager('--dump-model', '--add', '4095', status=1)
        self.assertRegex(lines[0]['error'], r'^Could not add a device of 4095: the value is not valid \(.*\)\.$')

    def test_module_button(self):
        # live: the button offers Unload… only
        lines, _ = self.run_manager('--dump-model', '--module', 'load', status=1)
        self.assertEqual(lines[0], {'action': 'module load', 'error': 'the window offers no load'})
        # refused by the daemon: the user reads why, nothing is lost
        lines, _ = self.run_manager('--dump-model', '--module', 'unload', status=1, uid=sbdtest.NOBODY)
        self.assertEqual(lines[0]['action'], 'module unload')
        self.assertRegex(lines[0]['error'], r'^Could not unload the sbd module: you are not authorized '
                                            r'to do this \(.*\)\.$')
        self.assertEqual(lines[1], self.model(error=lines[0]['error']))
        # root is authorized; the test bed cannot unload a module (the
        # host's kernel answers, ENOSYS or ENOENT): shown in words, the
        # window still shows every disk
        lines, _ = self.run_manager('--dump-model', '--module', 'unload', status=1)
        self.assertRegex(lines[0]['error'], r'^Could not unload the sbd module: .+\.$')
        self.assertNotIn('not authorized', lines[0]['error'])
        self.assertEqual(lines[1]['devices'], [device(0), device(1)])


# Roles a user operates: each must carry a name a screen reader can say.
CONTROL_ROLES = {'push button', 'toggle button', 'check box', 'text', 'entry', 'password text',
                 'menu item', 'check menu item', 'radio menu item', 'spin button', 'combo box', 'slider',
                 'radio button', 'link', 'list item'}


class Accessibility(ManagerTestCase):
    """The window as assistive technologies see it: the AT-SPI tree, read by
    a11y_tree.py on its own session bus (with its own AT-SPI bus), on Xvfb."""

    def tree(self, *args, keys=(), until=(), env_add=None):
        env = sbdtest.env_outside_testbed()
        env['DISPLAY'] = self.display
        env['GDK_BACKEND'] = 'x11'
        for k in ('GTK_A11Y', 'NO_AT_BRIDGE', 'DBUS_SESSION_BUS_ADDRESS'):
            env.pop(k, None)
        env.update(env_add or {})
        helper = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'a11y_tree.py')
        cmd = ['dbus-run-session', '--', '/usr/bin/python3', helper]
        for k in keys:
            cmd += ['--keys', k]
        for n in until:
            cmd += ['--until', n]
        p = subprocess.run(cmd + [self.manager_path] + list(args), env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        # the AT-SPI registry, started on that bus, may print to the same stdout
        tree = json.loads(p.stdout.decode().strip().splitlines()[-1])
        if os.environ.get('SBD_A11Y_DUMP'):  # to look at what a screen reader gets
            with open(os.environ['SBD_A11Y_DUMP'], 'w') as f:
                json.dump(tree, f)
        return tree

    @staticmethod
    def nodes(tree):
        for n in tree['children']:
            yield n
            yield from Accessibility.nodes(n)

    def controls(self, window):
        return [n for n in self.nodes(window) if n['role'] in CONTROL_ROLES]

    def assert_all_named(self, window):
        unnamed = [n['role'] for n in self.controls(window) if not n['name'].strip()]
        self.assertEqual(unnamed, [], 'controls without an accessible name in %r' % window['name'])

    def main_window_controls(self, t, title):
        """The main window of tree t, titled title, every control named:
        its controls as (role, name)."""
        self.assertEqual(t['model'], self.model())
        window = t['windows'][0]
        self.assertEqual((window['role'], window['name']), ('frame', title))
        self.assert_all_named(window)
        return window, {(n['role'], n['name']) for n in self.controls(window)}

    def device_row_nodes(self, window, name, named):
        """(role, name) of everything inside the list item of device name."""
        dev = [n for n in self.nodes(window) if n['name'] == name and n['role'] == 'list item']
        self.assertTrue(dev, named)
        return {(n['role'], n['name']) for n in self.nodes(dev[0])}

    def test_every_control_has_a_name(self):
        t = self.tree(until=['Remove sbd1'])
        window, named = self.main_window_controls(t, 'SBD Manager')
        for control in [('push button', 'Main Menu'), ('push button', 'Unload…'),
                        ('push button', 'Remove sbd0'), ('push button', 'Remove sbd1'),
                        ('push button', 'Add Device'),
                        ('text', 'Size of the new device'), ('text', 'Device number (optional)'),
                        ('list item', 'Module sbd'),
                        ]:
            self.assertIn(control, named)
        # a device's rows: its label and size fields and its two switches
        # (named by their rows' titles; the device's row, around them, says which)
        inside = self.device_row_nodes(window, 'sbd1', named)
        for control in [('text', 'Label'), ('text', 'Size'), ('check box', 'Read-only'),
                        ('check box', 'Online')]:
            self.assertIn(control, inside)

    def test_shortcuts_window_and_menu_by_keyboard(self):
        # Ctrl+? opens the shortcuts window: every shortcut in it is named
        t = self.tree(keys=['Control+question'], until=['Keyboard Shortcuts', 'New Device'])
        titles = [w['name'] for w in t['windows']]
        self.assertIn('Keyboard Shortcuts', titles)
        shortcuts = t['windows'][titles.index('Keyboard Shortcuts')]
        names = {n['name'] for n in self.nodes(shortcuts)}
        for s in ('Show Shortcuts', 'Main Menu', 'Close Window', 'Quit', 'New Device'):
            self.assertIn(s, names)
        # F10 opens the primary menu: About and Keyboard Shortcuts, named
        t = self.tree(keys=['F10'], until=['About SBD Manager'])
        items = {n['name'] for w in t['windows'] for n in self.nodes(w) if n['role'] == 'menu item'}
        self.assertEqual(items, {'Keyboard Shortcuts', 'About SBD Manager'})

    def test_german(self):
        # what a screen reader says, from the German translation; nothing in English
        t = self.tree(until=['sbd1 entfernen'], env_add=self.german())
        window, named = self.main_window_controls(t, 'SBD-Verwaltung')
        for control in [('push button', 'Hauptmenü'), ('push button', 'Entladen…'),
                        ('push button', 'sbd0 entfernen'), ('push button', 'Gerät hinzufügen'),
                        ('text', 'Größe des neuen Geräts'), ('text', 'Gerätenummer (optional)'),
                        ('list item', 'Modul sbd')]:
            self.assertIn(control, named)
        self.assertNotIn(('push button', 'Main Menu'), named)
        inside = self.device_row_nodes(window, 'sbd1', named)
        for control in [('text', 'Bezeichnung'), ('text', 'Größe'), ('check box', 'Schreibgeschützt')]:
            self.assertIn(control, inside)
        # a message put together from translated parts: the failed action, the
        # reason for the daemon's error name, the daemon's own words
        lines, _ = self.run_manager('--dump-model', '--set', 'sbd0:Label=x', status=1, uid=sbdtest.NOBODY,
                                    env_add=self.german())
        self.assertRegex(lines[0]['error'], r'^Setzen von Label für sbd0 auf „x“ fehlgeschlagen: '
                                            r'Sie sind dazu nicht berechtigt \(.+\)\.$')


class Files(unittest.TestCase):
    """The desktop file and the AppStream metainfo, checked by their own tools:
    the files installed, which the build merges from clients/sbd-manager's
    templates (*.in) and the translations, next to the sbd-manager it built."""

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')

    @classmethod
    def setUpClass(cls):
        cls.built = os.path.dirname(sbdtest.program_from_env('SBD_MANAGER', 'sbd-manager'))

    def validate(self, cmd, name):
        path = os.path.join(self.built, name)
        self.assertTrue(os.path.exists(path), '%s was not built' % path)
        p = subprocess.run(cmd + [path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout + p.stderr

    def test_desktop_file(self):
        out = self.validate(['desktop-file-validate'], 'org.sbd.Manager.desktop')
        self.assertEqual(out, '')  # not even a hint

    def test_metainfo(self):
        out = self.validate(['appstreamcli', 'validate', '--no-net', '--explain'], 'org.sbd.Manager.metainfo.xml')
        self.assertIn('Validation was successful', out)
        self.assertNotRegex(out, r'(?m)^[EW]:')

    def languages(self):
        with open(os.path.join(self.root, 'clients', 'po', 'LINGUAS')) as f:
            return [w for line in f if not line.lstrip().startswith('#') for w in line.split()]

    def test_translations_merged(self):
        # each language of LINGUAS reached the installed files; German at least
        langs = self.languages()
        self.assertIn('de', langs)
        with open(os.path.join(self.built, 'org.sbd.Manager.desktop'), encoding='utf-8') as f:
            desktop = f.read()
        with open(os.path.join(self.built, 'org.sbd.Manager.metainfo.xml'), encoding='utf-8') as f:
            metainfo = f.read()
        for lang in langs:
            self.assertRegex(desktop, r'(?m)^Name\[%s\]=.' % lang)
            self.assertRegex(desktop, r'(?m)^Comment\[%s\]=.' % lang)
            self.assertRegex(metainfo, r'<name xml:lang="%s">' % lang)
            self.assertRegex(metainfo, r'<summary xml:lang="%s">' % lang)

    def test_translations_are_well_formed(self):
        # msgfmt as the build runs it does not check: the format directives a
        # translation must keep, one mnemonic where the original has one
        for lang in self.languages():
            p = subprocess.run(['msgfmt', '--check', '--check-accelerators=_', '-o', '/dev/null',
                                os.path.join(self.root, 'clients', 'po', lang + '.po')],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, '%s.po: %s' % (lang, p.stderr))

    def test_translation_template_is_current(self):
        # every string marked for translation is in the .pot, and nothing else
        root = self.root
        pot = os.path.join(root, 'clients', 'po', 'sbd-manager.pot')
        with tempfile.TemporaryDirectory() as d:
            fresh = os.path.join(d, 'fresh.pot')
            subprocess.run(['xgettext', '--from-code=UTF-8', '-k_', '-kN_', '-D', root,
                            '--files-from', os.path.join(root, 'clients', 'po', 'POTFILES'), '-o', fresh],
                           check=True)
            for a, b in ((fresh, pot), (pot, fresh)):
                p = subprocess.run(['msgcmp', '--use-untranslated', a, b], capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, 'clients/po/sbd-manager.pot is out of date '
                                 '(meson compile sbd-manager-pot):\n' + p.stderr)


if __name__ == '__main__':
    sbdtest.main()
