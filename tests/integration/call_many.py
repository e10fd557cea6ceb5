#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Many D-Bus calls in flight at once, from several connections to the
system bus, as whatever uid runs this (the tests start it through setpriv
for an unprivileged caller).

stdin: one JSON call per line, {conn, tag, path, iface, method, args}
(args: a Python expression building the GLib.Variant, or null). Connection
number conn is opened on its first use, each a caller of its own (its own
unique name). Every answer is printed as a JSON line {tag, error, message}
as soon as it arrives, so the test sees which calls were answered while
others still wait. At the end of stdin the program exits once every call
is answered.
"""

import json
import os
import sys

from gi.repository import GLib, Gio  # noqa: F401 (GLib is used by eval)

DEST = 'org.sbd.Sbd1'
address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SYSTEM, None)
connections = {}
state = {'pending': 0, 'eof': False, 'buf': b''}
loop = GLib.MainLoop()


def connection(n):
    if n not in connections:
        connections[n] = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    return connections[n]


def maybe_quit():
    if state['eof'] and state['pending'] == 0:
        loop.quit()


def answered(conn, res, tag):
    try:
        conn.call_finish(res)
        out = {'tag': tag, 'error': None}
    except GLib.Error as e:
        out = {'tag': tag, 'error': Gio.DBusError.get_remote_error(e), 'message': e.message}
    print(json.dumps(out), flush=True)
    state['pending'] -= 1
    maybe_quit()


def send(req):
    args = eval(req['args']) if req.get('args') else None  # noqa: S307 (test input)
    state['pending'] += 1
    connection(req['conn']).call(DEST, req['path'], req['iface'], req['method'], args, None,
                                 Gio.DBusCallFlags.NONE, 60000, None, answered, req['tag'])


def on_stdin(fd, _condition):
    data = os.read(fd, 65536)
    if not data:
        state['eof'] = True
        maybe_quit()
        return False
    state['buf'] += data
    *lines, state['buf'] = state['buf'].split(b'\n')
    for line in lines:
        if line.strip():
            send(json.loads(line))
    return True


GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, sys.stdin.fileno(), GLib.IOCondition.IN | GLib.IOCondition.HUP,
                      on_stdin)
loop.run()
