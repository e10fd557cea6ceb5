#!/usr/bin/python3
"""on-terminal.py: run a command as a user on a new pseudo-terminal that is
its controlling terminal (as an ssh login or a console gives it), and type
a password at each "Password:" prompt, as a person would.

  on-terminal.py --user NAME [--password PW]... [--timeout S] -- CMD...

Each prompt gets the next --password; a prompt with none left gets an end
of file (Ctrl-D), which cancels polkit's text agent. What the terminal
showed goes to stdout, then a last line "prompts=N"; the exit status is
the command's (124 when it ran out of time, killed).
"""
import argparse
import os
import pty
import pwd
import re
import select
import signal
import sys
import termios
import time

PROMPT = re.compile(rb'Password: ?$')


def become(user):
    """In the child: the user's groups, gid, uid and login environment."""
    pw = pwd.getpwnam(user)
    os.setgroups(os.getgrouplist(user, pw.pw_gid))
    os.setgid(pw.pw_gid)
    os.setuid(pw.pw_uid)
    os.environ.update(HOME=pw.pw_dir, USER=user, LOGNAME=user, TERM='vt100')
    os.chdir(pw.pw_dir if os.path.isdir(pw.pw_dir) else '/')


def descendants(pid):
    """pid and every process below it, from /proc."""
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += children.get(p, [])
    return found


def terminals_below(pid):
    """The terminals that pid's processes read from: ours, and any a
    program between (su --pty) made for the processes it runs."""
    ttys = set()
    for p in descendants(pid):
        try:
            path = os.readlink(f'/proc/{p}/fd/0')
        except OSError:
            continue
        if path.startswith('/dev/pts/'):
            ttys.add(path)
    return ttys


def echo_on(tty):
    try:
        fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False  # closed meanwhile: nobody reads it
    try:
        return bool(termios.tcgetattr(fd)[3] & termios.ECHO)
    finally:
        os.close(fd)


def wait_for_no_echo(fd, pid, deadline):
    """Until the program that prompted has turned echo off on the terminal
    it reads, as a person waits for the prompt to be ready: polkit's text
    agent prints the prompt first and then sets the terminal with
    TCSAFLUSH, which drops what was typed before. Under su --pty that is
    not our terminal (su keeps ours raw) but the one su made: watch every
    terminal below the command, as root."""
    while time.monotonic() < deadline:
        if not termios.tcgetattr(fd)[3] & termios.ECHO and \
                not any(echo_on(t) for t in terminals_below(pid)):
            return
        time.sleep(0.05)


def converse(fd, pid, passwords, deadline):
    """Read the terminal until it closes, answering prompts; returns what it
    showed and how many prompts there were (None when out of time)."""
    shown, prompts, since_answer = b'', 0, 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return shown, None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: every process closed the terminal
            return shown, prompts
        if not chunk:
            return shown, prompts
        shown += chunk
        if PROMPT.search(shown[since_answer:]):
            prompts += 1
            since_answer = len(shown)
            wait_for_no_echo(fd, pid, deadline)
            os.write(fd, (passwords.pop(0) + '\n').encode() if passwords else b'\x04')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--user', required=True)
    ap.add_argument('--password', action='append', default=[])
    ap.add_argument('--timeout', type=float, default=120)
    ap.add_argument('command', nargs='+')
    args = ap.parse_args()

    pid, fd = pty.fork()  # the child leads a new session on the pty
    if pid == 0:
        try:
            become(args.user)
            os.execvp(args.command[0], args.command)
        finally:
            os._exit(127)
    shown, prompts = converse(fd, pid, list(args.password), time.monotonic() + args.timeout)
    if prompts is None:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(shown.decode(errors='replace').replace('\r\n', '\n'))
    print(f'\nprompts={prompts if prompts is not None else "timeout"}')
    return 124 if prompts is None else os.waitstatus_to_exitcode(status)


if __name__ == '__main__':
    sys.exit(main())
