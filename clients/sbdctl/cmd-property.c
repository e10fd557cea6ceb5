/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl get DEV ATTR, sbdctl set DEV ATTR VALUE */

#include "property.h"
#include "util.h"
#include "sbdctl.h"
#include "target.h"

/* DEV ATTR of argv: the object and its property. */
static int open_property(Context *c, char **argv, SbdTarget *t) {
        int r;

        r = sbd_target_open(c->bus, argv[1], t);
        if (r < 0)
                return r;
        return sbd_target_find_property(t, argv[2]);
}

int verb_get(Context *c, int argc, char **argv) {
        _cleanup_(sbd_target_done) SbdTarget t = {};
        int r;

        r = open_property(c, argv, &t);
        if (r < 0)
                return r;
        return sbd_property_print(c, &t);
}

int verb_set(Context *c, int argc, char **argv) {
        _cleanup_(sbd_target_done) SbdTarget t = {};
        int r;

        r = open_property(c, argv, &t);
        if (r < 0)
                return r;
        r = sbd_property_write(c, &t, argv[3]);
        if (r < 0)
                return r;
        /* With --json, show what the daemon read back from sysfs. */
        return c->json ? sbd_property_print(c, &t) : 0;
}
