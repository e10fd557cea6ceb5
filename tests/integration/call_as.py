#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Make one D-Bus call on the system bus and print the outcome as JSON.

Run by the integration tests through setpriv as an unprivileged uid, so
that the bus policy and sbdd's polkit path see a real non-root caller.
argv[1]: JSON {dest, path, iface, method, args (a Python expression
building the GLib.Variant of the arguments, or null), interactive}.
"""

import json
import sys

import gi
from gi.repository import GLib, Gio  # noqa: F401 (GLib is used by eval)

req = json.loads(sys.argv[1])
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
args = eval(req['args']) if req.get('args') else None  # noqa: S307 (test input)
flags = Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION if req.get('interactive') else Gio.DBusCallFlags.NONE
try:
    r = bus.call_sync(req['dest'], req['path'], req['iface'], req['method'], args, None, flags, 30000, None)
    print(json.dumps({'result': repr(r.unpack()) if r is not None else None}))
except GLib.Error as e:
    print(json.dumps({'error': Gio.DBusError.get_remote_error(e), 'message': e.message}))
