/* SPDX-License-Identifier: GPL-2.0-or-later */

/* sd-bus registration of the driver and device objects. Objects are not
 * registered one by one: each kind has fallback vtables at its prefix,
 * find callbacks that look the object up by path in O(1), and a node
 * enumerator, so 10,000 devices cost no registration each.
 *
 * Each kind has two vtables on the same interface: the fixed properties
 * (SysName, SysPath, ...) with the object as userdata, and the attribute
 * properties, built at run time from the attributes found in sysfs. The
 * attribute vtable's find callback returns the object's value array and
 * each property's offset is its index in that array, so a getter gets
 * its cached value without any name lookup. sd-bus refuses the same
 * property name twice on one path and interface, hence one vtable per
 * kind holding the union of the attributes seen on its objects. */

#include <inttypes.h>

#include "daemon.h"
#include "errors.h"
#include "sysfs.h"
#include "util.h"
#include "validate.h"

static const char *const fixed_properties[_OBJECT_KIND_MAX][5] = {
        [OBJECT_DRIVER] = { "SysName", "SysPath", "Devices", NULL },
        [OBJECT_DEVICE] = { "SysName", "SysPath", "Driver", "BlockDevice", NULL },
};

static const char *type_signature(char type) {
        switch (type) {
        case 't':
                return "t";
        case 'b':
                return "b";
        case 'u':
                return "u";
        default:
                return "s";
        }
}

static int append_typed(sd_bus_message *reply, char type, const char *text) {
        switch (type) {
        case 't': {
                uint64_t v = 0;
                if (text)
                        (void) attr_parse_u64(text, &v);
                return sd_bus_message_append_basic(reply, 't', &v);
        }
        case 'u': {
                uint32_t v = 0;
                if (text)
                        (void) attr_parse_u32(text, &v);
                return sd_bus_message_append_basic(reply, 'u', &v);
        }
        case 'b': {
                bool b = false;
                int v;
                if (text)
                        (void) attr_parse_bool(text, &b);
                v = b;
                return sd_bus_message_append_basic(reply, 'b', &v);
        }
        default:
                return sd_bus_message_append_basic(reply, 's', strempty(text));
        }
}

bool property_get_is_single(sd_bus *bus) {
        sd_bus_message *m = sd_bus_get_current_message(bus);
        return m && sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "Get");
}

static int attr_property_get(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        struct attr_value *v = userdata;
        struct sbd_object *o = v->object;
        const struct attr_def *def = &o->daemon->tables[o->kind].defs[v->index];
        char buf[ATTR_VALUE_MAX + 1];
        _cleanup_free_ char *utf8 = NULL;
        const char *text = v->text;
        int err = v->error;

        if (v->present && (def->flags & ATTR_LIVE)) {
                ssize_t n = live_fds_read(&o->daemon->live_fds, o, v, def->file, buf);
                text = n >= 0 ? buf : NULL;
                err = n >= 0 ? 0 : (int) n;
                if (text && text_make_utf8(text, &utf8) > 0)
                        text = utf8; /* the cache holds valid text already */
        } else if (!v->present)
                err = -ENOENT;
        else if (v->hidden) {
                /* Not world-readable (modes.c keeps this current): shown
                 * as unreadable, never with the value root alone may read. */
                text = NULL;
                err = -EACCES;
        }

        /* An unreadable attribute must not fail GetAll or
         * GetManagedObjects: there it shows an empty value. A Get of just
         * that property says why it cannot be read. */
        if (!text && property_get_is_single(bus)) {
                char what[512];
                snprintf(what, sizeof(what), "Cannot read %s/%s", o->syspath, def->file);
                return sbd_error_set_errno(error, err ?: -EIO, what);
        }
        return append_typed(reply, def->type, text);
}

static int attr_property_set(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *value, void *userdata,
                             sd_bus_error *error) {
        /* Never reached: setprop_filter() answers every Set of an
         * attribute property before sd-bus dispatches it to a vtable. */
        return sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "Internal error: unexpected dispatch of Set.");
}

static int object_vtable_find(sd_bus *bus, const char *path, const char *interface,
                              void *userdata, void **found, sd_bus_error *error) {
        struct object_set *set = userdata;
        struct sbd_object *o = hashmap_get(&set->by_path, path);

        if (!o)
                return 0;
        *found = o;
        return 1;
}

static int attr_vtable_find(sd_bus *bus, const char *path, const char *interface,
                            void *userdata, void **found, sd_bus_error *error) {
        struct object_set *set = userdata;
        struct sbd_object *o = hashmap_get(&set->by_path, path);

        if (!o || !o->values)
                return 0;
        *found = o->values;
        return 1;
}

