/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl list: one line per device. */

#include <errno.h>

#include "bus.h"
#include "devices.h"
#include "json.h"
#include "sbdctl.h"
#include "table.h"
#include "util.h"
#include "values.h"

static void json_optional_bool(SbdJson *j, const char *key, int b) {
        sbd_json_key(j, key);
        if (b < 0)
                sbd_json_null(j);
        else
                sbd_json_boolean(j, b);
}

static void json_optional_string(SbdJson *j, const char *key, const char *s) {
        sbd_json_key(j, key);
        if (s)
                sbd_json_string(j, s);
        else
                sbd_json_null(j);
}

static void list_json(const Context *c, const SbdDevices *list) {
        SbdJson j = sbd_json_new(stdout, c->json_pretty);

        sbd_json_begin_array(&j);
        for (size_t i = 0; i < list->n; i++) {
                const SbdDevice *d = list->devices + i;

                sbd_json_begin_object(&j);
                json_optional_string(&j, "name", d->name);
                json_optional_string(&j, "path", d->path);
                sbd_json_key(&j, "size");
                if (d->has_size)
                        sbd_json_unsigned(&j, d->size);
                else
                        sbd_json_null(&j);
                json_optional_bool(&j, "read_only", d->read_only);
                json_optional_bool(&j, "online", d->online);
                json_optional_string(&j, "label", d->label);
                json_optional_string(&j, "block_device", d->block_device);
                sbd_json_end_object(&j);
        }
        sbd_json_end_array(&j);
        fputc('\n', stdout);
}

static const char *tristate(int b) {
        return b < 0 ? "-" : yes_no(b);
}

static int add_row(SbdTable *t, const SbdDevice *d) {
        char size[SBD_FORMAT_BYTES_MAX] = "-";
        int r;

        if (d->has_size)
                sbd_format_bytes(size, sizeof(size), d->size);

        r = sbd_table_add(t, d->name, ANSI_HIGHLIGHT);
        if (r >= 0)
                r = sbd_table_add(t, size, NULL);
        if (r >= 0)
                r = sbd_table_add(t, tristate(d->read_only), d->read_only > 0 ? ANSI_HIGHLIGHT : NULL);
        if (r >= 0)
                r = sbd_table_add(t, tristate(d->online), d->online == 0 ? ANSI_RED : NULL);
        if (r >= 0)
                r = sbd_table_add(t, d->label ?: "-", NULL);
        if (r >= 0)
                r = sbd_table_add(t, d->block_device && *d->block_device ? d->block_device : "-", NULL);
        return r;
}

static int list_table(Context *c, const SbdDevices *list) {
        _cleanup_(sbd_table_freep) SbdTable *t = NULL;
        int r = 0;

        t = sbd_table_new("DEVICE", "SIZE", "READ-ONLY", "ONLINE", "LABEL", "BLOCK", NULL);
        if (!t)
                return sbd_log_errno(-ENOMEM, "Failed to build the table");
        for (size_t i = 0; i < list->n && r >= 0; i++)
                r = add_row(t, list->devices + i);
        if (r < 0)
                return sbd_log_errno(r, "Failed to build the table");

        if (list->n > 0 || c->legend)
                sbd_table_print(t, stdout, c->legend, c->colors);
        if (c->legend)
                printf("\n%zu device%s listed.\n", list->n, list->n == 1 ? "" : "s");
        return 0;
}

int verb_list(Context *c, int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sbd_devices_done) SbdDevices list = {};
        int r;

        r = sbd_devices_load(c->bus, &list, &error);
        if (r < 0)
                return sbd_log_bus_error(r, &error, "Failed to list the devices");

        if (c->json)
                list_json(c, &list);
        else
                r = list_table(c, &list);
        return r;
}
