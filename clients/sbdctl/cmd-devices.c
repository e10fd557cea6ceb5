/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl add SIZE [--id N], sbdctl remove DEV: creating and deleting disks. */

#include <errno.h>

#include "bus.h"
#include "json.h"
#include "names.h"
#include "sbdctl.h"
#include "util.h"
#include "values.h"

static void print_device_json(const Context *c, const char *path) {
        _cleanup_free_ char *name = NULL;
        SbdJson j = sbd_json_new(stdout, c->json_pretty);

        sbd_json_begin_object(&j);
        sbd_json_key(&j, "name");
        if (sbd_object_name(path, &name) >= 0)
                sbd_json_string(&j, name);
        else
                sbd_json_null(&j);
        sbd_json_key(&j, "path");
        sbd_json_string(&j, path);
        sbd_json_end_object(&j);
        fputc('\n', stdout);
}

static int build_add(Context *c, uint64_t size, sd_bus_message **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(c->bus, &m, SBD_BUS_NAME, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE, "AddDevice");
        if (r >= 0)
                r = sd_bus_message_append(m, "t", size);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0 && c->has_id)
                r = sd_bus_message_append(m, "{sv}", "id", "u", c->id);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

int verb_add(Context *c, int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_free_ char *name = NULL;
        const char *path;
        uint64_t size;
        int r;

        r = sbd_parse_size(argv[1], &size);
        if (r < 0) {
                fprintf(stderr, "sbdctl: Invalid size '%s': expected %s.\n", argv[1], sbd_value_hint("t"));
                return r;
        }

        r = build_add(c, size, &m);
        if (r < 0)
                return sbd_log_errno(r, "Failed to build the request");
        r = sd_bus_call(c->bus, m, 0, &error, &reply);
        if (r < 0)
                return sbd_log_bus_error(r, &error, "Failed to add a device of %s", argv[1]);
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return sbd_log_errno(r, "Failed to read the reply");

        if (c->json)
                print_device_json(c, path);
        else if (sbd_object_name(path, &name) >= 0)
                printf("Created %s (%s).\n", name, path);
        return 0;
}

int verb_remove(Context *c, int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = sbd_device_path(argv[1], &path);
        if (r < 0) {
                fprintf(stderr, "sbdctl: Invalid device '%s': expected a name like sbd0 or an object path.\n", argv[1]);
                return r;
        }

        r = sd_bus_call_method(c->bus, SBD_BUS_NAME, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE, "RemoveDevice",
                               &error, NULL, "oa{sv}", path, 0);
        if (r < 0)
                return sbd_log_bus_error(r, &error, "Failed to remove %s", argv[1]);
        if (c->json)
                print_device_json(c, path);
        return 0;
}
