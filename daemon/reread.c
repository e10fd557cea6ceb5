/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Reads of sysfs that failed for want of a resource, not because of the
 * attribute: kernel memory for the open file or its buffer, a file
 * descriptor (sysfs_error_is_transient()). Such a failure says nothing
 * about the value, so the object keeps the one it has (or shows none yet,
 * when it never had one) and is marked; a timer reads the marked objects
 * again. Nothing else would: an event re-reads what changed, and a
 * constant like the driver's version never changes. Found by CI with the
 * debug kernel's fail-nth on sbdd: a failed read during a re-read emptied
 * the driver's Version for good.
 *
 * The same for an object that could not be made (its directory could not
 * be opened or listed) or a directory that could not be scanned: the
 * drivers and the new devices are looked for again.
 *
 * The cost stays bounded while memory stays short: the first round comes
 * 100 ms after the failure, and each round that fails again doubles the
 * wait, up to 10 s; a round with no failure sets it back. */

#include "daemon.h"
#include "util.h"

#define REREAD_FIRST_USEC (100 * 1000)
#define REREAD_MAX_USEC (10 * 1000 * 1000)

static void reread_arm(struct daemon *d);

/* Each marked object read again (or removed, if it has gone meanwhile),
 * then the tree scanned when asked. A read that fails again marks its
 * object again: the next round waits twice as long. */
static int reread_handler(sd_event_source *s, uint64_t usec, void *userdata) {
        struct daemon *d = userdata;
        bool tree = d->reread_tree;
        unsigned n = 0;

        d->reread_running = true;
        d->reread_again = false;
        d->reread_tree = false;
        for (int k = 0; k < _OBJECT_KIND_MAX; k++) {
                struct object_set *set = &d->objects[k];
                /* Backwards: a removal shifts only those already seen. */
                for (size_t i = set->n; i > 0; i--) {
                        struct sbd_object *o = set->sorted[i - 1];

                        if (!o->reread)
                                continue;
                        o->reread = false;
                        n++;
                        if (object_gone(o) || (object_refresh(o) == -ENOENT && object_gone(o)))
                                tree_remove(d, o);
                }
        }
        if (tree && tree_sync_drivers(d) >= 0 && tree_scan_new_devices(d) >= 0)
                module_emit_changes(d, false);
        d->reread_running = false;
        log_info("Read %u object(s)%s of sysfs again after reads that failed for want of memory%s.", n,
                 tree ? " and the directories" : "", d->reread_again ? ", and some failed again" : "");
        if (!d->reread_again) {
                d->reread_delay = REREAD_FIRST_USEC;
                return 0;
        }
        d->reread_delay = d->reread_delay * 2 < REREAD_MAX_USEC ? d->reread_delay * 2 : REREAD_MAX_USEC;
        reread_arm(d);
        return 0;
}

static void reread_arm(struct daemon *d) {
        int enabled = SD_EVENT_OFF;
        int r;

        if (d->reread_running) {
                d->reread_again = true; /* the round arms the next itself */
                return;
        }
        if (!d->reread_delay)
                d->reread_delay = REREAD_FIRST_USEC;
        if (d->reread_timer && sd_event_source_get_enabled(d->reread_timer, &enabled) >= 0 &&
            enabled != SD_EVENT_OFF)
                return; /* already due: a stream of failures must not push it back */
        if (!d->reread_timer)
                r = sd_event_add_time_relative(d->event, &d->reread_timer, CLOCK_MONOTONIC, d->reread_delay, 0,
                                               reread_handler, d);
        else {
                r = sd_event_source_set_time_relative(d->reread_timer, d->reread_delay);
                if (r >= 0)
                        r = sd_event_source_set_enabled(d->reread_timer, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot schedule reading sysfs again; values stay as they were: %m");
}

void reread_later(struct sbd_object *o) {
        o->reread = true;
        reread_arm(o->daemon);
}

void reread_tree_later(struct daemon *d) {
        d->reread_tree = true;
        reread_arm(d);
}

void reread_done(struct daemon *d) {
        d->reread_timer = sd_event_source_disable_unref(d->reread_timer);
}
