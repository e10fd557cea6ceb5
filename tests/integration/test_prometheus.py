#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sbd-prometheus (clients/prometheus) against the real sbdd: the file it
writes passes `promtool check metrics` and its values equal what the test
bed's sysfs holds; labels that need escaping; the module unloaded; sbdd
stopped (sbd_up 0, the file still written and valid); Debian's node
exporter serving the file's samples with no textfile scrape error.

sbd-prometheus runs without umockdev's preload (it must never touch
sysfs) and reaches the private system bus through
$DBUS_SYSTEM_BUS_ADDRESS, as it reaches the real one.
"""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import sbdtest
from sbdtest import DEVICE_IFACE, device_path

SAMPLE = re.compile(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{(name, ((label, value), ...)): value} of a text-format file."""
    out = {}
    for line in text.splitlines():
        if line.startswith('#'):
            continue
        m = SAMPLE.match(line)
        assert m, 'not a sample line: %r' % line
        labels = tuple(sorted((k, v.replace('\\"', '"').replace('\\n', '\n').replace('\\\\', '\\'))
                              for k, v in LABEL.findall(m.group(2) or '')))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def dev(n, label):
    return (('device', 'sbd%d' % n), ('label', label))


class Metrics(sbdtest.SbdTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.program = sbdtest.program_from_env('SBD_PROMETHEUS', 'sbd-prometheus')
        if not shutil.which('promtool'):
            raise RuntimeError('promtool is not installed (Debian package prometheus)')

    def setUp(self):
        super().setUp()
        self.outdir = tempfile.mkdtemp(prefix='sbd-prom-')
        self.addCleanup(shutil.rmtree, self.outdir, True)

    def write_metrics(self, uid=None):
        """Runs sbd-prometheus --output (as uid); checks the file with promtool; returns (text, samples)."""
        path = os.path.join(self.outdir, 'sbd.prom')
        cmd = ['/usr/bin/python3', self.program, '--output', path]
        if uid is not None:
            os.chown(self.outdir, uid, uid)
            cmd = ['setpriv', '--reuid=%d' % uid, '--regid=%d' % uid, '--clear-groups'] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True, env=sbdtest.env_outside_testbed(), timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.listdir(self.outdir), ['sbd.prom'], 'a temporary file was left')
        with open(path) as f:
            text = f.read()
        check = subprocess.run(['promtool', 'check', 'metrics'], input=text, capture_output=True, text=True)
        self.assertEqual((check.returncode, check.stdout + check.stderr), (0, ''), text)
        for family in ('sbd_up', 'sbd_device_size_bytes', 'sbd_budget_used_bytes', 'sbd_budget_max_bytes',
                       'sbd_device_read_only', 'sbd_device_online', 'sbd_module_state'):
            self.assertIn('# HELP %s ' % family, text)
            self.assertIn('# TYPE %s gauge\n' % family, text)
        return text, parse(text), p.stderr

    def test_values_equal_sysfs(self):
        tb = self.testbed
        tb.write('/sys/bus/sbd/drivers/sbd/mem_used', '12288\n', 0o444)
        tb.write(tb.device_attr(1, 'mem_used'), '4096\n', 0o444)
        tb.write(tb.device_attr(1, 'size'), '%d\n' % (64 << 20))
        tb.write(tb.device_attr(1, 'read_only'), '1\n')
        tb.write(tb.device_attr(1, 'label'), 'data disk\n')
        tb.uevent(tb.device_syspath(1), 'change')
        tb.write(tb.device_attr(0, 'online'), '0\n')
        tb.uevent(tb.device_syspath(0), 'offline')
        self.wait_for(lambda: self.get(device_path(1), DEVICE_IFACE, 'Label') == 'data disk' and
                      self.get(device_path(0), DEVICE_IFACE, 'Online') is False, message='sbdd saw the changes')
        text, s, err = self.write_metrics()
        self.assertEqual(err, '')
        expect = {
            ('sbd_up', ()): 1,
            ('sbd_module_state', (('state', 'live'),)): 1,
            ('sbd_module_state', (('state', 'unloaded'),)): 0,
            ('sbd_module_loaded', ()): 1,
            ('sbd_devices', ()): 2,
            ('sbd_budget_used_bytes', ()): 12288,
            ('sbd_budget_max_bytes', ()): 1 << 30,
            ('sbd_device_size_bytes', dev(0, 'sbd0')): 16 << 20,
            ('sbd_device_size_bytes', dev(1, 'data disk')): 64 << 20,
            ('sbd_device_mem_used_bytes', dev(0, 'sbd0')): 8192,
            ('sbd_device_mem_used_bytes', dev(1, 'data disk')): 4096,
            ('sbd_device_read_only', dev(0, 'sbd0')): 0,
            ('sbd_device_read_only', dev(1, 'data disk')): 1,
            ('sbd_device_online', dev(0, 'sbd0')): 0,
            ('sbd_device_online', dev(1, 'data disk')): 1,
            ('sbd_info', (('daemon_version', '0.1.0'), ('module_version', '1.0'))): 1,
        }
        for key, value in expect.items():
            self.assertEqual(s.get(key), value, '%s in\n%s' % (key, text))
        # every value from sysfs, read back independently
        for n in (0, 1):
            label = tb.read(tb.device_attr(n, 'label')).strip()
            self.assertEqual(s[('sbd_device_size_bytes', dev(n, label))], int(tb.read(tb.device_attr(n, 'size'))))
            self.assertEqual(s[('sbd_device_read_only', dev(n, label))], int(tb.read(tb.device_attr(n, 'read_only'))))
            self.assertEqual(s[('sbd_device_online', dev(n, label))], int(tb.read(tb.device_attr(n, 'online'))))
        self.assertEqual(len([k for k in s if k[0] == 'sbd_device_size_bytes']), 2)

    def test_unprivileged(self):
        # the service runs it as its own system user: reading needs no privilege
        text, s, err = self.write_metrics(uid=sbdtest.NOBODY)
        self.assertEqual(err, '')
        self.assertEqual(s[('sbd_up', ())], 1)
        self.assertEqual(s[('sbd_device_size_bytes', dev(1, 'sbd1'))], 16 << 20)
        self.assertEqual(s[('sbd_budget_used_bytes', ())], 0)

    def test_node_exporter_serves_it(self):
        # Debian's node exporter reads the file from its textfile directory
        # and serves every sample, with no scrape error
        exporter = shutil.which('prometheus-node-exporter')
        if not exporter:
            raise RuntimeError('prometheus-node-exporter is not installed (.ci/install-deps)')
        text, s, _ = self.write_metrics()
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            port = probe.getsockname()[1]
        p = subprocess.Popen([exporter, '--collector.disable-defaults', '--collector.textfile',
                              '--collector.textfile.directory=' + self.outdir,
                              '--web.listen-address=127.0.0.1:%d' % port],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=sbdtest.env_outside_testbed())
        self.addCleanup(p.wait)
        self.addCleanup(p.terminate)
        served = None
        for _ in range(100):
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=5) as r:
                    served = r.read().decode()
                break
            except OSError:
                self.assertIsNone(p.poll(), 'the node exporter exited')
                time.sleep(0.1)
        self.assertIsNotNone(served, 'the node exporter never answered')
        self.assertIn('\nnode_textfile_scrape_error 0\n', served)
        self.assertIn('node_textfile_mtime_seconds{file="%s"}' % os.path.join(self.outdir, 'sbd.prom'), served)
        ours = parse('\n'.join(line for line in served.splitlines() if line.startswith('sbd_')))
        self.assertEqual(ours, s)

    def test_label_escaped(self):
        tb = self.testbed
        tb.write(tb.device_attr(0, 'label'), 'a "quoted" \\ disk\n')
        tb.uevent(tb.device_syspath(0), 'change')
        self.wait_for(lambda: self.get(device_path(0), DEVICE_IFACE, 'Label') == 'a "quoted" \\ disk')
        text, s, _ = self.write_metrics()
        self.assertIn('sbd_device_size_bytes{device="sbd0",label="a \\"quoted\\" \\\\ disk"} 16777216\n', text)
        self.assertEqual(s[('sbd_device_size_bytes', dev(0, 'a "quoted" \\ disk'))], 16 << 20)

    def test_module_unloaded(self):
        tb = self.testbed
        tb.unload_module()
        self.wait_for(lambda: self.get(sbdtest.MODULE, sbdtest.MODULE_IFACE, 'State') == 'unloaded')
        text, s, _ = self.write_metrics()
        self.assertEqual(s[('sbd_up', ())], 1)
        self.assertEqual(s[('sbd_module_state', (('state', 'unloaded'),))], 1)
        self.assertEqual(s[('sbd_module_state', (('state', 'live'),))], 0)
        self.assertEqual(s[('sbd_module_loaded', ())], 0)
        self.assertEqual(s[('sbd_devices', ())], 0)
        self.assertNotIn(('sbd_budget_max_bytes', ()), s)
        self.assertFalse([k for k in s if k[0].startswith('sbd_device_')])

    def test_sbdd_stopped(self):
        self.write_metrics()
        self.stop_sbdd()
        text, s, err = self.write_metrics()
        self.assertEqual(s, {('sbd_up', ()): 0}, text)
        # the call carries NO_AUTO_START: the bus answers for the absent
        # service (an activatable one would not be started either)
        self.assertIn('(org.freedesktop.DBus.Error.NameHasNoOwner)', err)
        self.assertFalse(self.name_has_owner(sbdtest.BUS_NAME))


if __name__ == '__main__':
    sbdtest.main()
