/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "sysfs.h"
#include "util.h"

ssize_t sysfs_pread(int fd, char *buf) {
        ssize_t n = pread(fd, buf, ATTR_VALUE_MAX, 0);

        if (n < 0)
                return -errno;
        return (ssize_t) attr_strip_newline(buf, (size_t) n);
}

ssize_t sysfs_read_at(int dirfd, const char *file, char *buf) {
        _cleanup_close_ int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        return sysfs_pread(fd, buf);
}

int sysfs_write_at(int dirfd, const char *file, const char *value, size_t len) {
        _cleanup_close_ int fd = -1;
        ssize_t n;

        if (len >= ATTR_VALUE_MAX)
                return -EINVAL;
        /* O_TRUNC is a no-op on kernfs (shell redirection does the same)
         * but leaves a plain file (a test bed) holding exactly the value. */
        fd = openat(dirfd, file, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

static bool has_uevent(int dirfd, const char *sub) {
        char p[2 * NAME_MAX + 16];

        snprintf(p, sizeof(p), "%s/uevent", sub);
        return faccessat(dirfd, p, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static int list_dir(int dirfd, const char *sub, sysfs_attr_cb cb, void *userdata) {
        _cleanup_closedir_ DIR *d = NULL;
        int fd, r;

        fd = openat(dirfd, sub ?: ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        for (struct dirent *de; (errno = 0, de = readdir(d));) {
                char file[2 * NAME_MAX + 2];
                struct stat st;

                if (de->d_name[0] == '.')
                        continue;
                if (sub)
                        snprintf(file, sizeof(file), "%s/%s", sub, de->d_name);
                else
                        snprintf(file, sizeof(file), "%s", de->d_name);
                if (de->d_type == DT_LNK)
                        continue;
                if (fstatat(dirfd, file, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue; /* vanished meanwhile */
                if (S_ISDIR(st.st_mode)) {
                        if (sub || has_uevent(dirfd, file))
                                continue;
                        r = list_dir(dirfd, file, cb, userdata);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!S_ISREG(st.st_mode))
                        continue;
                r = cb(file, st.st_mode, userdata);
                if (r < 0)
                        return r;
        }
        return errno > 0 ? -errno : 0;
}

int sysfs_list_attributes(int dirfd, sysfs_attr_cb cb, void *userdata) {
        return list_dir(dirfd, NULL, cb, userdata);
}

int sysfs_open_dir(const char *path, dev_t *ret_dev, ino_t *ret_ino) {
        struct stat st;
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        *ret_dev = st.st_dev;
        *ret_ino = st.st_ino;
        return fd;
}

bool sysfs_same_dir(const char *path, dev_t dev, ino_t ino) {
        struct stat st;

        if (stat(path, &st) < 0)
                return false;
        return st.st_dev == dev && st.st_ino == ino;
}

int sysfs_link_basename(int dirfd, const char *name, char **ret) {
        char buf[PATH_MAX];
        ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf) - 1);
        char *s;

        if (n < 0)
                return -errno;
        buf[n] = '\0';
        s = strdup(path_basename(buf));
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int sysfs_first_entry(int dirfd, const char *sub, char **ret) {
        _cleanup_closedir_ DIR *d = NULL;
        int fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue;
                *ret = strdup(de->d_name);
                return *ret ? 0 : -ENOMEM;
        }
        return -ENOENT;
}
