/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Following chmod. A property's value is shown to callers exactly when
 * its file is world-readable now, not when it was first seen: every read
 * of a cached value looks at the file's mode (objects.c), live values
 * are checked on each Get (livefds.c), and a chmod, which comes with no
 * uevent and no sysfs_notify(), is seen through inotify: IN_ATTRIB on
 * each object's directory reports its files' mode changes (the VFS sends
 * it for any file system, kernfs included). One watch per object, not
 * per file: inotify's per-user limit (fs.inotify.max_user_watches, about
 * 8,000 on a 1 GiB machine) would not hold 10,000 disks' files. Where
 * even that limit is reached, the objects beyond it are logged once and
 * their modes are followed on their next re-read (a uevent, POLLPRI, a
 * write, a re-synchronisation). Attribute-group subdirectories (power/)
 * hold live attributes only, which are checked on every Get anyway. */

#include <sys/inotify.h>

#include "daemon.h"
#include "util.h"

static struct sbd_object *watched_object(struct daemon *d, int wd) {
        char key[16];

        snprintf(key, sizeof(key), "%d", wd);
        return hashmap_get(&d->mode_watches, key);
}

static void modes_recheck_all(struct daemon *d) {
        for (int k = 0; k < _OBJECT_KIND_MAX; k++)
                for (size_t i = 0; i < d->objects[k].n; i++)
                        (void) object_refresh(d->objects[k].sorted[i]);
}

static int modes_handler(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct daemon *d = userdata;
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));

                if (n <= 0)
                        return 0; /* EAGAIN: all read */
                for (char *p = buf; p < buf + n;) {
                        struct inotify_event *e = (struct inotify_event *) p;
                        struct sbd_object *o;

                        p += sizeof(*e) + e->len;
                        if (e->mask & IN_Q_OVERFLOW) {
                                log_debug("inotify queue overflow: checking every attribute's mode.");
                                modes_recheck_all(d);
                                continue;
                        }
                        o = watched_object(d, e->wd);
                        if (!o)
                                continue;
                        if (e->mask & IN_IGNORED) {
                                /* The directory is gone: the object's
                                 * remove follows, nothing to take back. */
                                hashmap_remove(&d->mode_watches, o->wd_key);
                                o->wd = -1;
                        } else if ((e->mask & IN_ATTRIB) && e->len > 0 && e->name[0])
                                object_mode_changed(o, e->name);
                }
        }
}

int modes_setup(struct daemon *d) {
        int r;

        d->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (d->inotify_fd < 0)
                return log_warning_errno(-errno, "Cannot follow attribute modes (inotify): %m");
        r = sd_event_add_io(d->event, &d->inotify_source, d->inotify_fd, EPOLLIN, modes_handler, d);
        if (r < 0)
                return log_warning_errno(r, "Cannot follow attribute modes: %m");
        return 0;
}

void modes_done(struct daemon *d) {
        d->inotify_source = sd_event_source_disable_unref(d->inotify_source);
        if (d->inotify_fd >= 0)
                close(d->inotify_fd);
        d->inotify_fd = -1;
        hashmap_clear(&d->mode_watches);
}

void modes_watch(struct sbd_object *o) {
        struct daemon *d = o->daemon;
        int wd;

        o->wd = -1;
        if (d->inotify_fd < 0)
                return;
        wd = inotify_add_watch(d->inotify_fd, o->syspath, IN_ATTRIB | IN_ONLYDIR | IN_EXCL_UNLINK);
        if (wd < 0) {
                if (!d->inotify_full_warned)
                        log_warning_errno(-errno, "Cannot watch %s for mode changes (%m): from here on, a chmod "
                                          "of an attribute is seen at its next uevent or re-read.", o->syspath);
                d->inotify_full_warned = true;
                return;
        }
        snprintf(o->wd_key, sizeof(o->wd_key), "%d", wd);
        if (hashmap_put(&d->mode_watches, o->wd_key, o) < 0) {
                (void) inotify_rm_watch(d->inotify_fd, wd);
                return;
        }
        o->wd = wd;
}

void modes_unwatch(struct sbd_object *o) {
        struct daemon *d = o->daemon;

        if (o->wd < 0)
                return;
        if (watched_object(d, o->wd) == o)
                hashmap_remove(&d->mode_watches, o->wd_key);
        (void) inotify_rm_watch(d->inotify_fd, o->wd);
        o->wd = -1;
}
