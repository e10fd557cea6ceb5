/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The lists of objects: Manager.Drivers, Manager.Devices, each driver's
 * Devices (and its Ndevices attribute, which counts them). They change
 * with every add, remove, bind and unbind, so a burst of a thousand
 * devices would mean a thousand signals each carrying a growing array.
 * Instead a change only marks the lists dirty; once per event-loop
 * iteration a deferred source compares each list with what was last
 * announced (a fingerprint: count and FNV-1a hash of the paths in order)
 * and signals exactly the lists that differ. */

#include "daemon.h"
#include "util.h"

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv(uint64_t h, const char *s) {
        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * FNV_PRIME;
        return (h ^ 0xff) * FNV_PRIME; /* a separator no path contains */
}

/* The list append_object_paths() serves for set (and driver_path). */
static uint64_t list_fingerprint(const struct object_set *set, const char *driver_path) {
        uint64_t h = FNV_OFFSET, n = 0;

        for (size_t i = 0; i < set->n; i++) {
                if (driver_path && !streq_ptr(set->sorted[i]->driver_path, driver_path))
                        continue;
                h = fnv(h, set->sorted[i]->path);
                n++;
        }
        return h ^ (n * FNV_PRIME);
}

static int lists_handler(sd_event_source *s, void *userdata) {
        struct daemon *d = userdata;
        struct object_set *drivers = &d->objects[OBJECT_DRIVER];

        for (int k = 0; k < _OBJECT_KIND_MAX; k++) {
                uint64_t fp = list_fingerprint(&d->objects[k], NULL);
                if (fp == d->list_fingerprint[k])
                        continue;
                d->list_fingerprint[k] = fp;
                (void) sd_bus_emit_properties_changed(d->bus, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE,
                                                      k == OBJECT_DRIVER ? "Drivers" : "Devices", NULL);
        }
        for (size_t i = 0; i < drivers->n; i++) {
                struct sbd_object *drv = drivers->sorted[i];
                uint64_t fp = list_fingerprint(&d->objects[OBJECT_DEVICE], drv->path);

                if (fp != drv->devices_fingerprint) {
                        drv->devices_fingerprint = fp;
                        (void) sd_bus_emit_properties_changed(d->bus, drv->path, SBD_DRIVER_INTERFACE, "Devices", NULL);
                }
                /* ndevices follows; a driver gone meanwhile has its
                 * remove uevent queued. */
                (void) object_refresh(drv);
        }
        announce(&d->announcer, &(struct change) { .kind = CHANGE_LISTS });
        return 0;
}

static void lists_changed(struct daemon *d) {
        int r;

        if (!d->ready)
                return;
        if (!d->lists_event) {
                r = sd_event_add_defer(d->event, &d->lists_event, lists_handler, d);
                if (r < 0) {
                        log_warning_errno(r, "Cannot schedule list signals: %m");
                        return;
                }
        }
        (void) sd_event_source_set_enabled(d->lists_event, SD_EVENT_ONESHOT);
}

void lists_recount(struct daemon *d) {
        /* The module counts a disk before its add uevent and uncounts it
         * before its remove uevent; either may be handled only once the
         * disk is gone, when no object comes or goes. Without this, an
         * ndevices read while such a disk was counted stayed served: the
         * debug kernel's interleaved burst left Ndevices at 10 for 9. */
        lists_changed(d);
}

static void lists_init_driver(struct daemon *d, struct sbd_object *driver) {
        /* Its InterfacesAdded carries the list as it is now. */
        driver->devices_fingerprint = list_fingerprint(&d->objects[OBJECT_DEVICE], driver->path);
}

void lists_on_change(struct change *c, void *userdata) {
        struct daemon *d = userdata;

        if (c->kind == CHANGE_OBJECT_ADDED && c->object_kind == OBJECT_DRIVER)
                lists_init_driver(d, c->object);
        lists_changed(d);
}

void lists_init(struct daemon *d) {
        for (int k = 0; k < _OBJECT_KIND_MAX; k++)
                d->list_fingerprint[k] = list_fingerprint(&d->objects[k], NULL);
        for (size_t i = 0; i < d->objects[OBJECT_DRIVER].n; i++)
                lists_init_driver(d, d->objects[OBJECT_DRIVER].sorted[i]);
}

void lists_done(struct daemon *d) {
        d->lists_event = sd_event_source_disable_unref(d->lists_event);
}
