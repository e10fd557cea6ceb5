// SPDX-License-Identifier: GPL-2.0-or-later
/* For the LD_PRELOAD shims (refuse_read.c, refuse_write.c): the name of
 * the file an fd is open on. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Whether fd is open on a file called name (its last path component). */
static inline bool fd_is_named(int fd, const char *name) {
        char link[64], path[PATH_MAX];
        const char *base;
        ssize_t n;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, path, sizeof(path) - 1);
        if (n < 0)
                return false;
        path[n] = '\0';
        base = strrchr(path, '/');
        return strcmp(base ? base + 1 : path, name) == 0;
}
