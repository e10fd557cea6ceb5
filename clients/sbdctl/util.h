/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Small helpers shared by sbdctl's files: cleanup attributes and string checks. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_strv_free_ _cleanup_(strv_freep)
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

static inline const char *strempty(const char *s) {
        return s ?: "";
}

static inline const char *yes_no(bool b) {
        return b ? "yes" : "no";
}

/* Returns the rest of s after prefix, or NULL when s does not start with it. */
static inline const char *startswith(const char *s, const char *prefix) {
        size_t l = strlen(prefix);

        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

/* Frees a NULL-terminated array of strings and the array itself. */
static inline void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}

static inline void strv_freep(char ***l) {
        strv_free(*l);
}

/* Moves a pointer out of a variable that has a cleanup attribute. */
#define TAKE_PTR(p)                             \
        ({                                      \
                __typeof__(p) _p_ = (p);        \
                (p) = NULL;                     \
                _p_;                            \
        })
