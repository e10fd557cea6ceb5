#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fleet-host.py RUN_VM SCENARIO: the Ansible controller on the host, the
managed host a systemd guest with the real module.

Boots the guest (RUN_VM --systemd --forward PORT:22 SCENARIO KEYDIR, the
scenario being tests/vm/scenarios/fleet.sh) and runs ansible-playbook
here, over ssh to the guest's sshd, as a fleet's controller does. The
modules still run in the guest; the controller no longer does, which
under TCG cost 16 s a playbook run before its first task and about 3 s a
task (the whole scenario 406-433 s against 176-205 s; tests/README.md).

The scenario decides what runs when: it writes one request a line (JSON:
name, playbook, arguments) to /run/sbd-fleet/requests, which this script
reads over ssh; it runs the playbook against the guest and puts the reply
(exit status, the results callback's JSON document, stderr) into
/run/sbd-fleet/NAME.reply, which the scenario waits for and checks. Only
a playbook of the source tree, with --check and --diff at most. The
scenario ends the requests by closing them; its status is this script's.

KEYDIR holds what this run's ssh needs and nothing else: a client key
(its public half authorized in the guest), the guest's host key (pinned
in known_hosts here: no host key is ever accepted unseen) and the
connection's control socket. Each run has its own, and its own port.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import forwarded_guest

TIMEOUT_GUEST = 900
USER = 'sbd-fleet'  # root under a name whose home is the scenario's (fleet.sh)
FLEET = '/run/sbd-fleet'
ALLOWED_ARGS = {'--check', '--diff'}


def say(msg):
    print('fleet-host: ' + msg, flush=True)


class Failed(Exception):
    pass


class Controller:
    def __init__(self, source, keydir, port):
        self.source = os.path.realpath(source)
        self.keydir = keydir
        self.port = port
        self.ssh_opts = [
            '-F', '/dev/null', '-o', 'IdentitiesOnly=yes', '-i', os.path.join(keydir, 'id_ed25519'),
            '-o', 'UserKnownHostsFile=' + os.path.join(keydir, 'known_hosts'),
            '-o', 'StrictHostKeyChecking=yes', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10',
            '-o', 'ControlMaster=auto', '-o', 'ControlPersist=300',
            '-o', 'ControlPath=' + os.path.join(keydir, 'cm'),
        ]
        collections = os.path.join(keydir, 'collections', 'ansible_collections', 'sbd')
        os.makedirs(collections)
        os.symlink(os.path.join(self.source, 'clients', 'ansible'), os.path.join(collections, 'sbd'))
        self.inventory = os.path.join(keydir, 'inventory')
        with open(self.inventory, 'w') as f:
            f.write('guest ansible_host=127.0.0.1 ansible_port=%d ansible_user=%s '
                    'ansible_python_interpreter=/usr/bin/python3\n' % (port, USER))

    def ssh_argv(self, command):
        return ['ssh', '-p', str(self.port)] + self.ssh_opts + [USER + '@127.0.0.1', command]

    def ssh(self, command, **kw):
        return subprocess.run(self.ssh_argv(command), **kw)

    def wait_for_sshd(self, guest):
        while True:
            if guest.ended() is not None:
                raise Failed('the guest ended (%d) before its sshd answered' % guest.ended())
            r = self.ssh('true', stdin=subprocess.DEVNULL, capture_output=True, text=True)
            if r.returncode == 0:
                return
            # sshd answered and said no: waiting will not change it
            if 'Permission denied' in r.stderr or 'Host key verification failed' in r.stderr:
                raise Failed('the guest\'s sshd refuses this run\'s key: ' + r.stderr.strip())
            if guest.seconds() > TIMEOUT_GUEST:
                raise Failed('the guest\'s sshd did not answer: ' + r.stderr.strip())
            time.sleep(1)

    def play(self, name, book, args):
        """Runs one requested playbook; returns the reply (a dict)."""
        path = os.path.realpath(book)
        if not path.startswith(self.source + os.sep) or not os.path.isfile(path):
            raise Failed('%s: a playbook of the source tree, not %r' % (name, book))
        # what the guest may ask for: -e ansible_connection=local, say,
        # would run the play on this host
        if not set(args) <= ALLOWED_ARGS:
            raise Failed('%s: arguments other than %s: %r' % (name, ', '.join(sorted(ALLOWED_ARGS)), args))
        env = dict(os.environ,
                   ANSIBLE_HOME=os.path.join(self.keydir, 'ansible-home'),
                   ANSIBLE_LOCAL_TEMP=os.path.join(self.keydir, 'ansible-tmp'),
                   ANSIBLE_COLLECTIONS_PATH=os.path.join(self.keydir, 'collections'),
                   ANSIBLE_CALLBACK_PLUGINS=os.path.join(self.source, 'tests', 'ansible'),
                   ANSIBLE_STDOUT_CALLBACK='sbd_results', ANSIBLE_NOCOLOR='1',
                   ANSIBLE_PIPELINING='1', ANSIBLE_SSH_ARGS=' '.join(self.ssh_opts))
        cmd = ['ansible-playbook', '-i', self.inventory, '-e', 'sbd_hosts=guest',
               '-e', 'ansible_become=false', path] + list(args)
        t0 = time.monotonic()
        r = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
        took = time.monotonic() - t0
        say('ansible-playbook %s: status %d, %.1f s' % (name, r.returncode, took))
        return {'status': r.returncode, 'seconds': round(took, 1), 'json': r.stdout, 'stderr': r.stderr}

    def reply(self, name, reply):
        # written beside and renamed: the scenario never reads half a reply
        tmp = '%s/%s.reply.tmp' % (FLEET, name)
        r = self.ssh("cat > %s && mv %s %s/%s.reply" % (tmp, tmp, FLEET, name),
                     input=json.dumps(reply), capture_output=True, text=True)
        if r.returncode != 0:
            raise Failed('could not give the guest the reply to %s: %s' % (name, r.stderr.strip()))

    def serve(self):
        """Serves the scenario's requests until it closes them."""
        reader = subprocess.Popen(self.ssh_argv('cat %s/requests' % FLEET),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        try:
            for line in reader.stdout:
                name, book, args = parse_request(line)
                try:
                    reply = self.play(name, book, args)
                except (Failed, OSError, subprocess.SubprocessError) as e:
                    # the scenario fails with this at once, not at its time-out
                    reply = {'status': 255, 'seconds': 0, 'json': '{}', 'stderr': 'fleet-host: %s' % e}
                    say(reply['stderr'])
                self.reply(name, reply)
        finally:
            reader.stdout.close()
            reader.wait()


def parse_request(line):
    """(name, playbook, arguments) of a request line; one the host cannot
    read ends the test (there is no name to reply to)."""
    try:
        r = json.loads(line)
        name, book, args = r['name'], r['playbook'], r['args']
        if not (isinstance(name, str) and name.isalpha() and isinstance(book, str) and
                isinstance(args, list) and all(isinstance(a, str) for a in args)):
            raise ValueError('wrong types')
    except (ValueError, KeyError, TypeError) as e:
        raise Failed('a request the host cannot read (%s): %r' % (e, line[:200]))
    return name, book, args


def make_keys(keydir):
    for name in ('id_ed25519', 'ssh_host_ed25519_key'):
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'sbd-fleet-test',
                        '-f', os.path.join(keydir, name)], check=True)


