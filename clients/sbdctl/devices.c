/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "devices.h"
#include "names.h"
#include "util.h"
#include "variant.h"

static int read_string(sd_bus_message *m, char **ret) {
        const char *s;
        int r;

        r = sd_bus_message_read(m, "v", "s", &s);
        if (r < 0)
                return r;
        free(*ret);
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int read_bool(sd_bus_message *m, int *ret) {
        int b, r;

        r = sd_bus_message_read(m, "v", "b", &b);
        if (r < 0)
                return r;
        *ret = !!b;
        return 0;
}

/* One name/value entry of a device's a{sv}; values of unexpected types are skipped. */
static int read_property(sd_bus_message *m, SbdDevice *d) {
        const char *name, *type;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r >= 0)
                r = sbd_variant_peek_signature(m, &type);
        if (r < 0)
                return r;

        if (streq(name, "SysName") && streq(type, "s"))
                return read_string(m, &d->name);
        if (streq(name, "Label") && streq(type, "s"))
                return read_string(m, &d->label);
        if (streq(name, "BlockDevice") && streq(type, "s"))
                return read_string(m, &d->block_device);
        if (streq(name, "ReadOnly") && streq(type, "b"))
                return read_bool(m, &d->read_only);
        if (streq(name, "Online") && streq(type, "b"))
                return read_bool(m, &d->online);
        if (streq(name, "Size") && streq(type, "t")) {
                d->has_size = true;
                return sd_bus_message_read(m, "v", "t", &d->size);
        }
        return sd_bus_message_skip(m, "v");
}

static int read_device(sd_bus_message *m, SbdDevice *d) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                r = read_property(m, d);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static void device_done(SbdDevice *d) {
        free(d->path);
        free(d->name);
        free(d->label);
        free(d->block_device);
}

static int append_device(SbdDevices *list, SbdDevice *d) {
        SbdDevice *n;

        if (!d->name) {
                int r = sbd_object_name(d->path, &d->name);
                if (r < 0)
                        return r;
        }
        n = realloc(list->devices, (list->n + 1) * sizeof(SbdDevice));
        if (!n)
                return -ENOMEM;
        list->devices = n;
        list->devices[list->n++] = *d;
        *d = (SbdDevice) {};
        return 0;
}

/* One object of GetManagedObjects: o, a{sa{sv}}. */
static int read_object(sd_bus_message *m, SbdDevices *list) {
        SbdDevice d = { .read_only = -1, .online = -1 };
        bool is_device = false;
        const char *path, *interface;
        int r;

        r = sd_bus_message_read(m, "o", &path);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
                r = sd_bus_message_read(m, "s", &interface);
                if (r >= 0 && streq(interface, SBD_DEVICE_INTERFACE)) {
                        is_device = true;
                        r = read_device(m, &d);
                } else if (r >= 0)
                        r = sd_bus_message_skip(m, "a{sv}");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0 && is_device) {
                d.path = strdup(path);
                r = d.path ? append_device(list, &d) : -ENOMEM;
        }
        device_done(&d);
        return r;
}

static int device_compare(const void *a, const void *b) {
        return sbd_name_compare(((const SbdDevice *) a)->name, ((const SbdDevice *) b)->name);
}

int sbd_devices_load(sd_bus *bus, SbdDevices *ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        SbdDevices list = {};
        int r;

        r = sd_bus_call_method(bus, SBD_BUS_NAME, SBD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", error, &reply, NULL);
        if (r < 0)
                return r;

        r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
                r = read_object(reply, &list);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r < 0) {
                sbd_devices_done(&list);
                return r;
        }

        if (list.n > 1)
                qsort(list.devices, list.n, sizeof(SbdDevice), device_compare);
        *ret = list;
        return 0;
}

void sbd_devices_done(SbdDevices *d) {
        for (size_t i = 0; i < d->n; i++)
                device_done(d->devices + i);
        free(d->devices);
        *d = (SbdDevices) {};
}
