/* SPDX-License-Identifier: GPL-2.0-or-later */

/* org.sbd.Sbd1.Manager: the lists of objects and AddDevice/RemoveDevice.
 * Both methods reply only once the tree shows their effect: the reply to
 * AddDevice names an object that exists, after RemoveDevice the object is
 * gone. The kernel creates and deletes the device inside the write, so
 * a look at sysfs right after it usually settles the request; otherwise
 * (a test bed playing the kernel) the request waits for the uevent. */

#include <inttypes.h>

#include "daemon.h"
#include "errors.h"
#include "sysfs.h"
#include "util.h"

#define WAIT_TIMEOUT_USEC (10ULL * 1000 * 1000)

struct device_waiter {
        struct daemon *d;
        sd_bus_message *m;
        char *name;     /* the device awaited; NULL: the next new one */
        bool remove;
        sd_event_source *timeout;
        struct device_waiter *prev, *next;
};

static void waiter_free(struct device_waiter *w) {
        if (w->prev)
                w->prev->next = w->next;
        else if (w->d->waiters == w)
                w->d->waiters = w->next;
        if (w->next)
                w->next->prev = w->prev;
        sd_event_source_disable_unref(w->timeout);
        sd_bus_message_unref(w->m);
        free(w->name);
        free(w);
}

void waiters_free_all(struct daemon *d) {
        while (d->waiters)
                waiter_free(d->waiters);
}

static int waiter_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        struct device_waiter *w = userdata;

        (void) sd_bus_reply_method_errorf(w->m, SBD_ERROR_KERNEL_ERROR,
                                          "The kernel accepted the request but %s did not %s in time.",
                                          w->name ?: "the new device", w->remove ? "go away" : "appear");
        waiter_free(w);
        return 0;
}

static int waiter_add(struct daemon *d, sd_bus_message *m, const char *name, bool remove) {
        struct device_waiter *w = calloc(1, sizeof(*w));
        struct device_waiter **tail;
        int r;

        if (!w)
                return -ENOMEM;
        w->d = d;
        w->m = sd_bus_message_ref(m);
        w->remove = remove;
        if (name && !(w->name = strdup(name))) {
                sd_bus_message_unref(w->m);
                free(w);
                return -ENOMEM;
        }
        /* Append: the oldest request without a name gets the next device. */
        for (tail = &d->waiters; *tail; tail = &(*tail)->next)
                w->prev = *tail;
        *tail = w;
        r = sd_event_add_time_relative(d->event, &w->timeout, CLOCK_MONOTONIC, WAIT_TIMEOUT_USEC, 0,
                                       waiter_timeout, w);
        if (r < 0) {
                waiter_free(w);
                return r;
        }
        return 0;
}

void waiters_object_added(struct daemon *d, struct sbd_object *o) {
        if (o->kind != OBJECT_DEVICE)
                return;
        for (struct device_waiter *w = d->waiters; w; w = w->next) {
                if (w->remove || (w->name && !streq(w->name, o->name)))
                        continue;
                (void) sd_bus_reply_method_return(w->m, "o", o->path);
                waiter_free(w);
                return;
        }
}

void waiters_object_removed(struct daemon *d, const char *name) {
        for (struct device_waiter *w = d->waiters, *next; w; w = next) {
                next = w->next;
                if (w->remove && streq(w->name, name)) {
                        (void) sd_bus_reply_method_return(w->m, NULL);
                        waiter_free(w);
                }
        }
}

static struct sbd_object *first_driver(struct daemon *d) {
        return d->objects[OBJECT_DRIVER].n > 0 ? d->objects[OBJECT_DRIVER].sorted[0] : NULL;
}

static void reply_errno(sd_bus_message *m, int r, const char *what) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        sbd_error_set_errno(&e, r, what);
        (void) sd_bus_reply_method_error(m, &e);
}

struct add_request {
        uint64_t size;
        bool has_id;
        uint32_t id;
};

