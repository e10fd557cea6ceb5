// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An LD_PRELOAD shim for the integration tests: plays a read of sysfs that
 * fails, which a umockdev test bed cannot (its attributes are plain
 * files): the kernel's own failures (ENOMEM when it cannot allocate the
 * open file's buffer) or a show() that fails (EIO).
 *
 * SBDTEST_REFUSE_READ="FILE|ERRNO|ARMED[|stat]": while the file ARMED
 * exists, a read(), pread() or pread64() of a file named FILE fails with
 * ERRNO; with "|stat", an fstatat() of it does instead (looking at its
 * mode, or at a new file while listing a directory). The test creates and
 * removes ARMED to start and stop the failures while sbdd runs.
 */
/* pread and pread64 both defined here under their own names: with
 * 64-bit offsets the headers would rename pread to pread64. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_name.h"

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pread64_fn)(int, void *, size_t, off64_t);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*fstatat_fn)(int, const char *, struct stat *, int);
typedef int (*fstatat64_fn)(int, const char *, struct stat64 *, int);

enum what { READ, STAT };

/* Whether what is done to FILE (the spec's) is to fail now: its errno,
 * else 0. */
static int armed_error(enum what what, char file[static NAME_MAX + 1]) {
        const char *spec = getenv("SBDTEST_REFUSE_READ");
        const char *bar1, *bar2, *bar3;
        char armed[PATH_MAX];
        int error;

        if (!spec)
                return 0;
        bar1 = strchr(spec, '|');
        bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
        if (!bar2 || (size_t) (bar1 - spec) > NAME_MAX)
                return 0;
        bar3 = strchr(bar2 + 1, '|');
        if ((bar3 && strcmp(bar3 + 1, "stat") == 0) != (what == STAT))
                return 0;
        error = atoi(bar1 + 1);
        snprintf(armed, sizeof(armed), "%.*s", (int) (bar3 ? bar3 - bar2 - 1 : (ptrdiff_t) strlen(bar2 + 1)),
                 bar2 + 1);
        if (error <= 0 || access(armed, F_OK) < 0)
                return 0;
        snprintf(file, NAME_MAX + 1, "%.*s", (int) (bar1 - spec), spec);
        return error;
}

/* Whether a read of fd is to fail now; sets errno when it is. */
static int refused(int fd) {
        char file[NAME_MAX + 1];
        int error = armed_error(READ, file);

        if (!error || !fd_is_named(fd, file))
                return 0;
        errno = error;
        return 1;
}

/* Whether an fstatat() of path is to fail now; sets errno when it is. */
static int refused_path(const char *path) {
        char file[NAME_MAX + 1];
        int error = armed_error(STAT, file);
        const char *base = strrchr(path, '/');

        if (!error || strcmp(base ? base + 1 : path, file) != 0)
                return 0;
        errno = error;
        return 1;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off) {
        static pread_fn next;

        if (refused(fd))
                return -1;
        if (!next)
                next = (pread_fn) dlsym(RTLD_NEXT, "pread");
        return next(fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off64_t off) {
        static pread64_fn next;

        if (refused(fd))
                return -1;
        if (!next)
                next = (pread64_fn) dlsym(RTLD_NEXT, "pread64");
        return next(fd, buf, len, off);
}

ssize_t read(int fd, void *buf, size_t len) {
        static read_fn next;

        if (refused(fd))
                return -1;
        if (!next)
                next = (read_fn) dlsym(RTLD_NEXT, "read");
        return next(fd, buf, len);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags) {
        static fstatat_fn next;

        if (refused_path(path))
                return -1;
        if (!next)
                next = (fstatat_fn) dlsym(RTLD_NEXT, "fstatat");
        return next(dirfd, path, st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags) {
        static fstatat64_fn next;

        if (refused_path(path))
                return -1;
        if (!next)
                next = (fstatat64_fn) dlsym(RTLD_NEXT, "fstatat64");
        return next(dirfd, path, st, flags);
}
