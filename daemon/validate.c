/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "config.h"
#include "util.h"
#include "validate.h"

int param_check_add(struct param_check *c, const char *key, const char *value) {
        bool known = !c->known;
        int r;

        if (++c->count > LOAD_PARAMS_MAX)
                return -E2BIG;
        if (strnlen(key, LOAD_PARAM_KEY_MAX + 1) > LOAD_PARAM_KEY_MAX)
                return -ENAMETOOLONG;
        if (!module_param_key_valid(key, strlen(key)) || !module_param_value_valid(value) ||
            strlen(value) > LOAD_PARAM_VALUE_MAX)
                return -EINVAL;
        for (char *const *k = c->known; k && *k && !known; k++)
                known = streq(*k, key);
        if (!known)
                return -ENOKEY;
        r = hashmap_put(&c->seen, key, (void *) key);
        if (r == -EEXIST)
                return -ENOTUNIQ;
        return r;
}

void param_check_done(struct param_check *c) {
        hashmap_clear(&c->seen);
        c->count = 0;
}

bool attr_value_equal(char type, const char *cached, const char *text) {
        switch (type) {
        case 'b': {
                bool a, b;
                return attr_parse_bool(cached, &a) >= 0 && attr_parse_bool(text, &b) >= 0 && a == b;
        }
        case 't':
        case 'u': {
                uint64_t a, b;
                return attr_parse_u64(cached, &a) >= 0 && attr_parse_u64(text, &b) >= 0 && a == b;
        }
        default:
                return streq(cached, text);
        }
}

int add_size_check(uint64_t size, uint64_t max_size) {
        if (size == 0 || size % 512 != 0)
                return -EINVAL;
        if (max_size > 0 && size > max_size)
                return -ERANGE;
        return 0;
}

/* The length of the valid UTF-8 sequence at s (as D-Bus defines it: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_sequence(const unsigned char *s) {
        unsigned char c = s[0];
        size_t n;
        uint32_t cp;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf)
                n = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
                n = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
                n = 4, cp = c & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0; /* also stops at the terminating NUL */
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

bool utf8_valid(const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                size_t n = utf8_sequence(p);
                if (n == 0)
                        return false;
                p += n;
        }
        return true;
}

int text_make_utf8(const char *s, char **ret) {
        const unsigned char *p = (const unsigned char *) s;
        char *out, *o;

        if (utf8_valid(s))
                return 0;
        /* Each invalid byte becomes three (EF BF BD). */
        out = malloc(strlen(s) * 3 + 1);
        if (!out)
                return -ENOMEM;
        o = out;
        while (*p) {
                size_t n = utf8_sequence(p);
                if (n == 0) {
                        memcpy(o, "\xef\xbf\xbd", 3);
                        o += 3;
                        p++;
                        continue;
                }
                memcpy(o, p, n);
                o += n;
                p += n;
        }
        *o = '\0';
        *ret = out;
        return 1;
}

static bool label_char_valid(char c) {
        return c >= 0x20 && c < 0x7f; /* the module's isascii() && isprint() */
}

static int size_check(const char *text, uint64_t max_size, uint64_t max_total, char *why, size_t size) {
        uint64_t v;

        if (attr_parse_u64(text, &v) < 0 || v == 0 || v % 512 != 0)
                snprintf(why, size, "Size takes a positive multiple of 512 bytes.");
        else if (max_size > 0 && v > max_size)
                snprintf(why, size, "Size %" PRIu64 " is over the module's max_size of %" PRIu64 " bytes.", v,
                         max_size);
        else if (max_total > 0 && v > max_total)
                snprintf(why, size, "Size %" PRIu64 " is over the module's memory budget (max_total) of %" PRIu64
                         " bytes.", v, max_total);
        else
                return 0;
        return -EINVAL;
}

static int label_check(const char *text, char *why, size_t size) {
        size_t n = strlen(text);

        if (n < 1 || n > LABEL_MAX) {
                snprintf(why, size, "Label takes 1 to %u characters, not %zu.", LABEL_MAX, n);
                return -EINVAL;
        }
        for (const char *p = text; *p; p++)
                if (!label_char_valid(*p)) {
                        snprintf(why, size, "Label takes printable ASCII characters only (no newline, tab or "
                                 "control character, nothing beyond ASCII).");
                        return -EINVAL;
                }
        return 0;
}

int device_attr_check(const char *file, const char *text, uint64_t max_size, uint64_t max_total, char *why,
                      size_t size) {
        if (streq(file, "size"))
                return size_check(text, max_size, max_total, why, size);
        if (streq(file, "label"))
                return label_check(text, why, size);
        return 0;
}

char *text_for_dialog(const char *s) {
        return text_escape(s, DIALOG_TEXT_MAX);
}

char *text_escape(const char *s, size_t max) {
        size_t n = 0;
        char *out = malloc(max + sizeof("\\xff..."));

        if (!out)
                return NULL;
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                char esc[5];
                size_t len;

                if (*p == '\\')
                        len = (size_t) snprintf(esc, sizeof(esc), "\\\\");
                else if (*p == '\n')
                        len = (size_t) snprintf(esc, sizeof(esc), "\\n");
                else if (*p == '\t')
                        len = (size_t) snprintf(esc, sizeof(esc), "\\t");
                else if (*p < 0x20 || *p >= 0x7f)
                        len = (size_t) snprintf(esc, sizeof(esc), "\\x%02x", *p);
                else
                        len = (size_t) snprintf(esc, sizeof(esc), "%c", *p);
                if (n + len > max) {
                        memcpy(out + n, "...", 4);
                        return out;
                }
                memcpy(out + n, esc, len);
                n += len;
        }
        out[n] = '\0';
        return out;
}
