/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The mirrored tree: driver and device objects, their cached attribute
 * values and POLLPRI watches, and keeping all of it equal to sysfs.
 *
 * Cache: every attribute except ATTR_LIVE ones is read when the object
 * appears and re-read on each uevent of the object (or its block child),
 * on POLLPRI from sysfs_notify(), after our own writes and on a full
 * re-synchronisation; a PropertiesChanged goes out for exactly the values
 * that differ from the cache. */

#include <fcntl.h>
#include <sys/epoll.h>

#include "daemon.h"
#include "sysfs.h"
#include "util.h"
#include "validate.h"

void object_sets_init(struct daemon *d) {
        for (int k = 0; k < _OBJECT_KIND_MAX; k++) {
                d->objects[k] = (struct object_set) { .daemon = d, .kind = k };
                d->tables[k] = (struct attr_table) { .kind = k };
        }
}

static void attr_value_close(struct attr_value *v) {
        live_fds_forget(&v->object->daemon->live_fds, v);
        v->watch = sd_event_source_disable_unref(v->watch);
        if (v->fd >= 0)
                close(v->fd);
        v->fd = -1;
        v->fd_writable = false;
        free(v->text);
        v->text = NULL;
}

static void object_free(struct sbd_object *o) {
        if (!o)
                return;
        modes_unwatch(o);
        for (size_t i = 0; i < o->n_values; i++)
                attr_value_close(&o->values[i]);
        free(o->values);
        if (o->dirfd >= 0)
                close(o->dirfd);
        free(o->name);
        free(o->path);
        free(o->syspath);
        free(o->driver_path);
        free(o->block_device);
        free(o);
}

void object_sets_done(struct daemon *d) {
        for (int k = 0; k < _OBJECT_KIND_MAX; k++) {
                struct object_set *set = &d->objects[k];
                for (size_t i = 0; i < set->n; i++)
                        object_free(set->sorted[i]);
                free(set->sorted);
                hashmap_clear(&set->by_path);
                set->sorted = NULL;
                set->n = set->allocated = 0;
        }
}

static size_t set_position(const struct object_set *set, const char *name, bool *found) {
        size_t lo = 0, hi = set->n;

        /* Natural order: sbd2 before sbd10. */
        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strverscmp(set->sorted[mid]->name, name);
                if (c == 0) {
                        *found = true;
                        return mid;
                }
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *found = false;
        return lo;
}

struct sbd_object *object_find(struct daemon *d, enum object_kind kind, const char *name) {
        struct object_set *set = &d->objects[kind];
        bool found;
        size_t i = set_position(set, name, &found);

        return found ? set->sorted[i] : NULL;
}

struct sbd_object *object_find_by_path(struct daemon *d, const char *path) {
        for (int k = 0; k < _OBJECT_KIND_MAX; k++) {
                struct sbd_object *o = hashmap_get(&d->objects[k].by_path, path);
                if (o)
                        return o;
        }
        return NULL;
}

static int set_insert(struct object_set *set, struct sbd_object *o) {
        bool found;
        size_t i = set_position(set, o->name, &found);
        int r;

        if (found)
                return -EEXIST;
        if (set->n == set->allocated) {
                size_t n = set->allocated ? set->allocated * 2 : 16;
                struct sbd_object **s = realloc(set->sorted, n * sizeof(*s));
                if (!s)
                        return -ENOMEM;
                set->sorted = s;
                set->allocated = n;
        }
        r = hashmap_put(&set->by_path, o->path, o);
        if (r < 0)
                return r;
        memmove(set->sorted + i + 1, set->sorted + i, (set->n - i) * sizeof(*set->sorted));
        set->sorted[i] = o;
        set->n++;
        return 0;
}

static void set_remove(struct object_set *set, struct sbd_object *o) {
        bool found;
        size_t i = set_position(set, o->name, &found);

        if (!found || set->sorted[i] != o)
                return;
        hashmap_remove(&set->by_path, o->path);
        memmove(set->sorted + i, set->sorted + i + 1, (set->n - i - 1) * sizeof(*set->sorted));
        set->n--;
}

/* Store a freshly read value; returns true when it differs. */
/* *ret_old: the text replaced by another (to be freed), else NULL. */
static bool attr_value_update(struct attr_value *v, const char *text, int error, char **ret_old) {
        *ret_old = NULL;
        if (text) {
                if (v->text && streq(v->text, text))
                        return false;
                char *s = strdup(text);
                if (!s) {
                        log_oom();
                        return false;
                }
                *ret_old = v->text;
                v->text = s;
                v->error = 0;
                return true;
        }
        v->error = error;
        if (!v->text)
                return false;
        v->text = (free(v->text), NULL);
        return true;
}

