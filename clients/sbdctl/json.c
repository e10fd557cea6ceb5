/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <math.h>

#include "json.h"

void sbd_json_write_string(FILE *f, const char *s) {
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"': fputs("\\\"", f); break;
                case '\\': fputs("\\\\", f); break;
                case '\n': fputs("\\n", f); break;
                case '\t': fputs("\\t", f); break;
                case '\r': fputs("\\r", f); break;
                case '\b': fputs("\\b", f); break;
                case '\f': fputs("\\f", f); break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(f, "\\u%04x", *p);
                        else
                                fputc(*p, f);
                }
        }
        fputc('"', f);
}

static void newline(SbdJson *j, unsigned depth) {
        if (!j->pretty)
                return;
        fputc('\n', j->f);
        for (unsigned i = 0; i < depth; i++)
                fputs("  ", j->f);
}

/* Emits the comma before a value (and, pretty, its line), unless it follows a key. */
static void before_value(SbdJson *j) {
        if (j->after_key) {
                j->after_key = false;
                return;
        }
        if (j->depth == 0 || j->depth > SBD_JSON_MAX_DEPTH)
                return;
        if (j->has_items[j->depth - 1])
                fputc(',', j->f);
        j->has_items[j->depth - 1] = true;
        newline(j, j->depth);
}

static void open_container(SbdJson *j, char c) {
        before_value(j);
        fputc(c, j->f);
        if (j->depth < SBD_JSON_MAX_DEPTH)
                j->has_items[j->depth] = false;
        j->depth++;
}

static void close_container(SbdJson *j, char c) {
        if (j->depth > 0)
                j->depth--;
        if (j->depth < SBD_JSON_MAX_DEPTH && j->has_items[j->depth])
                newline(j, j->depth); /* an empty one stays "{}" */
        fputc(c, j->f);
}

void sbd_json_begin_object(SbdJson *j) {
        open_container(j, '{');
}

void sbd_json_end_object(SbdJson *j) {
        close_container(j, '}');
}

void sbd_json_begin_array(SbdJson *j) {
        open_container(j, '[');
}

void sbd_json_end_array(SbdJson *j) {
        close_container(j, ']');
}

void sbd_json_key(SbdJson *j, const char *key) {
        before_value(j);
        sbd_json_write_string(j->f, key);
        fputs(j->pretty ? ": " : ":", j->f);
        j->after_key = true;
}

void sbd_json_string(SbdJson *j, const char *s) {
        before_value(j);
        sbd_json_write_string(j->f, s);
}

void sbd_json_unsigned(SbdJson *j, uint64_t u) {
        before_value(j);
        fprintf(j->f, "%" PRIu64, u);
}

void sbd_json_signed(SbdJson *j, int64_t i) {
        before_value(j);
        fprintf(j->f, "%" PRIi64, i);
}

void sbd_json_double(SbdJson *j, double d) {
        before_value(j);
        if (isfinite(d))
                fprintf(j->f, "%.17g", d);
        else
                fputs("null", j->f);
}

void sbd_json_boolean(SbdJson *j, bool b) {
        before_value(j);
        fputs(b ? "true" : "false", j->f);
}

void sbd_json_null(SbdJson *j) {
        before_value(j);
        fputs("null", j->f);
}
