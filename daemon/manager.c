/* SPDX-License-Identifier: GPL-2.0-or-later */

/* org.sbd.Sbd1.Manager: the lists of objects and AddDevice/RemoveDevice.
 * Both methods reply only once the tree shows their effect: the reply to
 * AddDevice names an object that exists, after RemoveDevice the object is
 * gone. The kernel creates and deletes the device inside the write, so
 * a look at sysfs right after it usually settles the request; otherwise
 * (a test bed playing the kernel) the request waits for the uevent. */

#include <fcntl.h>
#include <inttypes.h>

#include "daemon.h"
#include "errors.h"
#include "sysfs.h"
#include "util.h"
#include "validate.h"

/* Requests waiting for their device to appear or go, per uid and in all
 * (LimitsExceeded beyond); root's are not counted and never refused, as
 * no limit refuses root. They come after polkit, so only root and
 * authorized callers reach them; the bound keeps an authorized user's
 * runaway script from piling up timers and held messages. */
#define WAITERS_PER_UID_MAX 8
#define WAITERS_TOTAL_MAX 64
/* An id-less AddDevice tries this many free ids when others take them
 * first (EEXIST), then gives up with Exists. */
#define ADD_ID_TRIES 8

struct device_waiter {
        struct daemon *d;
        sd_bus_message *m;
        char *name;     /* the device awaited; NULL: the next new one */
        bool remove;
        uid_t uid;      /* the caller's */
        pid_t pid;      /* with polkit's answer, for the audit record */
        const char *polkit;
        char size[24];  /* AddDevice's size, decimal */
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
        w->d->n_waiters--;
        free(w);
}

static void refuse(struct daemon *d, sd_bus_message *m, const char *object, const sd_bus_error *error,
                   const struct caller *caller);

/* Whether one more waiter of the caller fits; if not, m is answered
 * with LimitsExceeded. */
static bool waiter_fits(struct daemon *d, sd_bus_message *m, const char *object, const struct caller *caller) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        unsigned n = 0, total = 0;

        if (caller->uid == 0)
                return true;
        for (struct device_waiter *w = d->waiters; w; w = w->next) {
                n += w->uid == caller->uid;
                total += w->uid != 0;
        }
        if (total < WAITERS_TOTAL_MAX && n < WAITERS_PER_UID_MAX)
                return true;
        (void) sd_bus_error_setf(&e, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                 "Too many requests waiting for devices (at most %u in all, %u per user).",
                                 WAITERS_TOTAL_MAX, WAITERS_PER_UID_MAX);
        refuse(d, m, object, &e, caller);
        return false;
}

/* Before polkit: whether a waiter of the caller would fit, when its uid
 * is known already (the check after polkit is the one that counts). */
static bool waiter_may_fit(struct daemon *d, sd_bus_message *m, const char *object) {
        struct caller c;

        caller_of_message(d, m, &c);
        return c.uid == (uid_t) -1 || waiter_fits(d, m, object, &c);
}

void waiters_free_all(struct daemon *d) {
        while (d->waiters)
                waiter_free(d->waiters);
}

void waiters_on_caller_gone(struct change *c, void *userdata) {
        struct daemon *d = userdata;

        for (struct device_waiter *w = d->waiters, *next; w; w = next) {
                next = w->next;
                if (streq_ptr(sd_bus_message_get_sender(w->m), c->name))
                        waiter_free(w);
        }
}

static void waiter_caller(const struct device_waiter *w, struct caller *ret) {
        *ret = (struct caller) {
                .bus_name = sd_bus_message_get_sender(w->m), .uid = w->uid, .pid = w->pid, .polkit = w->polkit,
        };
}

/* The request's audit record: done (error NULL) or refused. */
static void waiter_audit(struct device_waiter *w, const char *path, const sd_bus_error *error) {
        struct caller c;

        waiter_caller(w, &c);
        audit_log(w->d, &(struct audit_record) {
                .kind = error ? AUDIT_REFUSED : w->remove ? AUDIT_DEVICE_REMOVED : AUDIT_DEVICE_ADDED,
                .operation = w->remove ? "RemoveDevice" : "AddDevice",
                .object = path,
                .attribute = w->remove ? NULL : "size",
                .new_value = w->remove ? NULL : w->size,
                .error = error,
                .caller = &c,
        });
}

static int waiter_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        struct device_waiter *w = userdata;

        (void) sd_bus_error_setf(&e, SBD_ERROR_KERNEL_ERROR, "The kernel accepted the request but %s did not %s in time.",
                                 w->name ?: "the new device", w->remove ? "go away" : "appear");
        (void) sd_bus_reply_method_error(w->m, &e);
        waiter_audit(w, NULL, &e);
        waiter_free(w);
        return 0;
}

