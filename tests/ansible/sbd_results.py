# The tests' stdout callback for ansible-playbook: the whole run as one
# JSON document on stdout, for tests to read results by task and host.
# ansible-core has no such callback of its own (Debian's ansible-core has
# default, minimal, oneline, junit, tree; "json" is ansible.posix's, in the
# 259 MB bundle of collections that is the package ansible), and the tests
# need no more than this. Used by tests/integration/test_ansible.py and
# tests/vm/scenarios/fleet.sh:
#   ANSIBLE_CALLBACK_PLUGINS=tests/ansible ANSIBLE_STDOUT_CALLBACK=sbd_results
# The document:
#   {"plays": [{"play": {"name": ...},
#               "tasks": [{"task": {"name": ..., "action": ...},
#                          "hosts": {HOST: the module's result}}]}],
#    "stats": {HOST: {"ok", "changed", "failures", "unreachable",
#                     "skipped", "rescued", "ignored"}}}
# A result is the module's as returned (a loop's has "results", one per
# item), with "failed", "skipped" or "unreachable": true when it was.

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = '''
    name: sbd_results
    type: stdout
    short_description: the run as one JSON document, for SBD's tests
    description:
      - Prints every play, task and host result and the run's statistics as one JSON document when the run ends.
'''

import json

from ansible.parsing.ajson import AnsibleJSONEncoder
from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'sbd_results'

    def __init__(self, display=None):
        super(CallbackModule, self).__init__(display)
        self.plays = []

    def v2_playbook_on_play_start(self, play):
        self.plays.append({'play': {'name': play.get_name()}, 'tasks': []})

    def _task_start(self, task):
        self.plays[-1]['tasks'].append({'task': {'name': task.get_name(), 'action': task.action},
                                        'hosts': {}})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._task_start(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._task_start(task)

    def _record(self, result, outcome=None):
        # Ansible keeps the outcome out of the result it hands callbacks:
        # a failed (also an ignored), skipped or unreachable one says so.
        r = dict(result._result)
        if outcome:
            r[outcome] = True
        self.plays[-1]['tasks'][-1]['hosts'][result._host.get_name()] = r

    def v2_runner_on_ok(self, result):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, 'failed')

    def v2_runner_on_skipped(self, result):
        self._record(result, 'skipped')

    def v2_runner_on_unreachable(self, result):
        self._record(result, 'unreachable')

    def v2_playbook_on_stats(self, stats):
        doc = {
            'plays': self.plays,
            'stats': {h: stats.summarize(h) for h in sorted(stats.processed)},
        }
        self._display.display(json.dumps(doc, cls=AnsibleJSONEncoder, indent=1, sort_keys=True))
