/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A minimal test harness: each CHECK counts, a failure is reported with
 * its location and makes the program exit non-zero at the end. */

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                   \
        do {                                                                          \
                check_count++;                                                        \
                if (!(cond)) {                                                        \
                        fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
                        check_failures++;                                             \
                }                                                                     \
        } while (0)

#define CHECK_STREQ(a, b)                                                             \
        do {                                                                          \
                const char *_a = (a), *_b = (b);                                      \
                check_count++;                                                        \
                if (!_a || !_b || strcmp(_a, _b) != 0) {                              \
                        fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
                                _a ? _a : "(null)", _b ? _b : "(null)");              \
                        check_failures++;                                             \
                }                                                                     \
        } while (0)

static inline int check_finish(const char *name) {
        printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
        return check_failures ? 1 : 0;
}
