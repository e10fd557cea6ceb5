#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The attacker and the watchman of daemon-hostile.sh (not a scenario).

  daemon-hostile.py latency N M
      N Pings to sbdd one after the other, then M GetManagedObjects: prints
      "p50 p99 GMO_P50", the Pings' p50 and p99 and the other's p50 (0
      when M is 0), in microseconds.
  daemon-hostile.py probe FILE
      Pings sbdd one after the other (0.1 s apart) until killed, appending
      "START_S LATENCY_S BUS_LATENCY_S" to FILE (START on CLOCK_BOOTTIME,
      which is what /proc/uptime shows; BUS: GetId of dbus-daemon right
      after), flushed after each.
  daemon-hostile.py window FILE START END
      Waits until a Ping that started after END has been answered (or 120 s
      passed), then prints the longest latency of the Pings that were in
      flight between START and END, the longest of the bus's own GetId
      beside them, and how many there were.
  daemon-hostile.py attack NAME
      One attack, run as whoever calls it; prints one line per observation
      "what: error-name-or-ok" and exits 1 when an answer is not the expected
      one. NAMEs: see ATTACKS.
"""

import json
import os
import signal
import subprocess
import sys
import time

import gi
gi.require_version('Gio', '2.0')
from gi.repository import GLib, Gio  # noqa: E402

NAME = 'org.sbd.Sbd1'
ROOT = '/org/sbd/Sbd1'
DEV0 = ROOT + '/devices/sbd0'
MODULE = ROOT + '/module'
PROPS = 'org.freedesktop.DBus.Properties'
DEVICE = 'org.sbd.Sbd1.Device'
MANAGER = 'org.sbd.Sbd1.Manager'
LIMITS = 'org.freedesktop.DBus.Error.LimitsExceeded'
INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'
E = 'org.sbd.Sbd1.Error.'


def boottime():
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def bus():
    return Gio.bus_get_sync(Gio.BusType.SYSTEM, None)


def ping(conn, timeout_ms=120000):
    conn.call_sync(NAME, ROOT, 'org.freedesktop.DBus.Peer', 'Ping', None, None, 0, timeout_ms, None)


def call(conn, path, iface, method, args, flags=0, timeout_ms=60000):
    """The error name of a call, or 'ok'."""
    try:
        conn.call_sync(NAME, path, iface, method, args, None, flags, timeout_ms, None)
        return 'ok'
    except GLib.Error as e:
        return Gio.DBusError.get_remote_error(e) or e.message


def sorted_latencies(fn, n):
    if n == 0:
        return [0]
    for _ in range(20):
        fn()
    lat = []
    for _ in range(n):
        t = time.monotonic()
        fn()
        lat.append(time.monotonic() - t)
    return sorted(lat)


def cmd_latency(n, m):
    conn = bus()
    pings = sorted_latencies(lambda: ping(conn), int(n))
    trees = sorted_latencies(lambda: conn.call_sync(NAME, ROOT, 'org.freedesktop.DBus.ObjectManager',
                                                    'GetManagedObjects', None, None, 0, 120000, None), int(m))
    print('%d %d %d' % (pings[len(pings) // 2] * 1e6, pings[len(pings) * 99 // 100] * 1e6,
                        trees[len(trees) // 2] * 1e6))


def timed(fn):
    t = boottime()
    try:
        fn()
    except GLib.Error:
        pass  # a failed call shows as its full wait
    return t, boottime() - t


def cmd_probe(path):
    """Each line: a Ping to sbdd and, right after, GetId to the bus itself
    (what the bus alone costs at that moment: a 8 MB message keeps
    dbus-daemon busy for everyone, sbdd or not). 0.1 s between rounds:
    a stall long enough to matter cannot fall between two Pings, and the
    probe's own calls (half of sbdd's CPU during an attack at 0.01 s, in
    this one-vCPU guest) do not compete with the attack they watch."""
    conn = bus()
    with open(path, 'a') as f:
        while True:
            t, lat = timed(lambda: ping(conn))
            _, bus_lat = timed(lambda: conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                                      'org.freedesktop.DBus', 'GetId', None, None, 0, 120000, None))
            f.write('%.6f %.6f %.6f\n' % (t, lat, bus_lat))
            f.flush()
            time.sleep(0.1)


def cmd_window(path, start, end):
    start, end = float(start), float(end)
    deadline = time.monotonic() + 120
    while True:
        rows = []
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3:
                    rows.append(tuple(float(p) for p in parts))
        if any(s > end for s, _, _ in rows) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    inside = [(lat, bus_lat) for s, lat, bus_lat in rows if s <= end and s + lat >= start]
    print('%.6f %.6f %d' % (max(i[0] for i in inside) if inside else -1,
                            max(i[1] for i in inside) if inside else -1, len(inside)))


# ---------------------------------------------------------------- attacks

results = []


def expect(what, got, *want):
    ok = got in want
    results.append(ok)
    print('%s: %s%s' % (what, got, '' if ok else ' (expected %s)' % ' or '.join(want)))


def set_args(prop, value):
    return GLib.Variant('(ssv)', (DEVICE, prop, value))


def load_args(pairs):
    entries = [GLib.Variant.new_dict_entry(GLib.Variant('s', k), GLib.Variant('s', v)) for k, v in pairs]
    return GLib.Variant.new_tuple(GLib.Variant.new_array(GLib.VariantType('{ss}'), entries))


def attack_load_flood(conn):
    """Module.Load with 40,000 distinct parameters, and other bad lists."""
    # reading stops at the first unknown key (the module's parm list is
    # known here) or at the 65th parameter: either way at once
    expect('Load 40000 parameters', call(conn, MODULE, 'org.sbd.Sbd1.Module', 'Load',
                                          load_args([('p%d' % i, '1') for i in range(40000)])),
           E + 'InvalidValue', LIMITS)
    expect('Load unknown parameter', call(conn, MODULE, 'org.sbd.Sbd1.Module', 'Load',
                                          load_args([('colour', 'red')])), E + 'InvalidValue')
    expect('Load duplicate parameter', call(conn, MODULE, 'org.sbd.Sbd1.Module', 'Load',
                                            load_args([('size', '1M'), ('size', '2M')])), E + 'InvalidValue')


def attack_set_smuggle(conn):
    """Set (ssvay) with 8 MB after the value; wrong and nested variants."""
    args = GLib.Variant.new_tuple(GLib.Variant('s', DEVICE), GLib.Variant('s', 'Label'),
                                  GLib.Variant('v', GLib.Variant('s', 'smuggled')),
                                  GLib.Variant.new_from_bytes(GLib.VariantType('ay'),
                                                              GLib.Bytes.new(b'x' * (8 << 20)), True))
    expect('Set (ssvay) 8 MB', call(conn, DEV0, PROPS, 'Set', args), INVALID_ARGS)
    expect('Set (ss)', call(conn, DEV0, PROPS, 'Set', GLib.Variant('(ss)', (DEVICE, 'Label'))), INVALID_ARGS)
    v = GLib.Variant('s', 'deep')
    for _ in range(30):
        v = GLib.Variant('v', v)
    expect('Set of a variant nested 30 deep', call(conn, DEV0, PROPS, 'Set', set_args('Label', v)),
           E + 'InvalidValue')
    expect('Set Label of 1 MB', call(conn, DEV0, PROPS, 'Set', set_args('Label', GLib.Variant('s', 'x' * (1 << 20)))),
           E + 'InvalidValue')


def attack_set_bad(conn):
    """Values checked before polkit: empty, wrong type, uevent."""
    expect('Set Label ""', call(conn, DEV0, PROPS, 'Set', set_args('Label', GLib.Variant('s', ''))), E + 'InvalidValue')
    expect('Set Size "1M"', call(conn, DEV0, PROPS, 'Set', set_args('Size', GLib.Variant('s', '1M'))), E + 'InvalidValue')
    expect('Set Uevent "remove"', call(conn, DEV0, PROPS, 'Set', set_args('Uevent', GLib.Variant('s', 'remove'))),
           'org.freedesktop.DBus.Error.PropertyReadOnly')
    expect('AddDevice of 1000 bytes', call(conn, ROOT, MANAGER, 'AddDevice', GLib.Variant('(ta{sv})', (1000, {}))),
           E + 'InvalidValue')
    expect('AddDevice as sbd0', call(conn, ROOT, MANAGER, 'AddDevice',
                                     GLib.Variant('(ta{sv})', (1 << 20, {'id': GLib.Variant('u', 0)}))), E + 'Exists')
    expect('RemoveDevice (o)', call(conn, ROOT, MANAGER, 'RemoveDevice', GLib.Variant('(o)', (DEV0,))), INVALID_ARGS)


def attack_same_value(conn):
    """A Set of the current value needs no polkit; another value does."""
    label = conn.call_sync(NAME, DEV0, PROPS, 'Get', GLib.Variant('(ss)', (DEVICE, 'Label')), None, 0, 60000,
                           None).unpack()[0]
    expect('Set Label to its value', call(conn, DEV0, PROPS, 'Set', set_args('Label', GLib.Variant('s', label))), 'ok')
    expect('Set Label to another value', call(conn, DEV0, PROPS, 'Set', set_args('Label', GLib.Variant('s', 'stolen'))),
           'org.freedesktop.DBus.Error.InteractiveAuthorizationRequired', E + 'NotAuthorized')


def attack_auth_flood(conn):
    """200 Sets in flight on one connection: at most 8 reach polkit."""
    got = race([(conn, DEV0, PROPS, 'Set', set_args('Label', GLib.Variant('s', 'f%d' % i))) for i in range(200)],
               timeout_ms=120000)
    counts = {n: got.count(n) for n in set(got)}
    print('answers: %s' % json.dumps(counts, sort_keys=True))
    # how many polkit answers before the burst is read depends on timing:
    # some are refused, and none is carried out
    expect('some Sets refused with LimitsExceeded', LIMITS if counts.get(LIMITS, 0) > 0 else str(counts), LIMITS)
    expect('no Set succeeded', 'ok' if 'ok' not in counts else 'some succeeded', 'ok')


def attack_call_flood(conn):
    """3,000 Gets and 300 GetManagedObjects pipelined, 500 match rules."""
    loop = GLib.MainLoop()
    n = [0, 0]

    def done(c, res):
        try:
            c.call_finish(res)
        except GLib.Error:
            n[1] += 1
        n[0] += 1
        if n[0] == 3300:
            loop.quit()
    for i in range(3000):
        conn.call(NAME, DEV0, PROPS, 'Get', GLib.Variant('(ss)', (DEVICE, 'Label')), None, 0, 300000, None, done)
        if i % 10 == 0:
            conn.call(NAME, ROOT, 'org.freedesktop.DBus.ObjectManager', 'GetManagedObjects', None, None, 0, 300000,
                      None, done)
    subs = [conn.signal_subscribe(NAME, None, None, '%s/devices/sbd%d' % (ROOT, i), None, 0,
                                  lambda *a: None) for i in range(500)]
    loop.run()
    print('calls answered: %d, of them errors: %d, subscriptions: %d' % (n[0], n[1], len(subs)))
    expect('every call answered', 'ok' if n[0] == 3300 else str(n), 'ok')


def attack_stalled_reader(conn):
    """Subscribe to everything, pipeline 100 GetManagedObjects, then never
    read again (SIGSTOP): the bus holds or drops what sbdd sends."""
    conn.signal_subscribe(NAME, None, None, None, None, 0, lambda *a: None)
    for _ in range(100):
        conn.call(NAME, ROOT, 'org.freedesktop.DBus.ObjectManager', 'GetManagedObjects', None, None, 0, -1,
                  None, None)
    conn.flush_sync(None)
    print('stalled: pid %d' % os.getpid(), flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)


def attack_race_same_id(conn):
    """Two callers add id 5, then two callers remove sbd5, at the same time."""
    path = ROOT + '/devices/sbd5'
    a, b = bus_private(), bus_private()
    adds = race([(a, ROOT, MANAGER, 'AddDevice', GLib.Variant('(ta{sv})', (1 << 20, {'id': GLib.Variant('u', 5)}))),
                 (b, ROOT, MANAGER, 'AddDevice', GLib.Variant('(ta{sv})', (1 << 20, {'id': GLib.Variant('u', 5)})))])
    expect('two AddDevice id 5', ' '.join(sorted(adds)), 'ok ' + E + 'Exists')
    # udevd probes a new disk (opens it): until then delete_device is EBUSY
    subprocess.run(['udevadm', 'settle', '--timeout=60'], check=False)
    removes = race([(a, ROOT, MANAGER, 'RemoveDevice', GLib.Variant('(oa{sv})', (path, {}))),
                    (b, ROOT, MANAGER, 'RemoveDevice', GLib.Variant('(oa{sv})', (path, {})))])
    # the loser finds it gone, or still being deleted (the kernel: busy)
    expect('two RemoveDevice sbd5', ' '.join(sorted(removes)), 'ok ' + E + 'DeviceGone', 'ok ' + E + 'Busy')
    # an AddDevice without id gets the lowest free id and that device
    r = conn.call_sync(NAME, ROOT, MANAGER, 'AddDevice', GLib.Variant('(ta{sv})', (1 << 20, {})), None, 0, 60000,
                       None).unpack()[0]
    expect('AddDevice without id', r, ROOT + '/devices/sbd2')
    subprocess.run(['udevadm', 'settle', '--timeout=60'], check=False)
    expect('RemoveDevice sbd2', call(conn, ROOT, MANAGER, 'RemoveDevice', GLib.Variant('(oa{sv})', (r, {}))), 'ok')


def bus_private():
    addr = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SYSTEM, None)
    return Gio.DBusConnection.new_for_address_sync(
        addr, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)


def race(calls, timeout_ms=60000):
    loop = GLib.MainLoop()
    got = []

    def done(c, res):
        try:
            c.call_finish(res)
            got.append('ok')
        except GLib.Error as e:
            got.append(Gio.DBusError.get_remote_error(e))
        if len(got) == len(calls):
            loop.quit()
    for conn, path, iface, method, args in calls:
        conn.call(NAME, path, iface, method, args, None, 0, timeout_ms, None, done)
    loop.run()
    return got


def attack_big_tree(conn):
    """GetManagedObjects beyond the bus's message size: LimitsExceeded."""
    expect('GetManagedObjects', call(conn, ROOT, 'org.freedesktop.DBus.ObjectManager', 'GetManagedObjects', None),
           LIMITS)


ATTACKS = {f.__name__[len('attack_'):]: f for f in list(globals().values())
           if callable(f) and getattr(f, '__name__', '').startswith('attack_')}


def cmd_attack(name):
    ATTACKS[name](bus())
    sys.exit(0 if all(results) else 1)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {'latency': cmd_latency, 'probe': cmd_probe, 'window': cmd_window, 'attack': cmd_attack}[cmd](*args)


if __name__ == '__main__':
    main()