static int waiter_add(struct daemon *d, sd_bus_message *m, const char *name, bool remove,
                      const struct caller *caller, uint64_t size) {
        struct device_waiter *w = calloc(1, sizeof(*w));
        struct device_waiter **tail;
        int r;

        if (!w)
                return -ENOMEM;
        w->d = d;
        d->n_waiters++;
        w->m = sd_bus_message_ref(m);
        w->remove = remove;
        w->uid = caller->uid;
        w->pid = caller->pid;
        w->polkit = caller->polkit;
        snprintf(w->size, sizeof(w->size), "%" PRIu64, size);
        if (name && !(w->name = strdup(name))) {
                sd_bus_message_unref(w->m);
                d->n_waiters--;
                free(w);
                return -ENOMEM;
        }
        /* Append: the oldest request without a name gets the next device. */
        for (tail = &d->waiters; *tail; tail = &(*tail)->next)
                w->prev = *tail;
        *tail = w;
        r = sd_event_add_time_relative(d->event, &w->timeout, CLOCK_MONOTONIC, SBD_DEVICE_WAIT_USEC, 0,
                                       waiter_timeout, w);
        if (r < 0) {
                waiter_free(w);
                return r;
        }
        return 0;
}

static bool waiters_object_added(struct daemon *d, struct sbd_object *o) {
        if (o->kind != OBJECT_DEVICE)
                return false;
        for (struct device_waiter *w = d->waiters; w; w = w->next) {
                if (w->remove || (w->name && !streq(w->name, o->name)))
                        continue;
                (void) sd_bus_reply_method_return(w->m, "o", o->path);
                waiter_audit(w, o->path, NULL);
                waiter_free(w);
                return true;
        }
        return false;
}

static bool waiters_object_removed(struct daemon *d, const char *name, const char *path) {
        bool found = false;

        for (struct device_waiter *w = d->waiters, *next; w; w = next) {
                next = w->next;
                if (w->remove && streq(w->name, name)) {
                        (void) sd_bus_reply_method_return(w->m, NULL);
                        waiter_audit(w, path, NULL);
                        waiter_free(w);
                        found = true;
                }
        }
        return found;
}

void waiters_on_change(struct change *c, void *userdata) {
        struct daemon *d = userdata;

        if (c->object_kind != OBJECT_DEVICE || !c->name)
                return;
        if (c->kind == CHANGE_OBJECT_ADDED)
                c->claimed = waiters_object_added(d, c->object);
        else if (c->kind == CHANGE_OBJECT_REMOVED)
                c->claimed = waiters_object_removed(d, c->name, c->path);
}

static struct sbd_object *first_driver(struct daemon *d) {
        return d->objects[OBJECT_DRIVER].n > 0 ? d->objects[OBJECT_DRIVER].sorted[0] : NULL;
}

/* Answer m with error and record the refusal. */
static void refuse(struct daemon *d, sd_bus_message *m, const char *object, const sd_bus_error *error,
                   const struct caller *caller) {
        (void) sd_bus_reply_method_error(m, error);
        audit_refused(d, sd_bus_message_get_member(m), object, NULL, NULL, error, caller);
}

static void reply_errno(struct daemon *d, sd_bus_message *m, int r, const char *what, const char *object,
                        const struct caller *caller) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        sbd_error_set_errno(&e, r, what);
        refuse(d, m, object, &e, caller);
}

struct add_request {
        uint64_t size;
        bool has_id;
        uint32_t id;
};

/* The lowest id no mirrored device has and not in tried[]: at most
 * n + n_tried, so a bitmap of that many ids settles it in O(n). */
static int lowest_free_id(struct daemon *d, const uint32_t *tried, size_t n_tried, uint32_t *ret) {
        struct object_set *set = &d->objects[OBJECT_DEVICE];
        size_t n = set->n + n_tried + 1;
        _cleanup_free_ bool *used = calloc(n, sizeof(bool));
        unsigned id;
        char end;

        if (!used)
                return -ENOMEM;
        for (size_t i = 0; i < set->n; i++)
                if (sscanf(set->sorted[i]->name, "sbd%u%c", &id, &end) == 1 && id < n)
                        used[id] = true;
        for (size_t i = 0; i < n_tried; i++)
                if (tried[i] < n)
                        used[tried[i]] = true;
        for (size_t i = 0; i < n; i++)
                if (!used[i]) {
                        *ret = (uint32_t) i;
                        return 0;
                }
        return -ENOSPC; /* not reached: n has room for one more */
}

/* Write "SIZE ID" to new_device; without an id in the request, the
 * lowest free one, the next on EEXIST (a device sbdd had not seen yet,
 * or another writer first). Returns the id used, or a negative errno. */
