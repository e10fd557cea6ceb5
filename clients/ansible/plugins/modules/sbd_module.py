#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: SBD maintainers
# GNU General Public License v2.0 or later (see COPYING or https://www.gnu.org/licenses/gpl-2.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: sbd_module
short_description: Load or unload the sbd kernel module through sbdd
version_added: "0.1.0"
description:
  - Makes the sbd kernel module loaded (with parameters) or unloaded, through C(sbdd)'s D-Bus API
    (C(org.sbd.Sbd1.Module.Load) and C(Unload) on the target's system bus, via GLib's Gio); sbdd loads it with
    libkmod. Never touches sysfs or runs modprobe.
  - Unloading deletes every SBD disk and the data on it.
  - Runs as the task's user. C(root) (I(become)) may do everything; anyone else is asked about by polkit
    (action C(org.sbd.sbd1.manage-module)).
options:
  state:
    description:
      - C(loaded) loads the module if it is not loaded; C(absent) unloads it if it is.
    type: str
    choices: [loaded, absent]
    default: loaded
  parameters:
    description:
      - Module parameters for the load, e.g. C(ndevices), C(size), C(max_size), C(max_total).
      - They apply when this task loads the module. A module already loaded with other values is left as it is
        and a warning names the differences (changing them needs an unload, which deletes every disk; do that
        with I(state=absent) first, on purpose).
    type: dict
    default: {}
notes:
  - Supports C(check_mode) and C(diff_mode).
requirements:
  - sbdd running or D-Bus activatable on the target
  - python3-gi (PyGObject with the Gio typelib) on the target
seealso:
  - module: sbd.sbd.sbd_device
  - module: sbd.sbd.sbd_info
author:
  - SBD maintainers
'''

EXAMPLES = r'''
- name: The module loaded with no disk of its own and a 1 GiB budget
  sbd.sbd.sbd_module:
    state: loaded
    parameters:
      ndevices: 0
      max_total: 1G
  become: true

- name: Unload it (deletes every disk)
  sbd.sbd.sbd_module:
    state: absent
  become: true
'''

RETURN = r'''
state:
  description: The module's state after the task (C(live), C(unloaded), C(builtin) ...; planned in check mode).
  returned: always
  type: str
  sample: live
parameters:
  description: The module's parameters as sbdd shows them after the task.
  returned: always
  type: dict
  sample: {"ndevices": "0", "size": "16M"}
dbus_error:
  description: The D-Bus error's name when sbdd (or the bus) refused.
  returned: failure
  type: str
  sample: org.sbd.Sbd1.Error.NotAuthorized
dbus_message:
  description: The D-Bus error's text.
  returned: failure
  type: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.sbd.sbd.plugins.module_utils.sbd import (
    SbdClient, SbdError, fail_sbd, parameters_differ, plan_module, require_gi)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type='str', default='loaded', choices=['loaded', 'absent']),
            parameters=dict(type='dict', default={}),
        ),
        supports_check_mode=True,
    )
    require_gi(module)
    result = {'changed': False}
    try:
        client = SbdClient()
        props = client.module_properties()
        state = props.get('State', 'unloaded')
        live_params = dict(props.get('Parameters', {}))
        try:
            action = plan_module(state, module.params['state'])
        except ValueError as e:
            module.fail_json(msg=str(e), state=state, parameters=live_params)
        # changed once the load or unload went through (or would, in check mode)
        result['changed'] = action is not None and module.check_mode
        if action is None and module.params['state'] == 'loaded':
            differ = parameters_differ(live_params, module.params['parameters'])
            if differ:
                module.warn('the sbd module is loaded with other parameters than %s (now %s); they were left as they '
                            'are: changing them needs an unload, which deletes every disk'
                            % (differ, dict((k, live_params.get(k)) for k in differ)))
        planned = {'load': 'live', 'unload': 'unloaded', None: state}[action]
        if action and not module.check_mode:
            if action == 'load':
                client.load(module.params['parameters'])
            else:
                client.unload()
            result['changed'] = True
            props = client.module_properties()
            state = props.get('State', 'unloaded')
            live_params = dict(props.get('Parameters', {}))
        else:
            state = planned
        result['state'] = state
        result['parameters'] = live_params
        if module._diff:
            result['diff'] = {'before': {'state': {'load': 'unloaded', 'unload': 'live', None: planned}[action]},
                              'after': {'state': planned}, 'before_header': 'sbd module', 'after_header': 'sbd module'}
    except SbdError as e:
        fail_sbd(module, e, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
