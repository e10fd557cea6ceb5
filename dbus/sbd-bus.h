/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What sbdd and its clients (sbdctl, sbd-manager) must agree on: the bus
 * name, the object paths and interfaces, and how long each side waits. A
 * client must wait longer than sbdd can take to answer: a client that gives
 * up first reports a failure for a request sbdd then carries out (a
 * password typed late would still run the Unload). The assertions below
 * keep every pair in that order at compile time. */

#define SBD_BUS_NAME "org.sbd.Sbd1"
#define SBD_ROOT_PATH "/org/sbd/Sbd1"
#define SBD_MODULE_PATH SBD_ROOT_PATH "/module"
#define SBD_DRIVERS_PATH SBD_ROOT_PATH "/drivers"
#define SBD_DEVICES_PATH SBD_ROOT_PATH "/devices"
#define SBD_INTERFACE_PREFIX "org.sbd.Sbd1."
#define SBD_MANAGER_INTERFACE SBD_INTERFACE_PREFIX "Manager"
#define SBD_MODULE_INTERFACE SBD_INTERFACE_PREFIX "Module"
#define SBD_DRIVER_INTERFACE SBD_INTERFACE_PREFIX "Driver"
#define SBD_DEVICE_INTERFACE SBD_INTERFACE_PREFIX "Device"

#define SBD_USEC_PER_SEC 1000000ULL

/* sbdd: a non-interactive polkit check, then the check when the caller
 * allowed a password prompt (long enough to type one); sbdd cancels the
 * check when either runs out, so a later answer authorizes nothing. */
#define SBD_POLKIT_TIMEOUT_USEC (25 * SBD_USEC_PER_SEC)
#define SBD_POLKIT_INTERACTIVE_TIMEOUT_USEC (120 * SBD_USEC_PER_SEC)
/* sbdd: after the write, how long AddDevice and RemoveDevice wait for
 * the device to appear or go. */
#define SBD_DEVICE_WAIT_USEC (10 * SBD_USEC_PER_SEC)
/* The time the kernel's store() and the bus's round trips may take on a
 * loaded machine, on top of the above. */
#define SBD_ANSWER_SLACK_USEC (10 * SBD_USEC_PER_SEC)

/* The clients' method call timeouts, without and with interaction. */
#define SBD_CLIENT_CALL_TIMEOUT_USEC (60 * SBD_USEC_PER_SEC)
#define SBD_CLIENT_INTERACTIVE_CALL_TIMEOUT_USEC (300 * SBD_USEC_PER_SEC)

_Static_assert(SBD_CLIENT_CALL_TIMEOUT_USEC >
               SBD_POLKIT_TIMEOUT_USEC + SBD_DEVICE_WAIT_USEC + SBD_ANSWER_SLACK_USEC,
               "a client must outwait sbdd's non-interactive answer");
_Static_assert(SBD_CLIENT_INTERACTIVE_CALL_TIMEOUT_USEC >
               SBD_POLKIT_INTERACTIVE_TIMEOUT_USEC + SBD_DEVICE_WAIT_USEC + SBD_ANSWER_SLACK_USEC,
               "a client must outwait sbdd's interactive answer");
