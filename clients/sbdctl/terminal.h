/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Terminal handling: whether to use colours, and piping output through a pager. */

#include <stdbool.h>
#include <sys/types.h>

/* As systemd's tools: $SYSTEMD_COLORS (a boolean, or 16, 256, 24bit: yes)
 * decides; else none when $NO_COLOR is set, TERM is unset or "dumb", or
 * stdout is no terminal. */
bool sbd_colors_wanted(void);

/* On a terminal, pipes stdout into $SYSTEMD_PAGER, else $PAGER (run by
 * /bin/sh -c), else pager, less or more; an empty value or "cat" means no
 * pager. less gets LESS=$SYSTEMD_LESS, or FRSXMK. Returns the pager's pid,
 * 0 when none was started, or -errno. */
pid_t sbd_pager_open(void);

/* pipe2(O_CLOEXEC), stdio flushed, fork(): the child's 0, the child's pid,
 * or -errno (nothing left open). Both ends are open in both processes. */
pid_t sbd_fork_with_pipe(int fds[2]);

/* Flushes and closes stdout towards the pager and waits for it to exit. */
void sbd_pager_close(pid_t pid);
