/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl show DEV: every property of a device, with its type and access. */

#include <errno.h>
#include <inttypes.h>

#include "bus.h"
#include "names.h"
#include "sbdctl.h"
#include "table.h"
#include "target.h"
#include "util.h"
#include "values.h"
#include "variant.h"

typedef struct Row {
        char *name;
        char *type;
        char *value;
        const char *access;
} Row;

typedef struct Rows {
        Row *rows;
        size_t n;
} Rows;

static void rows_done(Rows *r) {
        for (size_t i = 0; i < r->n; i++) {
                free(r->rows[i].name);
                free(r->rows[i].type);
                free(r->rows[i].value);
        }
        free(r->rows);
}

static int row_compare(const void *a, const void *b) {
        return strcmp(((const Row *) a)->name, ((const Row *) b)->name);
}

static bool is_size(const char *name, const char *type) {
        size_t l = strlen(name);

        return streq(type, "t") && l >= 4 && streq(name + l - 4, "Size");
}

/* "16.0M (16777216)" for sizes, the plain text otherwise. */
static int value_text(sd_bus_message *m, const char *name, const char *type, char **ret) {
        char buf[SBD_FORMAT_BYTES_MAX];
        uint64_t bytes;
        int r;

        if (!is_size(name, type))
                return sbd_value_to_text(m, false, ret);
        r = sd_bus_message_read(m, "v", "t", &bytes);
        if (r < 0)
                return r;
        return asprintf(ret, "%s (%" PRIu64 ")", sbd_format_bytes(buf, sizeof(buf), bytes), bytes) < 0 ? -ENOMEM : 0;
}

/* Takes value, also on failure. */
static int add_row(Rows *rows, const char *name, const char *type, const char *access, char *value) {
        Row row = { .name = strdup(name), .type = strdup(type), .value = value, .access = access };
        Row *n = NULL;

        if (row.name && row.type)
                n = realloc(rows->rows, (rows->n + 1) * sizeof(Row));
        if (!n) {
                free(row.name);
                free(row.type);
                free(value);
                return -ENOMEM;
        }
        rows->rows = n;
        rows->rows[rows->n++] = row;
        return 0;
}

/* One property, the message positioned on its variant: a row, or a JSON member. */
static int read_property(sd_bus_message *m, const char *name, const SbdTarget *t, const char *interface,
                         Rows *rows, SbdJson *j) {
        const SbdProperty *p = sbd_introspection_find(&t->introspection, interface, name);
        const char *type;
        char *value;
        int r;

        if (j) {
                sbd_json_key(j, name);
                return sbd_value_to_json(m, j);
        }
        r = sbd_variant_peek_signature(m, &type);
        if (r < 0)
                return r;
        r = value_text(m, name, type, &value);
        if (r < 0)
                return r;
        return add_row(rows, name, type, !p ? "?" : p->writable ? "readwrite" : "read", value);
}

/* The names GetAll returned for one interface. */
typedef struct Names {
        char **names;
        size_t n;
} Names;

static void names_done(Names *s) {
        for (size_t i = 0; i < s->n; i++)
                free(s->names[i]);
        free(s->names);
}

static bool seen(const Names *s, const char *name) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->names[i], name))
                        return true;
        return false;
}

static int names_add(Names *s, const char *name) {
        char **n = realloc(s->names, (s->n + 1) * sizeof(char *));

        if (!n)
                return -ENOMEM;
        s->names = n;
        s->names[s->n] = strdup(name);
        return s->names[s->n++] ? 0 : -ENOMEM;
}

/* Reads the a{sv} of GetAll; remembers the names it had. */
static int read_all(sd_bus_message *m, const SbdTarget *t, const char *interface, Rows *rows, SbdJson *j,
                    Names *names) {
        const char *name;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &name);
                if (r >= 0)
                        r = names_add(names, name);
                if (r >= 0)
                        r = read_property(m, name, t, interface, rows, j);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        return r < 0 ? r : sd_bus_message_exit_container(m);
}

