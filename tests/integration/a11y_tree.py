#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reads sbd-manager's accessibility tree over AT-SPI, as a screen reader does.

Run inside its own session bus (dbus-run-session), on an X display:

    a11y_tree.py SBD_MANAGER [ARGS...]

starts SBD_MANAGER --dump-model --watch ARGS, waits until it printed its first
model (it is up to date), finds it among the AT-SPI desktop's applications and
prints one JSON document: {"model": <that model>, "windows": [<tree>...]}, each
node {"role", "name", "states", "children"}. Then it ends sbd-manager. Keys
can be sent to the application first with --keys (e.g. --keys Control+question)
through AT-SPI's keyboard event synthesis, as a user's keyboard would; with
--until NAME the tree is read again until NAME is in it.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

import gi
gi.require_version('Atspi', '2.0')
from gi.repository import Atspi  # noqa: E402


def node(acc, depth=0):
    states = acc.get_state_set()
    kids = []
    if depth < 60:
        for i in range(acc.get_child_count()):
            child = acc.get_child_at_index(i)
            if child is not None:
                kids.append(node(child, depth + 1))
    return {
        'role': acc.get_role_name(),
        'name': acc.get_name() or '',
        'states': sorted(Atspi.StateType(s).value_nick for s in states.get_states()),
        'children': kids,
    }


def find_app(pid, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        desktop = Atspi.get_desktop(0)
        for i in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(i)
            try:
                if app is not None and app.get_process_id() == pid:
                    return app
            except gi.repository.GLib.Error:
                continue
        time.sleep(0.2)
    raise SystemExit('a11y_tree: sbd-manager (pid %d) never showed up on the AT-SPI bus' % pid)


def read_line(p, timeout=60):
    fd = p.stdout.fileno()
    buf = b''
    end = time.monotonic() + timeout
    while b'\n' not in buf:
        ready, _, _ = select.select([fd], [], [], max(0, end - time.monotonic()))
        if not ready:
            raise SystemExit('a11y_tree: sbd-manager printed no model')
        chunk = os.read(fd, 65536)
        if not chunk:
            raise SystemExit('a11y_tree: sbd-manager ended: ' + p.stderr.read().decode())
        buf += chunk
    return json.loads(buf.split(b'\n', 1)[0])


MODIFIERS = {'Control': 1 << 2, 'Shift': 1 << 0, 'Alt': 1 << 3}
KEYSYMS = {'question': 0x3f, 'F10': 0xffc7, 'n': 0x6e, 'q': 0x71, 'w': 0x77, 'Escape': 0xff1b}


def press(spec):
    """'Control+question': hold the modifiers, press and release the key (X keysyms)."""
    *mods, key = spec.split('+')
    mask = sum(MODIFIERS[m] for m in mods)
    if mask:
        Atspi.generate_keyboard_event(mask, None, Atspi.KeySynthType.LOCKMODIFIERS)
    Atspi.generate_keyboard_event(KEYSYMS[key], None, Atspi.KeySynthType.SYM)
    if mask:
        Atspi.generate_keyboard_event(mask, None, Atspi.KeySynthType.UNLOCKMODIFIERS)


def windows(app):
    return [node(app.get_child_at_index(i)) for i in range(app.get_child_count())]


def main():
    args = sys.argv[1:]
    keys = []
    until = []
    while len(args) >= 2 and args[0] in ('--keys', '--until'):
        (keys if args[0] == '--keys' else until).append(args[1])
        args = args[2:]
    Atspi.init()
    p = subprocess.Popen([args[0], '--dump-model', '--watch'] + args[1:], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        model = read_line(p)
        app = find_app(p.pid)
        for k in keys:
            press(k)
        # until every name given with --until is in the tree (a window that
        # just opened fills its tree on the next frames), or 60 s
        end = time.monotonic() + 60
        while True:
            tree = windows(app)
            text = json.dumps(tree)
            if all(json.dumps(n)[1:-1] in text for n in until) or time.monotonic() > end:
                break
            time.sleep(0.5)
        json.dump({'model': model, 'windows': tree}, sys.stdout)
        print()
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()


if __name__ == '__main__':
    main()
