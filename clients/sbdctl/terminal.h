/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Terminal handling: whether to use colours, and piping output through a pager. */

#include <stdbool.h>
#include <sys/types.h>

/* Colours only when stdout is a terminal, TERM is not "dumb" and NO_COLOR is unset;
 * SBD_COLORS=1/0 overrides. */
bool sbd_colors_wanted(void);

/* Starts $SBD_PAGER, $PAGER or less (more, cat as fallbacks) on our stdout when it
 * is a terminal. Returns the pager's pid, 0 when none was started, or -errno. */
pid_t sbd_pager_open(void);

/* Flushes and closes stdout towards the pager and waits for it to exit. */
void sbd_pager_close(pid_t pid);
