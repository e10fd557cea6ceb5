/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attr.h"
#include "util.h"

int attr_property_name(const char *file, char **ret) {
        size_t n = strlen(file);
        char *out, *o;
        bool start = true;

        /* One extra byte for a possible "X" before a leading digit. */
        out = malloc(n + 2);
        if (!out)
                return -ENOMEM;
        o = out;
        for (const char *p = file; *p; p++) {
                unsigned char c = (unsigned char) *p;

                if (!isascii(c) || !isalnum(c)) {
                        start = true;
                        continue;
                }
                if (o == out && isdigit(c))
                        *o++ = 'X';
                *o++ = start ? (char) toupper(c) : (char) c;
                start = false;
        }
        *o = '\0';
        if (o == out || o - out > 255) {
                free(out);
                return -EINVAL;
        }
        *ret = out;
        return 0;
}

char attr_type(enum object_kind kind, const char *property) {
        /* The contract's schema: the few typed attributes of this project.
         * Keyed by property name and kind so that an attribute a newer
         * module adds elsewhere stays a string. */
        if (kind == OBJECT_DEVICE) {
                if (streq(property, "Size"))
                        return 't';
                if (streq(property, "ReadOnly") || streq(property, "Online"))
                        return 'b';
        } else if (kind == OBJECT_DRIVER) {
                if (streq(property, "Ndevices"))
                        return 'u';
        }
        return 's';
}

unsigned attr_flags(enum object_kind kind, const char *file) {
        if (kind == OBJECT_DEVICE &&
            (streq(file, "size") || streq(file, "read_only") || streq(file, "label")))
                return ATTR_WATCH;
        /* The driver core's power group: runtime PM counters run on
         * continuously and control/status change without any event. */
        if (startswith(file, "power/"))
                return ATTR_LIVE;
        /* The module's memory use, and each disk's, moves with every
         * write and no event says so. */
        if (streq(file, "mem_used"))
                return ATTR_LIVE;
        return 0;
}

bool attr_mode_is_property(unsigned mode) {
        /* Readable by its owner: write-only files are reached through
         * methods. Whether everybody may see the value is decided each
         * time it is served (attr_mode_is_shown()), as modes can change. */
        return S_ISREG(mode) && (mode & S_IRUSR);
}

bool attr_mode_is_shown(unsigned mode) {
        /* World-readable only: sbdd answers every local user, and must
         * not show them what the kernel shows root alone. */
        return mode & S_IROTH;
}

bool attr_mode_is_writable(unsigned mode) {
        return mode & S_IWUSR;
}

bool attr_is_writable(const char *file, unsigned mode) {
        /* uevent is writable by root, but a write there makes the kernel
         * announce an event ("remove" included) that did not happen. */
        return attr_mode_is_writable(mode) && !streq(path_basename(file), "uevent");
}

bool attr_destructive(enum object_kind kind, const char *file) {
        return kind == OBJECT_DEVICE &&
               (streq(file, "size") || streq(file, "online") || streq(file, "read_only"));
}

int attr_parse_bool(const char *s, bool *ret) {
        /* kstrtobool's spellings. */
        if (streq(s, "1") || streq(s, "y") || streq(s, "Y") || streq(s, "on") || streq(s, "yes")) {
                *ret = true;
                return 0;
        }
        if (streq(s, "0") || streq(s, "n") || streq(s, "N") || streq(s, "off") || streq(s, "no")) {
                *ret = false;
                return 0;
        }
        return -EINVAL;
}

int attr_parse_u64(const char *s, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int attr_parse_u32(const char *s, uint32_t *ret) {
        uint64_t v;
        int r = attr_parse_u64(s, &v);

        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

size_t attr_strip_newline(char *buf, size_t len) {
        if (len > 0 && buf[len - 1] == '\n')
                len--;
        buf[len] = '\0';
        return len;
}

int path_resolve_link(const char *dir, const char *target, char **ret) {
        size_t n = strlen(dir) + strlen(target) + 2;
        _cleanup_free_ char *buf = NULL;
        char *out;
        const char *p;

        out = malloc(n);
        if (!out)
                return -ENOMEM;
        buf = malloc(n);
        if (!buf) {
                free(out);
                return -ENOMEM;
        }
        if (target[0] == '/')
                strcpy(buf, target);
        else
                snprintf(buf, n, "%s/%s", dir, target);

        /* Normalise component by component: drop "." and empty parts,
         * let ".." eat the previous part (never above "/"). */
        out[0] = '\0';
        p = buf;
        while (*p) {
                size_t l;

                while (*p == '/')
                        p++;
                l = strcspn(p, "/");
                if (l == 0)
                        break;
                if (l == 1 && p[0] == '.') {
                        /* nothing */
                } else if (l == 2 && p[0] == '.' && p[1] == '.') {
                        char *slash = strrchr(out, '/');
                        if (slash)
                                *slash = '\0';
                } else {
                        size_t ol = strlen(out);
                        out[ol] = '/';
                        memcpy(out + ol + 1, p, l);
                        out[ol + 1 + l] = '\0';
                }
                p += l;
        }
        if (out[0] == '\0')
                strcpy(out, "/");
        *ret = out;
        return 0;
}

const char *path_basename(const char *path) {
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}
