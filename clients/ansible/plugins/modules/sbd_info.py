#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: SBD maintainers
# GNU General Public License v2.0 or later (see COPYING or https://www.gnu.org/licenses/gpl-2.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: sbd_info
short_description: The SBD module, memory budget and every disk as facts
version_added: "0.1.0"
description:
  - Reads everything C(sbdd) knows (one C(GetManagedObjects) on the target's system bus through GLib's Gio, plus
    the C(MemUsed) values it leaves out) and returns it as the fact C(sbd). Changes nothing; never reads sysfs.
  - Any user may read; no C(become) is needed. If sbdd is not running, the call starts it by D-Bus activation
    (which loads the module with sbdd's configured parameters).
options: {}
notes:
  - Supports C(check_mode).
requirements:
  - sbdd running or D-Bus activatable on the target
  - python3-gi (PyGObject with the Gio typelib) on the target
seealso:
  - module: sbd.sbd.sbd_device
  - module: sbd.sbd.sbd_module
author:
  - SBD maintainers
'''

EXAMPLES = r'''
- name: What SBD has on each host
  sbd.sbd.sbd_info:

- name: Show the budget
  ansible.builtin.debug:
    msg: "{{ ansible_facts.sbd.budget.used_bytes }} of {{ ansible_facts.sbd.budget.max_bytes }} bytes used"
'''

RETURN = r'''
ansible_facts:
  description: Facts about SBD on the target.
  returned: always
  type: complex
  contains:
    sbd:
      description: The daemon, module, driver, budget and disks.
      returned: always
      type: dict
      sample:
        daemon_version: 0.1.0
        module: {name: sbd, state: live, loaded: true, ref_count: 0, parameters: {ndevices: "1", size: 16M}}
        driver: {path: /org/sbd/Sbd1/drivers/sbd, version: "1.0", ndevices: 1}
        budget: {used_bytes: 8192, max_bytes: 1073741824}
        devices:
          sbd0: {id: 0, path: /org/sbd/Sbd1/devices/sbd0, size: 16777216, label: sbd0, read_only: false,
                 online: true, block_device: /dev/sbd0, mem_used: 8192}
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.sbd.sbd.plugins.module_utils.sbd import SbdClient, SbdError, fail_sbd, require_gi


def main():
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    require_gi(module)
    try:
        facts = SbdClient().facts()
    except SbdError as e:
        fail_sbd(module, e)
    module.exit_json(changed=False, ansible_facts={'sbd': facts})


if __name__ == '__main__':
    main()
