#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What sbdd tells its service manager over $NOTIFY_SOCKET: READY=1 with a
STATUS= once the name is owned, and WATCHDOG=1 keep-alives when the unit
asks for them ($WATCHDOG_USEC, WatchdogSec= in sbdd.service)."""

import os
import socket
import time

import sbdtest


class Notify(sbdtest.SbdTestCase):
    start_daemon = False

    def setUp(self):
        super().setUp()
        self.sock_path = os.path.join(self.logdir, 'notify')
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.sock_path)
        self.sock.settimeout(0.1)
        self.messages = []

    def tearDown(self):
        super().tearDown()
        self.sock.close()
        for k in ('NOTIFY_SOCKET', 'WATCHDOG_USEC'):
            os.environ.pop(k, None)

    def receive(self, until, timeout=10):
        end = time.monotonic() + timeout
        while time.monotonic() < end and not until():
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except socket.timeout:
                pass
        return until()

    def count(self, line):
        return sum(1 for m in self.messages if line in m.split('\n'))

    def test_ready_and_status(self):
        os.environ['NOTIFY_SOCKET'] = self.sock_path
        self.start_sbdd()
        self.assertTrue(self.receive(lambda: self.count('READY=1') > 0), self.messages)
        # STATUS= comes with or before READY=1, so that systemctl status
        # shows it as soon as the unit is active.
        upto_ready = []
        for m in self.messages:
            upto_ready += m.split('\n')
            if 'READY=1' in m.split('\n'):
                break
        self.assertIn('STATUS=Mirroring 2 sbd device(s), module live.', upto_ready)

    def test_watchdog_keepalive(self):
        # Found in the VM: under sbdd.service (WatchdogSec=60s) systemd
        # killed sbdd with SIGABRT every minute, since it never sent any.
        os.environ['NOTIFY_SOCKET'] = self.sock_path
        os.environ['WATCHDOG_USEC'] = '1000000'
        self.start_sbdd()
        self.assertTrue(self.receive(lambda: self.count('WATCHDOG=1') >= 3, timeout=10),
                        'fewer than 3 WATCHDOG=1 in 10 s with WATCHDOG_USEC=1s: %r' % self.messages)

    def test_no_watchdog_unless_asked(self):
        os.environ['NOTIFY_SOCKET'] = self.sock_path
        self.start_sbdd()
        self.receive(lambda: False, timeout=2)
        self.assertEqual(self.count('WATCHDOG=1'), 0, self.messages)


if __name__ == '__main__':
    sbdtest.main()
