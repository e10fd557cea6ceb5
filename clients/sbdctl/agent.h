/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* polkit's text agent for the time of one call, as systemd's tools spawn it:
 * when a password is needed, pkttyagent asks for it on the terminal. */

#include <stdbool.h>
#include <sys/types.h>

/* Starts pkttyagent when stdin is a terminal, sbdctl is not root, and the
 * bus is the local system bus; waits until it is registered with polkit (or
 * has given up). Returns its pid, 0 when none was wanted, or -errno. */
pid_t sbd_agent_open(bool local_bus);

/* Stops the agent (SIGTERM) and waits for it. */
void sbd_agent_close(pid_t pid);
