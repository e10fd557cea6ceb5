#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: SBD maintainers
# GNU General Public License v2.0 or later (see COPYING or https://www.gnu.org/licenses/gpl-2.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: sbd_device
short_description: Create, configure and remove SBD RAM disks
version_added: "0.1.0"
description:
  - Makes one SBD disk (C(/dev/sbdN)) exist with the given size, label, read-only and online state, or not exist.
  - Talks to C(sbdd) over its D-Bus API (C(org.sbd.Sbd1) on the target's system bus) through GLib's Gio; never
    writes sysfs. The kernel's verdict comes back as sbdd's named D-Bus error.
  - Runs as the task's user. C(root) (I(become)) may do everything; anyone else is asked about by polkit
    (actions C(org.sbd.sbd1.manage-devices) and C(org.sbd.sbd1.set-attribute)); a refusal fails the task with
    C(org.sbd.Sbd1.Error.NotAuthorized), or C(org.freedesktop.DBus.Error.InteractiveAuthorizationRequired) where
    polkit wants a password (a task cannot give one).
options:
  id:
    description:
      - The disk's number, C(N) of C(sbdN).
    type: int
    required: true
  state:
    description:
      - C(present) creates the disk if needed (with I(size)) and sets what differs; C(absent) deletes it and its
        data.
    type: str
    choices: [present, absent]
    default: present
  size:
    description:
      - Capacity in bytes, or with a K, M, G, T, P or E suffix (powers of 1024), e.g. C(64M). Required to create
        a disk. Changing it needs the disk closed (C(org.sbd.Sbd1.Error.Busy) otherwise).
    type: str
  label:
    description:
      - The disk's label, 1 to 31 printable characters (the kernel refuses others with
        C(org.sbd.Sbd1.Error.InvalidValue)).
    type: str
  read_only:
    description:
      - Whether the disk refuses writes.
    type: bool
  online:
    description:
      - Whether the disk is online; an offline disk fails I/O.
    type: bool
notes:
  - Supports C(check_mode) and C(diff_mode).
  - Idempotent; an attribute not given is left as it is.
requirements:
  - sbdd running or D-Bus activatable on the target
  - python3-gi (PyGObject with the Gio typelib) on the target
seealso:
  - module: sbd.sbd.sbd_info
  - module: sbd.sbd.sbd_module
author:
  - SBD maintainers
'''

EXAMPLES = r'''
- name: A 64 MiB scratch disk sbd1
  sbd.sbd.sbd_device:
    id: 1
    size: 64M
    label: scratch
  become: true

- name: Make it read-only
  sbd.sbd.sbd_device:
    id: 1
    read_only: true
  become: true

- name: Delete it and its data
  sbd.sbd.sbd_device:
    id: 1
    state: absent
  become: true
'''

RETURN = r'''
device:
  description: The disk's name.
  returned: always
  type: str
  sample: sbd1
path:
  description: The disk's D-Bus object path.
  returned: always
  type: str
  sample: /org/sbd/Sbd1/devices/sbd1
changes:
  description: The D-Bus operations made (or that would be made in check mode), in order.
  returned: always
  type: list
  elements: str
  sample: ["AddDevice size=67108864 id=1", "Set Label='scratch'"]
before:
  description: The disk's managed attributes before the task (C(state) absent when it did not exist).
  returned: always
  type: dict
  sample: {"state": "present", "size": 16777216, "label": "sbd1", "read_only": false, "online": true}
after:
  description: The disk's managed attributes after the task, read back from sbdd (planned, in check mode).
  returned: always
  type: dict
  sample: {"state": "present", "size": 67108864, "label": "scratch", "read_only": false, "online": true}
dbus_error:
  description: The D-Bus error's name when sbdd (or the bus) refused.
  returned: failure
  type: str
  sample: org.sbd.Sbd1.Error.InvalidValue
dbus_message:
  description: The D-Bus error's text.
  returned: failure
  type: str
  sample: "The kernel refused 'bad label' for /sys/devices/system/sbd/sbd1/label: Invalid argument (EINVAL)"
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.sbd.sbd.plugins.module_utils.sbd import (
    SbdClient, SbdError, device_name, device_path, device_view, fail_sbd, parse_size, plan_device, require_gi)


def describe(step, device_id):
    if step[0] == 'add':
        return 'AddDevice size=%d id=%d' % (step[1], device_id)
    if step[0] == 'remove':
        return 'RemoveDevice %s' % device_path(device_id)
    return 'Set %s=%r' % (step[1], step[3])


def run(module, client):
    p = module.params
    device_id = p['id']
    if device_id < 0:
        module.fail_json(msg='id must be 0 or more, not %d' % device_id)
    wanted = {}
    for option in ('label', 'read_only', 'online'):
        if p[option] is not None:
            wanted[option] = p[option]
    if p['size'] is not None:
        try:
            wanted['size'] = parse_size(p['size'])
        except ValueError as e:
            module.fail_json(msg=str(e))
    name = device_name(device_id)
    result = {'changed': False, 'device': name, 'path': device_path(device_id), 'changes': []}
    try:
        current = client.device(device_id)
        try:
            steps, before, after = plan_device(current, p['state'], wanted)
        except ValueError as e:
            module.fail_json(msg='%s does not exist: %s' % (name, e), **result)
        result['before'] = before
        if module.check_mode or not steps:
            result['after'] = after
        result['changes'] = [describe(s, device_id) for s in steps]
        if module.check_mode:
            result['changed'] = bool(steps)
        elif steps:
            # changed as soon as one write went through: a refusal before
            # any write leaves the task failed and unchanged
            for step in steps:
                if step[0] == 'add':
                    client.add_device(step[1], device_id)
                    result['changed'] = True
                    # what the kernel made: the sets that follow are planned
                    # again against it, so none is sent for nothing
                    steps_after_add, _, _ = plan_device(client.device(device_id), 'present', wanted)
                    result['changes'] = result['changes'][:1] + [describe(s, device_id) for s in steps_after_add]
                    for s in steps_after_add:
                        client.set(name, s[1], s[2], s[3])
                    break
                if step[0] == 'remove':
                    client.remove_device(device_id)
                else:
                    client.set(name, step[1], step[2], step[3])
                result['changed'] = True
            result['after'] = device_view(client.device(device_id))
    except SbdError as e:
        fail_sbd(module, e, **result)
    if module._diff:
        result['diff'] = {'before': result['before'], 'after': result['after'],
                          'before_header': name, 'after_header': name}
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            id=dict(type='int', required=True),
            state=dict(type='str', default='present', choices=['present', 'absent']),
            size=dict(type='str'),
            label=dict(type='str'),
            read_only=dict(type='bool'),
            online=dict(type='bool'),
        ),
        supports_check_mode=True,
    )
    require_gi(module)
    try:
        client = SbdClient()
    except SbdError as e:
        fail_sbd(module, e)
    module.exit_json(**run(module, client))


if __name__ == '__main__':
    main()