static int add_write(struct daemon *d, struct sbd_object *driver, const struct add_request *req,
                     uint32_t *ret_id, char *buf, size_t size) {
        uint32_t tried[ADD_ID_TRIES];
        int r = -EEXIST;

        buf[0] = '\0'; /* nothing written yet: the caller's message says so */

        for (size_t i = 0; i < (req->has_id ? 1 : ADD_ID_TRIES) && r == -EEXIST; i++) {
                uint32_t id = req->id;
                if (!req->has_id) {
                        r = lowest_free_id(d, tried, i, &id);
                        if (r < 0)
                                return r;
                        tried[i] = id;
                }
                snprintf(buf, size, "%" PRIu64 " %" PRIu32, req->size, id);
                r = sysfs_write_at(driver->dirfd, "new_device", buf, strlen(buf));
                *ret_id = id;
        }
        return r;
}

static void add_device_authorized(struct daemon *d, sd_bus_message *m, int allowed,
                                  const sd_bus_error *error, const struct caller *caller, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        struct add_request *req = userdata;
        struct sbd_object *driver = first_driver(d);
        char buf[64], name[32], syspath[64 + sizeof(SYSFS_DEVICES_DIR)];
        uint32_t id;
        int r;

        if (allowed <= 0)
                return refuse(d, m, NULL, error, caller);
        if (!driver) {
                (void) sd_bus_error_set(&e, SBD_ERROR_MODULE_NOT_LOADED, "The sbd module is not loaded.");
                return refuse(d, m, NULL, &e, caller);
        }
        if (!waiter_fits(d, m, NULL, caller))
                return;
        r = add_write(d, driver, req, &id, buf, sizeof(buf));
        if (r == -ENODEV) {
                /* Not DeviceGone: the device was made, no driver bound
                 * to it, and the kernel took it back. */
                (void) sd_bus_error_setf(&e, SBD_ERROR_KERNEL_ERROR,
                                         "The kernel made no disk of '%s': no driver bound to the new device "
                                         "(/sys/bus/sbd/drivers_autoprobe is 0, or the module is going away) "
                                         "(ENODEV)", buf);
                return refuse(d, m, NULL, &e, caller);
        }
        if (r < 0) {
                char what[128];
                if (buf[0])
                        snprintf(what, sizeof(what), "The kernel refused to create a device with '%s'", buf);
                else
                        snprintf(what, sizeof(what), "Cannot choose an id for the new device");
                reply_errno(d, m, r, what, NULL, caller);
                return;
        }
        log_info("Created a device with '%s'.", buf);

        /* The answer names exactly the device this request created. */
        snprintf(name, sizeof(name), "sbd%" PRIu32, id);
        r = waiter_add(d, m, name, false, caller, req->size);
        if (r < 0) {
                reply_errno(d, m, r, "Cannot wait for the new device", NULL, caller);
                return;
        }
        snprintf(syspath, sizeof(syspath), SYSFS_DEVICES_DIR "/%s", name);
        if (access(syspath, F_OK) >= 0)
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
                if (req->has_id)
                        return sd_bus_error_set(error, SBD_ERROR_INVALID_VALUE, "Option 'id' given twice.");
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

/* What can be told without the kernel: the size as new_device takes it
 * (max_size from the loaded module), an id that is not taken. */
static int check_add_request(struct daemon *d, const struct add_request *req, sd_bus_error *error) {
        char name[32];
        uint64_t max_size, max_total;
        int r;

        module_size_limits(&max_size, &max_total);
        r = add_size_check(req->size, max_size);
        if (r == -ERANGE)
                return sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE,
                                         "Size %" PRIu64 " is over the module's max_size of %" PRIu64 " bytes.",
                                         req->size, max_size);
        /* a disk larger than the memory budget could never be filled */
        if (r >= 0 && max_total > 0 && req->size > max_total)
                return sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE,
                                         "Size %" PRIu64 " is over the module's memory budget (max_total) of %" PRIu64
                                         " bytes.", req->size, max_total);
        if (r < 0)
                return sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE,
                                         "Size %" PRIu64 " is not a positive multiple of 512 bytes.", req->size);
        snprintf(name, sizeof(name), "sbd%" PRIu32, req->id);
        if (req->has_id && object_find(d, OBJECT_DEVICE, name))
                return sd_bus_error_setf(error, SBD_ERROR_EXISTS, "Device %s exists already.", name);
        if (!first_driver(d))
                return sd_bus_error_set(error, SBD_ERROR_MODULE_NOT_LOADED, "The sbd module is not loaded.");
        return 0;
}

