/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Resolving the DEV and ATTR arguments of a command against the live objects:
 * DEV to an object path that exists, ATTR to a property its introspection declares. */

#include <systemd/sd-bus.h>

#include "introspect.h"

typedef struct SbdTarget {
        char *path;
        char *name;                     /* for messages: "sbd0" */
        SbdIntrospection introspection;
        const SbdProperty *property;    /* points into introspection */
} SbdTarget;

/* Resolves DEV and introspects it; prints the problem and returns < 0 when the
 * object does not exist or the daemon cannot be reached. */
int sbd_target_open(sd_bus *bus, const char *dev, SbdTarget *ret);

/* Finds ATTR (sysfs or property name) among the object's properties; prints the
 * problem and returns -ENOENT when it has no such property. */
int sbd_target_find_property(SbdTarget *t, const char *attr);

void sbd_target_done(SbdTarget *t);
