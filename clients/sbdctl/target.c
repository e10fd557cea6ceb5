/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "bus.h"
#include "names.h"
#include "target.h"

static bool has_own_interface(const SbdIntrospection *i) {
        for (char **s = i->interfaces; s && *s; s++)
                if (!sbd_interface_is_standard(*s))
                        return true;
        return false;
}

int sbd_target_open(sd_bus *bus, const char *dev, SbdTarget *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        SbdTarget t = {};
        int r;

        r = sbd_device_path(dev, &t.path);
        if (r < 0) {
                fprintf(stderr, "sbdctl: Invalid device '%s': expected a name like sbd0 or an object path.\n", dev);
                return r;
        }
        r = sbd_object_name(t.path, &t.name);
        if (r >= 0)
                r = sbd_introspect(bus, t.path, &t.introspection, &error);
        if (r < 0) {
                sbd_log_bus_error(r, &error, "Failed to look up %s", t.name ?: t.path);
                sbd_target_done(&t);
                return r;
        }
        if (!has_own_interface(&t.introspection)) {
                fprintf(stderr, "sbdctl: No device %s on %s (%s).\n", t.name, SBD_BUS_NAME, t.path);
                sbd_target_done(&t);
                return -ENXIO;
        }

        *ret = t;
        return 0;
}

int sbd_target_find_property(SbdTarget *t, const char *attr) {
        _cleanup_free_ char *name = NULL;
        int r;

        r = sbd_property_name(attr, &name);
        if (r < 0) {
                fprintf(stderr, "sbdctl: Invalid attribute name '%s'.\n", attr);
                return r;
        }
        t->property = sbd_introspection_find(&t->introspection, NULL, name);
        if (!t->property) {
                fprintf(stderr, "sbdctl: %s has no attribute '%s' (no property %s).\n", t->name, attr, name);
                return -ENOENT;
        }
        return 0;
}

void sbd_target_done(SbdTarget *t) {
        free(t->path);
        free(t->name);
        sbd_introspection_done(&t->introspection);
        *t = (SbdTarget) {};
}