static int object_enumerate(sd_bus *bus, const char *prefix, void *userdata,
                            char ***ret_nodes, sd_bus_error *error) {
        struct object_set *set = userdata;
        _cleanup_strv_free_ char **l = calloc(set->n + 1, sizeof(char *));

        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < set->n; i++) {
                l[i] = strdup(set->sorted[i]->path);
                if (!l[i])
                        return -ENOMEM;
        }
        *ret_nodes = TAKE_PTR(l);
        return 1;
}

int append_object_paths(sd_bus_message *reply, struct object_set *set, const char *driver_path) {
        int r = sd_bus_message_open_container(reply, 'a', "o");
        if (r < 0)
                return r;
        for (size_t i = 0; i < set->n; i++) {
                if (driver_path && !streq_ptr(set->sorted[i]->driver_path, driver_path))
                        continue;
                r = sd_bus_message_append_basic(reply, 'o', set->sorted[i]->path);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int fixed_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        struct sbd_object *o = userdata;

        if (streq(property, "SysName"))
                return sd_bus_message_append_basic(reply, 's', o->name);
        if (streq(property, "SysPath"))
                return sd_bus_message_append_basic(reply, 's', o->syspath);
        if (streq(property, "Driver"))
                return sd_bus_message_append_basic(reply, 'o', o->driver_path ?: "/");
        if (streq(property, "BlockDevice"))
                return sd_bus_message_append_basic(reply, 's', strempty(o->block_device));
        if (streq(property, "Devices"))
                return append_object_paths(reply, &o->daemon->objects[OBJECT_DEVICE], o->path);
        return -ENOENT;
}

static const sd_bus_vtable driver_fixed_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("SysName", "s", fixed_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SysPath", "s", fixed_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Devices", "ao", fixed_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END
};

static const sd_bus_vtable device_fixed_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("SysName", "s", fixed_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SysPath", "s", fixed_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Driver", "o", fixed_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("BlockDevice", "s", fixed_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END
};

int attr_def_lookup(const struct attr_table *t, const char *property) {
        for (size_t i = 0; i < t->n_defs; i++)
                if (streq(t->defs[i].property, property))
                        return (int) i;
        return -ENOENT;
}

int attr_def_find_file(const struct attr_table *t, const char *file) {
        for (size_t i = 0; i < t->n_defs; i++)
                if (streq(t->defs[i].file, file))
                        return (int) i;
        return -ENOENT;
}

static int attr_table_register(struct daemon *d, struct attr_table *t) {
        sd_bus_vtable *v;
        size_t i;
        int r;

        /* Unregister before freeing: the slot points into the array. */
        t->slot = sd_bus_slot_unref(t->slot);
        free(t->vtable);
        t->vtable = NULL;
        if (t->n_defs == 0)
                return 0;

        v = calloc(t->n_defs + 2, sizeof(sd_bus_vtable));
        if (!v)
                return -ENOMEM;
        v[0] = (sd_bus_vtable) SD_BUS_VTABLE_START(0);
        for (i = 0; i < t->n_defs; i++) {
                const struct attr_def *def = &t->defs[i];
                size_t offset = i * sizeof(struct attr_value);
                uint64_t flags = (def->flags & ATTR_LIVE) ?
                        SD_BUS_VTABLE_PROPERTY_EXPLICIT : SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;

                /* UNPRIVILEGED: polkit decides (setprop.c), and sd-bus
                 * would otherwise announce the property as
                 * org.freedesktop.systemd1.Privileged (root only). */
                if (def->flags & ATTR_WRITABLE)
                        v[i + 1] = (sd_bus_vtable) SD_BUS_WRITABLE_PROPERTY(
                                def->property, type_signature(def->type), attr_property_get,
                                attr_property_set, offset, flags | SD_BUS_VTABLE_UNPRIVILEGED);
                else
                        v[i + 1] = (sd_bus_vtable) SD_BUS_PROPERTY(
                                def->property, type_signature(def->type), attr_property_get,
                                offset, flags);
        }
        v[i + 1] = (sd_bus_vtable) SD_BUS_VTABLE_END;
        t->vtable = v;

        r = sd_bus_add_fallback_vtable(d->bus, &t->slot, object_kind_prefix(t->kind),
                                       object_kind_interface(t->kind), t->vtable,
                                       attr_vtable_find, &d->objects[t->kind]);
        if (r < 0)
                return log_error_errno(r, "Failed to register the %s attribute vtable: %m",
                                       object_kind_interface(t->kind));
        return 0;
}

int attr_table_add(struct daemon *d, enum object_kind kind, const char *file, unsigned mode,
                   size_t *ret_index) {
        struct attr_table *t = &d->tables[kind];
        struct object_set *set = &d->objects[kind];
        _cleanup_free_ char *property = NULL;
        struct attr_def *defs;
        int r;

        r = attr_def_find_file(t, file);
        if (r >= 0) {
                *ret_index = (size_t) r;
                return 0;
        }

        r = attr_property_name(file, &property);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_debug("Attribute %s has no usable property name, not mirrored.", file);
                return -EINVAL;
        }
        for (const char *const *f = fixed_properties[kind]; *f; f++)
                if (streq(*f, property)) {
                        log_warning("Attribute %s clashes with fixed property %s, not mirrored.", file, property);
                        return -EEXIST;
                }
        if (attr_def_lookup(t, property) >= 0) {
                log_warning("Attribute %s maps to property %s which another attribute has, not mirrored.",
                            file, property);
                return -EEXIST;
        }

        defs = realloc(t->defs, (t->n_defs + 1) * sizeof(struct attr_def));
        if (!defs)
                return -ENOMEM;
        t->defs = defs;
        defs[t->n_defs] = (struct attr_def) {
                .file = strdup(file),
                .property = TAKE_PTR(property),
                .type = 0,
                .flags = attr_flags(kind, file) | (attr_is_writable(file, mode) ? ATTR_WRITABLE : 0),
                .mode = mode,
        };
        if (!defs[t->n_defs].file) {
                free(defs[t->n_defs].property);
                return -ENOMEM;
        }
        defs[t->n_defs].type = attr_type(kind, defs[t->n_defs].property);
        t->n_defs++;

        /* Every object's value array covers the whole table. */
        for (size_t i = 0; i < set->n; i++) {
                struct sbd_object *o = set->sorted[i];
                struct attr_value *v = realloc(o->values, t->n_defs * sizeof(struct attr_value));
                if (!v)
                        return -ENOMEM;
                o->values = v;
                for (size_t j = o->n_values; j < t->n_defs; j++)
                        v[j] = (struct attr_value) { .object = o, .index = j, .fd = -1 };
                o->n_values = t->n_defs;
                /* The array moved: the watches and the live fds point
                 * at their values. */
                for (size_t j = 0; j < o->n_values; j++) {
                        if (v[j].watch)
                                sd_event_source_set_userdata(v[j].watch, &v[j]);
                        if (v[j].live_slot)
                                d->live_fds.slots[v[j].live_slot - 1] = &v[j];
                }
        }

        *ret_index = t->n_defs - 1;
        return attr_table_register(d, t);
}

void attr_tables_done(struct daemon *d) {
        for (int k = 0; k < _OBJECT_KIND_MAX; k++) {
                struct attr_table *t = &d->tables[k];
                t->slot = sd_bus_slot_unref(t->slot);
                free(t->vtable);
                for (size_t i = 0; i < t->n_defs; i++) {
                        free(t->defs[i].file);
                        free(t->defs[i].property);
                }
                free(t->defs);
                *t = (struct attr_table) { .kind = k };
        }
}

int vtables_register(struct daemon *d) {
        int r;

        r = sd_bus_add_filter(d->bus, NULL, setprop_filter, d);
        if (r < 0)
                return log_error_errno(r, "Failed to add the Set filter: %m");
        r = sd_bus_add_filter(d->bus, NULL, replysize_filter, d);
        if (r < 0)
                return log_error_errno(r, "Failed to add the reply size filter: %m");
        r = sd_bus_add_object_manager(d->bus, NULL, SBD_ROOT_PATH);
        if (r < 0)
                return log_error_errno(r, "Failed to add the object manager: %m");
        r = sd_bus_add_object_vtable(d->bus, NULL, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE, manager_vtable, d);
        if (r < 0)
                return log_error_errno(r, "Failed to register the manager: %m");
        r = sd_bus_add_object_vtable(d->bus, NULL, SBD_MODULE_PATH, SBD_MODULE_INTERFACE, module_vtable, d);
        if (r < 0)
                return log_error_errno(r, "Failed to register the module object: %m");

        for (int k = 0; k < _OBJECT_KIND_MAX; k++) {
                r = sd_bus_add_fallback_vtable(d->bus, NULL, object_kind_prefix(k), object_kind_interface(k),
                                               k == OBJECT_DRIVER ? driver_fixed_vtable : device_fixed_vtable,
                                               object_vtable_find, &d->objects[k]);
                if (r < 0)
                        return log_error_errno(r, "Failed to register %s: %m", object_kind_interface(k));
                r = sd_bus_add_node_enumerator(d->bus, NULL, object_kind_prefix(k), object_enumerate, &d->objects[k]);
                if (r < 0)
                        return log_error_errno(r, "Failed to add the node enumerator: %m");
                r = attr_table_register(d, &d->tables[k]);
                if (r < 0)
                        return r;
        }
        return 0;
}
