#!/usr/bin/python3
"""Checks of sbdd against the real sysfs, for the daemon-* VM scenarios.

Not a scenario itself: lib.sh and the scenarios call it (one Python start
costs 1-2 s in the guest, so each subcommand does a whole check at once).

  daemon-check.py tree [--timeout S]
      The daemon's tree equals sysfs: Manager.Devices/Drivers, and
      GetManagedObjects' objects, interfaces and every property with the
      contract's name and type (power/* are left out of GetAll by design
      and checked by Get elsewhere). Retries until equal or S seconds
      (default 30) passed, then prints the differences and exits 1.
  daemon-check.py subscribers N PATH LABEL [--timeout S] [--ready FILE]
      N separate bus connections each subscribe to PropertiesChanged of
      PATH; FILE is created once all are subscribed; then each must see
      exactly one PropertiesChanged carrying Label == LABEL.
  daemon-check.py netlink PID [--rcvbuf BYTES]
      Prints the uevent socket of process PID as /proc/net/netlink shows
      it (rmem, rcvbuf, drops); with --rcvbuf, shrinks its receive buffer
      from outside (pidfd_getfd(2) gives us the very same socket) so that
      a burst overflows it.
  daemon-check.py pings --until FILE [--ready FILE] [--every S]
      Pings sbdd (org.freedesktop.DBus.Peer.Ping) every S seconds (0.1)
      until FILE exists, then prints how many were sent and the slowest
      answer; exits 1 if one went unanswered.
"""

import argparse
import ctypes
import functools
import os
import re
import socket
import sys
import time

SYS = "/sys"
DEVICES = SYS + "/bus/sbd/devices"
DRIVERS = SYS + "/bus/sbd/drivers"
MODULE = SYS + "/module/sbd"
ROOT = "/org/sbd/Sbd1"
NAME = "org.sbd.Sbd1"
STD_IFACES = {"org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Introspectable",
              "org.freedesktop.DBus.Properties"}

# The contract's schema (section 3).
TYPES = {"device": {"Size": "t", "ReadOnly": "b", "Online": "b"},
         "driver": {"Ndevices": "u"}}


def path_encode(prefix, name):
    """sd_bus_path_encode()"""
    if not name:
        return prefix + "/_"
    out = []
    for i, c in enumerate(name):
        if c.isascii() and (c.isalpha() or (i > 0 and c.isdigit())):
            out.append(c)
        else:
            out.extend("_%02x" % b for b in c.encode())
    return prefix + "/" + "".join(out)


# Every disk has the same attribute names: one regex split per name, not
# one per file (110,000 of them for 10,000 disks, under TCG).
@functools.lru_cache(maxsize=None)
def prop_name(file):
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", file) if p]
    name = "".join(p[0].upper() + p[1:] for p in parts)
    if name and name[0].isdigit():
        name = "X" + name
    return name


