/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/* How often a full re-read of sysfs may run after lost uevents: the
 * policy, apart from the event loop that applies it (uevent.c). */

/* A re-read may take at most a fifth of the loop's time... */
#define RESYNC_DUTY_FACTOR 4
/* ...and never waits longer than this after the previous one ended. */
#define RESYNC_MAX_DELAY_USEC (10 * 1000 * 1000ULL)

/* When the next re-read may start (CLOCK_MONOTONIC, µs), given when the
 * previous one ended and how long it took; 0 for "there was none". */
uint64_t resync_not_before(uint64_t last_end, uint64_t last_cost);
