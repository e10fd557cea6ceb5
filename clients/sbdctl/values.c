/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <strings.h>

#include "names.h"
#include "util.h"
#include "values.h"

int sbd_parse_bool(const char *s) {
        static const char *const truths[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const lies[] = { "0", "no", "n", "false", "f", "off" };

        for (size_t i = 0; i < ELEMENTSOF(truths); i++)
                if (strcasecmp(s, truths[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(lies); i++)
                if (strcasecmp(s, lies[i]) == 0)
                        return 0;
        return -EINVAL;
}

/* Plain decimal digits only: no sign, no blanks, no 0x. */
static int parse_digits(const char *s, const char **end, uint64_t *ret) {
        uint64_t v;
        char *e;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &e, 10);
        if (errno == ERANGE)
                return -ERANGE;
        *end = e;
        *ret = v;
        return 0;
}

static int suffix_shift(const char *suffix, unsigned *ret) {
        static const char units[] = "KMGTPE";
        const char *u;

        if (*suffix == '\0' || strcasecmp(suffix, "B") == 0) {
                *ret = 0;
                return 0;
        }
        u = memchr(units, toupper((unsigned char) suffix[0]), sizeof(units) - 1);
        if (!u)
                return -EINVAL;
        suffix++;
        if (*suffix && strcasecmp(suffix, "B") != 0 && strcasecmp(suffix, "iB") != 0)
                return -EINVAL;
        *ret = 10 * (unsigned) (u - units + 1);
        return 0;
}

int sbd_parse_size(const char *s, uint64_t *ret) {
        const char *end;
        uint64_t v;
        unsigned shift;
        int r;

        r = parse_digits(s, &end, &v);
        if (r < 0)
                return r;
        r = suffix_shift(end, &shift);
        if (r < 0)
                return r;
        if (shift > 0 && v > (UINT64_MAX >> shift))
                return -ERANGE;

        *ret = v << shift;
        return 0;
}

static int parse_signed(const char *s, int64_t min, int64_t max, int64_t *ret) {
        long long v;
        char *e;

        errno = 0;
        v = strtoll(s, &e, 10);
        if (e == s || *e || (*s != '-' && (*s < '0' || *s > '9')))
                return -EINVAL;
        if (errno == ERANGE || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

static int parse_unsigned(const char *s, uint64_t max, uint64_t *ret) {
        const char *end;
        uint64_t v;
        int r;

        r = parse_digits(s, &end, &v);
        if (r < 0)
                return r;
        if (*end)
                return -EINVAL;
        if (v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

static int parse_double(const char *s, double *ret) {
        char *e;

        errno = 0;
        *ret = strtod(s, &e);
        if (e == s || *e)
                return -EINVAL;
        if (errno == ERANGE || !isfinite(*ret))
                return -ERANGE;
        return 0;
}

static int parse_string(char type, const char *text, SbdValue *ret) {
        if (type == 'o' && !sbd_object_path_is_valid(text))
                return -EINVAL;
        ret->s = text;
        return 0;
}

static int parse_number(char type, const char *text, SbdValue *ret) {
        switch (type) {
        case 'y': return parse_unsigned(text, UINT8_MAX, &ret->u);
        case 'q': return parse_unsigned(text, UINT16_MAX, &ret->u);
        case 'u': return parse_unsigned(text, UINT32_MAX, &ret->u);
        case 't': return sbd_parse_size(text, &ret->u);
        case 'n': return parse_signed(text, INT16_MIN, INT16_MAX, &ret->i);
        case 'i': return parse_signed(text, INT32_MIN, INT32_MAX, &ret->i);
        case 'x': return parse_signed(text, INT64_MIN, INT64_MAX, &ret->i);
        case 'd': return parse_double(text, &ret->d);
        default: return -EOPNOTSUPP;
        }
}

int sbd_parse_value(const char *signature, const char *text, SbdValue *ret) {
        SbdValue v = {};
        int r;

        if (!signature || strlen(signature) != 1)
                return -EOPNOTSUPP;

        v.type = signature[0];
        switch (v.type) {
        case 'b':
                r = sbd_parse_bool(text);
                if (r < 0)
                        return r;
                v.b = r;
                break;
        case 's':
        case 'o':
        case 'g':
                r = parse_string(v.type, text, &v);
                if (r < 0)
                        return r;
                break;
        default:
                r = parse_number(v.type, text, &v);
                if (r < 0)
                        return r;
        }

        *ret = v;
        return 0;
}

const char *sbd_value_hint(const char *signature) {
        switch (signature && strlen(signature) == 1 ? signature[0] : '\0') {
        case 'b': return "a boolean (yes/no, true/false, on/off, 1/0)";
        case 't': return "a size in bytes, optionally with a K, M, G, T, P or E suffix";
        case 'y': case 'q': case 'u': return "an unsigned decimal number";
        case 'n': case 'i': case 'x': return "a decimal number";
        case 'd': return "a floating point number";
        case 'o': return "an object path";
        case 's': case 'g': return "a string";
        default: return "a value this client cannot write (container type)";
        }
}

char *sbd_format_bytes(char *buf, size_t l, uint64_t bytes) {
        static const char units[] = "KMGTPE";

        for (int i = (int) sizeof(units) - 2; i >= 0; i--) {
                unsigned shift = 10 * (unsigned) (i + 1);
                uint64_t factor = UINT64_C(1) << shift;

                if (bytes >= factor) {
                        snprintf(buf, l, "%" PRIu64 ".%" PRIu64 "%c",
                                 bytes >> shift,
                                 ((bytes & (factor - 1)) * 10) >> shift, /* one decimal, truncated */
                                 units[i]);
                        return buf;
                }
        }
        snprintf(buf, l, "%" PRIu64 "B", bytes);
        return buf;
}

char *sbd_format_bytes_exact(char *buf, size_t l, uint64_t bytes) {
        static const char units[] = "KMGTPE";

        for (int i = (int) sizeof(units) - 2; i >= 0 && bytes > 0; i--) {
                unsigned shift = 10 * (unsigned) (i + 1);

                if ((bytes & ((UINT64_C(1) << shift) - 1)) == 0) {
                        snprintf(buf, l, "%" PRIu64 "%c", bytes >> shift, units[i]);
                        return buf;
                }
        }
        snprintf(buf, l, "%" PRIu64, bytes);
        return buf;
}
