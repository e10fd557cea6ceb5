/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Checks for sbdctl's unit tests: a failed check prints where and exits 1. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(expr)                                                                     \
        do {                                                                            \
                if (!(expr)) {                                                          \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr); \
                        exit(EXIT_FAILURE);                                             \
                }                                                                       \
        } while (0)

#define CHECK_STREQ(a, b)                                                               \
        do {                                                                            \
                const char *_a = (a), *_b = (b);                                        \
                if (!_a || !_b || strcmp(_a, _b) != 0) {                                \
                        fprintf(stderr, "%s:%d: \"%s\" != \"%s\" (%s vs %s)\n", __FILE__, __LINE__, \
                                _a ? _a : "(null)", _b ? _b : "(null)", #a, #b);        \
                        exit(EXIT_FAILURE);                                             \
                }                                                                       \
        } while (0)

#define CHECK_INT(a, b)                                                                 \
        do {                                                                            \
                long long _a = (long long) (a), _b = (long long) (b);                   \
                if (_a != _b) {                                                         \
                        fprintf(stderr, "%s:%d: %lld != %lld (%s vs %s)\n", __FILE__, __LINE__, \
                                _a, _b, #a, #b);                                        \
                        exit(EXIT_FAILURE);                                             \
                }                                                                       \
        } while (0)
