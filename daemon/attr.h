/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The contract's rules for sysfs attributes as D-Bus properties: names,
 * types, which attributes are watched or read live, and value parsing.
 * Everything here is pure so that tests/unit can check it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum object_kind {
        OBJECT_DRIVER,
        OBJECT_DEVICE,
        _OBJECT_KIND_MAX,
};

enum {
        /* The owner may write the file: the property is readwrite. */
        ATTR_WRITABLE = 1 << 0,
        /* The kernel sysfs_notify()s this attribute: watch it for POLLPRI. */
        ATTR_WATCH = 1 << 1,
        /* The kernel never announces changes (power/ counters and state):
         * read on every Get, no PropertiesChanged, not in GetAll. */
        ATTR_LIVE = 1 << 2,
};

/* sysfs takes at most one page per write(2); longer values are refused. */
#define ATTR_VALUE_MAX 4096

/* "power/runtime_status" -> "PowerRuntimeStatus". Parts are split at '_'
 * and '/' (and, beyond the contract, at any other character a D-Bus member
 * name cannot hold); a result that would start with a digit gets an "X"
 * in front. Returns 0, -EINVAL when nothing usable is left, -ENOMEM. */
int attr_property_name(const char *file, char **ret);

/* The D-Bus type of a property: 't', 'b', 'u' for the schema's typed
 * attributes, 's' for everything else. */
char attr_type(enum object_kind kind, const char *property);

/* ATTR_WATCH / ATTR_LIVE for a file of an object of this kind. */
unsigned attr_flags(enum object_kind kind, const char *file);

/* Whether a file found in an object's directory becomes a property:
 * readable by its owner (write-only files are reached by methods). */
bool attr_mode_is_property(unsigned mode);
/* Whether a property's value may be shown: its file is readable by
 * everybody (sbdd answers every local user; a root-only file's value is
 * not shown to them). Checked against the file's mode as it is now. */
bool attr_mode_is_shown(unsigned mode);
bool attr_mode_is_writable(unsigned mode);
/* Whether the property of that file is writable: its owner may write it,
 * and it is not "uevent" (a write there forges events). */
bool attr_is_writable(const char *file, unsigned mode);
/* Writes that can lose data or cut off users (size, online, read_only):
 * polkit gets "destructive" = "true" in the details for rules. */
bool attr_destructive(enum object_kind kind, const char *file);

/* Parse an attribute's text the way the kernel prints it. */
int attr_parse_bool(const char *s, bool *ret);
int attr_parse_u64(const char *s, uint64_t *ret);
int attr_parse_u32(const char *s, uint32_t *ret);

/* Drop one trailing newline, as sysfs show() functions print one. */
size_t attr_strip_newline(char *buf, size_t len);

/* Resolve a symlink target read from a link inside directory dir, e.g.
 * ("/sys/bus/sbd/devices", "../../../devices/system/sbd/sbd0") ->
 * "/sys/devices/system/sbd/sbd0". Pure string work, no file access. */
int path_resolve_link(const char *dir, const char *target, char **ret);

/* "sbd0" of "/sys/devices/system/sbd/sbd0" (points into path). */
const char *path_basename(const char *path);
