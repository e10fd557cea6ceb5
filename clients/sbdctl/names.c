/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <systemd/sd-bus.h>

#include "names.h"
#include "util.h"

static bool is_member_char(char c, bool first) {
        if (c >= 'A' && c <= 'Z')
                return true;
        if (c >= 'a' && c <= 'z')
                return true;
        return !first && c >= '0' && c <= '9';
}

int sbd_property_name(const char *attribute, char **ret) {
        size_t n = 0;
        bool part_start = true;
        _cleanup_free_ char *name = NULL;

        if (!attribute || !*attribute)
                return -EINVAL;

        name = malloc(strlen(attribute) + 1);
        if (!name)
                return -ENOMEM;

        for (const char *p = attribute; *p; p++) {
                if (*p == '_' || *p == '/') {
                        part_start = true;
                        continue;
                }
                if (!is_member_char(*p, n == 0))
                        return -EINVAL;
                name[n++] = part_start ? (char) toupper((unsigned char) *p) : *p;
                part_start = false;
        }
        if (n == 0)
                return -EINVAL;
        name[n] = '\0';

        *ret = TAKE_PTR(name);
        return 0;
}

bool sbd_object_path_is_valid(const char *s) {
        bool slash = true;

        if (!s || s[0] != '/')
                return false;
        if (s[1] == '\0')
                return true;

        for (const char *p = s + 1; *p; p++) {
                if (*p == '/') {
                        if (slash)
                                return false;
                        slash = true;
                        continue;
                }
                if (!is_member_char(*p, false) && *p != '_')
                        return false;
                slash = false;
        }
        return !slash;
}

int sbd_device_path(const char *dev, char **ret) {
        const char *name;
        char *path;

        if (!dev || !*dev)
                return -EINVAL;

        name = startswith(dev, "/dev/");
        if (!name && dev[0] == '/') {
                if (!sbd_object_path_is_valid(dev))
                        return -EINVAL;
                path = strdup(dev);
                if (!path)
                        return -ENOMEM;
                *ret = path;
                return 0;
        }
        if (!name)
                name = dev;
        if (!*name || strchr(name, '/'))
                return -EINVAL;

        return sd_bus_path_encode(SBD_DEVICES_PATH, name, ret);
}

static char *prefixed_name(const char *path, const char *prefix, const char *label) {
        _cleanup_free_ char *id = NULL;
        char *s = NULL;

        if (sd_bus_path_decode(path, prefix, &id) <= 0)
                return NULL;
        if (!label)
                return TAKE_PTR(id);
        if (asprintf(&s, "%s %s", label, id) < 0)
                return NULL;
        return s;
}

int sbd_object_name(const char *path, char **ret) {
        char *s;

        if (streq(path, SBD_ROOT_PATH))
                s = strdup("manager");
        else if (streq(path, SBD_MODULE_PATH))
                s = strdup("module");
        else {
                s = prefixed_name(path, SBD_DEVICES_PATH, NULL);
                if (!s)
                        s = prefixed_name(path, SBD_DRIVERS_PATH, "driver");
                if (!s)
                        s = strdup(path);
        }
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

/* Natural order: runs of digits compare by their numeric value. */
int sbd_name_compare(const char *a, const char *b) {
        while (*a && *b) {
                if (isdigit((unsigned char) *a) && isdigit((unsigned char) *b)) {
                        char *ea, *eb;
                        unsigned long long na = strtoull(a, &ea, 10);
                        unsigned long long nb = strtoull(b, &eb, 10);

                        if (na != nb)
                                return na < nb ? -1 : 1;
                        a = ea;
                        b = eb;
                        continue;
                }
                if (*a != *b)
                        return (unsigned char) *a < (unsigned char) *b ? -1 : 1;
                a++;
                b++;
        }
        return (unsigned char) *a - (unsigned char) *b;
}
