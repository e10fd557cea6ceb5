#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cockpit-host.py RUN_VM SCENARIO: the Cockpit page against the real module.

Boots the systemd guest (RUN_VM --systemd --forward PORT:9191 SCENARIO, the
scenario being tests/vm/scenarios/cockpit.sh, which installs SBD and
cockpit-sbd and starts cockpit-ws) and drives headless Chromium on the host
(a browser inside a TCG guest would take minutes) through the forwarded
port: unload and load the module, add a disk, edit a label, a refused size
at its field, remove the disk, and a direct sysfs write in the guest that
the page shows without a reload. What the guest's kernel holds is read
through the page's own bridge (cockpit.spawn, root in the guest). The
verdict goes to the guest as /run/sbd-cockpit-done, whose scenario checks
sysfs once more; this script fails when the browser, the page or the guest
does. $SBD_SCREENSHOT_DIR keeps docs/cockpit-real-kernel.png.
"""

import http.client
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

import forwarded_guest

TIMEOUT_GUEST = 900


def say(msg):
    print('cockpit-host: ' + msg, flush=True)


class Failed(Exception):
    pass


class Page:
    def __init__(self, url, tmp):
        opts = webdriver.ChromeOptions()
        opts.binary_location = '/usr/bin/chromium'
        for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                  '--no-first-run', '--disable-extensions', '--window-size=1280,900', '--lang=en-US',
                  '--user-data-dir=' + os.path.join(tmp, 'chromium')):
            opts.add_argument(a)
        self.b = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=opts)
        self.b.set_page_load_timeout(120)
        self.b.set_script_timeout(120)
        self.b.get(url)
        self.wait(lambda: self.js('return document.body.dataset.ready') == '1', 'the page loads', 120)

    def js(self, script, *args):
        return self.b.execute_script(script, *args)

    def wait(self, cond, what, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if cond():
                    say('ok: ' + what)
                    return
            except WebDriverException:
                pass
            time.sleep(0.1)
        raise Failed('%s: not within %ds\n--- page ---\n%s' % (what, timeout, self.text()))

    def text(self):
        try:
            return self.b.find_element(By.TAG_NAME, 'body').text
        except WebDriverException as e:
            return str(e)

    def guest(self, command):
        """Runs command (sh) in the guest through the page's bridge (root)."""
        r = self.b.execute_async_script('''
            const done = arguments[arguments.length - 1];
            cockpit.spawn(["sh", "-c", arguments[0]], {err: "message"})
                .then(out => done({out}), e => done({error: String(e.message || e.problem || e)}));''',
                                        command)
        if 'error' in r:
            raise Failed('in the guest: %s: %s' % (command, r['error']))
        return r['out']

    def rows(self):
        return self.js('return [...document.querySelectorAll("#disks-body tr[data-name]")].map(t => t.dataset.name)')

    def cells(self, name):
        return self.js('''const tr = document.querySelector('tr[data-name="' + arguments[0] + '"]');
            return tr ? [...tr.querySelectorAll("td[data-label]")].map(td => td.textContent) : null;''', name)

    def el(self, css):
        return self.b.find_element(By.CSS_SELECTOR, css)

    def type_into(self, e, text, enter=True):
        e.click()
        e.send_keys(Keys.END + Keys.BACKSPACE * len(e.get_attribute('value') or ''))
        e.send_keys(text + (Keys.ENTER if enter else ''))

    def confirm(self, needle):
        dialog = self.el('#confirm')
        self.wait(dialog.is_displayed, 'the confirmation opens')
        if needle not in dialog.text:
            raise Failed('the confirmation says %r, not %r' % (dialog.text, needle))
        self.el('#confirm-ok').click()


