/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The announcer (daemon/announce.c): listeners run in the order they
 * subscribed, only for their kind, see what earlier ones did (claimed),
 * and subscribing is bounded. */

#include <errno.h>

#include "announce.h"
#include "check.h"

static char order[16];
static unsigned n_order;

static void first(struct change *c, void *userdata) {
        order[n_order++] = *(const char *) userdata;
        c->claimed = true; /* as an AddDevice waiter answering its request */
}

static void second(struct change *c, void *userdata) {
        order[n_order++] = c->claimed ? 'C' : *(const char *) userdata;
}

int main(void) {
        struct announcer a = {};
        struct change c = { .kind = CHANGE_OBJECT_ADDED, .name = "sbd3" };
        static const char tag_a = 'a', tag_b = 'b', tag_x = 'x';

        CHECK(announce_subscribe(&a, CHANGE_OBJECT_ADDED, first, (void *) &tag_a) == 0);
        CHECK(announce_subscribe(&a, CHANGE_OBJECT_ADDED, second, (void *) &tag_b) == 0);
        CHECK(announce_subscribe(&a, CHANGE_OBJECT_REMOVED, second, (void *) &tag_x) == 0);

        /* in order; the second sees the first's claim */
        announce(&a, &c);
        order[n_order] = '\0';
        CHECK_STREQ(order, "aC");

        /* only the removal's listener, and nothing claimed there */
        n_order = 0;
        c = (struct change) { .kind = CHANGE_OBJECT_REMOVED, .name = "sbd3" };
        announce(&a, &c);
        order[n_order] = '\0';
        CHECK_STREQ(order, "x");

        /* a kind nobody listens to: nothing runs */
        n_order = 0;
        c = (struct change) { .kind = CHANGE_CALLER_GONE, .name = ":1.7" };
        announce(&a, &c);
        CHECK(n_order == 0);

        /* bounded, and bad arguments refused */
        for (unsigned i = 2; i < ANNOUNCE_LISTENERS_MAX; i++)
                CHECK(announce_subscribe(&a, CHANGE_OBJECT_ADDED, second, (void *) &tag_b) == 0);
        CHECK(announce_subscribe(&a, CHANGE_OBJECT_ADDED, second, (void *) &tag_b) == -ENOBUFS);
        CHECK(announce_subscribe(&a, _CHANGE_KIND_MAX, second, NULL) == -EINVAL);
        CHECK(announce_subscribe(&a, CHANGE_LISTS, NULL, NULL) == -EINVAL);
        return check_finish("test-announce");
}
