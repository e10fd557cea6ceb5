/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Announcing a change to whoever subscribed to its kind. Synchronous and
 * in subscription order: listeners depend on each other's effects (an
 * AddDevice waiter claims its device before the audit trail would record
 * the device as seen from the kernel), and the whole daemon is one
 * thread, so a listener runs exactly where the change is seen, with the
 * tree in the state the change left it. No allocation: the listeners are
 * a fixed handful, subscribed once at start-up. */

#include <errno.h>

#include "announce.h"

int announce_subscribe(struct announcer *a, enum change_kind kind, change_listener_t fn, void *userdata) {
        if (kind < 0 || kind >= _CHANGE_KIND_MAX || !fn)
                return -EINVAL;
        if (a->n[kind] >= ANNOUNCE_LISTENERS_MAX)
                return -ENOBUFS;
        a->listeners[kind][a->n[kind]].fn = fn;
        a->listeners[kind][a->n[kind]].userdata = userdata;
        a->n[kind]++;
        return 0;
}

void announce(const struct announcer *a, struct change *c) {
        for (unsigned i = 0; i < a->n[c->kind]; i++)
                a->listeners[c->kind][i].fn(c, a->listeners[c->kind][i].userdata);
}