bool object_gone(struct sbd_object *o) {
        int r = sysfs_dir_is(o->syspath, o->st_dev, o->st_ino);

        if (r < 0 && sysfs_error_is_transient(r)) {
                /* Cannot be told now: kept, and looked at again. */
                log_debug_errno(r, "Cannot look at %s for now, keeping it: %m", o->syspath);
                reread_later(o);
                return false;
        }
        return r <= 0;
}

/* Returns -ENOENT, leaving the cache alone, when the attribute has
 * vanished: the object is being deleted. device_del() removes the
 * attributes first and the directory a little later, and the uevents of
 * the teardown (unbind, the block child's remove) arrive in between:
 * re-reading then would announce every value as emptied just before
 * InterfacesRemoved. The last values did not change; the object goes. */
static int attr_read(struct sbd_object *o, struct attr_value *v, bool *changed) {
        const struct attr_def *def = &o->daemon->tables[o->kind].defs[v->index];
        char buf[ATTR_VALUE_MAX + 1];
        _cleanup_free_ char *utf8 = NULL, *old = NULL;
        const char *text = buf;
        unsigned mode = 0;
        bool was_hidden = v->hidden;
        ssize_t n;

        *changed = false;
        if (!v->present || (def->flags & ATTR_LIVE))
                return 0;
        n = v->fd >= 0 ? sysfs_pread_mode(v->fd, buf, &mode) : sysfs_read_at_mode(o->dirfd, def->file, buf, &mode);
        /* openat() of a deleted kernfs node fails with ENOENT, a read
         * through an fd kept open on one with ENODEV. */
        if (n == -ENOENT || n == -ENODEV) {
                log_debug("%s/%s vanished: %s is going away.", o->syspath, def->file, o->name);
                return -ENOENT;
        }
        if (n < 0 && sysfs_error_is_transient((int) n)) {
                log_debug_errno((int) n, "Cannot read %s/%s for now, keeping the last value: %m",
                                o->syspath, def->file);
                if (!v->text)
                        v->error = (int) n; /* none yet: a Get says why */
                reread_later(o);
                return 0;
        }
        if (n < 0)
                log_debug_errno((int) n, "Cannot read %s/%s: %m", o->syspath, def->file);
        else if (text_make_utf8(buf, &utf8) > 0)
                text = utf8;
        *changed = attr_value_update(v, n >= 0 ? text : NULL, n >= 0 ? 0 : (int) n, &old);
        /* Modes change without any event (chmod): every read looks. */
        if (n >= 0)
                v->hidden = !attr_mode_is_shown(mode);
        if (*changed)
                announce(&o->daemon->announcer, &(struct change) {
                        .kind = CHANGE_ATTRIBUTE,
                        .object_kind = o->kind,
                        .object = o,
                        .name = o->name,
                        .path = o->path,
                        .attribute = def->file,
                        .old_value = old,
                        .new_value = v->text,
                        .hidden = v->hidden,
                });
        *changed = *changed || v->hidden != was_hidden;
        return 0;
}

static void emit_changed(struct sbd_object *o, char **names) {
        int r;

        if (!o->daemon->ready || !names[0])
                return;
        r = sd_bus_emit_properties_changed_strv(o->daemon->bus, o->path, object_kind_interface(o->kind), names);
        if (r < 0) {
                log_warning_errno(r, "Failed to emit PropertiesChanged on %s, sending it again shortly: %m", o->path);
                resend_later(o);
        }
}

int object_refresh_attr(struct sbd_object *o, size_t index) {
        char *names[2] = { NULL, NULL };
        bool changed;

        if (index >= o->n_values)
                return 0;
        if (attr_read(o, &o->values[index], &changed) < 0)
                return -ENOENT;
        if (changed)
                names[0] = o->daemon->tables[o->kind].defs[index].property;
        emit_changed(o, names);
        return changed;
}

static int watch_handler(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct attr_value *v = userdata;

        /* sysfs_notify(): re-reading from offset 0 through this fd also
         * re-arms the notification. A deleted kernfs node polls as
         * EPOLLERR|EPOLLPRI for ever: stop watching it, and drop the
         * object at once if its directory is gone too (its remove uevent
         * then finds nothing left to do). */
        if (object_refresh_attr(v->object, v->index) == -ENOENT) {
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                if (object_gone(v->object))
                        tree_remove(v->object->daemon, v->object);
        }
        return 0;
}

