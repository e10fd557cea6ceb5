/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The pacing of sysfs re-reads after lost uevents (daemon/resync-pace.c). */

#include "check.h"
#include "resync-pace.h"

int main(void) {
        /* the first re-read runs at once */
        CHECK(resync_not_before(0, 0) == 0);
        /* a re-read of 1 s (10,000 disks) lets the loop serve 4 s before the next */
        CHECK(resync_not_before(100000000, 1000000) == 104000000);
        /* a cheap one barely waits */
        CHECK(resync_not_before(5000, 10) == 5040);
        /* a very slow one: never more than 10 s */
        CHECK(resync_not_before(1000, 60000000) == 1000 + RESYNC_MAX_DELAY_USEC);
        CHECK(resync_not_before(1000, UINT64_MAX / 2) == 1000 + RESYNC_MAX_DELAY_USEC);
        /* the bound exactly */
        CHECK(resync_not_before(1, RESYNC_MAX_DELAY_USEC / RESYNC_DUTY_FACTOR) == 1 + RESYNC_MAX_DELAY_USEC);
        return check_finish("test-resync-pace");
}
