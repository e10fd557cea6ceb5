/* SPDX-License-Identifier: GPL-2.0-or-later */

/* A reply larger than the bus's max_message_size does not fail the call:
 * dbus-daemon disconnects the sender, and sbdd would lose its name and
 * every request in flight. The one reply that grows without bound is
 * GetManagedObjects (tens of thousands of devices): a bus filter, which
 * runs before sd-bus builds it, estimates its size from the cache (a
 * generous upper bound, linear in the objects, no allocation) and
 * answers LimitsExceeded when it could exceed the limit. The bus does
 * not tell its limit: MaxMessageSize= in sbdd.conf, dbus-daemon's
 * default (32 MiB) unless set. */

#include "daemon.h"
#include "util.h"

/* What a marshalled entry costs besides its text: the dict entry's and
 * variant's alignment, lengths, signature and NUL, rounded well up. */
#define ENTRY_OVERHEAD 32
/* Per object: the path and the empty Peer, Introspectable and
 * Properties interfaces sd-bus lists for every object. */
#define OBJECT_OVERHEAD 192

static uint64_t object_size(const struct sbd_object *o) {
        const struct attr_table *t = &o->daemon->tables[o->kind];
        uint64_t n = OBJECT_OVERHEAD + strlen(o->path) + strlen(object_kind_interface(o->kind));

        n += 4 * ENTRY_OVERHEAD + 32 + strlen(o->name) + strlen(o->syspath) + strlen(o->path) +
             strlen(strempty(o->driver_path)) + strlen(strempty(o->block_device));
        for (size_t i = 0; i < o->n_values; i++) {
                const struct attr_value *v = &o->values[i];
                if (t->defs[i].flags & ATTR_LIVE)
                        continue; /* not in GetManagedObjects */
                /* Non-UTF-8 text is sent with U+FFFD: at most 3x. */
                n += ENTRY_OVERHEAD + strlen(t->defs[i].property) + 3 * strlen(strempty(v->text));
        }
        return n;
}

/* An upper bound of the marshalled GetManagedObjects reply. */
static uint64_t managed_objects_size(struct daemon *d) {
        /* The driver lists its devices' paths in Devices. */
        uint64_t n = 4096;

        for (int k = 0; k < _OBJECT_KIND_MAX; k++)
                for (size_t i = 0; i < d->objects[k].n; i++) {
                        const struct sbd_object *o = d->objects[k].sorted[i];
                        n += object_size(o) + (k == OBJECT_DEVICE ? strlen(o->path) + 8 : 0);
                }
        return n;
}

int replysize_filter(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct daemon *d = userdata;
        uint64_t size;

        if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects") ||
            !streq_ptr(sd_bus_message_get_path(m), SBD_ROOT_PATH))
                return 0;
        size = managed_objects_size(d);
        if (size <= d->config.max_message_size)
                return 0;
        log_notice("Refusing GetManagedObjects: its reply could take %llu bytes, the bus takes %llu.",
                   (unsigned long long) size, (unsigned long long) d->config.max_message_size);
        return sd_bus_error_setf(ret_error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                 "The reply with %zu devices could exceed the bus's message size limit "
                                 "(%llu bytes): read the Devices list and GetAll of each device instead.",
                                 d->objects[OBJECT_DEVICE].n, (unsigned long long) d->config.max_message_size);
}
