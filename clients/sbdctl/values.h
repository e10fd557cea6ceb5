/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Turning command line text into typed D-Bus values, and sizes into text. */

#include <stddef.h>
#include <stdint.h>

/* A value of one basic D-Bus type, parsed from text. */
typedef struct SbdValue {
        char type;              /* 'b', 'y', 'n', 'q', 'i', 'u', 'x', 't', 'd', 's', 'o' or 'g' */
        union {
                int b;
                uint64_t u;     /* y, q, u, t */
                int64_t i;      /* n, i, x */
                double d;
                const char *s;  /* s, o, g: points into the parsed text */
        };
} SbdValue;

/* yes/no, true/false, on/off, 1/0 (any case) -> 1/0, or -EINVAL. */
int sbd_parse_bool(const char *s);

/* "4096", "64M", "1G", "2KiB" (powers of 1024) -> bytes. -EINVAL, -ERANGE. */
int sbd_parse_size(const char *s, uint64_t *ret);

/* Parses text as a value of the given single basic type signature.
 * -EINVAL bad text, -ERANGE out of range, -EOPNOTSUPP container types. */
int sbd_parse_value(const char *signature, const char *text, SbdValue *ret);

/* A human description of what sbd_parse_value() accepts for that type. */
const char *sbd_value_hint(const char *signature);

#define SBD_FORMAT_BYTES_MAX 24

/* 16777216 -> "16.0M", 512 -> "512B" (the way systemd's tools show sizes). */
char *sbd_format_bytes(char *buf, size_t l, uint64_t bytes);

/* 16777216 -> "16M", 1610612736 -> "1536M", 1000 -> "1000": the largest unit that
 * divides the size exactly, so that sbd_parse_size() reads it back unchanged. */
char *sbd_format_bytes_exact(char *buf, size_t l, uint64_t bytes);
