#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`gdbus call`'s error answer, as a coprocess of lib.sh (not a scenario).

lib.sh's dbus_error asks what error name a call to sbdd ends with. As an
exec of `gdbus call` each time, a question costs a process and a GLib
start: about 2 s on the debug kernel, where daemon-set asks some twenty
and fault-alloc's fail-nth sweep over sbdd's Set path fifty or more. Once
a scenario runs lib.sh's bus_client_start, this process answers them all,
with the same traffic and the same rules as `gdbus call`, so that sbdd
sees what it saw before:

  - each call on a connection of its own (Hello, so a new unique name, a
    new caller for sbdd's uid lookup and for polkit; closed afterwards, so
    the bus announces that it left), as a gdbus process has;
  - the method's in-argument types from the object's introspection (an
    Introspect call to sbdd first, as gdbus makes; none when that fails,
    and then the arguments are parsed without a type, as gdbus does);
  - each argument is GVariant text parsed for its type; text that does
    not parse is parsed again as a quoted string (gdbus's "parse me
    harder": a bare object path or word works as it does there);
  - no interactive authorization; a timeout of 25 s, or --timeout S.

Checked against gdbus itself, call by call on the same daemon, for the
scenarios' kinds of calls (Set of every type, wrong types, 5,000-character
strings, read-only and unknown properties, unknown objects and methods,
AddDevice's and RemoveDevice's refusals, Module.Load's options, an extra
argument, as root and as nobody): the same answer every time, but for the
text of an argument that does not parse ("unexpected: ..." from both).
That check was made once, by hand in a guest; in the suite, the
scenarios' expected answers (the error names gdbus gave) hold it there.

Requests on stdin: an id, the argument count as text, then that many
arguments, each ended by a NUL; the arguments are those of `gdbus call`
after `--system -d NAME`: [--timeout S] -o PATH -m INTERFACE.METHOD
[ARG...]. One line answers each, the request's id, a space, then "ok",
the D-Bus error's name, or "unexpected: MESSAGE" for an error that is not
a D-Bus error (a timeout, a lost bus, an argument that does not parse).
It calls as whoever runs it (lib.sh starts it as root).
"""

import os
import sys

# Started by the scenario's shell, this process inherits whatever it had
# open then (a disk held open to make the module busy, say): keeping those
# would keep the disk open and the module in use for the whole scenario.
# Only stdin, stdout and stderr are ours; closed before GLib opens any.
os.closerange(3, 1 << 20)

from gi.repository import Gio, GLib  # noqa: E402 (after the closerange)

DEST = "org.sbd.Sbd1"


def read_field(stream):
    """The next NUL-ended field, or None at the end of input."""
    buf = b""
    while True:
        byte = stream.read(1)
        if not byte:
            return None
        if byte == b"\0":
            return buf.decode("utf-8", "surrogateescape")
        buf += byte


def read_request(stream):
    """The next request's id and arguments, or None at the end of input."""
    fields = [read_field(stream), read_field(stream)]
    if None in fields:
        return None
    request_id, count = fields
    args = []
    for _ in range(int(count)):
        arg = read_field(stream)
        if arg is None:
            return None
        args.append(arg)
    return request_id, args


def connect():
    """A new connection to the system bus, as a gdbus process makes."""
    address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SYSTEM, None)
    flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
             | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def in_types(bus, path, interface, method):
    """The method's in-argument types from introspection; none (every
    argument untyped, as gdbus does) when it cannot be introspected or
    does not list the method."""
    try:
        reply = bus.call_sync(DEST, path, "org.freedesktop.DBus.Introspectable",
                              "Introspect", None, GLib.VariantType("(s)"),
                              Gio.DBusCallFlags.NONE, -1, None)
        node = Gio.DBusNodeInfo.new_for_xml(reply.unpack()[0])
    except GLib.Error:
        return []
    iface = node.lookup_interface(interface)
    info = iface.lookup_method(method) if iface else None
    if info is None:
        return []
    return [GLib.VariantType(a.signature) for a in info.in_args]


def parse_argument(text, vtype):
    try:
        return GLib.Variant.parse(vtype, text, None, None)
    except GLib.Error:
        quoted = '"' + text.replace('"', '\\"') + '"'
        return GLib.Variant.parse(vtype, quoted, None, None)


def answer(args):
    path = method = None
    timeout_ms = -1
    rest = []
    i = 0
    while i < len(args):
        if args[i] == "--timeout" and i + 1 < len(args):
            timeout_ms = int(args[i + 1]) * 1000
            i += 2
        elif args[i] == "-o" and i + 1 < len(args):
            path = args[i + 1]
            i += 2
        elif args[i] == "-m" and i + 1 < len(args):
            method = args[i + 1]
            i += 2
        else:
            rest.append(args[i])
            i += 1
    if path is None or method is None or "." not in method:
        return "unexpected: a request needs -o PATH -m INTERFACE.METHOD"
    interface, name = method.rsplit(".", 1)
    try:
        bus = connect()
    except GLib.Error as e:
        return "unexpected: no connection to the system bus: " + e.message
    try:
        return call(bus, path, interface, name, rest, timeout_ms)
    finally:
        bus.close_sync(None)


def call(bus, path, interface, name, texts, timeout_ms):
    types = in_types(bus, path, interface, name)
    try:
        values = [parse_argument(text, types[n] if n < len(types) else None)
                  for n, text in enumerate(texts)]
    except GLib.Error as e:
        return "unexpected: argument: " + e.message
    try:
        bus.call_sync(DEST, path, interface, name, GLib.Variant.new_tuple(*values),
                      None, Gio.DBusCallFlags.NONE, timeout_ms, None)
    except GLib.Error as e:
        remote = Gio.DBusError.get_remote_error(e)
        return remote if remote else "unexpected: " + e.message
    return "ok"


def main():
    stdin = sys.stdin.buffer
    while True:
        request = read_request(stdin)
        if request is None:
            return 0
        request_id, args = request
        try:
            reply = answer(args)
        except Exception as e:  # a bad request must not end the client
            reply = "unexpected: %s: %s" % (type(e).__name__, e)
        sys.stdout.write(request_id + " " + reply.replace("\n", " ") + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
