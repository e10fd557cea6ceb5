/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The re-read of sysfs that lost uevents call for (a receive-buffer
 * overrun: only reading everything again makes the tree right).
 *
 * Two things keep it from taking the loop away from callers. It is
 * paced (resync-pace.c): the overruns of a storm share one re-read, and
 * the next waits until four times the last one's cost has passed. And it
 * is done in steps: the drivers at once (there is one), then the devices
 * 50 ms of work at a time by the names they had when it began, the bus and
 * uevents served between two steps; the new devices' directory scan and
 * the module's state last. A name is looked up again at its step, so
 * objects that uevents added or removed meanwhile are simply right
 * already. An overrun during a re-read asks for another after it. */

#include <stdlib.h>

#include "daemon.h"
#include "resync-pace.h"
#include "util.h"

/* A step re-reads devices until it has worked this long (at least one
 * device): a device of 11 attributes costs 1.3 ms in a TCG guest, 19 ms
 * on the debug kernel under ASan, some µs on hardware; 10,000 in one go
 * kept a Ping waiting 12.6 s, and a step of 100 on the debug kernel 2 s. */
#define RESYNC_STEP_USEC (50 * 1000)

static void names_free(struct daemon *d) {
        for (size_t i = 0; i < d->resync_n; i++)
                free(d->resync_names[i]);
        free(d->resync_names);
        d->resync_names = NULL;
        d->resync_n = d->resync_pos = 0;
}

static int names_take(struct daemon *d) {
        struct object_set *set = &d->objects[OBJECT_DEVICE];

        d->resync_names = calloc(set->n ?: 1, sizeof(char *));
        if (!d->resync_names)
                return -ENOMEM;
        for (size_t i = 0; i < set->n; i++) {
                d->resync_names[i] = strdup(set->sorted[i]->name);
                if (!d->resync_names[i]) {
                        d->resync_n = i;
                        return -ENOMEM;
                }
        }
        d->resync_n = set->n;
        return 0;
}

/* Re-read or drop the next devices, for RESYNC_STEP_USEC from start.
 * Returns whether any are left. */
static bool step(struct daemon *d, uint64_t start) {
        while (d->resync_pos < d->resync_n) {
                struct sbd_object *o = object_find(d, OBJECT_DEVICE, d->resync_names[d->resync_pos++]);
                if (o && (object_gone(o) || (object_refresh(o) == -ENOENT && object_gone(o))))
                        tree_remove(d, o);
                if (monotonic_usec() - start >= RESYNC_STEP_USEC)
                        break;
        }
        return d->resync_pos < d->resync_n;
}

static void begin(struct daemon *d) {
        d->resync_running = true;
        d->resync_spent = 0;
        (void) tree_sync_drivers(d);
        if (names_take(d) < 0) {
                /* No memory for the names: the whole re-read at once. */
                log_oom();
                names_free(d);
                (void) tree_sync(d);
        }
}

static void finish(struct daemon *d, unsigned overruns) {
        (void) tree_scan_new_devices(d);
        module_emit_changes(d, false);
        names_free(d);
        d->resync_running = false;
        d->resync_last_end = monotonic_usec();
        d->resync_last_cost = d->resync_spent;
        d->resyncs++;
        /* One line per re-read: paced, so bounded however many overruns. */
        log_info("Re-read sysfs after %u receive buffer overrun(s): %" PRIu64 " ms of work in steps "
                 "(%u re-reads so far).", overruns, d->resync_last_cost / 1000, d->resyncs);
}

static int schedule(struct daemon *d, uint64_t at);

static int resync_handler(sd_event_source *s, uint64_t usec, void *userdata) {
        struct daemon *d = userdata;
        uint64_t start = monotonic_usec();
        bool more;

        if (!d->resync_running) {
                d->resync_covered = d->resync_overruns;
                d->resync_overruns = 0;
                begin(d);
        }
        more = step(d, start);
        d->resync_spent += monotonic_usec() - start;
        if (more)
                return schedule(d, 0); /* the next step, after what is pending */
        finish(d, d->resync_covered);
        if (d->resync_again) {
                d->resync_again = false;
                resync_request(d);
        }
        return 0;
}

/* Run resync_handler at `at` (CLOCK_MONOTONIC µs; 0: as soon as the
 * loop has served what is pending). */
static int schedule(struct daemon *d, uint64_t at) {
        int r;

        if (!d->resync_source)
                return sd_event_add_time(d->event, &d->resync_source, CLOCK_MONOTONIC, at, 0, resync_handler, d);
        r = sd_event_source_set_time(d->resync_source, at);
        if (r >= 0)
                r = sd_event_source_set_enabled(d->resync_source, SD_EVENT_ONESHOT);
        return r;
}

/* Uevents were lost: re-read sysfs, at once if the last re-read is long
 * enough ago, else when resync_not_before() allows. */
void resync_request(struct daemon *d) {
        int enabled = SD_EVENT_OFF;
        int r;

        if (d->resync_overruns++ == 0)
                log_warning("Uevents were lost (receive buffer overrun), re-reading sysfs.");
        if (d->resync_running) {
                /* Names already passed may have missed this: once more after. */
                d->resync_again = true;
                return;
        }
        if (d->resync_source && sd_event_source_get_enabled(d->resync_source, &enabled) >= 0 &&
            enabled != SD_EVENT_OFF)
                return; /* already due: it covers this overrun too */
        r = schedule(d, resync_not_before(d->resync_last_end, d->resync_last_cost));
        if (r < 0) {
                /* No timer: re-read now, at once, rather than stay wrong. */
                log_warning_errno(r, "Cannot schedule the re-read of sysfs, doing it now: %m");
                d->resync_overruns = 0;
                if (tree_sync(d) >= 0)
                        module_emit_changes(d, false);
        }
}

void resync_done(struct daemon *d) {
        d->resync_source = sd_event_source_disable_unref(d->resync_source);
        names_free(d);
        d->resync_running = false;
}