static int method_add_device(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;
        _cleanup_free_ struct add_request *req = calloc(1, sizeof(*req));
        char size[32], id[16];
        int r;

        if (!req)
                return -ENOMEM;
        r = sd_bus_message_read(m, "t", &req->size);
        if (r >= 0)
                r = parse_add_options(m, req, error);
        if (r >= 0 && !sd_bus_error_is_set(error))
                r = check_add_request(d, req, error);
        if (sd_bus_error_is_set(error)) {
                struct caller c;
                caller_of_message(d, m, &c);
                audit_refused(d, "AddDevice", NULL, NULL, NULL, error, &c);
        }
        if (r < 0 || sd_bus_error_is_set(error))
                return r;
        if (!waiter_may_fit(d, m, NULL))
                return 1;
        snprintf(size, sizeof(size), "%" PRIu64, req->size);
        snprintf(id, sizeof(id), "%" PRIu32, req->id);
        const char *details[] = {
                "polkit.message", req->has_id ? AUTH_MESSAGE "create the simple block device sbd$(id) of $(size) bytes."
                                              : AUTH_MESSAGE "create a simple block device of $(size) bytes.",
                "size", size, req->has_id ? "id" : NULL, id, NULL,
        };
        return authorize_async(d, m, ACTION_MANAGE_DEVICES, details, add_device_authorized, TAKE_PTR(req), free);
}

struct remove_request {
        char *path;
        dev_t st_dev;
        ino_t st_ino;
};

static void remove_request_free(void *p) {
        struct remove_request *rr = p;

        if (rr)
                free(rr->path);
        free(rr);
}

static void remove_device_authorized(struct daemon *d, sd_bus_message *m, int allowed,
                                     const sd_bus_error *error, const struct caller *caller, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        const struct remove_request *rr = userdata;
        struct sbd_object *o, *driver = first_driver(d);
        int r;

        if (allowed <= 0)
                return refuse(d, m, rr->path, error, caller);
        /* The device asked about, not one re-created under its name
         * while polkit thought (delete_device takes only a name: the last
         * look at the directory is right before the write). */
        o = hashmap_get(&d->objects[OBJECT_DEVICE].by_path, rr->path);
        r = o && o->st_dev == rr->st_dev && o->st_ino == rr->st_ino ?
                sysfs_dir_is(o->syspath, rr->st_dev, rr->st_ino) : 0;
        if (r < 0) {
                /* Not known to be gone either: nothing deleted, say why. */
                reply_errno(d, m, r, "Cannot look at the device", rr->path, caller);
                return;
        }
        if (r == 0) {
                (void) sd_bus_error_setf(&e, SBD_ERROR_DEVICE_GONE, "%s is gone.", rr->path);
                return refuse(d, m, rr->path, &e, caller);
        }
        if (!driver) {
                (void) sd_bus_error_set(&e, SBD_ERROR_MODULE_NOT_LOADED, "The sbd module is not loaded.");
                return refuse(d, m, rr->path, &e, caller);
        }
        if (!waiter_fits(d, m, rr->path, caller))
                return;
        r = sysfs_write_at(driver->dirfd, "delete_device", o->name, strlen(o->name));
        if (r < 0) {
                char what[128];
                snprintf(what, sizeof(what), "The kernel refused to delete %s", o->name);
                reply_errno(d, m, r, what, rr->path, caller);
                return;
        }
        log_info("Deleted %s.", o->name);
        r = waiter_add(d, m, o->name, true, caller, 0);
        if (r < 0) {
                reply_errno(d, m, r, "Cannot wait for the device to go", rr->path, caller);
                return;
        }
        if (object_gone(o))
                tree_remove(d, o);
}

static int method_remove_device(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;
        struct remove_request *rr;
        struct sbd_object *o;
        const char *path;
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
        o = hashmap_get(&d->objects[OBJECT_DEVICE].by_path, path);
        if (r == 0)
                r = sd_bus_error_set(error, SBD_ERROR_INVALID_VALUE, "RemoveDevice takes no options yet.");
        else if (!o)
                r = sd_bus_error_setf(error, SBD_ERROR_DEVICE_GONE, "No device %s.", path);
        if (sd_bus_error_is_set(error)) {
                struct caller c;
                caller_of_message(d, m, &c);
                audit_refused(d, "RemoveDevice", path, NULL, NULL, error, &c);
                return r;
        }
        if (!waiter_may_fit(d, m, path))
                return 1;
        rr = calloc(1, sizeof(*rr));
        if (!rr || !(rr->path = strdup(path))) {
                free(rr);
                return -ENOMEM;
        }
        rr->st_dev = o->st_dev;
        rr->st_ino = o->st_ino;
        const char *details[] = {
                "polkit.message", AUTH_MESSAGE "delete the simple block device $(device) and the data on it.",
                "device", o->name, "destructive", "true", NULL,
        };
        return authorize_async(d, m, ACTION_MANAGE_DEVICES, details, remove_device_authorized, rr,
                               remove_request_free);
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
