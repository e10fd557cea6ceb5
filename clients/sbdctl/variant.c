/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>

#include "util.h"
#include "values.h"
#include "variant.h"

typedef union Basic {
        uint8_t y;
        int b;
        int16_t n;
        uint16_t q;
        int32_t i;
        uint32_t u;
        int64_t x;
        uint64_t t;
        double d;
        const char *s;
        int h;
} Basic;

static int write_basic_text(sd_bus_message *m, char type, bool bytes, FILE *f) {
        char buf[SBD_FORMAT_BYTES_MAX];
        Basic v;
        int r;

        r = sd_bus_message_read_basic(m, type, &v);
        if (r < 0)
                return r;
        switch (type) {
        case 'y': fprintf(f, "%u", v.y); break;
        case 'b': fputs(yes_no(v.b), f); break;
        case 'n': fprintf(f, "%" PRIi16, v.n); break;
        case 'q': fprintf(f, "%" PRIu16, v.q); break;
        case 'i': fprintf(f, "%" PRIi32, v.i); break;
        case 'u': fprintf(f, "%" PRIu32, v.u); break;
        case 'x': fprintf(f, "%" PRIi64, v.x); break;
        case 't':
                if (bytes)
                        fputs(sbd_format_bytes(buf, sizeof(buf), v.t), f);
                else
                        fprintf(f, "%" PRIu64, v.t);
                break;
        case 'd': fprintf(f, "%g", v.d); break;
        case 'h': fprintf(f, "fd %i", v.h); break;
        default: fputs(v.s, f);
        }
        return 0;
}

static int write_text(sd_bus_message *m, bool bytes, FILE *f);

/* Writes the items of the container the message is in, separated by sep. */
static int write_items_text(sd_bus_message *m, const char *sep, FILE *f) {
        int r;

        for (bool first = true;; first = false) {
                r = sd_bus_message_at_end(m, false);
                if (r < 0)
                        return r;
                if (r > 0)
                        return 0;
                if (!first)
                        fputs(sep, f);
                r = write_text(m, false, f);
                if (r < 0)
                        return r;
        }
}

static int write_text(sd_bus_message *m, bool bytes, FILE *f) {
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r <= 0)
                return r < 0 ? r : -EBADMSG;
        if (!contents)
                return write_basic_text(m, type, bytes, f);

        r = sd_bus_message_enter_container(m, type, contents);
        if (r < 0)
                return r;
        if (type == 'v')
                r = write_text(m, bytes, f);
        else
                r = write_items_text(m, type == 'e' ? "=" : type == 'r' ? "," : " ", f);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int sbd_value_to_text(sd_bus_message *m, bool bytes, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        r = write_text(m, bytes, f);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(buf);
        return 0;
}

static int write_basic_json(sd_bus_message *m, char type, SbdJson *j) {
        Basic v;
        int r;

        r = sd_bus_message_read_basic(m, type, &v);
        if (r < 0)
                return r;
        switch (type) {
        case 'y': sbd_json_unsigned(j, v.y); break;
        case 'b': sbd_json_boolean(j, v.b); break;
        case 'n': sbd_json_signed(j, v.n); break;
        case 'q': sbd_json_unsigned(j, v.q); break;
        case 'i': sbd_json_signed(j, v.i); break;
        case 'u': sbd_json_unsigned(j, v.u); break;
        case 'x': sbd_json_signed(j, v.x); break;
        case 't': sbd_json_unsigned(j, v.t); break;
        case 'd': sbd_json_double(j, v.d); break;
        case 'h': sbd_json_signed(j, v.h); break;
        default: sbd_json_string(j, v.s);
        }
        return 0;
}

/* A dictionary entry whose key is a string becomes "key": value; contents is
 * the entry's signature with its braces ("{sv}"). */
static int write_entry_json(sd_bus_message *m, const char *contents, SbdJson *j) {
        _cleanup_free_ char *inner = NULL;
        const char *key;
        int r;

        inner = strndup(contents + 1, strlen(contents) - 2);
        if (!inner)
                return -ENOMEM;
        r = sd_bus_message_enter_container(m, 'e', inner);
        if (r < 0)
                return r;
        if (strchr("sog", inner[0])) {
                r = sd_bus_message_read_basic(m, inner[0], &key);
                if (r < 0)
                        return r;
                sbd_json_key(j, key);
        } else {
                _cleanup_free_ char *k = NULL;

                r = sbd_value_to_text(m, false, &k);
                if (r < 0)
                        return r;
                sbd_json_key(j, k);
        }
        r = sbd_value_to_json(m, j);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int write_array_json(sd_bus_message *m, const char *contents, SbdJson *j) {
        bool dict = contents[0] == '{';
        int r;

        r = sd_bus_message_enter_container(m, 'a', contents);
        if (r < 0)
                return r;
        dict ? sbd_json_begin_object(j) : sbd_json_begin_array(j);
        for (;;) {
                r = sd_bus_message_at_end(m, false);
                if (r < 0)
                        return r;
                if (r > 0)
                        break;
                r = dict ? write_entry_json(m, contents, j) : sbd_value_to_json(m, j);
                if (r < 0)
                        return r;
        }
        dict ? sbd_json_end_object(j) : sbd_json_end_array(j);
        return sd_bus_message_exit_container(m);
}

int sbd_value_to_json(sd_bus_message *m, SbdJson *j) {
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r <= 0)
                return r < 0 ? r : -EBADMSG;
        if (!contents)
                return write_basic_json(m, type, j);
        if (type == 'a')
                return write_array_json(m, contents, j);

        r = sd_bus_message_enter_container(m, type, contents);
        if (r < 0)
                return r;
        if (type == 'v')
                r = sbd_value_to_json(m, j);
        else {
                sbd_json_begin_array(j);
                while (r >= 0 && (r = sd_bus_message_at_end(m, false)) == 0)
                        r = sbd_value_to_json(m, j);
                sbd_json_end_array(j);
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int sbd_variant_peek_signature(sd_bus_message *m, const char **ret) {
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, ret);
        if (r <= 0)
                return r < 0 ? r : -EBADMSG;
        return type == 'v' ? 0 : -EBADMSG;
}
