/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
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

ssize_t sysfs_pread_mode(int fd, char *buf, unsigned *ret_mode) {
        struct stat st;

        /* fstat() of an open fd: no path walk, a fraction of fstatat()'s
         * cost on sysfs, so every read can look at the mode. */
        if (fstat(fd, &st) < 0)
                return -errno;
        *ret_mode = st.st_mode;
        return sysfs_pread(fd, buf);
}

ssize_t sysfs_read_at_mode(int dirfd, const char *file, char *buf, unsigned *ret_mode) {
        _cleanup_close_ int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        return sysfs_pread_mode(fd, buf, ret_mode);
}

int sysfs_mode_at(int dirfd, const char *file, unsigned *ret_mode) {
        struct stat st;

        if (fstatat(dirfd, file, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        *ret_mode = st.st_mode;
        return 0;
}

int sysfs_write_fd(int fd, const char *value, size_t len) {
        ssize_t n;

        if (len >= ATTR_VALUE_MAX)
                return -EINVAL;
        n = pwrite(fd, value, len, 0);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int sysfs_write_at(int dirfd, const char *file, const char *value, size_t len) {
        _cleanup_close_ int fd = -1;

        if (len >= ATTR_VALUE_MAX)
                return -EINVAL;
        /* O_TRUNC is a no-op on kernfs (shell redirection does the same)
         * but leaves a plain file (a test bed) holding exactly the value. */
        fd = openat(dirfd, file, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return sysfs_write_fd(fd, value, len);
}

static bool has_uevent(int dirfd, const char *sub) {
        char p[2 * NAME_MAX + 16];

        snprintf(p, sizeof(p), "%s/uevent", sub);
        return faccessat(dirfd, p, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Entries of directory "sub" of dirfd (NULL: dirfd itself) with their
 * d_type, straight from getdents64(): no fstat() and fcntl()s as
 * fdopendir() makes, no stat() per entry. cb returning non-zero stops. */
typedef int (*entry_cb)(const char *name, unsigned char type, void *userdata);

static int dir_foreach(int dirfd, const char *sub, entry_cb cb, void *userdata) {
        _cleanup_close_ int own = -1;
        char buf[8192] __attribute__((aligned(8)));
        int fd = dirfd, r;

        if (sub) {
                own = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (own < 0)
                        return -errno;
                fd = own;
        } else if (lseek(dirfd, 0, SEEK_SET) < 0) /* only *at() calls use dirfd */
                return -errno;
        for (;;) {
                ssize_t n = getdents64(fd, buf, sizeof(buf));

                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
                for (ssize_t off = 0; off < n;) {
                        struct dirent64 *de = (struct dirent64 *) (buf + off);

                        off += de->d_reclen;
                        if (de->d_name[0] == '.')
                                continue; /* ".", "..": sysfs has no other dot files */
                        r = cb(de->d_name, de->d_type, userdata);
                        if (r != 0)
                                return r;
                }
        }
}

struct list_ctx {
        int dirfd;
        const char *sub;
        sysfs_mode_cb known_mode;
        sysfs_attr_cb cb;
        void *userdata;
};

static int list_dir(int dirfd, const char *sub, struct list_ctx *ctx);

static int list_entry(const char *name, unsigned char type, void *userdata) {
        struct list_ctx *ctx = userdata;
        char file[2 * NAME_MAX + 2];
        unsigned mode = 0;
        struct stat st;

        if (type == DT_LNK)
                return 0;
        if (ctx->sub)
                snprintf(file, sizeof(file), "%s/%s", ctx->sub, name);
        else
                snprintf(file, sizeof(file), "%s", name);
        /* Attribute files keep their mode for every object of a kind:
         * only a file not seen before costs a stat(). kernfs gives every
         * entry its d_type; other file systems may not (DT_UNKNOWN). */
        if (type == DT_REG && ctx->known_mode)
                mode = ctx->known_mode(file, ctx->userdata);
        else if (type == DT_DIR)
                mode = S_IFDIR;
        if (!mode) {
                if (fstatat(ctx->dirfd, file, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        /* No memory to look: the listing fails (and is made
                         * again), rather than leave an attribute out. */
                        if (sysfs_error_is_transient(-errno))
                                return -errno;
                        return 0; /* vanished meanwhile */
                }
                mode = st.st_mode;
        }
        if (S_ISDIR(mode)) {
                if (ctx->sub || has_uevent(ctx->dirfd, file))
                        return 0;
                return list_dir(ctx->dirfd, file, ctx);
        }
        if (!S_ISREG(mode))
                return 0;
        return ctx->cb(file, mode, ctx->userdata);
}

static int list_dir(int dirfd, const char *sub, struct list_ctx *ctx) {
        struct list_ctx c = *ctx;

        c.sub = sub;
        return dir_foreach(dirfd, sub, list_entry, &c);
}

int sysfs_list_attributes(int dirfd, sysfs_mode_cb known_mode, sysfs_attr_cb cb, void *userdata) {
        struct list_ctx ctx = {
                .dirfd = dirfd, .known_mode = known_mode, .cb = cb, .userdata = userdata,
        };

        return list_dir(dirfd, NULL, &ctx);
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

int sysfs_dir_is(const char *path, dev_t dev, ino_t ino) {
        struct stat st;

        if (stat(path, &st) < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        return st.st_dev == dev && st.st_ino == ino;
}

bool sysfs_has_entry(const char *path, const char *name) {
        _cleanup_close_ int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;

        return fd >= 0 && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
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

static int first_entry(const char *name, unsigned char type, void *userdata) {
        char **ret = userdata;

        *ret = strdup(name);
        return *ret ? 1 : -ENOMEM;
}

int sysfs_first_entry(int dirfd, const char *sub, char **ret) {
        int r;

        *ret = NULL;
        r = dir_foreach(dirfd, sub, first_entry, ret);
        if (r < 0)
                return r;
        return *ret ? 0 : -ENOENT;
}