def drive(p):
    state = lambda: p.el('#module-state').text  # noqa: E731
    sysfs = '/sys/devices/system/sbd'
    # sbdd is not running yet: either the page's first call started it (D-Bus
    # activation), or the page says it is not running and its button starts it
    notice = lambda: p.b.find_elements(By.CSS_SELECTOR, '#notice-daemon button')  # noqa: E731
    p.wait(lambda: state() == 'Loaded' or notice(), 'sbdd running, or the page offering to start it', 180)
    if state() != 'Loaded':
        say('the page says sbdd is not running; its button starts it')
        notice()[0].click()
    p.wait(lambda: state() == 'Loaded' and p.rows() == ['sbd0'], 'sbdd started, the module loaded, sbd0 listed', 180)

    # Unload, asked first
    p.el('#module-unload').click()
    p.confirm('the data on 1 disk will be lost')
    p.wait(lambda: state() == 'Not loaded' and p.rows() == [], 'unloaded: no disks')
    if p.guest('test -e /sys/module/sbd && echo loaded || echo gone').strip() != 'gone':
        raise Failed('the module is still loaded in the guest')

    # Load with parameters
    p.type_into(p.el('#load-ndevices'), '2', enter=False)
    p.type_into(p.el('#load-size'), '16M', enter=False)
    p.el('#module-load').click()
    p.wait(lambda: state() == 'Loaded' and p.rows() == ['sbd0', 'sbd1'], 'loaded with ndevices=2: sbd0, sbd1', 120)

    # Add: 32 MiB as number 5
    Select(p.el('#add-unit')).select_by_value('MiB')
    p.type_into(p.el('#add-size'), '32', enter=False)
    p.type_into(p.el('#add-id'), '5', enter=False)
    p.el('#add-button').click()
    p.wait(lambda: p.rows() == ['sbd0', 'sbd1', 'sbd5'], 'sbd5 added')
    got = p.guest('cat %s/sbd5/size' % sysfs).strip()
    if got != str(32 << 20):
        raise Failed('sbd5/size is %r' % got)

    # Edit a label in place
    p.el('tr[data-name="sbd0"] .sbd-expander').click()
    p.type_into(p.el('#edit-sbd0-Label'), 'sbd-cockpit')
    p.wait(lambda: p.guest('cat %s/sbd0/label' % sysfs).strip() == 'sbd-cockpit', 'the label reached sysfs')
    p.wait(lambda: (p.cells('sbd0') or [''])[0] == 'sbd-cockpit', 'the table shows it')

    # A size the module refuses, at its field
    unit = p.el('[data-details="sbd0"] select')
    unit.click()
    Select(unit).select_by_value('B')
    p.type_into(p.el('#edit-sbd0-Size'), '1000')
    p.wait(lambda: 'InvalidValue' in p.el('#error-sbd0-Size').text, 'the refused size shown at the field')
    say('    ' + p.el('#error-sbd0-Size').text)
    if p.guest('cat %s/sbd0/size' % sysfs).strip() != str(16 << 20):
        raise Failed('the refused size changed sbd0')
    p.el('#edit-sbd0-Label').click()  # leaving the field: the refusal stays
    if 'InvalidValue' not in p.el('#error-sbd0-Size').text:
        raise Failed('the refusal went when the field was left')

    # Remove, asked first
    p.el('tr[data-name="sbd5"] .sbd-secondary-danger').click()
    p.confirm('data on it will be lost')
    p.wait(lambda: p.rows() == ['sbd0', 'sbd1'], 'sbd5 removed')
    if p.guest('test -e %s/sbd5 && echo there || echo gone' % sysfs).strip() != 'gone':
        raise Failed('sbd5 is still in sysfs')

    # A direct sysfs write in the guest (no sbdd involved) appears live
    p.guest('printf outside > %s/sbd1/label' % sysfs)
    p.wait(lambda: (p.cells('sbd1') or [''])[0] == 'outside', 'a direct sysfs write shown without a reload')

    d = os.environ.get('SBD_SCREENSHOT_DIR')
    if d:
        p.b.set_window_size(1280, 1000)
        p.js('document.activeElement.blur(); window.scrollTo(0, 0)')
        time.sleep(0.5)
        p.b.save_screenshot(os.path.join(d, 'cockpit-real-kernel.png'))


def main():
    run_vm, scenario = sys.argv[1], sys.argv[2]
    guest = forwarded_guest.Guest(run_vm, 9191, TIMEOUT_GUEST, scenario)
    port = guest.port
    path = '/cockpit/@localhost/sbd/index.html'
    url = 'http://127.0.0.1:%d%s' % (port, path)
    verdict = 'fail: the browser did not start'
    page = None
    try:
        # cockpit-ws in the guest answers through the forward
        while True:
            if guest.ended() is not None:
                raise Failed('the guest ended (%d) before cockpit-ws answered' % guest.ended())
            try:
                c = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
                c.request('GET', path)
                r = c.getresponse()
                c.close()
                if r.status == 200:
                    break
                raise Failed('cockpit-ws answers %d %s (Location: %s)' % (r.status, r.reason, r.getheader('Location')))
            except OSError:
                pass
            if guest.seconds() > TIMEOUT_GUEST:
                raise Failed('cockpit-ws in the guest did not answer')
            time.sleep(1)
        say('cockpit-ws answers after %ds' % guest.seconds())
        with tempfile.TemporaryDirectory(prefix='sbd-cockpit-vm-') as tmp:
            page = Page(url, tmp)
            try:
                t0 = time.monotonic()
                drive(page)
                say('the browser steps took %ds' % (time.monotonic() - t0))
                verdict = 'ok'
            except Exception as e:
                verdict = 'fail: %s' % str(e).splitlines()[0]
                raise
            finally:
                safe = ''.join(c if c.isalnum() or c in ' :._-' else '_' for c in verdict)[:200]
                try:
                    page.guest("printf '%%s' '%s' > /run/sbd-cockpit-done.tmp && "
                               "mv /run/sbd-cockpit-done.tmp /run/sbd-cockpit-done" % safe)
                except Exception as e:  # the guest then times out and fails
                    say('could not tell the guest: %s' % e)
                page.b.quit()
    except BaseException:
        if verdict != 'ok':
            guest.stop()
        raise
    return guest.result(say)


if __name__ == '__main__':
    sys.exit(main())
