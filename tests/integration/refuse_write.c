// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An LD_PRELOAD shim for the integration tests: plays a kernel store()
 * that refuses a write, which a umockdev test bed cannot (its attributes
 * are plain files that take anything).
 *
 * SBDTEST_REFUSE_WRITE="FILE|PREFIX|ERRNO": a pwrite() or write() to a
 * file named FILE whose data starts with PREFIX fails with ERRNO, and
 * leaves the file as it was. The test of an id-less AddDevice uses it to
 * answer EEXIST for an id another writer took first.
 */
/* pwrite and pwrite64 both defined here under their own names: with
 * 64-bit offsets the headers would rename pwrite to pwrite64. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd_name.h"

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);

struct refusal {
        char file[NAME_MAX + 1];
        char prefix[256];
        int error;
};

/* The refusal named in the environment; false when none or malformed. */
static int refusal_from_env(struct refusal *r) {
        const char *spec = getenv("SBDTEST_REFUSE_WRITE");
        const char *bar1, *bar2;

        if (!spec)
                return 0;
        bar1 = strchr(spec, '|');
        bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
        if (!bar2 || (size_t) (bar1 - spec) > NAME_MAX || (size_t) (bar2 - bar1 - 1) >= sizeof(r->prefix))
                return 0;
        snprintf(r->file, sizeof(r->file), "%.*s", (int) (bar1 - spec), spec);
        snprintf(r->prefix, sizeof(r->prefix), "%.*s", (int) (bar2 - bar1 - 1), bar1 + 1);
        r->error = atoi(bar2 + 1);
        return r->error > 0;
}

static int refused(int fd, const void *buf, size_t len) {
        struct refusal r;
        size_t plen;

        if (!refusal_from_env(&r))
                return 0;
        plen = strlen(r.prefix);
        if (len < plen || memcmp(buf, r.prefix, plen) != 0 || !fd_is_named(fd, r.file))
                return 0;
        errno = r.error;
        return 1;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off) {
        static pwrite_fn next;

        if (refused(fd, buf, len))
                return -1;
        if (!next)
                next = (pwrite_fn) dlsym(RTLD_NEXT, "pwrite");
        return next(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off) {
        static pwrite64_fn next;

        if (refused(fd, buf, len))
                return -1;
        if (!next)
                next = (pwrite64_fn) dlsym(RTLD_NEXT, "pwrite64");
        return next(fd, buf, len, off);
}

ssize_t write(int fd, const void *buf, size_t len) {
        static write_fn next;

        if (refused(fd, buf, len))
                return -1;
        if (!next)
                next = (write_fn) dlsym(RTLD_NEXT, "write");
        return next(fd, buf, len);
}
