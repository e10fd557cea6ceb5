# SPDX-License-Identifier: GPL-2.0-or-later
"""python-dbusmock's polkitd template, plus actions that need a challenge:
for those CheckAuthorization answers is_challenge=true unless the caller
allowed user interaction (then it plays a user typing the password).
The template's hang (SimulateHang, SimulateHangActions, then
ReleaseHangingCalls for a late answer) works here too, and
CancelCheckAuthorization exists, so that a test sees the cancel."""

import dbus

from dbusmock.templates import polkitd as _base
from dbusmock.templates.polkitd import *  # noqa: F401,F403 (the template's methods)
from dbusmock.templates.polkitd import MAIN_IFACE, MOCK_IFACE

BUS_NAME = _base.BUS_NAME
MAIN_OBJ = _base.MAIN_OBJ
SYSTEM_BUS = True


def load(mock, parameters):
    _base.load(mock, parameters)
    mock.challenge = []


@dbus.service.method(MAIN_IFACE, in_signature='(sa{sv})sa{ss}us', out_signature='(bba{ss})',
                     async_callbacks=('ok_cb', '_err_cb'))
def CheckAuthorization(self, _subject, action_id, _details, flags, _cancellation_id, ok_cb, _err_cb):
    if action_id in self.challenge:
        interactive = bool(flags & 1)
        ret = (interactive, not interactive, {})
    else:
        ret = (action_id in self.allowed or self.allow_unknown, False, {})
    if self.simulate_hang or action_id in self.hanging_actions:
        self.hanging_calls.append((ok_cb, ret))
    else:
        ok_cb(ret)


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='')
def CancelCheckAuthorization(self, _cancellation_id):
    # polkitd would close the dialog; the check's late answer, if the
    # test releases it, is what a password typed afterwards would give
    pass


@dbus.service.method(MOCK_IFACE, in_signature='as', out_signature='')
def SetChallenge(self, actions):
    self.challenge = actions
