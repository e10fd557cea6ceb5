/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Raw access to sysfs attribute files. Every function takes a directory
 * fd of the object so that all access stays inside that one kobject: a
 * device deleted and re-created under the same name gets a new directory,
 * and the old fd then fails with ENOENT instead of touching the new one. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "attr.h"

/* Read a whole attribute (at most one page) into buf (ATTR_VALUE_MAX + 1
 * bytes), newline stripped. Returns the length or a negative errno. */
ssize_t sysfs_read_at(int dirfd, const char *file, char *buf);
/* Same through an already open fd, from offset 0 (this also re-arms a
 * kernfs POLLPRI watch on that fd). */
ssize_t sysfs_pread(int fd, char *buf);
/* The same, also giving the file's mode as it is now (ret_mode). */
ssize_t sysfs_read_at_mode(int dirfd, const char *file, char *buf, unsigned *ret_mode);
ssize_t sysfs_pread_mode(int fd, char *buf, unsigned *ret_mode);
/* The mode of a file of the object, as it is now. */
int sysfs_mode_at(int dirfd, const char *file, unsigned *ret_mode);

/* One write(2) of the whole value. Values of a page or more are refused
 * with -EINVAL before anything is written: kernfs would silently cut
 * them. A short write is reported as -EIO. */
int sysfs_write_at(int dirfd, const char *file, const char *value, size_t len);
/* The same through an fd kept open for reading and writing (kernfs only:
 * a plain file would keep the old tail). A kernfs node deleted since it
 * was opened answers -ENODEV: the write never reaches another object. */
int sysfs_write_fd(int fd, const char *value, size_t len);

/* Call cb for every regular file of the object: directly in the
 * directory and one level down in attribute groups (subdirectories
 * without their own "uevent", which would make them child kobjects such
 * as block/sbd0). file is relative, e.g. "power/control". */
typedef int (*sysfs_attr_cb)(const char *file, unsigned mode, void *userdata);
/* known_mode (may be NULL) returns the mode of a regular file already
 * seen on another object of the same kind, or 0 for unknown: the listing
 * then stat()s only new files. */
typedef unsigned (*sysfs_mode_cb)(const char *file, void *userdata);
int sysfs_list_attributes(int dirfd, sysfs_mode_cb known_mode, sysfs_attr_cb cb, void *userdata);

/* Open an object's directory. */
int sysfs_open_dir(const char *path, dev_t *ret_dev, ino_t *ret_ino);
/* Whether the directory at path is still the one we opened: 1 yes, 0 no
 * (gone, or another in its place), or a negative errno when stat() itself
 * failed and it cannot be told. */
int sysfs_dir_is(const char *path, dev_t dev, ino_t ino);

/* Whether a read of sysfs failed for want of a resource (kernel memory,
 * socket buffers, file descriptors) rather than because of what it read:
 * such a failure says nothing about the value, and the same read may well
 * succeed a moment later. */
static inline bool sysfs_error_is_transient(int r) {
        switch (-r) {
        case ENOMEM:
        case ENOBUFS:
        case EAGAIN:
        case EINTR:
        case EMFILE:
        case ENFILE:
                return true;
        default:
                return false;
        }
}

/* Whether the directory at path has an entry "name" (a symlink is not
 * followed: "driver" exists while the device is bound). */
bool sysfs_has_entry(const char *path, const char *name);

/* The basename of the target of symlink "name" in dirfd (e.g. "driver"
 * -> "sbd"); -ENOENT when there is no such link. */
int sysfs_link_basename(int dirfd, const char *name, char **ret);
/* The first entry of subdirectory "sub" of dirfd (e.g. "block" ->
 * "sbd0"); -ENOENT when there is none. */
int sysfs_first_entry(int dirfd, const char *sub, char **ret);
