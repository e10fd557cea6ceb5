/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Live attributes (those under power/) are read at every Get: runtime PM counters
 * and status change without any event, so there is nothing to cache.
 * openat(), read() and close() per Get cost about twice what the read
 * alone does; a few fds kept open on the attributes read last make a
 * repeated Get one pread(). Only on sysfs: kernfs files are never
 * replaced, while a test bed's plain files may be renamed over, and an
 * fd kept open would then read a stale copy. The fds are shared by all
 * objects, the oldest closed first, so a GetManagedObjects of thousands
 * of devices never holds more than LIVE_FDS_MAX. */

#include <errno.h>
#include <fcntl.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "daemon.h"
#include "sysfs.h"

static void slot_release(struct live_fds *l, unsigned slot) {
        struct attr_value *v = l->slots[slot];

        if (!v)
                return;
        if (v->fd >= 0)
                close(v->fd);
        v->fd = -1;
        v->live_slot = 0;
        l->slots[slot] = NULL;
}

void live_fds_forget(struct live_fds *l, struct attr_value *v) {
        if (v->live_slot)
                slot_release(l, v->live_slot - 1);
}

static bool on_sysfs(struct live_fds *l, int dirfd) {
        struct statfs st;

        if (!l->checked) {
                l->enabled = fstatfs(dirfd, &st) == 0 && st.f_type == SYSFS_MAGIC;
                l->checked = true;
        }
        return l->enabled;
}

static void keep(struct live_fds *l, struct attr_value *v, int fd) {
        unsigned slot = l->next;

        l->next = (l->next + 1) % LIVE_FDS_MAX;
        slot_release(l, slot);
        l->slots[slot] = v;
        v->fd = fd;
        v->live_slot = slot + 1;
}

ssize_t live_fds_read(struct live_fds *l, struct sbd_object *o, struct attr_value *v, const char *file, char *buf) {
        unsigned mode = 0;
        ssize_t n;
        int fd;

        if (v->live_slot) {
                n = sysfs_pread_mode(v->fd, buf, &mode);
                if (n != -ENODEV)
                        return n >= 0 && !attr_mode_is_shown(mode) ? -EACCES : n;
                /* The node was deleted: the object is going, or was
                 * re-created under the same name. Look again by name. */
                live_fds_forget(l, v);
        }
        fd = openat(o->dirfd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = sysfs_pread_mode(fd, buf, &mode);
        if (n >= 0 && on_sysfs(l, o->dirfd))
                keep(l, v, fd);
        else
                close(fd);
        /* Live attributes are read on each Get: their mode is looked at
         * each time too (not world-readable: shown as unreadable). */
        return n >= 0 && !attr_mode_is_shown(mode) ? -EACCES : n;
}
