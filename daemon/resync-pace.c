/* SPDX-License-Identifier: GPL-2.0-or-later */

/* A receive-buffer overrun means uevents were lost, and only a full
 * re-read of sysfs (O(devices)) makes the tree right again. A storm of
 * overruns must not turn into back-to-back re-reads that keep the loop
 * from serving calls: after a re-read of cost T the next waits until 4T
 * have passed (so re-reads take at most a fifth of the loop), never more
 * than 10 s. Overruns meanwhile are coalesced into that one re-read: it
 * reads everything, whatever was lost before it starts. */

#include "resync-pace.h"

uint64_t resync_not_before(uint64_t last_end, uint64_t last_cost) {
        uint64_t delay;

        if (last_end == 0)
                return 0;
        delay = last_cost > RESYNC_MAX_DELAY_USEC / RESYNC_DUTY_FACTOR ? RESYNC_MAX_DELAY_USEC
                                                                      : last_cost * RESYNC_DUTY_FACTOR;
        return last_end + delay;
}
