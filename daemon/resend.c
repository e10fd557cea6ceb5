/* SPDX-License-Identifier: GPL-2.0-or-later */

/* PropertiesChanged that the kernel would not carry. A signal whose
 * socket buffer the kernel refuses (ENOBUFS, ENOMEM: found with the debug
 * kernel's fail-nth on sbdd) is dropped by sd-bus, which has no retry, and
 * subscribers would keep the old value until the next change. The object
 * is marked instead, and a timer announces all of its properties again
 * with their current values: a subscriber sees a PropertiesChanged that
 * may repeat values it has, never one that misses a change. */

#include "daemon.h"
#include "util.h"

#define RESEND_DELAY_USEC (100 * 1000)

/* Every property of o with a cached value, Driver and BlockDevice. */
static int resend_object(struct sbd_object *o) {
        const struct attr_table *t = &o->daemon->tables[o->kind];
        _cleanup_free_ char **names = calloc(o->n_values + 3, sizeof(char *));
        size_t n = 0;

        if (!names)
                return -ENOMEM;
        for (size_t i = 0; i < o->n_values; i++)
                if (o->values[i].present && !(t->defs[i].flags & ATTR_LIVE))
                        names[n++] = t->defs[i].property;
        if (o->kind == OBJECT_DEVICE) {
                names[n++] = (char *) "Driver";
                names[n++] = (char *) "BlockDevice";
        }
        if (n == 0)
                return 0;
        return sd_bus_emit_properties_changed_strv(o->daemon->bus, o->path, object_kind_interface(o->kind), names);
}

static void resend_arm(struct daemon *d);

static int resend_handler(sd_event_source *s, uint64_t usec, void *userdata) {
        struct daemon *d = userdata;
        bool again = false;

        for (int k = 0; k < _OBJECT_KIND_MAX; k++)
                for (size_t i = 0; i < d->objects[k].n; i++) {
                        struct sbd_object *o = d->objects[k].sorted[i];
                        int r;

                        if (!o->resend_changed)
                                continue;
                        r = resend_object(o);
                        if (r < 0) {
                                log_debug_errno(r, "Resending PropertiesChanged on %s failed again: %m", o->path);
                                again = true;
                                continue;
                        }
                        log_info("Resent PropertiesChanged on %s.", o->path);
                        o->resend_changed = false;
                }
        if (again)
                resend_arm(d);
        return 0;
}

static void resend_arm(struct daemon *d) {
        int r;

        if (!d->resend_timer) {
                r = sd_event_add_time_relative(d->event, &d->resend_timer, CLOCK_MONOTONIC, RESEND_DELAY_USEC, 0,
                                               resend_handler, d);
                if (r < 0)
                        log_warning_errno(r, "Cannot schedule a resend of PropertiesChanged: %m");
                return;
        }
        (void) sd_event_source_set_time_relative(d->resend_timer, RESEND_DELAY_USEC);
        (void) sd_event_source_set_enabled(d->resend_timer, SD_EVENT_ONESHOT);
}

void resend_later(struct sbd_object *o) {
        o->resend_changed = true;
        resend_arm(o->daemon);
}

void resend_done(struct daemon *d) {
        d->resend_timer = sd_event_source_disable_unref(d->resend_timer);
}
