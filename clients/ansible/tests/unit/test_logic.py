# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of the sbd.sbd collection's logic, with plain unittest and no
bus: sizes, what a task must change (and in which order), idempotence,
check mode, the diff, the facts, and sbdd's errors reaching the task's
result with the D-Bus error's name. A fake client stands in for sbdd.

Run: /usr/bin/python3 tests/unit/test_logic.py (from clients/ansible)."""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.dirname(os.path.dirname(HERE))
# the collection importable as ansible_collections.sbd.sbd, as Ansible does
_root = tempfile.mkdtemp(prefix='sbd-collection-')
os.makedirs(os.path.join(_root, 'ansible_collections', 'sbd'))
os.symlink(COLLECTION, os.path.join(_root, 'ansible_collections', 'sbd', 'sbd'))
sys.path.insert(0, _root)

from ansible_collections.sbd.sbd.plugins.module_utils import sbd  # noqa: E402
from ansible_collections.sbd.sbd.plugins.modules import sbd_device  # noqa: E402

M = 1 << 20


def props(size=16 * M, label='sbd1', read_only=False, online=True):
    return {'SysName': 'sbd1', 'Size': size, 'Label': label, 'ReadOnly': read_only, 'Online': online,
            'BlockDevice': '/dev/sbd1'}


class Sizes(unittest.TestCase):

    def test_parse(self):
        self.assertEqual(sbd.parse_size('64M'), 64 * M)
        self.assertEqual(sbd.parse_size('1g'), 1 << 30)
        self.assertEqual(sbd.parse_size('512'), 512)
        self.assertEqual(sbd.parse_size(4096), 4096)
        self.assertEqual(sbd.parse_size('2KiB'), 2048)

    def test_bad(self):
        for bad in ('', '12x', '-1', '0', 'M', '1.5G', True, str(1 << 64)):
            with self.assertRaises(ValueError, msg=repr(bad)):
                sbd.parse_size(bad)


class PlanDevice(unittest.TestCase):

    def test_create(self):
        steps, before, after = sbd.plan_device(None, 'present', {'size': 64 * M, 'label': 'scratch'})
        self.assertEqual(steps, [('add', 64 * M), ('set', 'Label', 's', 'scratch')])
        self.assertEqual(before, {'state': 'absent'})
        self.assertEqual(after, {'state': 'present', 'size': 64 * M, 'label': 'scratch'})

    def test_create_needs_size(self):
        with self.assertRaises(ValueError):
            sbd.plan_device(None, 'present', {'label': 'x'})

    def test_nothing_to_do(self):
        steps, before, after = sbd.plan_device(props(), 'present',
                                               {'size': 16 * M, 'label': 'sbd1', 'read_only': False})
        self.assertEqual(steps, [])
        self.assertEqual(before, after)

    def test_only_what_differs(self):
        steps, _, after = sbd.plan_device(props(), 'present', {'size': 16 * M, 'label': 'data', 'read_only': True})
        self.assertEqual(steps, [('set', 'Label', 's', 'data'), ('set', 'ReadOnly', 'b', True)])
        self.assertEqual(after['label'], 'data')
        self.assertEqual(after['size'], 16 * M)

    def test_online_order(self):
        # going offline last, coming online first
        steps, _, _ = sbd.plan_device(props(), 'present', {'online': False, 'label': 'x'})
        self.assertEqual([s[1] for s in steps], ['Label', 'Online'])
        steps, _, _ = sbd.plan_device(props(online=False), 'present', {'online': True, 'label': 'x'})
        self.assertEqual([s[1] for s in steps], ['Online', 'Label'])

    def test_absent(self):
        self.assertEqual(sbd.plan_device(None, 'absent', {})[0], [])
        steps, before, after = sbd.plan_device(props(), 'absent', {'size': 1})
        self.assertEqual(steps, [('remove',)])
        self.assertEqual(before['state'], 'present')
        self.assertEqual(after, {'state': 'absent'})


class PlanModule(unittest.TestCase):

    def test_plan(self):
        self.assertIsNone(sbd.plan_module('live', 'loaded'))
        self.assertEqual(sbd.plan_module('unloaded', 'loaded'), 'load')
        self.assertEqual(sbd.plan_module('live', 'absent'), 'unload')
        self.assertIsNone(sbd.plan_module('unloaded', 'absent'))
        self.assertIsNone(sbd.plan_module('builtin', 'loaded'))
        with self.assertRaises(ValueError):
            sbd.plan_module('builtin', 'absent')

    def test_parameters_differ(self):
        self.assertEqual(sbd.parameters_differ({'ndevices': '0', 'size': '16M'}, {'ndevices': 0}), {})
        self.assertEqual(sbd.parameters_differ({'ndevices': '1'}, {'ndevices': 0}), {'ndevices': 0})


class Facts(unittest.TestCase):

    def test_facts(self):
        objects = {
            '/org/sbd/Sbd1/module': {'org.sbd.Sbd1.Module': {'Name': 'sbd', 'State': 'live', 'RefCount': 0,
                                                             'Parameters': {'ndevices': '1'}}},
            '/org/sbd/Sbd1/drivers/sbd': {'org.sbd.Sbd1.Driver': {'Version': '1.0', 'Ndevices': 1,
                                                                  'MemMax': '1073741824\n'}},
            '/org/sbd/Sbd1/devices/sbd1': {'org.sbd.Sbd1.Device': props(label='data')},
        }
        f = sbd.facts_from(objects, '0.1.0', {'/org/sbd/Sbd1/drivers/sbd': '8192',
                                              '/org/sbd/Sbd1/devices/sbd1': '4096'})
        self.assertEqual(f['module'], {'name': 'sbd', 'state': 'live', 'loaded': True, 'ref_count': 0,
                                       'parameters': {'ndevices': '1'}})
        self.assertEqual(f['budget'], {'used_bytes': 8192, 'max_bytes': 1 << 30})
        self.assertEqual(f['devices']['sbd1'], {'path': '/org/sbd/Sbd1/devices/sbd1', 'id': 1, 'size': 16 * M,
                                                'label': 'data', 'read_only': False, 'online': True,
                                                'block_device': '/dev/sbd1', 'mem_used': 4096})
        f = sbd.facts_from({'/org/sbd/Sbd1/module': {'org.sbd.Sbd1.Module': {'State': 'unloaded'}}}, '0.1.0', {})
        self.assertEqual((f['module']['loaded'], f['budget'], f['devices']), (False, None, {}))


class Failed(Exception):
    pass


class FakeModule:
    def __init__(self, params, check_mode=False, diff=False):
        base = {'id': 1, 'state': 'present', 'size': None, 'label': None, 'read_only': None, 'online': None}
        base.update(params)
        self.params = base
        self.check_mode = check_mode
        self._diff = diff

    def fail_json(self, **kw):
        raise Failed(kw)


class FakeClient:
    """sbdd with one disk sbd1; plays the kernel for adds and sets."""

    def __init__(self, devices=None, refuse=None):
        self.devices = devices if devices is not None else {1: props()}
        self.calls = []
        self.refuse = refuse

    def device(self, device_id):
        return dict(self.devices[device_id]) if device_id in self.devices else None

    def add_device(self, size, device_id):
        self.calls.append(('AddDevice', size, device_id))
        p = props(size=size, label='sbd%d' % device_id)
        self.devices[device_id] = p

    def remove_device(self, device_id):
        self.calls.append(('RemoveDevice', device_id))
        del self.devices[device_id]

    def set(self, name, prop, dbus_type, value):
        self.calls.append(('Set', name, prop, value))
        if self.refuse and prop == self.refuse[0]:
            raise sbd.SbdError("Could not set %s of %s to '%s'" % (prop, name, value), self.refuse[1], self.refuse[2])
        self.devices[int(name[3:])][prop] = value


class RunDevice(unittest.TestCase):

    def test_apply_then_idempotent(self):
        client = FakeClient(devices={})
        m = FakeModule({'id': 2, 'size': '64M', 'label': 'cache'}, diff=True)
        r = sbd_device.run(m, client)
        self.assertTrue(r['changed'])
        self.assertEqual(client.calls, [('AddDevice', 64 * M, 2), ('Set', 'sbd2', 'Label', 'cache')])
        self.assertEqual(r['after'], {'state': 'present', 'size': 64 * M, 'label': 'cache', 'read_only': False,
                                      'online': True})
        self.assertEqual(r['diff']['before'], {'state': 'absent'})
        client.calls = []
        r = sbd_device.run(FakeModule({'id': 2, 'size': '64M', 'label': 'cache'}), client)
        self.assertFalse(r['changed'])
        self.assertEqual(client.calls, [])

    def test_label_that_the_kernel_already_gave(self):
        # a new disk's default label is its name: no Set for it
        client = FakeClient(devices={})
        sbd_device.run(FakeModule({'id': 3, 'size': '16M', 'label': 'sbd3'}), client)
        self.assertEqual(client.calls, [('AddDevice', 16 * M, 3)])

    def test_check_mode_changes_nothing(self):
        client = FakeClient()
        r = sbd_device.run(FakeModule({'label': 'data', 'read_only': True}, check_mode=True, diff=True), client)
        self.assertTrue(r['changed'])
        self.assertEqual(client.calls, [])
        self.assertEqual(r['changes'], ["Set Label='data'", 'Set ReadOnly=True'])
        self.assertEqual(r['diff']['after']['label'], 'data')
        self.assertEqual(client.devices[1]['Label'], 'sbd1')

    def test_refused_with_dbus_error(self):
        client = FakeClient(refuse=('Label', 'org.sbd.Sbd1.Error.InvalidValue', 'The kernel refused it'))
        with self.assertRaises(Failed) as cm:
            sbd_device.run(FakeModule({'label': 'x' * 40}), client)
        r = cm.exception.args[0]
        self.assertEqual(r['dbus_error'], 'org.sbd.Sbd1.Error.InvalidValue')
        self.assertEqual(r['dbus_message'], 'The kernel refused it')
        self.assertIn('(org.sbd.Sbd1.Error.InvalidValue)', r['msg'])
        self.assertFalse(r['changed'])
        # a refusal after a first write: failed, and changed
        client = FakeClient(refuse=('ReadOnly', 'org.sbd.Sbd1.Error.Busy', 'busy'))
        with self.assertRaises(Failed) as cm:
            sbd_device.run(FakeModule({'label': 'data', 'read_only': True}), client)
        self.assertTrue(cm.exception.args[0]['changed'])
        self.assertEqual(client.devices[1]['Label'], 'data')

    def test_remove(self):
        client = FakeClient()
        r = sbd_device.run(FakeModule({'state': 'absent'}), client)
        self.assertTrue(r['changed'])
        self.assertEqual(client.calls, [('RemoveDevice', 1)])
        self.assertEqual(r['after'], {'state': 'absent'})
        self.assertFalse(sbd_device.run(FakeModule({'state': 'absent'}), client)['changed'])

    def test_bad_size_and_missing_size(self):
        with self.assertRaises(Failed) as cm:
            sbd_device.run(FakeModule({'size': '12x'}), FakeClient())
        self.assertIn("invalid size '12x'", cm.exception.args[0]['msg'])
        with self.assertRaises(Failed) as cm:
            sbd_device.run(FakeModule({'id': 5, 'label': 'x'}), FakeClient())
        self.assertIn('sbd5 does not exist: size is required', cm.exception.args[0]['msg'])


if __name__ == '__main__':
    unittest.main(verbosity=2)
