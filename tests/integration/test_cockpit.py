#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cockpit page (clients/cockpit) in a real browser against the real sbdd.

cockpit-ws serves one session without a login (--local-session=cockpit-bridge)
on the loopback; its bridge talks to the test's private system bus
($DBUS_SYSTEM_BUS_ADDRESS), where sbdd runs over the umockdev test bed.
Headless Chromium, driven by chromedriver through python3-selenium, opens the
page straight from the bridge (the package directory is the source tree's,
found through $XDG_DATA_DIRS). A browser or cockpit-ws that cannot start is
an error of the test, never a skip.

$SBD_SCREENSHOT_DIR=dir keeps the page's screenshots at desktop and phone
width (docs/cockpit-desktop.png, docs/cockpit-phone.png come from here).
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import sbdtest
from sbdtest import DEVICE_IFACE, device_path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.normpath(os.path.join(HERE, '..', '..', 'clients', 'cockpit'))
COCKPIT_WS = '/usr/lib/cockpit/cockpit-ws'
COCKPIT_BRIDGE = '/usr/bin/cockpit-bridge'
CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'
M16 = 16 << 20


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]



def browser_env():
    """The browser's environment: no bus of the test's. Chromium talks to
    the system bus it is given (and aborts when that bus goes); the page
    reaches sbdd only through cockpit-ws, as in a real session, so the
    browser gets a system bus address that leads nowhere."""
    env = sbdtest.env_outside_testbed('DBUS_SYSTEM_BUS_ADDRESS', 'DBUS_STARTER_ADDRESS', 'DBUS_STARTER_BUS_TYPE',
                                      'DBUS_SESSION_BUS_ADDRESS')
    env['DBUS_SYSTEM_BUS_ADDRESS'] = 'unix:path=/nonexistent/sbd-test-no-bus'
    return env

