/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* One place where a change is announced (announce.c). The code that sees
 * a change announces it once; the files that care subscribe to it, once,
 * at start-up. The announcer knows nobody: main.c, which knows everyone,
 * does the subscribing. Dependencies then run one way, from the listeners
 * (higher floors: the waiters, the service status) down to the code that
 * sees the change, never back up. */

#include <stdbool.h>

struct sbd_object;

enum change_kind {
        CHANGE_OBJECT_ADDED,    /* object, name, path (InterfacesAdded sent) */
        CHANGE_OBJECT_REMOVED,  /* name, path: the object is freed already */
        CHANGE_ATTRIBUTE,       /* object, path, attribute, old_value, new_value, hidden */
        CHANGE_DEVICE_DRIVER,   /* object, path, new_value: its driver's path, or "/" */
        CHANGE_MODULE,          /* old_value, new_value: its state (Module.State) */
        CHANGE_LISTS,           /* the lists of objects as announced on the bus */
        CHANGE_CALLER_GONE,     /* name: a caller's unique name that left the bus */
        _CHANGE_KIND_MAX,
};

struct change {
        enum change_kind kind;
        int object_kind;              /* enum object_kind */
        struct sbd_object *object;    /* NULL once removed */
        const char *name, *path;
        const char *attribute;        /* the sysfs file */
        const char *old_value, *new_value;
        bool hidden;                  /* the value is not world-readable */
        /* Set by a listener whose request asked for this change (an
         * AddDevice or RemoveDevice waiter): it has been answered and
         * recorded as that request's, later listeners leave it be. */
        bool claimed;
};

typedef void (*change_listener_t)(struct change *c, void *userdata);

#define ANNOUNCE_LISTENERS_MAX 4

struct announcer {
        struct {
                change_listener_t fn;
                void *userdata;
        } listeners[_CHANGE_KIND_MAX][ANNOUNCE_LISTENERS_MAX];
        unsigned n[_CHANGE_KIND_MAX];
};

/* -ENOBUFS beyond ANNOUNCE_LISTENERS_MAX of a kind. */
int announce_subscribe(struct announcer *a, enum change_kind kind, change_listener_t fn, void *userdata);
/* Runs the change's listeners at once, in the order they subscribed. */
void announce(const struct announcer *a, struct change *c);
