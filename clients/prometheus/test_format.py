#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The text format of sbd-prometheus without a bus: escaping, the file
written when sbdd does not answer, the atomic write; every rendered text
passes `promtool check metrics`. (tests/integration/test_prometheus.py
checks the values against the real sbdd.)"""

import importlib.machinery
import importlib.util
import os
import stat
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
loader = importlib.machinery.SourceFileLoader('sbd_prometheus', os.path.join(HERE, 'sbd-prometheus'))
spec = importlib.util.spec_from_loader('sbd_prometheus', loader)
sp = importlib.util.module_from_spec(spec)
loader.exec_module(sp)


def promtool_check(text):
    p = subprocess.run(['promtool', 'check', 'metrics'], input=text, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class Format(unittest.TestCase):

    def test_escape(self):
        self.assertEqual(sp.escape_label('a"b\\c\nd'), 'a\\"b\\\\c\\nd')
        self.assertEqual(sp.escape_label('plain disk'), 'plain disk')

    def test_down_file(self):
        text = sp.render(None)
        samples = [line for line in text.splitlines() if not line.startswith('#')]
        self.assertEqual(samples, ['sbd_up 0'])
        self.assertIn('# TYPE sbd_up gauge', text)
        self.assertIn('# HELP sbd_device_size_bytes ', text)
        self.assertEqual(promtool_check(text), (0, ''))

    def test_devices_with_odd_labels(self):
        m = sp.Metrics()
        sp.declare_all(m)
        m.add('sbd_up', 1)
        m.add('sbd_module_loaded', True)
        m.add('sbd_budget_used_bytes', 8192)
        m.add('sbd_budget_max_bytes', 1 << 30)
        for n, label in enumerate(('quote"d', 'back\\slash', 'sp ace')):
            m.add('sbd_device_size_bytes', 16 << 20, device='sbd%d' % n, label=label)
            m.add('sbd_device_read_only', n == 1, device='sbd%d' % n, label=label)
        text = m.text()
        self.assertIn('sbd_device_size_bytes{device="sbd0",label="quote\\"d"} 16777216\n', text)
        self.assertIn('sbd_device_read_only{device="sbd1",label="back\\\\slash"} 1\n', text)
        self.assertIn('sbd_module_loaded 1\n', text)
        self.assertEqual(promtool_check(text), (0, ''))

    def test_promtool_is_not_blind(self):
        # the checker itself refuses a broken file (so a pass above means something)
        rc, out = promtool_check('# TYPE sbd_up gauge\nsbd_up{device="x} 1\n')
        self.assertNotEqual(rc, 0, out)

    def test_atomic_write(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, 'sbd.prom')
        sp.write_atomically(path, 'old\n')
        sp.write_atomically(path, 'new\n')
        with open(path) as f:
            self.assertEqual(f.read(), 'new\n')
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o644)
        self.assertEqual(os.listdir(d), ['sbd.prom'])   # no temporary left
        # the program's --output
        self.assertEqual(sp.main(['--output', path, '--bus-address', 'unix:path=/nonexistent']), 0)
        with open(path) as f:
            self.assertIn('\nsbd_up 0\n', f.read())
        os.unlink(path)
        os.rmdir(d)


if __name__ == '__main__':
    unittest.main()