def natural(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def read_text(path):
    # os.open/os.read: open()'s buffered text layers cost more than the
    # read itself, and 10,000 disks mean 100,000 reads under TCG.
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    text = data.decode("utf-8", "surrogateescape")
    return text[:-1] if text.endswith("\n") else text


def typed(kind, prop, text):
    t = TYPES[kind].get(prop, "s")
    if text is None:
        return (t, {"s": "", "t": 0, "u": 0, "b": False}[t])
    if t == "s":
        return ("s", text)
    if t == "b":
        return ("b", text[:1] in ("1", "y", "Y") or text in ("on", "yes"))
    try:
        return (t, int(text))
    except ValueError:
        return (t, 0)


def attributes(directory, skip_power=False):
    """(file, mode) of the attributes the daemon mirrors: regular files of
    the directory and of its attribute groups (subdirectories without their
    own uevent), readable by the owner."""
    out = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if skip_power and entry.name == "power":
                continue
            if os.path.exists(os.path.join(entry.path, "uevent")):
                continue
            for sub in sorted(os.scandir(entry.path), key=lambda e: e.name):
                if sub.is_file(follow_symlinks=False):
                    out.append((entry.name + "/" + sub.name, sub.stat(follow_symlinks=False).st_mode))
        elif entry.is_file(follow_symlinks=False):
            out.append((entry.name, entry.stat(follow_symlinks=False).st_mode))
    return [(f, m) for f, m in out if m & 0o400 and m & 0o004]  # world-readable only (sbdd mirrors no others)


def sysfs_object(kind, syspath, name):
    props = {"SysName": ("s", name), "SysPath": ("s", syspath)}
    # power/*: live values, Get only, not in GetAll (daemon/README.md)
    for file, _ in attributes(syspath, skip_power=True):
        if file == "mem_used":
            continue  # live too: the driver's and each disk's move with every write
        prop = prop_name(file)
        props[prop] = typed(kind, prop, read_text(os.path.join(syspath, file)))
    if kind == "device":
        drv = os.path.join(syspath, "driver")
        props["Driver"] = ("o", path_encode(ROOT + "/drivers", os.path.basename(os.readlink(drv)))
                           if os.path.islink(drv) else "/")
        try:
            blocks = sorted(os.listdir(os.path.join(syspath, "block")))
        except OSError:
            blocks = []
        props["BlockDevice"] = ("s", "/dev/" + blocks[0] if blocks else "")
    return props


def sysfs_tree():
    """What the daemon should show, computed from sysfs alone."""
    objects, devices, drivers = {}, [], []
    for name in sorted(os.listdir(DEVICES) if os.path.isdir(DEVICES) else [], key=natural):
        try:  # realpath() would lstat every component
            syspath = os.path.normpath(os.path.join(DEVICES, os.readlink(os.path.join(DEVICES, name))))
        except OSError:
            continue
        try:
            props = sysfs_object("device", syspath, name)
        except FileNotFoundError:
            continue  # went away while we looked
        path = path_encode(ROOT + "/devices", name)
        objects[path] = {"org.sbd.Sbd1.Device": props}
        devices.append(path)
    for name in sorted(os.listdir(DRIVERS) if os.path.isdir(DRIVERS) else [], key=natural):
        syspath = os.path.join(DRIVERS, name)
        path = path_encode(ROOT + "/drivers", name)
        props = sysfs_object("driver", syspath, name)
        props["Devices"] = ("ao", [d for d in devices
                                   if objects[d]["org.sbd.Sbd1.Device"]["Driver"][1] == path])
        objects[path] = {"org.sbd.Sbd1.Driver": props}
        drivers.append(path)
    if os.path.isdir(MODULE):
        state = read_text(MODULE + "/initstate") or "builtin"
        params = {}
        pdir = MODULE + "/parameters"
        for p in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
            v = read_text(os.path.join(pdir, p))
            if v is not None:
                params[p] = v
    else:
        state, params = "unloaded", {}
    objects[ROOT + "/module"] = {"org.sbd.Sbd1.Module": {
        "Name": ("s", "sbd"), "State": ("s", state), "Parameters": ("a{ss}", params)}}
    return objects, devices, drivers


def plain(value):
    """A dbus-python value as (signature, python value)."""
    import dbus
    if isinstance(value, dbus.Boolean):
        return ("b", bool(value))
    if isinstance(value, dbus.UInt64):
        return ("t", int(value))
    if isinstance(value, dbus.UInt32):
        return ("u", int(value))
    if isinstance(value, dbus.ObjectPath):
        return ("o", str(value))
    if isinstance(value, dbus.String):
        return ("s", str(value))
    if isinstance(value, dbus.Dictionary):
        return ("a{%s}" % value.signature, {str(k): str(v) for k, v in value.items()})
    if isinstance(value, dbus.Array):
        return ("a" + value.signature, [str(v) for v in value])
    return (type(value).__name__, value)


def daemon_tree(bus):
    import dbus
    root = bus.get_object(NAME, ROOT, introspect=False)
    managed = root.GetManagedObjects(dbus_interface="org.freedesktop.DBus.ObjectManager", timeout=300)
    objects = {}
    for path, ifaces in managed.items():
        obj = {}
        for iface, props in ifaces.items():
            if iface in STD_IFACES:
                if props:
                    obj[str(iface)] = "unexpected properties"
                continue
            obj[str(iface)] = {str(k): plain(v) for k, v in props.items()}
        objects[str(path)] = obj
    manager = root.GetAll("org.sbd.Sbd1.Manager", dbus_interface=dbus.PROPERTIES_IFACE, timeout=300)
    return objects, [str(p) for p in manager["Devices"]], [str(p) for p in manager["Drivers"]]


def differences(want, got):
    diffs = []
    (wobj, wdev, wdrv), (gobj, gdev, gdrv) = want, got
    if wdev != gdev:
        missing = sorted(set(wdev) - set(gdev), key=natural)
        extra = sorted(set(gdev) - set(wdev), key=natural)
        diffs.append("Manager.Devices: %d in sysfs, %d on the bus; missing %s; extra %s; order %s" % (
            len(wdev), len(gdev), missing[:10], extra[:10],
            "ok" if sorted(gdev, key=natural) == gdev else "not natural"))
    if wdrv != gdrv:
        diffs.append("Manager.Drivers: want %s, got %s" % (wdrv, gdrv))
    for path in sorted(set(wobj) | set(gobj), key=natural):
        if path not in gobj:
            diffs.append("%s: missing on the bus" % path)
            continue
        if path not in wobj:
            diffs.append("%s: on the bus but not in sysfs" % path)
            continue
        if set(wobj[path]) != set(gobj[path]):
            diffs.append("%s: interfaces %s, want %s" % (path, sorted(gobj[path]), sorted(wobj[path])))
            continue
        for iface, wprops in wobj[path].items():
            gprops = dict(gobj[path][iface])
            if iface == "org.sbd.Sbd1.Module":
                # RefCount is live (no event); the rest must match.
                if gprops.pop("RefCount", ("u", 0))[0] != "u":
                    diffs.append("%s: RefCount not u" % path)
            for prop in sorted(set(wprops) | set(gprops)):
                if wprops.get(prop) != gprops.get(prop):
                    diffs.append("%s %s: bus %r, sysfs %r" % (path, prop, gprops.get(prop), wprops.get(prop)))
    return diffs


def cmd_tree(args):
    import dbus
    bus = dbus.SystemBus()
    deadline = time.monotonic() + args.timeout
    start, rounds = time.monotonic(), 0
    while True:
        rounds += 1
        t0 = time.monotonic()
        got = daemon_tree(bus)
        t1 = time.monotonic()
        want = sysfs_tree()
        t2 = time.monotonic()
        diffs = differences(want, got)
        if not diffs:
            n_props = sum(len(p) for o in want[0].values() for p in o.values())
            print("%d devices, %d drivers, %d objects, %d properties compared "
                  "(%d round(s) in %.1f s; the last: bus %.1f s, sysfs %.1f s)" % (
                      len(want[1]), len(want[2]), len(want[0]), n_props,
                      rounds, time.monotonic() - start, t1 - t0, t2 - t1))
            return 0
        if time.monotonic() > deadline:
            print("%d difference(s) after %ds:" % (len(diffs), args.timeout))
            for d in diffs[:40]:
                print("  " + d)
            return 1
        time.sleep(0.5)


def cmd_subscribers(args):
    import dbus
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib

    DBusGMainLoop(set_as_default=True)
    seen = [[] for _ in range(args.n)]
    conns = []
    for i in range(args.n):
        c = dbus.bus.BusConnection(dbus.bus.BusConnection.TYPE_SYSTEM)

        def handler(iface, changed, invalidated, i=i):
            seen[i].append(str(changed.get("Label", "")))
        c.add_signal_receiver(handler, signal_name="PropertiesChanged",
                              dbus_interface="org.freedesktop.DBus.Properties",
                              bus_name=NAME, path=args.path)
        conns.append(c)
    # A round trip on each connection after its AddMatch: the match is
    # active once the reply is back (the bus handles messages in order).
    for c in conns:
        c.get_name_owner(NAME)
    if args.ready:
        open(args.ready, "w").close()
    loop = GLib.MainLoop()
    deadline = time.monotonic() + args.timeout

    def check():
        if all(args.label in s for s in seen) or time.monotonic() > deadline:
            # Anything else in flight arrives within a moment.
            GLib.timeout_add(1000, loop.quit)
            return False
        return True
    GLib.timeout_add(100, check)
    loop.run()
    ok = sum(1 for s in seen if s == [args.label])
    print("%d of %d subscribers saw exactly one PropertiesChanged with Label=%r" % (ok, args.n, args.label))
    bad = [(i, s) for i, s in enumerate(seen) if s != [args.label]]
    for i, s in bad[:10]:
        print("  subscriber %d saw %r" % (i, s))
    return 0 if ok == args.n else 1


def uevent_socket(pid):
    """(fd number in pid, /proc/net/netlink row) of pid's uevent socket."""
    rows = {}
    with open("/proc/net/netlink") as f:
        head = f.readline().split()
        for line in f:
            row = dict(zip(head, line.split()))
            if row["Eth"] == "15":  # NETLINK_KOBJECT_UEVENT
                rows[row["Inode"]] = row
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        m = re.match(r"socket:\[(\d+)\]", target)
        if m and m.group(1) in rows:
            return int(fd), rows[m.group(1)]
    raise SystemExit("process %d has no uevent socket" % pid)


def cmd_netlink(args):
    fd, row = uevent_socket(args.pid)
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = libc.syscall(434, args.pid, 0)  # pidfd_open
    if pidfd < 0:
        raise SystemExit("pidfd_open: %s" % os.strerror(ctypes.get_errno()))
    mine = libc.syscall(438, pidfd, fd, 0)  # pidfd_getfd
    if mine < 0:
        raise SystemExit("pidfd_getfd: %s" % os.strerror(ctypes.get_errno()))
    s = socket.socket(fileno=mine)
    before = s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    if args.rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    after = s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    s.detach()
    os.close(mine)
    print("fd=%d groups=%s rmem=%s drops=%s rcvbuf=%d%s" % (
        fd, row["Groups"], row["Rmem"], row["Drops"], before,
        " -> %d" % after if args.rcvbuf else ""))
    return 0


def cmd_pings(args):
    import dbus
    bus = dbus.SystemBus()
    owner = bus.get_name_owner(NAME)
    n, worst = 0, 0.0
    if args.ready:
        open(args.ready, "w").close()
    while not os.path.exists(args.until):
        t0 = time.monotonic()
        try:
            bus.call_blocking(owner, ROOT, "org.freedesktop.DBus.Peer", "Ping", "", (), timeout=120)
        except dbus.DBusException as e:
            print("Ping %d unanswered after %.1f s: %s" % (n + 1, time.monotonic() - t0, e))
            return 1
        worst = max(worst, time.monotonic() - t0)
        n += 1
        time.sleep(args.every)
    print("%d Pings, the slowest answered in %.3f s" % (n, worst))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tree")
    t.add_argument("--timeout", type=int, default=30)
    s = sub.add_parser("subscribers")
    s.add_argument("n", type=int)
    s.add_argument("path")
    s.add_argument("label")
    s.add_argument("--timeout", type=int, default=60)
    s.add_argument("--ready")
    n = sub.add_parser("netlink")
    n.add_argument("pid", type=int)
    n.add_argument("--rcvbuf", type=int)
    p = sub.add_parser("pings")
    p.add_argument("--until", required=True)
    p.add_argument("--ready")
    p.add_argument("--every", type=float, default=0.1)
    args = ap.parse_args()
    return {"tree": cmd_tree, "subscribers": cmd_subscribers, "netlink": cmd_netlink,
            "pings": cmd_pings}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
