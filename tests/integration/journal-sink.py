#!/usr/bin/python3
"""journal-sink.py SOCKET READY_FILE [OUT]: stands in for journald's socket.

dbus-broker and its launcher log only to the journal (native protocol: one
datagram per entry, KEY=VALUE lines). This binds SOCKET, creates READY_FILE
and prints each entry's MESSAGE (with its priority) to stderr until killed,
so the bus's complaints show in the test's log. With OUT, each entry is
appended to that file as one JSON object per line instead (sbdd's audit
records, read by sbdtest.py's journal helpers).
"""
import ctypes
import json
import os
import signal
import socket
import sys


def fields(datagram):
    """KEY=VALUE lines; binary-safe fields (KEY\\n<le64 size><data>) too."""
    out, i = {}, 0
    while i < len(datagram):
        nl = datagram.find(b"\n", i)
        nl = len(datagram) if nl < 0 else nl
        line = datagram[i:nl]
        if b"=" in line:
            key, value = line.split(b"=", 1)
            out[key.decode(errors="replace")] = value.decode(errors="replace")
            i = nl + 1
        else:
            size = int.from_bytes(datagram[nl + 1:nl + 9], "little")
            out[line.decode(errors="replace")] = datagram[nl + 9:nl + 9 + size].decode(errors="replace")
            i = nl + 9 + size + 1
    return out


def main():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sys.argv[1])
    out = open(sys.argv[3], "a") if len(sys.argv) > 3 else None
    if out:
        # a test killed before its tearDown must not leave the sink behind
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    open(sys.argv[2], "w").close()
    while True:
        entry = fields(sock.recv(1 << 20))
        if out:
            out.write(json.dumps(entry) + "\n")
            out.flush()
            continue
        sys.stderr.write("dbus-broker[%s]: %s\n" % (entry.get("PRIORITY", "?"), entry.get("MESSAGE", "")))
        sys.stderr.flush()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        os._exit(0)
