# SPDX-License-Identifier: GPL-2.0-or-later
"""Uevents into a umockdev test bed that wait for the listener instead of
killing the test.

umockdev hands each event to every listening libudev monitor (an AF_UNIX
datagram socket named event<N> in the test bed's root) with a non-blocking
send, and exits the sending process when the listener's queue is full
(net.unix.max_dgram_qlen, 10 datagrams by default). A test that makes 64
devices at once sends 192 events; with the machine busy sbdd falls ten
behind and the test died in the middle ("sendmsg failed: Resource
temporarily unavailable"). The kernel never does that to its sender, so
the tests send the same message as umockdev does (libudev's monitor
format: a header, then NUL-separated KEY=value properties) on a blocking
socket: a slow listener slows the test, a listener that reads nothing for
SEND_TIMEOUT seconds fails it with that said.
"""

import errno
import glob
import os
import socket
import struct

SEND_TIMEOUT = 60
MAGIC = 0xfeedcafe
HEADER_SIZE = 40


def murmur_hash2(text):
    """libudev's hash of the subsystem and devtype, which the listener's
    socket filter compares (MurmurHash2, seeded with the length)."""
    data = text.encode()
    m, mask = 0x5bd1e995, 0xffffffff
    h = len(data)
    whole = len(data) - len(data) % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i:i + 4], 'little')
        k = (k * m) & mask
        k ^= k >> 24
        k = (k * m) & mask
        h = ((h * m) & mask) ^ k
    tail = data[whole:]
    if tail:
        for i in reversed(range(len(tail))):
            h ^= tail[i] << (8 * i)
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    h ^= h >> 15
    return h


class UeventSender:
    def __init__(self, root):
        self.root = root
        self.seqnum = 0

    def _uevent_file(self, syspath):
        """The KEY=value lines of the device's uevent file, in order: the
        kernel adds them to every event of the device, and so does umockdev."""
        try:
            with open(os.path.join(self.root + syspath, 'uevent')) as f:
                return [tuple(line.split('=', 1)) for line in f.read().splitlines() if '=' in line]
        except FileNotFoundError:
            return []

    @staticmethod
    def subsystem(real, syspath):
        """As libudev finds it: the subsystem link, or for the directories
        without one the name libudev gives them."""
        link = os.path.join(real, 'subsystem')
        if os.path.islink(link):
            return os.path.basename(os.readlink(link))
        if syspath.startswith('/sys/module/'):
            return 'module'
        parts = syspath.split('/')
        if len(parts) == 6 and parts[2] == 'bus' and parts[4] == 'drivers':
            return 'drivers'
        raise AssertionError('%s has no subsystem: no uevent can name it' % syspath)

    def message(self, syspath, action):
        # libudev names a device by its real directory, as the kernel does
        real = os.path.realpath(self.root + syspath)
        syspath = real[len(os.path.realpath(self.root)):]
        subsystem = self.subsystem(real, syspath)
        own = self._uevent_file(syspath)
        self.seqnum += 1
        props = [('ACTION', action), ('DEVPATH', syspath[len('/sys'):]),
                 ('SUBSYSTEM', subsystem), ('SEQNUM', str(self.seqnum))] + own
        body = b''.join(('%s=%s' % kv).encode() + b'\0' for kv in props)
        devtype = dict(own).get('DEVTYPE')
        # the magic and the hashes in network order (the listener's socket
        # filter reads them), the sizes in the host's
        header = (b'libudev\0' + struct.pack('!I', MAGIC) +
                  struct.pack('=III', HEADER_SIZE, HEADER_SIZE, len(body)) +
                  struct.pack('!IIII', murmur_hash2(subsystem), murmur_hash2(devtype) if devtype else 0, 0, 0))
        return header + body

    def send(self, syspath, action):
        if not os.path.isdir(self.root + syspath):
            raise AssertionError('uevent for %s, which does not exist' % syspath)
        msg = self.message(syspath, action)
        for path in glob.glob(os.path.join(self.root, 'event[0-9]*')):
            self._send_one(path, msg)

    @staticmethod
    def _send_one(path, msg):
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.settimeout(SEND_TIMEOUT)
            try:
                s.connect(path)
                s.send(msg)
            except ConnectionRefusedError:
                # the listener closed its monitor (an sbdd that exited)
                os.unlink(path)
            except socket.timeout:
                raise AssertionError('the uevent listener at %s read nothing for %d s' %
                                     (path, SEND_TIMEOUT)) from None
            except OSError as e:
                if e.errno != errno.ENOENT:
                    raise