/* Properties GetAll leaves out (sbdd's live power/ attributes) are read one by one. */
static int get_left_out(Context *c, const SbdTarget *t, const char *interface, Rows *rows, SbdJson *j,
                        const Names *names) {
        int r;

        for (size_t k = 0; k < t->introspection.n_properties; k++) {
                const SbdProperty *p = t->introspection.properties + k;
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

                if (!streq(p->interface, interface) || !p->readable || seen(names, p->name))
                        continue;
                r = sd_bus_call_method(c->bus, SBD_BUS_NAME, t->path, "org.freedesktop.DBus.Properties", "Get",
                                       &error, &reply, "ss", interface, p->name);
                if (r < 0) { /* one unreadable attribute does not hide the others */
                        sbd_log_bus_error(r, &error, "Failed to get %s of %s", p->name, t->name);
                        continue;
                }
                r = read_property(reply, p->name, t, interface, rows, j);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int get_interface(Context *c, const SbdTarget *t, const char *interface, Rows *rows, SbdJson *j) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(names_done) Names names = {};
        int r;

        r = sd_bus_call_method(c->bus, SBD_BUS_NAME, t->path, "org.freedesktop.DBus.Properties", "GetAll",
                               &error, &reply, "s", interface);
        if (r < 0)
                sbd_log_bus_error(r, &error, "Failed to get the properties of %s", t->name);
        else {
                r = read_all(reply, t, interface, rows, j, &names);
                if (r >= 0)
                        r = get_left_out(c, t, interface, rows, j, &names);
                if (r < 0)
                        sbd_log_errno(r, "Failed to read the properties of %s", t->name);
        }
        return r;
}

static int get_all(Context *c, const SbdTarget *t, Rows *rows, SbdJson *j) {
        int r;

        for (char **i = t->introspection.interfaces; *i; i++) {
                if (sbd_interface_is_standard(*i))
                        continue;
                r = get_interface(c, t, *i, rows, j);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Built in memory first, so that a failure half-way prints no broken document. */
static int show_json(Context *c, const SbdTarget *t) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        SbdJson j;
        int r;

        j = sbd_json_new(open_memstream(&buf, &size), c->json_pretty);
        if (!j.f)
                return sbd_log_errno(-ENOMEM, "Failed to build the output");
        sbd_json_begin_object(&j);
        sbd_json_key(&j, "path");
        sbd_json_string(&j, t->path);
        sbd_json_key(&j, "name");
        sbd_json_string(&j, t->name);
        sbd_json_key(&j, "properties");
        sbd_json_begin_object(&j);
        r = get_all(c, t, NULL, &j);
        sbd_json_end_object(&j);
        sbd_json_end_object(&j);
        if (fclose(j.f) != 0 && r >= 0)
                r = sbd_log_errno(-ENOMEM, "Failed to build the output");
        if (r < 0)
                return r;
        puts(buf);
        return 0;
}

static int show_table(Context *c, const SbdTarget *t) {
        _cleanup_(sbd_table_freep) SbdTable *table = NULL;
        _cleanup_(rows_done) Rows rows = {};
        int r;

        r = get_all(c, t, &rows, NULL);
        if (r < 0)
                return r;
        if (rows.n > 1)
                qsort(rows.rows, rows.n, sizeof(Row), row_compare);

        table = sbd_table_new("PROPERTY", "TYPE", "ACCESS", "VALUE", NULL);
        if (!table)
                return sbd_log_errno(-ENOMEM, "Failed to build the table");
        for (size_t i = 0; i < rows.n && r >= 0; i++) {
                const Row *row = rows.rows + i;

                r = sbd_table_add(table, row->name, ANSI_HIGHLIGHT);
                if (r >= 0)
                        r = sbd_table_add(table, row->type, NULL);
                if (r >= 0)
                        r = sbd_table_add(table, row->access, streq(row->access, "read") ? ANSI_GREY : NULL);
                if (r >= 0)
                        r = sbd_table_add(table, row->value, NULL);
        }
        if (r < 0)
                return sbd_log_errno(r, "Failed to build the table");

        sbd_table_print(table, stdout, c->legend, c->colors);
        if (c->legend)
                printf("\n%zu properties of %s (%s).\n", rows.n, t->name, t->path);
        return 0;
}

int verb_show(Context *c, int argc, char **argv) {
        _cleanup_(sbd_target_done) SbdTarget t = {};
        int r;

        r = sbd_target_open(c->bus, argv[1], &t);
        if (r < 0)
                return r;
        return c->json ? show_json(c, &t) : show_table(c, &t);
}