static void add_device_authorized(struct daemon *d, sd_bus_message *m, int allowed,
                                  const sd_bus_error *error, void *userdata) {
        struct add_request *req = userdata;
        struct sbd_object *driver = first_driver(d);
        char buf[64], name[32];
        int r;

        if (allowed <= 0) {
                (void) sd_bus_reply_method_error(m, error);
                return;
        }
        if (!driver) {
                (void) sd_bus_reply_method_errorf(m, SBD_ERROR_MODULE_NOT_LOADED, "The sbd module is not loaded.");
                return;
        }
        if (req->has_id)
                snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu32, req->size, req->id);
        else
                snprintf(buf, sizeof(buf), "%" PRIu64, req->size);
        r = sysfs_write_at(driver->dirfd, "new_device", buf, strlen(buf));
        if (r < 0) {
                char what[128];
                snprintf(what, sizeof(what), "The kernel refused to create a device with '%s'", buf);
                reply_errno(m, r, what);
                return;
        }
        log_info("Created a device with '%s'.", buf);

        snprintf(name, sizeof(name), "sbd%" PRIu32, req->id);
        r = waiter_add(d, m, req->has_id ? name : NULL, false);
        if (r < 0) {
                reply_errno(m, r, "Cannot wait for the new device");
                return;
        }
        if (req->has_id) {
                char syspath[64 + sizeof(SYSFS_DEVICES_DIR)];
                snprintf(syspath, sizeof(syspath), SYSFS_DEVICES_DIR "/%s", name);
                if (access(syspath, F_OK) >= 0)
                        (void) tree_scan_new_devices(d);
        } else
                (void) tree_scan_new_devices(d);
}

static int parse_add_options(sd_bus_message *m, struct add_request *req, sd_bus_error *error) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key, *contents;
                char type;

                r = sd_bus_message_read_basic(m, 's', &key);
                if (r < 0)
                        return r;
                if (!streq(key, "id"))
                        return sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE, "Unknown option '%s'.", key);
                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        return r;
                if (!streq_ptr(contents, "u"))
                        return sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE,
                                                 "Option 'id' takes a value of type 'u', not '%s'.", strempty(contents));
                r = sd_bus_message_read(m, "v", "u", &req->id);
                if (r < 0)
                        return r;
                req->has_id = true;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int method_add_device(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;
        struct add_request *req = calloc(1, sizeof(*req));
        int r;

        if (!req)
                return -ENOMEM;
        r = sd_bus_message_read(m, "t", &req->size);
        if (r >= 0)
                r = parse_add_options(m, req, error);
        if (r < 0 || sd_bus_error_is_set(error)) {
                free(req);
                return r;
        }
        return authorize_async(d, m, "org.sbd.sbd1.manage-devices", add_device_authorized, req, free);
}

static void remove_device_authorized(struct daemon *d, sd_bus_message *m, int allowed,
                                     const sd_bus_error *error, void *userdata) {
        const char *path = userdata;
        struct sbd_object *o, *driver = first_driver(d);
        int r;

        if (allowed <= 0) {
                (void) sd_bus_reply_method_error(m, error);
                return;
        }
        o = hashmap_get(&d->objects[OBJECT_DEVICE].by_path, path);
        if (!o) {
                (void) sd_bus_reply_method_errorf(m, SBD_ERROR_DEVICE_GONE, "No device %s.", path);
                return;
        }
        if (!driver) {
                (void) sd_bus_reply_method_errorf(m, SBD_ERROR_MODULE_NOT_LOADED, "The sbd module is not loaded.");
                return;
        }
        r = sysfs_write_at(driver->dirfd, "delete_device", o->name, strlen(o->name));
        if (r < 0) {
                char what[128];
                snprintf(what, sizeof(what), "The kernel refused to delete %s", o->name);
                reply_errno(m, r, what);
                return;
        }
        log_info("Deleted %s.", o->name);
        r = waiter_add(d, m, o->name, true);
        if (r < 0) {
                reply_errno(m, r, "Cannot wait for the device to go");
                return;
        }
        if (!sysfs_same_dir(o->syspath, o->st_dev, o->st_ino))
                tree_remove(d, o);
}

static int method_remove_device(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;
        const char *path;
        char *copy;
        int r;

        r = sd_bus_message_read(m, "o", &path);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = sd_bus_message_at_end(m, false);
        if (r < 0)
                return r;
        if (r == 0)
                return sd_bus_error_set(error, SBD_ERROR_INVALID_VALUE, "RemoveDevice takes no options yet.");
        if (!hashmap_get(&d->objects[OBJECT_DEVICE].by_path, path))
                return sd_bus_error_setf(error, SBD_ERROR_DEVICE_GONE, "No device %s.", path);
        copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        return authorize_async(d, m, "org.sbd.sbd1.manage-devices", remove_device_authorized, copy, free);
}

static int property_get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append_basic(reply, 's', PACKAGE_VERSION);
}

static int property_get_list(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;

        return append_object_paths(reply, &d->objects[streq(property, "Drivers") ? OBJECT_DRIVER : OBJECT_DEVICE],
                                   NULL);
}

const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Drivers", "ao", property_get_list, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Devices", "ao", property_get_list, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("AddDevice",
                                SD_BUS_ARGS("t", size, "a{sv}", options),
                                SD_BUS_RESULT("o", device),
                                method_add_device, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RemoveDevice",
                                SD_BUS_ARGS("o", device, "a{sv}", options),
                                SD_BUS_NO_RESULT,
                                method_remove_device, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};