static void attr_watch(struct sbd_object *o, struct attr_value *v) {
        const struct attr_def *def = &o->daemon->tables[o->kind].defs[v->index];
        int r;

        if (!(def->flags & ATTR_WATCH) || v->fd >= 0)
                return;
        /* A writable attribute's fd also serves Set: one pwrite() instead
         * of openat(), write() and close() per write. */
        v->fd_writable = false;
        if (def->flags & ATTR_WRITABLE) {
                v->fd = openat(o->dirfd, def->file, O_RDWR | O_CLOEXEC | O_NOCTTY);
                v->fd_writable = v->fd >= 0;
        }
        if (v->fd < 0)
                v->fd = openat(o->dirfd, def->file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (v->fd < 0) {
                log_debug_errno(-errno, "Cannot open %s/%s: %m", o->syspath, def->file);
                return;
        }
        /* Only EPOLLPRI: a kernfs file is always readable, so EPOLLIN
         * would wake us continuously. */
        r = sd_event_add_io(o->daemon->event, &v->watch, v->fd, EPOLLPRI, watch_handler, v);
        if (r < 0) {
                /* Plain files (a umockdev test bed) cannot be polled:
                 * uevents still keep the value current. Do not hold an
                 * fd that watches nothing. */
                log_debug_errno(r, "Cannot watch %s/%s, relying on uevents: %m", o->syspath, def->file);
                close(v->fd);
                v->fd = -1;
                v->fd_writable = false;
        }
}

/* The device's Driver and BlockDevice. Returns which changed in names.
 * A link or directory that could not be read for want of memory keeps
 * its last value (see attr_read()). */
static void device_read_links(struct sbd_object *o, char **names, size_t *n) {
        _cleanup_free_ char *driver = NULL, *block = NULL, *driver_path = NULL, *block_device = NULL;
        int r_driver, r_block;
        bool keep_driver, keep_block;

        if (o->kind != OBJECT_DEVICE)
                return;
        r_driver = sysfs_link_basename(o->dirfd, "driver", &driver);
        if (r_driver >= 0) {
                if (sd_bus_path_encode(SBD_DRIVERS_PATH, driver, &driver_path) < 0)
                        return (void) log_oom();
        }
        r_block = sysfs_first_entry(o->dirfd, "block", &block);
        if (r_block >= 0) {
                if (asprintf(&block_device, "/dev/%s", block) < 0)
                        return (void) log_oom();
        }
        keep_driver = sysfs_error_is_transient(r_driver);
        keep_block = sysfs_error_is_transient(r_block);
        if (keep_driver || keep_block) {
                log_debug_errno(keep_driver ? r_driver : r_block,
                                "Cannot read the links of %s for now, keeping the last value: %m", o->syspath);
                reread_later(o);
        }
        if (!keep_driver && free_and_strdup(&o->driver_path, driver_path ?: "/") > 0) {
                names[(*n)++] = "Driver";
                announce(&o->daemon->announcer, &(struct change) {
                        .kind = CHANGE_DEVICE_DRIVER, .object_kind = o->kind, .object = o,
                        .name = o->name, .path = o->path, .new_value = o->driver_path });
        }
        if (!keep_block && free_and_strdup(&o->block_device, block_device ?: "") > 0)
                names[(*n)++] = "BlockDevice";
}

int object_refresh(struct sbd_object *o) {
        _cleanup_free_ char **names = calloc(o->n_values + 3, sizeof(char *));
        size_t n = 0;

        if (!names)
                return log_oom();
        for (size_t i = 0; i < o->n_values; i++) {
                bool changed;
                if (attr_read(o, &o->values[i], &changed) < 0)
                        return -ENOENT; /* being deleted, see attr_read() */
                if (changed)
                        names[n++] = o->daemon->tables[o->kind].defs[i].property;
        }
        device_read_links(o, names, &n);
        emit_changed(o, names);
        return (int) n;
}

struct discover {
        struct daemon *daemon;
        enum object_kind kind;
        size_t *indexes;
        size_t n, allocated;
};

static int discover_cb(const char *file, unsigned mode, void *userdata) {
        struct discover *disc = userdata;
        size_t index;
        int r;

        if (!attr_mode_is_property(mode))
                return 0; /* write-only: reached through methods */
        r = attr_table_add(disc->daemon, disc->kind, file, mode, &index);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        if (disc->n == disc->allocated) {
                size_t n = disc->allocated ? disc->allocated * 2 : 32;
                size_t *p = realloc(disc->indexes, n * sizeof(size_t));
                if (!p)
                        return -ENOMEM;
                disc->indexes = p;
                disc->allocated = n;
        }
        disc->indexes[disc->n++] = index;
        return 0;
}

/* The mode of a file already in the kind's attribute table, else 0. */
static unsigned discover_known_mode(const char *file, void *userdata) {
        struct discover *disc = userdata;
        const struct attr_table *t = &disc->daemon->tables[disc->kind];
        int i = attr_def_find_file(t, file);

        return i >= 0 ? t->defs[i].mode : 0;
}

static int object_new(struct daemon *d, enum object_kind kind, const char *syspath, struct sbd_object **ret) {
        struct sbd_object *o;
        struct discover disc = { .daemon = d, .kind = kind };
        const struct attr_table *t = &d->tables[kind];
        int r;

        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->daemon = d;
        o->kind = kind;
        o->dirfd = -1;
        o->wd = -1;
        o->syspath = strdup(syspath);
        o->name = strdup(path_basename(syspath));
        if (!o->syspath || !o->name) {
                r = -ENOMEM;
                goto fail;
        }
        r = sd_bus_path_encode(object_kind_prefix(kind), o->name, &o->path);
        if (r < 0)
                goto fail;
        r = sysfs_open_dir(syspath, &o->st_dev, &o->st_ino);
        if (r < 0)
                goto fail;
        o->dirfd = r;

        r = sysfs_list_attributes(o->dirfd, discover_known_mode, discover_cb, &disc);
        if (r < 0)
                goto fail;
        o->values = calloc(t->n_defs ?: 1, sizeof(struct attr_value));
        if (!o->values) {
                r = -ENOMEM;
                goto fail;
        }
        o->n_values = t->n_defs;
        for (size_t i = 0; i < o->n_values; i++)
                o->values[i] = (struct attr_value) { .object = o, .index = i, .fd = -1 };
        for (size_t i = 0; i < disc.n; i++)
                o->values[disc.indexes[i]].present = true;
        for (size_t i = 0; i < o->n_values; i++) {
                bool changed;
                if (!o->values[i].present)
                        continue;
                attr_watch(o, &o->values[i]);
                r = attr_read(o, &o->values[i], &changed);
                if (r < 0)
                        goto fail; /* gone while we looked */
        }
        {
                char *names[3];
                size_t n = 0;
                device_read_links(o, names, &n);
        }
        free(disc.indexes);
        *ret = o;
        return 0;
fail:
        free(disc.indexes);
        object_free(o);
        return r;
}

int tree_add(struct daemon *d, enum object_kind kind, const char *syspath, struct sbd_object **ret) {
        struct sbd_object *o = object_find(d, kind, path_basename(syspath));
        int r;

        if (o) {
                if (!object_gone(o)) {
                        /* -ENOENT: being deleted, its remove uevent follows. */
                        (void) object_refresh(o);
                        if (ret)
                                *ret = o;
                        return 0;
                }
                /* Same name, different kobject: the old one is gone. */
                tree_remove(d, o);
        }

        r = object_new(d, kind, syspath, &o);
        if (r < 0 && sysfs_error_is_transient(r)) {
                reread_tree_later(d);
                return log_warning_errno(r, "Cannot mirror %s for now, looking again shortly: %m", syspath);
        }
        if (r < 0)
                return log_full_errno(r == -ENOENT ? LOG_DEBUG : LOG_WARNING, r,
                                      "Cannot mirror %s: %m", syspath);
        r = set_insert(&d->objects[kind], o);
        if (r < 0) {
                object_free(o);
                return log_error_errno(r, "Cannot add %s: %m", syspath);
        }
        modes_watch(o);
        log_debug("Added %s", o->path);
        if (d->ready) {
                r = sd_bus_emit_object_added(d->bus, o->path);
                if (r < 0)
                        log_warning_errno(r, "Failed to emit InterfacesAdded for %s: %m", o->path);
        }
        announce(&d->announcer, &(struct change) {
                .kind = CHANGE_OBJECT_ADDED, .object_kind = kind, .object = o, .name = o->name, .path = o->path });
        if (ret)
                *ret = o;
        return 1;
}

void tree_remove(struct daemon *d, struct sbd_object *o) {
        enum object_kind kind = o->kind;
        _cleanup_free_ char *name = strdup(o->name), *path = strdup(o->path);
        int r;

        log_debug("Removing %s", o->path);
        if (d->ready) {
                /* sd-bus collects the interfaces through the find
                 * callbacks: emit while the object is still there. */
                r = sd_bus_emit_object_removed(d->bus, o->path);
                if (r < 0)
                        log_warning_errno(r, "Failed to emit InterfacesRemoved for %s: %m", o->path);
        }
        set_remove(&d->objects[kind], o);
        object_free(o);
        /* name and path are NULL only when out of memory. */
        announce(&d->announcer, &(struct change) {
                .kind = CHANGE_OBJECT_REMOVED, .object_kind = kind, .name = name, .path = path });
}

static int sync_kind(struct daemon *d, enum object_kind kind, const char *dir, bool full) {
        struct object_set *set = &d->objects[kind];
        _cleanup_closedir_ DIR *dh = NULL;

        /* Remove objects whose directory is gone or was replaced, re-read
         * the others. Backwards: a removal shifts only those already seen. */
        for (size_t i = set->n; full && i > 0; i--) {
                struct sbd_object *o = set->sorted[i - 1];
                if (object_gone(o) || (object_refresh(o) == -ENOENT && object_gone(o)))
                        tree_remove(d, o);
        }

        dh = opendir(dir);
        if (!dh && sysfs_error_is_transient(-errno)) {
                int r = -errno;
                reread_tree_later(d);
                return log_warning_errno(r, "Cannot list %s for now, looking again shortly: %m", dir);
        }
        if (!dh)
                return errno == ENOENT ? 0 : -errno;
        for (struct dirent *de; (de = readdir(dh));) {
                char link[PATH_MAX], linkpath[PATH_MAX];
                _cleanup_free_ char *syspath = NULL;
                ssize_t n;

                if (de->d_name[0] == '.')
                        continue;
                if (object_find(d, kind, de->d_name))
                        continue;
                snprintf(linkpath, sizeof(linkpath), "%s/%s", dir, de->d_name);
                n = readlink(linkpath, link, sizeof(link) - 1);
                if (n < 0) {
                        /* Drivers are directories, devices are links. */
                        syspath = strdup(linkpath);
                } else {
                        link[n] = '\0';
                        if (path_resolve_link(dir, link, &syspath) < 0)
                                return -ENOMEM;
                }
                if (!syspath)
                        return -ENOMEM;
                (void) tree_add(d, kind, syspath, NULL);
        }
        return 0;
}

int tree_sync(struct daemon *d) {
        int r = tree_sync_drivers(d);

        if (r < 0)
                return r;
        return sync_kind(d, OBJECT_DEVICE, SYSFS_DEVICES_DIR, true);
}

void object_mode_changed(struct sbd_object *o, const char *file) {
        struct daemon *d = o->daemon;
        int i = attr_def_find_file(&d->tables[o->kind], file);
        unsigned mode;
        size_t index;
        int r = sysfs_mode_at(o->dirfd, file, &mode);

        if (r < 0 && sysfs_error_is_transient(r)) {
                /* No memory to look: every read looks at the mode too. */
                log_debug_errno(r, "Cannot look at the mode of %s/%s for now: %m", o->syspath, file);
                reread_later(o);
                return;
        }
        if (r < 0)
                return; /* gone meanwhile */
        if (i < 0) {
                /* A file that was never readable (0200) has become so. */
                if (!attr_mode_is_property(mode) || attr_table_add(d, o->kind, file, mode, &index) < 0)
                        return;
                o->values[index].present = true;
                attr_watch(o, &o->values[index]);
        } else
                index = (size_t) i;
        if (!o->values[index].present || (d->tables[o->kind].defs[index].flags & ATTR_LIVE))
                return; /* live values: their mode is looked at on each Get */
        log_debug("%s/%s is now mode %04o.", o->syspath, file, mode & 07777);
        (void) object_refresh_attr(o, index);
}

int tree_scan_new_devices(struct daemon *d) {
        return sync_kind(d, OBJECT_DEVICE, SYSFS_DEVICES_DIR, false);
}

int tree_sync_drivers(struct daemon *d) {
        return sync_kind(d, OBJECT_DRIVER, SYSFS_DRIVERS_DIR, true);
}

/* After a Load or Unload: the devices that went and the ones that came.
 * The others' attributes are kept current by their uevents and watches,
 * and re-reading all of them (10,000 disks: 12 s in a one-vCPU guest)
 * would hold the loop that modop.c keeps free. */
int tree_sync_presence(struct daemon *d) {
        struct object_set *set = &d->objects[OBJECT_DEVICE];
        int r = tree_sync_drivers(d);

        if (r < 0)
                return r;
        for (size_t i = set->n; i > 0; i--) {
                struct sbd_object *o = set->sorted[i - 1];
                if (object_gone(o))
                        tree_remove(d, o);
        }
        return tree_scan_new_devices(d);
}