def main():
    run_vm, scenario = sys.argv[1], sys.argv[2]
    source = os.environ.get('SBD_SOURCE_DIR') or os.path.join(os.path.dirname(__file__), '..', '..')
    for tool in ('ansible-playbook', 'ssh', 'ssh-keygen'):
        if not shutil.which(tool):
            raise Failed('%s is not installed (.ci/install-deps)' % tool)
    # In the host's /tmp, which the guest sees (read-only, from its boot:
    # the keys are made first), with the private halves 0600. A short path:
    # the control socket's must fit a socket's 108 bytes, which a build
    # tree deep in CI's directories might not leave.
    keydir = tempfile.mkdtemp(prefix='sbd-fleet.', dir='/tmp')
    try:
        make_keys(keydir)
        guest = forwarded_guest.Guest(run_vm, 22, TIMEOUT_GUEST, scenario, keydir)
        port = guest.port
        with open(os.path.join(keydir, 'ssh_host_ed25519_key.pub')) as f:
            kind, key = f.read().split()[:2]
        with open(os.path.join(keydir, 'known_hosts'), 'w') as f:
            f.write('[127.0.0.1]:%d %s %s\n' % (port, kind, key))
        c = Controller(source, keydir, port)
        try:
            c.wait_for_sshd(guest)
            say('the guest\'s sshd answers after %ds' % guest.seconds())
            c.serve()
        except BaseException:
            guest.stop()
            raise
        return guest.result(say)
    finally:
        subprocess.run(['ssh', '-O', 'exit', '-o', 'ControlPath=' + os.path.join(keydir, 'cm'), 'x'],
                       capture_output=True)
        shutil.rmtree(keydir, ignore_errors=True)


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Failed as e:
        say('FAIL: %s' % e)
        sys.exit(1)
