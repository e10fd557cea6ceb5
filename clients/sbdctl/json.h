/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A minimal streaming JSON writer: compact (one line) or pretty (indented by
 * two spaces, one member a line), commas placed for the caller. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SBD_JSON_MAX_DEPTH 32

typedef struct SbdJson {
        FILE *f;
        unsigned depth;
        bool has_items[SBD_JSON_MAX_DEPTH];
        bool after_key;
        bool pretty;
} SbdJson;

static inline SbdJson sbd_json_new(FILE *f, bool pretty) {
        return (SbdJson) { .f = f, .pretty = pretty };
}

void sbd_json_begin_object(SbdJson *j);
void sbd_json_end_object(SbdJson *j);
void sbd_json_begin_array(SbdJson *j);
void sbd_json_end_array(SbdJson *j);
void sbd_json_key(SbdJson *j, const char *key);
void sbd_json_string(SbdJson *j, const char *s);
void sbd_json_unsigned(SbdJson *j, uint64_t u);
void sbd_json_signed(SbdJson *j, int64_t i);
void sbd_json_double(SbdJson *j, double d);
void sbd_json_boolean(SbdJson *j, bool b);
void sbd_json_null(SbdJson *j);

/* Writes s as a quoted, escaped JSON string. */
void sbd_json_write_string(FILE *f, const char *s);
