#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Ansible collection sbd.sbd (clients/ansible) against the real sbdd:
ansible-playbook -c local (ansible-core), the collection found through
ANSIBLE_COLLECTIONS_PATH, results read from the tests' own JSON callback (tests/ansible).
sbd_info's facts equal the test bed's sysfs; sbd_device sets a label that
reaches sysfs, and the same run again changes nothing (changed=0, no
write); --check --diff shows the change and writes nothing; values
refused by sbdd and by the "kernel" fail the task with the D-Bus error's
name and text; a task become another user is refused by sbdd
(NotAuthorized: no polkit on the test bus), so become is what decides;
AddDevice and RemoveDevice through sbd_device with the test playing the
kernel; sbd_module with the module live (no change).

Ansible runs without umockdev's preload (the modules never touch sysfs)
and reaches the private system bus through $DBUS_SYSTEM_BUS_ADDRESS.
"""

import json
import os
import shutil
import subprocess
import tempfile

import sbdtest
from sbdtest import DEVICE_IFACE, device_path

M = 1 << 20


class Playbooks(sbdtest.SbdTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        collection = os.environ.get('SBD_ANSIBLE_COLLECTION')
        if not collection or not os.path.isfile(os.path.join(collection, 'galaxy.yml')):
            raise RuntimeError('$SBD_ANSIBLE_COLLECTION must name clients/ansible (meson sets it)')
        cls.callbacks = os.environ.get('SBD_ANSIBLE_CALLBACKS')
        if not cls.callbacks or not os.path.isfile(os.path.join(cls.callbacks, 'sbd_results.py')):
            raise RuntimeError('$SBD_ANSIBLE_CALLBACKS must name tests/ansible (meson sets it)')
        if not shutil.which('ansible-playbook'):
            raise RuntimeError('ansible-playbook is not installed (Debian package ansible-core)')
        cls.home = tempfile.mkdtemp(prefix='sbd-ansible-')
        os.chmod(cls.home, 0o755)
        os.makedirs(os.path.join(cls.home, 'collections', 'ansible_collections', 'sbd'))
        os.symlink(collection, os.path.join(cls.home, 'collections', 'ansible_collections', 'sbd', 'sbd'))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.home, ignore_errors=True)

    def playbook(self, tasks, *options, start=False):
        """Runs a play of tasks on localhost; returns (stats, [task results]) or,
        with start, the process (see finish)."""
        path = os.path.join(self.home, 'play-%s.json' % self._testMethodName)
        with open(path, 'w') as f:
            json.dump([{'hosts': 'localhost', 'gather_facts': False, 'tasks': tasks}], f)
        env = sbdtest.env_outside_testbed()
        env.update({
            'ANSIBLE_COLLECTIONS_PATH': os.path.join(self.home, 'collections'),
            'ANSIBLE_CALLBACK_PLUGINS': self.callbacks,
            'ANSIBLE_STDOUT_CALLBACK': 'sbd_results',
            'ANSIBLE_LOCAL_TEMP': os.path.join(self.home, 'tmp'),
            'ANSIBLE_REMOTE_TMP': os.path.join(self.home, 'remote-tmp'),
            'ANSIBLE_NOCOLOR': '1',
            'ANSIBLE_PYTHON_INTERPRETER': '/usr/bin/python3',
            'HOME': self.home,
        })
        cmd = ['ansible-playbook', '-c', 'local', '-i', 'localhost,', path] + list(options)
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return p if start else self.finish(p)

    def finish(self, p):
        out, err = p.communicate(timeout=120)
        try:
            doc = json.loads(out)
        except ValueError:
            self.fail('ansible-playbook printed no JSON (exit %d):\n%s\n%s' % (p.returncode, out, err))
        results = [t['hosts']['localhost'] for t in doc['plays'][0]['tasks']]
        return doc['stats']['localhost'], results

    def attr(self, n, a):
        return self.testbed.read(self.testbed.device_attr(n, a))

    def test_info(self):
        tb = self.testbed
        tb.write('/sys/bus/sbd/drivers/sbd/mem_used', '16384\n', 0o444)
        tb.write(tb.device_attr(1, 'label'), 'data\n')
        tb.uevent(tb.device_syspath(1), 'change')
        self.wait_for(lambda: self.get(device_path(1), DEVICE_IFACE, 'Label') == 'data')
        stats, [r] = self.playbook([{'sbd.sbd.sbd_info': {}}])
        self.assertEqual((stats['ok'], stats['changed'], stats['failures']), (1, 0, 0), r)
        f = r['ansible_facts']['sbd']
        self.assertEqual(f['daemon_version'], '0.1.0')
        self.assertEqual(f['module'], {'name': 'sbd', 'state': 'live', 'loaded': True, 'ref_count': 0,
                                       'parameters': {'ndevices': '2', 'size': '16M', 'max_size': '1G'}})
        self.assertEqual(f['budget'], {'used_bytes': 16384, 'max_bytes': 1 << 30})
        self.assertEqual(f['driver']['version'], '1.0')
        self.assertEqual(sorted(f['devices']), ['sbd0', 'sbd1'])
        for n in (0, 1):
            self.assertEqual(f['devices']['sbd%d' % n], {
                'id': n, 'path': device_path(n), 'size': int(self.attr(n, 'size')),
                'label': self.attr(n, 'label').strip(), 'read_only': self.attr(n, 'read_only').strip() == '1',
                'online': self.attr(n, 'online').strip() == '1', 'block_device': '/dev/sbd%d' % n,
                'mem_used': int(self.attr(n, 'mem_used'))})

    def test_set_idempotent_check_mode(self):
        task = [{'sbd.sbd.sbd_device': {'id': 1, 'size': '16M', 'label': 'data', 'read_only': True}}]
        stats, [r] = self.playbook(task)
        self.assertEqual((stats['changed'], stats['failures']), (1, 0), r)
        self.assertEqual(r['changes'], ["Set Label='data'", 'Set ReadOnly=True'])
        self.assertEqual(self.attr(1, 'label'), 'data')
        self.assertEqual(self.attr(1, 'read_only'), '1')
        self.assertEqual(r['after'], {'state': 'present', 'size': 16 * M, 'label': 'data', 'read_only': True,
                                      'online': True})
        # again: nothing changes, nothing is written
        os.utime(self.testbed.real(self.testbed.device_attr(1, 'label')), (1, 1))
        stats, [r] = self.playbook(task)
        self.assertEqual((stats['ok'], stats['changed'], stats['failures']), (1, 0, 0), r)
        self.assertEqual(r['changes'], [])
        self.assertEqual(os.stat(self.testbed.real(self.testbed.device_attr(1, 'label'))).st_mtime, 1)
        # check mode with a diff: reported, not written
        stats, [r] = self.playbook([{'sbd.sbd.sbd_device': {'id': 1, 'label': 'other', 'online': False}}],
                                   '--check', '--diff')
        self.assertEqual((stats['changed'], stats['failures']), (1, 0), r)
        self.assertEqual(r['diff'], {'before': {'state': 'present', 'size': 16 * M, 'label': 'data',
                                                'read_only': True, 'online': True},
                                     'after': {'state': 'present', 'size': 16 * M, 'label': 'other',
                                               'read_only': True, 'online': False},
                                     'before_header': 'sbd1', 'after_header': 'sbd1'})
        self.assertEqual(self.attr(1, 'label'), 'data')
        self.assertEqual(self.attr(1, 'online'), '1\n')

    def test_refused(self):
        # refused by sbdd (the module's rules for Label), by the "kernel"
        # (EINVAL from a store()), and for the user the task became
        f = self.testbed.real(self.testbed.device_attr(0, 'size'))
        os.unlink(f)
        os.symlink('/proc/self/oom_score_adj', f)
        tasks = [
            {'sbd.sbd.sbd_device': {'id': 1, 'label': 'x' * 40}, 'ignore_errors': True},
            {'sbd.sbd.sbd_device': {'id': 0, 'size': '5120'}, 'ignore_errors': True},
            {'sbd.sbd.sbd_device': {'id': 1, 'label': 'fromnobody'}, 'ignore_errors': True,
             'become': True, 'become_method': 'su', 'become_user': 'nobody', 'become_flags': '-s /bin/sh'},
            {'sbd.sbd.sbd_device': {'id': 7, 'label': 'nosize'}, 'ignore_errors': True},
        ]
        stats, results = self.playbook(tasks)
        self.assertEqual((stats['failures'], stats['ignored'], stats['changed']), (0, 4, 0), results)
        long_label, kernel, nobody, nosize = results
        for r in results:
            self.assertTrue(r['failed'], r)
        self.assertEqual(long_label['dbus_error'], 'org.sbd.Sbd1.Error.InvalidValue', long_label)
        self.assertTrue(long_label['msg'].startswith("Could not set Label of sbd1 to '%s': " % ('x' * 40)),
                        long_label['msg'])
        self.assertTrue(long_label['msg'].endswith('(org.sbd.Sbd1.Error.InvalidValue)'), long_label['msg'])
        self.assertIn(long_label['dbus_message'], long_label['msg'])
        self.assertEqual(kernel['dbus_error'], 'org.sbd.Sbd1.Error.InvalidValue', kernel)
        self.assertIn('Invalid argument', kernel['dbus_message'])
        self.assertEqual(nobody['dbus_error'], 'org.sbd.Sbd1.Error.NotAuthorized', nobody)
        self.assertNotIn('dbus_error', nosize)
        self.assertIn('sbd7 does not exist: size is required', nosize['msg'])
        self.assertEqual(self.attr(1, 'label'), 'sbd1\n')
        self.assertEqual(self.testbed.read('/sys/bus/sbd/drivers/sbd/new_device'), '')

    def play_kernel(self, attr, action):
        f = '/sys/bus/sbd/drivers/sbd/' + attr
        self.wait_for(lambda: self.testbed.read(f) != '', timeout=60, message='sbdd did not write ' + attr)
        value = self.testbed.read(f)
        action(value)
        self.testbed.write(f, '', 0o200)
        return value

    def test_add_remove_and_module(self):
        p = self.playbook([{'sbd.sbd.sbd_module': {'state': 'loaded'}},
                           {'sbd.sbd.sbd_device': {'id': 3, 'size': '8M', 'label': 'new'}}], '--diff', start=True)
        value = self.play_kernel('new_device', lambda v: self.testbed.add_device(3, size=int(v.split()[0])))
        self.assertEqual(value, '%d 3' % (8 * M))
        stats, (module, r) = self.finish(p)
        self.assertEqual((stats['changed'], stats['failures']), (1, 0), (module, r))
        self.assertEqual((module['changed'], module['state']), (False, 'live'))
        self.assertEqual(r['changes'], ['AddDevice size=%d id=3' % (8 * M), "Set Label='new'"])
        self.assertEqual(self.attr(3, 'label'), 'new')
        self.assertEqual(r['diff']['before'], {'state': 'absent'})
        p = self.playbook([{'sbd.sbd.sbd_device': {'id': 3, 'state': 'absent'}}], start=True)
        self.assertEqual(self.play_kernel('delete_device', lambda v: self.testbed.remove_device(3)), 'sbd3')
        stats, [r] = self.finish(p)
        self.assertEqual((stats['changed'], stats['failures']), (1, 0), r)
        self.assertEqual(r['after'], {'state': 'absent'})


if __name__ == '__main__':
    sbdtest.main()