class CockpitTestCase(sbdtest.SbdTestCase):
    """sbdd over the test bed (from SbdTestCase), cockpit-ws serving the page
    as `uid` (None: root), and one headless Chromium per class."""

    ndevices = 3
    uid = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        missing = [p for p in (COCKPIT_WS, COCKPIT_BRIDGE, CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
        if missing:
            raise RuntimeError('cannot run the Cockpit test: missing ' + ', '.join(missing) +
                               ' (packages cockpit-ws, cockpit-bridge, chromium, chromium-driver)')
        if not os.path.exists(os.path.join(PACKAGE, 'manifest.json')):
            raise RuntimeError('no Cockpit package at ' + PACKAGE)
        cls.tmp = tempfile.mkdtemp(prefix='sbd-cockpit-')
        os.chmod(cls.tmp, 0o755)
        # the bridge finds packages in $XDG_DATA_DIRS/cockpit
        os.makedirs(os.path.join(cls.tmp, 'data', 'cockpit'))
        os.symlink(PACKAGE, os.path.join(cls.tmp, 'data', 'cockpit', 'sbd'))
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                  '--no-first-run', '--disable-extensions', '--force-prefers-reduced-motion',
                  '--user-data-dir=' + os.path.join(cls.tmp, 'chromium'), '--window-size=1280,900',
                  '--lang=en-US'):
            opts.add_argument(a)
        log = os.path.join(cls.tmp, 'chromedriver.log')
        try:
            cls.browser = webdriver.Chrome(service=Service(CHROMEDRIVER, log_path=log, env=browser_env()),
                                           options=opts)
        except WebDriverException as e:
            raise RuntimeError('the browser did not start: %s\n%s' % (e, open(log).read()[-3000:]))
        cls.browser.set_page_load_timeout(60)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, 'browser', None):
            cls.browser.quit()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.ws = None
        self.start_ws()
        self.addCleanup(self.stop_ws)

    def start_ws(self):
        self.port = free_port()
        env = sbdtest.env_outside_testbed()
        env['XDG_DATA_DIRS'] = os.path.join(self.tmp, 'data') + ':/usr/share'
        cmd = [COCKPIT_WS, '--local-session=' + COCKPIT_BRIDGE, '--address=127.0.0.1',
               '--port=%d' % self.port]
        if self.uid is not None:
            run = os.path.join(self.tmp, 'run-%d' % self.uid)
            os.makedirs(run, exist_ok=True)
            os.chown(run, self.uid, self.uid)
            os.chmod(run, 0o700)
            env.update(HOME=run, XDG_RUNTIME_DIR=run, USER='nobody', LOGNAME='nobody')
            cmd = ['setpriv', '--reuid=%d' % self.uid, '--regid=%d' % self.uid, '--clear-groups'] + cmd
        self.ws_log = os.path.join(self.logdir, 'cockpit-ws.log')
        # A session of its own: cockpit-bridge starts a session bus of its
        # own (dbus-daemon --session) when it finds none, and that one
        # outlives a bridge that is ended; stop_ws() ends the whole group.
        # Left behind, one per test case, they used up root's inotify
        # instances (fs.inotify.max_user_instances, 128) and later tests'
        # sbdd and dbus-daemon could not watch anything.
        self.ws = subprocess.Popen(cmd, env=env, stdout=open(self.ws_log, 'w'), stderr=subprocess.STDOUT,
                                   start_new_session=True)
        end = time.monotonic() + 20
        while True:
            if self.ws.poll() is not None:
                self.fail('cockpit-ws exited with %d:\n%s' % (self.ws.returncode, self.ws_output()))
            try:
                socket.create_connection(('127.0.0.1', self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > end:
                    self.fail('cockpit-ws does not listen on %d:\n%s' % (self.port, self.ws_output()))
                time.sleep(0.05)

    def stop_ws(self):
        if not self.ws:
            return
        if self.ws.poll() is None:
            self.ws.send_signal(signal.SIGTERM)
            try:
                self.ws.wait(10)
            except subprocess.TimeoutExpired:
                self.ws.kill()
                self.ws.wait()
        # what cockpit-ws started and left (the bridge, its session bus)
        # ends with it: nothing of the test's may outlive it
        end = time.monotonic() + 10
        while True:
            try:
                os.killpg(self.ws.pid, signal.SIGTERM)
            except ProcessLookupError:
                break
            if time.monotonic() > end:
                self.fail('processes of cockpit-ws\'s session (group %d) outlived it' % self.ws.pid)
            time.sleep(0.1)

    def ws_output(self):
        with open(self.ws_log) as f:
            return f.read()[-4000:]

    # the page

    def open_page(self):
        self.browser.get('http://127.0.0.1:%d/cockpit/@localhost/sbd/index.html' % self.port)
        self.wait_page(lambda: self.js('return document.body.dataset.ready') == '1', 'the page did not finish loading')

    def js(self, script, *args):
        return self.browser.execute_script(script, *args)

    def wait_page(self, cond, message, timeout=20):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            try:
                if cond():
                    return
            except (StaleElementReferenceException, WebDriverException) as e:
                last = e
            time.sleep(0.05)
        logs = ''
        try:
            logs = '\n'.join(str(e) for e in self.browser.get_log('browser'))
        except WebDriverException:
            pass
        self.fail('%s within %ds (last error: %s)\n--- page text ---\n%s\n--- browser console ---\n%s'
                  '\n--- cockpit-ws ---\n%s' % (message, timeout, last, self.page_text(), logs, self.ws_output()))

    def page_text(self):
        try:
            return self.browser.find_element(By.TAG_NAME, 'body').text
        except WebDriverException as e:
            return '(no page: %s)' % e

    def table(self):
        """The disks table as the user sees it: one dict per row, in order."""
        return self.js('''
            return [...document.querySelectorAll("#disks-body tr[data-name]")].map(tr => ({
                name: tr.dataset.name,
                cells: [...tr.querySelectorAll("td[data-label]")].map(td => td.textContent),
            }));''')

    def row_names(self):
        return [r['name'] for r in self.table()]

    def cells(self, name):
        for r in self.table():
            if r['name'] == name:
                return r['cells']
        return None

    def wait_cells(self, name, expected, message=None):
        self.wait_page(lambda: self.cells(name) == expected,
                       message or '%s shown as %r (shown: %r)' % (name, expected, self.cells(name)))

    def expand(self, name):
        b = self.browser.find_element(By.CSS_SELECTOR, 'tr[data-name="%s"] .sbd-expander' % name)
        b.click()
        self.wait_page(lambda: b.get_attribute('aria-expanded') == 'true', 'details of %s did not open' % name)

    def field(self, name, prop):
        return self.browser.find_element(By.ID, 'edit-%s-%s' % (name, prop))

    def field_error(self, name, prop):
        e = self.browser.find_element(By.ID, 'error-%s-%s' % (name, prop))
        return e.text if e.is_displayed() else ''

    def type_into(self, element, text, enter=True):
        element.click()
        element.send_keys(Keys.END + Keys.BACKSPACE * len(element.get_attribute('value')))
        element.send_keys(text + (Keys.ENTER if enter else ''))

    def screenshot(self, name, width, height):
        d = os.environ.get('SBD_SCREENSHOT_DIR')
        if not d:
            return
        self.browser.set_window_size(width, height)
        time.sleep(0.3)  # a layout pass at the new width
        # the whole page, as tall as its content
        h = self.js('return document.documentElement.scrollHeight')
        self.browser.set_window_size(width, max(height, min(h + 20, 2400)))
        time.sleep(0.3)
        self.browser.save_screenshot(os.path.join(d, name))
        self.browser.set_window_size(1280, 900)

    # the kernel's side

    def sysfs(self, n, attr):
        return self.testbed.read(self.testbed.device_attr(n, attr))

    def play_kernel_change(self, n):
        """What the kernel does after a store(): a change uevent."""
        self.testbed.uevent(self.testbed.device_syspath(n), 'change')


class Page(CockpitTestCase):

    def setUp(self):
        super().setUp()
        self.testbed.write(self.testbed.device_attr(1, 'label'), 'build\n')
        self.testbed.write(self.testbed.device_attr(2, 'read_only'), '1\n')
        self.testbed.write(self.testbed.device_attr(2, 'size'), '%d\n' % (1 << 30))
        self.testbed.write(self.testbed.device_attr(2, 'mem_used'), '%d\n' % (3 << 20))
        self.testbed.write('/sys/bus/sbd/drivers/sbd/mem_used', '%d\n' % (3 << 20 | 16384))
        for n in (1, 2):
            self.play_kernel_change(n)
        self.wait_for(lambda: self.get(device_path(2), DEVICE_IFACE, 'ReadOnly') is True)
        self.wait_for(lambda: self.get(device_path(1), DEVICE_IFACE, 'Label') == 'build')

    def test_list_matches_sysfs(self):
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed')
        self.assertEqual(self.row_names(), ['sbd0', 'sbd1', 'sbd2'])
        yes_no = {'0': 'no', '1': 'yes'}
        for n in range(3):
            size = int(self.sysfs(n, 'size'))
            used = int(self.sysfs(n, 'mem_used'))
            expected = [self.sysfs(n, 'label').strip(),
                        '%d MiB' % (size >> 20) if size < 1 << 30 else '%d GiB' % (size >> 30),
                        '%d KiB' % (used >> 10) if used < 1 << 20 else '%d MiB' % (used >> 20),
                        yes_no[self.sysfs(n, 'read_only').strip()],
                        yes_no[self.sysfs(n, 'online').strip()]]
            # (MemUsed is asked for by name after the list: wait for it)
            self.wait_cells('sbd%d' % n, expected)
        self.assertEqual(self.browser.find_element(By.ID, 'module-state').text, 'Loaded')
        self.assertEqual(self.browser.find_element(By.ID, 'module-version').text, '1.0')
        self.assertEqual(self.browser.find_element(By.ID, 'budget-text').text, '3.0 MiB of 1 GiB used (0.3%)')
        self.assertEqual(self.browser.find_element(By.ID, 'disks-count').text, '3 disks')
        # an administrator (root here) gets no read-only notice, and may edit
        self.assertEqual(self.browser.find_elements(By.ID, 'notice-access'), [])
        self.expand('sbd1')
        self.assertTrue(self.field('sbd1', 'Label').is_enabled())
        # the details hold every mirrored attribute, the block device too
        self.wait_page(lambda: self.js('return !!document.querySelector(\'[data-details="sbd1"] dd[data-prop="PowerControl"]\')'),
                       'the Explicit properties in the details')
        props = self.js('''return Object.fromEntries([...document.querySelectorAll(
            '[data-details="sbd1"] dd[data-prop]')].map(d => [d.dataset.prop, d.textContent]))''')
        for prop, attr in (('Name', 'name'), ('Device', 'device'), ('PowerControl', 'power/control'),
                           ('MemUsed', 'mem_used'), ('Label', 'label')):
            self.assertEqual(props[prop], self.sysfs(1, attr).strip(), prop)
        self.assertEqual(props['BlockDevice'], '/dev/sbd1')
        self.assertEqual(props['Size'], '%d (16 MiB)' % M16)
        self.assertEqual(set(props), {
            'SysName', 'SysPath', 'BlockDevice', 'Driver', 'Name', 'Device', 'Size', 'ReadOnly', 'Label', 'Online',
            'MemUsed', 'Uevent', 'PowerControl', 'PowerRuntimeStatus', 'PowerRuntimeActiveTime',
            'PowerRuntimeSuspendedTime', 'PowerAutosuspendDelayMs'})
        # sortable: by size, then the other way round
        self.browser.find_element(By.CSS_SELECTOR, 'th[data-sort="size"] button').click()
        self.wait_page(lambda: self.row_names() == ['sbd0', 'sbd1', 'sbd2'], 'sorted by size')
        self.browser.find_element(By.CSS_SELECTOR, 'th[data-sort="size"] button').click()
        self.wait_page(lambda: self.row_names() == ['sbd2', 'sbd1', 'sbd0'], 'sorted by size, descending')
        self.assertEqual(self.browser.find_element(By.CSS_SELECTOR, 'th[data-sort="size"]')
                         .get_attribute('aria-sort'), 'descending')
        self.browser.find_element(By.CSS_SELECTOR, 'th[data-sort="name"] button').click()
        self.wait_page(lambda: self.row_names() == ['sbd0', 'sbd1', 'sbd2'], 'sorted by name')
        self.screenshot('cockpit-desktop.png', 1280, 800)
        self.screenshot('cockpit-phone.png', 390, 844)

    def test_edit_reaches_sysfs(self):
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed')
        self.expand('sbd0')
        self.type_into(self.field('sbd0', 'Label'), 'scratch')
        self.wait_for(lambda: self.sysfs(0, 'label') == 'scratch', message='the label reached sysfs')
        self.play_kernel_change(0)
        self.wait_cells('sbd0', ['scratch', '16 MiB', '8 KiB', 'no', 'yes'])
        # size with its unit: 32 MiB
        self.type_into(self.field('sbd0', 'Size'), '32')
        self.wait_for(lambda: self.sysfs(0, 'size') == str(32 << 20), message='the size reached sysfs')
        self.play_kernel_change(0)
        self.wait_cells('sbd0', ['scratch', '32 MiB', '8 KiB', 'no', 'yes'])
        # the unit changes the number's meaning: 1 GiB
        unit = self.browser.find_element(By.CSS_SELECTOR, '[data-details="sbd0"] select')
        unit.click()  # from the number to its unit, as a user goes
        Select(unit).select_by_value('GiB')
        self.assertEqual(self.sysfs(0, 'size'), str(32 << 20))  # a unit alone applies nothing
        self.type_into(self.field('sbd0', 'Size'), '1')
        self.wait_for(lambda: self.sysfs(0, 'size') == str(1 << 30), message='1 GiB reached sysfs')
        self.play_kernel_change(0)
        self.wait_cells('sbd0', ['scratch', '1 GiB', '8 KiB', 'no', 'yes'])
        # the switches
        self.field('sbd0', 'ReadOnly').click()
        self.wait_for(lambda: self.sysfs(0, 'read_only') == '1', message='read_only=1 reached sysfs')
        self.play_kernel_change(0)
        self.wait_cells('sbd0', ['scratch', '1 GiB', '8 KiB', 'yes', 'yes'])
        self.field('sbd0', 'Online').click()
        self.wait_for(lambda: self.sysfs(0, 'online') == '0', message='online=0 reached sysfs')
        self.testbed.uevent(self.testbed.device_syspath(0), 'offline')
        self.wait_cells('sbd0', ['scratch', '1 GiB', '8 KiB', 'yes', 'no'])
        self.assertEqual(self.field_error('sbd0', 'Label'), '')

    def test_refused_value_shows_its_error_at_the_field(self):
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed')
        self.expand('sbd0')
        # the kernel refuses: size answers like a store() saying EINVAL
        f = self.testbed.real(self.testbed.device_attr(0, 'size'))
        os.unlink(f)
        os.symlink('/proc/self/oom_score_adj', f)
        self.type_into(self.field('sbd0', 'Size'), '64')
        self.wait_page(lambda: 'org.sbd.Sbd1.Error.InvalidValue' in self.field_error('sbd0', 'Size'),
                       'the kernel\'s refusal shown under Size')
        err = self.field_error('sbd0', 'Size')
        self.assertIn('Invalid argument', err)
        self.assertIn(str(64 << 20), err)
        self.assertEqual(self.field('sbd0', 'Size').get_attribute('aria-invalid'), 'true')
        # the field shows the daemon's value again; nothing else took the error
        self.assertEqual(self.field('sbd0', 'Size').get_attribute('value'), '16')
        self.assertEqual(self.field_error('sbd0', 'Label'), '')
        self.assertEqual(self.cells('sbd0')[1], '16 MiB')
        # leaving the field with nothing new keeps the refusal in view
        self.field('sbd0', 'Label').click()
        self.assertIn('org.sbd.Sbd1.Error.InvalidValue', self.field_error('sbd0', 'Size'))
        # the daemon refuses before the kernel: a label of 32 characters
        self.type_into(self.field('sbd0', 'Label'), 'x' * 32)
        self.wait_page(lambda: 'org.sbd.Sbd1.Error.InvalidValue' in self.field_error('sbd0', 'Label'),
                       'the daemon\'s refusal shown under Label')
        self.assertEqual(self.sysfs(0, 'label'), 'sbd0\n')
        self.assertEqual(self.field('sbd0', 'Label').get_attribute('value'), 'sbd0')
        # and a refused AddDevice names its field: a size the module cannot take
        Select(self.browser.find_element(By.ID, 'add-unit')).select_by_value('B')
        self.type_into(self.browser.find_element(By.ID, 'add-size'), '1000', enter=False)
        self.browser.find_element(By.ID, 'add-button').click()
        self.wait_page(lambda: 'InvalidValue' in self.browser.find_element(By.ID, 'add-size-error').text,
                       'the refused size shown under the new disk\'s size')
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')
        # a page where nothing broke: the browser logged no error
        errors = [e for e in self.browser.get_log('browser') if e.get('level') == 'SEVERE']
        self.assertEqual(errors, [])

    def test_changes_behind_its_back_appear(self):
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed')
        # a disk added by someone else (sbdctl, another browser, the kernel)
        self.testbed.add_device(5, size=8 << 20)
        self.testbed.set_ndevices(4)
        self.wait_page(lambda: self.row_names() == ['sbd0', 'sbd1', 'sbd2', 'sbd5'], 'sbd5 appeared')
        self.wait_cells('sbd5', ['sbd5', '8 MiB', '8 KiB', 'no', 'yes'])
        self.assertEqual(self.browser.find_element(By.ID, 'disks-count').text, '4 disks')
        # an attribute changed in sysfs
        self.testbed.write(self.testbed.device_attr(5, 'label'), 'outside\n')
        self.play_kernel_change(5)
        self.wait_cells('sbd5', ['outside', '8 MiB', '8 KiB', 'no', 'yes'])
        # the budget follows the driver
        self.testbed.write('/sys/bus/sbd/drivers/sbd/mem_used', '%d\n' % (512 << 20))
        self.testbed.uevent('/sys/bus/sbd/drivers/sbd', 'change')
        self.wait_page(lambda: self.browser.find_element(By.ID, 'budget-text').text ==
                       '512 MiB of 1 GiB used (50%)', 'the budget bar followed')
        # and one removed
        self.testbed.remove_device(1)
        self.wait_page(lambda: self.row_names() == ['sbd0', 'sbd2', 'sbd5'], 'sbd1 went away')

    def test_add_and_remove(self):
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed')
        size = self.browser.find_element(By.ID, 'add-size')
        self.type_into(size, '32')  # Enter submits the form
        # play the kernel: sbdd wrote new_device; the disk appears
        self.wait_for(lambda: self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device') != '',
                      message='AddDevice reached new_device')
        # SIZE, and the id sbdd chose (it takes the next free one)
        words = self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device').split()
        self.assertEqual(words, [str(32 << 20), '3'])
        self.testbed.add_device(3, size=32 << 20)
        self.wait_page(lambda: 'sbd3' in self.row_names(), 'the added disk is listed')
        # remove asks first; Cancel leaves it
        self.browser.find_element(By.CSS_SELECTOR, 'tr[data-name="sbd3"] .sbd-secondary-danger').click()
        dialog = self.browser.find_element(By.ID, 'confirm')
        self.wait_page(lambda: dialog.is_displayed(), 'the confirmation opened')
        self.assertIn('data on it will be lost', dialog.text)
        self.browser.find_element(By.ID, 'confirm-cancel').click()
        self.wait_page(lambda: not dialog.is_displayed(), 'the confirmation closed')
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device'), '')
        self.browser.find_element(By.CSS_SELECTOR, 'tr[data-name="sbd3"] .sbd-secondary-danger').click()
        self.wait_page(lambda: dialog.is_displayed(), 'the confirmation opened')
        self.browser.find_element(By.ID, 'confirm-ok').click()
        self.wait_for(lambda: self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device') != '',
                      message='RemoveDevice reached delete_device')
        self.assertIn(self.testbed.read('/sys/bus/sbd/drivers/sbd/delete_device'), ('sbd3', '3'))
        self.testbed.remove_device(3)
        self.wait_page(lambda: 'sbd3' not in self.row_names(), 'the removed disk went away')

    def test_unload_asks_first(self):
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed')
        self.browser.find_element(By.ID, 'module-unload').click()
        dialog = self.browser.find_element(By.ID, 'confirm')
        self.wait_page(lambda: dialog.is_displayed(), 'the confirmation opened')
        self.assertIn('the data on all 3 disks will be lost', dialog.text)
        # Escape is Cancel: nothing happens
        self.browser.find_element(By.ID, 'confirm-cancel').send_keys(Keys.ESCAPE)
        self.wait_page(lambda: not dialog.is_displayed(), 'the confirmation closed')
        self.assertEqual(self.get(sbdtest.MODULE, sbdtest.MODULE_IFACE, 'State'), 'live')

    def test_daemon_restart_is_survived(self):
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed')
        self.stop_sbdd()
        self.wait_page(lambda: 'The SBD service is not running' in self.page_text(), 'the notice that sbdd stopped')
        # its button asks the bus to start sbdd; this test bus has no
        # activation file, and the notice says what the bus answered
        self.browser.find_element(By.CSS_SELECTOR, '#notice-daemon button').click()
        self.wait_page(lambda: 'Could not start it:' in self.browser.find_element(By.ID, 'notice-daemon').text,
                       'the failed start explained')
        self.assertIn('org.freedesktop.DBus.Error.ServiceUnknown', self.browser.find_element(By.ID, 'notice-daemon').text)
        # meanwhile in the kernel
        self.testbed.write(self.testbed.device_attr(0, 'label'), 'while-away\n')
        self.start_sbdd()
        self.wait_page(lambda: 'The SBD service is not running' not in self.page_text(), 'the notice went')
        self.assertIn('The SBD service is running', self.page_text())
        self.wait_cells('sbd0', ['while-away', '16 MiB', '8 KiB', 'no', 'yes'])
        self.assertEqual(self.row_names(), ['sbd0', 'sbd1', 'sbd2'])
        # and it is live again
        self.testbed.write(self.testbed.device_attr(2, 'label'), 'after\n')
        self.play_kernel_change(2)
        self.wait_page(lambda: (self.cells('sbd2') or [''])[0] == 'after', 'a change after the restart')


class NotRunningYet(CockpitTestCase):
    """The page opened before sbdd runs (on a host: before D-Bus activation)."""

    start_daemon = False

    def test_page_before_sbdd(self):
        self.open_page()
        self.wait_page(lambda: 'The SBD service is not running' in self.page_text(), 'the notice that sbdd is not running')
        self.assertEqual(self.row_names(), [])
        self.assertFalse(self.browser.find_element(By.ID, 'add-button').is_enabled())
        self.start_sbdd()
        self.wait_page(lambda: self.row_names() == ['sbd0', 'sbd1', 'sbd2'], 'the disks once sbdd runs')
        self.assertNotIn('The SBD service is not running', self.page_text())
        self.assertEqual(self.browser.find_element(By.ID, 'module-state').text, 'Loaded')
        self.wait_page(lambda: self.browser.find_element(By.ID, 'add-button').is_enabled(), 'adding allowed')


class Scale(CockpitTestCase):
    """1,000 disks: the page lists them all and follows a change to one.
    The times are printed (and kept in docs/performance.md), never judged."""

    ndevices = 1000

    def test_thousand_disks(self):
        t0 = time.monotonic()
        self.open_page()
        self.wait_page(lambda: self.js('return document.querySelectorAll("#disks-body tr[data-name]").length')
                       == 1000, '1,000 disks listed', timeout=120)
        appear = time.monotonic() - t0
        names = self.row_names()
        self.assertEqual(names[:3], ['sbd0', 'sbd1', 'sbd2'])
        self.assertEqual(names[-1], 'sbd999')
        self.assertEqual(self.browser.find_element(By.ID, 'disks-count').text, '1000 disks')
        # one row follows a change behind the page's back
        t1 = time.monotonic()
        self.testbed.write(self.testbed.device_attr(777, 'label'), 'one-of-many\n')
        self.play_kernel_change(777)
        self.wait_page(lambda: (self.cells('sbd777') or [''])[0] == 'one-of-many', 'sbd777 updated', timeout=60)
        update = time.monotonic() - t1
        # and an edit from the page among them
        self.expand('sbd500')
        self.type_into(self.field('sbd500', 'Label'), 'edited')
        self.wait_for(lambda: self.sysfs(500, 'label') == 'edited', message='the label of sbd500 reached sysfs')
        print('\nscale: 1,000 disks: the table complete %.2f s after the page was asked for; '
              'a change behind its back shown in %.3f s' % (appear, update), flush=True)


class NotAdministrator(CockpitTestCase):
    """The same page for a user without administrative access (cockpit-ws and
    its bridge as nobody; polkit says no to everything)."""

    uid = sbdtest.NOBODY

    def test_read_only_view_says_why(self):
        self.start_polkit(allowed=())
        self.open_page()
        self.wait_page(lambda: len(self.row_names()) == 3, 'three disks listed for a reader too')
        self.wait_page(lambda: self.browser.find_elements(By.ID, 'notice-access'), 'the read-only notice')
        text = self.browser.find_element(By.ID, 'notice-access').text
        self.assertIn('Read-only: you do not have administrative access', text)
        self.assertIn('needs administrative access', text)
        self.expand('sbd0')
        for prop in ('Label', 'Size', 'ReadOnly', 'Online'):
            self.assertFalse(self.field('sbd0', prop).is_enabled(), prop)
        self.assertFalse(self.browser.find_element(By.CSS_SELECTOR, 'tr[data-name="sbd0"] .sbd-secondary-danger')
                         .is_enabled())
        self.assertFalse(self.browser.find_element(By.ID, 'add-button').is_enabled())
        self.assertFalse(self.browser.find_element(By.ID, 'module-unload').is_enabled())
        # the daemon agrees: a write through this session's bridge is refused
        # by polkit, and sysfs stays as it was
        err = self.browser.execute_async_script('''
            const done = arguments[arguments.length - 1];
            const c = cockpit.dbus("org.sbd.Sbd1", {bus: "system", superuser: "try"});
            c.call("/org/sbd/Sbd1/devices/sbd0", "org.freedesktop.DBus.Properties", "Set",
                   ["org.sbd.Sbd1.Device", "Label", cockpit.variant("s", "nope")])
                .then(() => done("accepted"), e => done(e.name));''')
        self.assertEqual(err, 'org.sbd.Sbd1.Error.NotAuthorized')
        self.assertEqual(self.sysfs(0, 'label'), 'sbd0\n')
        # changes still arrive
        self.testbed.write(self.testbed.device_attr(0, 'label'), 'seen\n')
        self.play_kernel_change(0)
        self.wait_page(lambda: (self.cells('sbd0') or [''])[0] == 'seen', 'a change seen read-only')


class Files(unittest.TestCase):
    """The package's files as Cockpit and AppStream read them."""

    def test_manifest(self):
        import json
        with open(os.path.join(PACKAGE, 'manifest.json')) as f:
            m = json.load(f)
        self.assertEqual(m['menu']['index']['label'], 'RAM disks')
        self.assertTrue(os.path.exists(os.path.join(PACKAGE, 'index.html')))

    def test_metainfo(self):
        p = subprocess.run(['appstreamcli', 'validate', '--no-net', '--pedantic',
                            os.path.join(PACKAGE, 'org.sbd.cockpit.metainfo.xml')],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(PACKAGE, 'org.sbd.cockpit.metainfo.xml')) as f:
            text = f.read()
        # what Cockpit's Applications page looks for
        self.assertIn('<extends>org.cockpit_project.cockpit</extends>', text)
        self.assertIn('<launchable type="cockpit-manifest">sbd</launchable>', text)

    def test_every_file_installed(self):
        """meson installs every file the page loads (and nothing is missing)."""
        with open(os.path.join(PACKAGE, 'meson.build')) as f:
            build = f.read()
        served = sorted(f for f in os.listdir(PACKAGE)
                        if f.endswith(('.js', '.css', '.html', '.json')))
        for f in served:
            self.assertIn("'%s'" % f, build, f)
        with open(os.path.join(PACKAGE, 'index.html')) as f:
            html = f.read()
        for f in ('sbd.css', 'sbd.js', '../base1/cockpit.js'):
            self.assertIn('"%s"' % f, html)


if __name__ == '__main__':
    sbdtest.main()
