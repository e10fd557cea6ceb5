/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The properties an object declares in its introspection XML: their interface,
 * type and access. sbdctl types the values it writes from these. */

#include <stdbool.h>
#include <stddef.h>

typedef struct SbdProperty {
        char *interface;
        char *name;
        char *type;
        bool readable;
        bool writable;
} SbdProperty;

typedef struct SbdIntrospection {
        SbdProperty *properties;
        size_t n_properties;
        char **interfaces;      /* NULL-terminated, in document order */
} SbdIntrospection;

/* Parses org.freedesktop.DBus.Introspectable XML. -EBADMSG on malformed input. */
int sbd_introspection_parse(const char *xml, SbdIntrospection *ret);

void sbd_introspection_done(SbdIntrospection *i);

/* Whether an interface is one of the bus's standard org.freedesktop.DBus.* ones. */
bool sbd_interface_is_standard(const char *interface);

/* Finds a property by name in the given interface, or when interface is NULL
 * in any interface that is not a standard one. */
const SbdProperty *sbd_introspection_find(const SbdIntrospection *i, const char *interface, const char *name);
