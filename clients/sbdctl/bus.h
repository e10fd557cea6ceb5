/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Connecting to the bus, calling the daemon, and reporting its errors. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "introspect.h"
#include "sbdctl.h"
#include "util.h"

/* Connects to the local system bus, the bus at an address, a remote host's
 * system bus over ssh (`where` is [USER@]HOST[:PORT]) or a container's
 * ([USER@]NAME). Interactive polkit authorization is allowed when
 * `interactive` is set. */
int sbd_bus_connect(SbdTransport transport, const char *where, bool interactive, sd_bus **ret);

/* "the system bus", "the system bus of host HOST", ...: for error messages. */
const char *sbd_bus_describe(SbdTransport transport, const char *where, char *buf, size_t size);

/* Whether sbdd owns its name, asked without starting it (GetNameOwner never
 * activates); prints the problem and returns -ESRCH when it does not. */
int sbd_bus_check_running(sd_bus *bus);

/* Prints "sbdctl: <what>: <message>" on stderr and returns r (negative). */
int sbd_log_errno(int r, const char *fmt, ...) _printf_(2, 3);

/* Prints "sbdctl: <what>: <error message> (<error name>)" and returns r. Without
 * a D-Bus error set, falls back to the errno text. */
int sbd_log_bus_error(int r, const sd_bus_error *error, const char *fmt, ...) _printf_(3, 4);

/* Introspects the object at path on the daemon. */
int sbd_introspect(sd_bus *bus, const char *path, SbdIntrospection *ret, sd_bus_error *error);
