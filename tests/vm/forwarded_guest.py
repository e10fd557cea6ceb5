# SPDX-License-Identifier: GPL-2.0-or-later
"""A systemd guest with a port forwarded to the host: what the host-side
drivers of VM scenarios (cockpit-host.py, fleet-host.py) share.

The guest is run-vm --systemd --forward HOSTPORT:GUESTPORT; each run picks
a free port of its own, so that two guests at once never share one.
"""

import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Guest:
    """Boots the guest at once; self.port is the host's end of the forward."""

    def __init__(self, run_vm, guest_port, timeout, scenario, *args):
        self.port = free_port()
        self.start = time.monotonic()
        self.vm = subprocess.Popen([run_vm, '--systemd', '--forward', '%d:%d' % (self.port, guest_port),
                                    '--timeout', str(timeout), scenario] + list(args))

    def seconds(self):
        return time.monotonic() - self.start

    def ended(self):
        """The guest's exit status once it has ended, else None."""
        return self.vm.poll()

    def stop(self):
        """Ends a guest the host gave up on (the host's failure is the test's)."""
        if self.vm.poll() is None:
            self.vm.terminate()
        self.vm.wait()

    def result(self, say):
        """Waits for the guest's own end; its exit status is the test's."""
        rc = self.vm.wait()
        say('the guest exited with %d after %ds' % (rc, self.seconds()))
        return rc
