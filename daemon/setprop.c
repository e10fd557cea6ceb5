/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Properties.Set of attribute properties. An sd-bus property setter must
 * answer before it returns (v252 sends the reply right after it), but the
 * contract wants polkit asked asynchronously. So a bus filter, which runs
 * before object dispatch, takes every Set of a writable attribute
 * property and runs the contract's order itself: type check, length
 * check, authorize, one write(2), read back, PropertiesChanged, reply.
 * Everything else (read-only and fixed properties, unknown objects,
 * interfaces or properties) falls through to sd-bus, which answers
 * PropertyReadOnly, UnknownObject, UnknownInterface or UnknownProperty. */

#include <inttypes.h>

#include "daemon.h"
#include "errors.h"
#include "sysfs.h"
#include "util.h"
#include "validate.h"

struct set_request {
        char *path;
        char *file;   /* the attribute's, for the audit record */
        size_t index;
        char *value;
        size_t len;
        /* The kobject asked about: after polkit, write only to the same. */
        dev_t st_dev;
        ino_t st_ino;
};

static void set_request_free(void *p) {
        struct set_request *s = p;

        if (!s)
                return;
        free(s->path);
        free(s->file);
        free(s->value);
        free(s);
}

/* Answer m with error and record the refusal. */
static void set_refuse(struct daemon *d, sd_bus_message *m, const struct set_request *s, bool hidden,
                       const sd_bus_error *error, const struct caller *caller) {
        (void) sd_bus_reply_method_error(m, error);
        audit_refused(d, "Set", s->path, s->file, hidden ? NULL : s->value, error, caller);
}

/* The write is done: read it back (the change is this request's, not
 * one seen from the kernel), record it, answer. */
static void set_done(struct daemon *d, sd_bus_message *m, struct sbd_object *o, const struct set_request *s,
                     const struct caller *caller) {
        struct attr_value *v = &o->values[s->index];
        _cleanup_free_ char *old = v->text ? strdup(v->text) : NULL;
        bool hidden = v->hidden, gone;

        d->audit_own_change = true;
        gone = object_refresh_attr(o, s->index) == -ENOENT && object_gone(o);
        d->audit_own_change = false;
        /* Values only root may read stay out of the journal. */
        hidden = hidden || v->hidden;
        audit_log(d, &(struct audit_record) {
                .kind = AUDIT_SET,
                .operation = "Set",
                .object = s->path,
                .attribute = s->file,
                .old_value = hidden ? NULL : old,
                .new_value = hidden ? NULL : gone || !v->text ? s->value : v->text,
                .caller = caller,
        });
        if (gone)
                tree_remove(d, o); /* the write succeeded, then it went */
        (void) sd_bus_reply_method_return(m, NULL);
}

static void set_authorized(struct daemon *d, sd_bus_message *m, int allowed,
                           const sd_bus_error *error, const struct caller *caller, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        struct set_request *s = userdata;
        const struct attr_def *def;
        struct attr_value *v;
        struct sbd_object *o;
        char what[512];
        int r;

        if (allowed <= 0)
                return set_refuse(d, m, s, false, error, caller);
        /* Anything may have happened while polkit thought about it. */
        o = object_find_by_path(d, s->path);
        if (!o || s->index >= o->n_values || !o->values[s->index].present ||
            o->st_dev != s->st_dev || o->st_ino != s->st_ino) {
                (void) sd_bus_error_setf(&e, SBD_ERROR_DEVICE_GONE, "%s no longer exists.", s->path);
                return set_refuse(d, m, s, false, &e, caller);
        }
        def = &d->tables[o->kind].defs[s->index];
        v = &o->values[s->index];
        if (v->fd_writable)
                r = sysfs_write_fd(v->fd, s->value, s->len);
        else
                r = sysfs_write_at(o->dirfd, def->file, s->value, s->len);
        if (r < 0) {
                log_debug_errno(r, "Writing '%s' to %s/%s failed: %m", s->value, o->syspath, def->file);
                if (r == -ENOENT || (r == -ENODEV && v->fd_writable && object_gone(o)))
                        (void) sd_bus_error_setf(&e, SBD_ERROR_DEVICE_GONE, "%s no longer exists.", o->syspath);
                else {
                        snprintf(what, sizeof(what), "The kernel refused '%.64s%s' for %s/%s", s->value,
                                 s->len > 64 ? "..." : "", o->syspath, def->file);
                        sbd_error_set_errno(&e, r, what);
                }
                return set_refuse(d, m, s, v->hidden, &e, caller);
        }
        log_debug("Wrote '%s' to %s/%s", s->value, o->syspath, def->file);
        set_done(d, m, o, s, caller);
}

/* The value as the kernel parses it: booleans as 1/0, numbers in decimal. */
static int read_value(sd_bus_message *m, char type, char **ret) {
        int r;

        switch (type) {
        case 's': {
                const char *s;
                r = sd_bus_message_read_basic(m, 's', &s);
                if (r < 0)
                        return r;
                /* No copy of a value that is refused anyway (length
                 * check in set_value()): keep only its first page. */
                *ret = strndup(s, ATTR_VALUE_MAX);
                break;
        }
        case 'b': {
                int b;
                r = sd_bus_message_read_basic(m, 'b', &b);
                if (r < 0)
                        return r;
                *ret = strdup(b ? "1" : "0");
                break;
        }
        case 't': {
                uint64_t t;
                r = sd_bus_message_read_basic(m, 't', &t);
                if (r < 0)
                        return r;
                r = asprintf(ret, "%" PRIu64, t);
                if (r < 0)
                        *ret = NULL;
                break;
        }
        case 'u': {
                uint32_t u;
                r = sd_bus_message_read_basic(m, 'u', &u);
                if (r < 0)
                        return r;
                r = asprintf(ret, "%" PRIu32, u);
                if (r < 0)
                        *ret = NULL;
                break;
        }
        default:
                return -EINVAL;
        }
        return *ret ? 0 : -ENOMEM;
}

/* The text to write, from the variant of a Set whose signature is
 * already known to be "ssv": the property's type exactly, not empty, less
 * than a page. Fills ret_error (and returns its errno) when the value is refused. */
static int set_value(sd_bus_message *m, const struct attr_def *def, char **ret, sd_bus_error *ret_error) {
        _cleanup_free_ char *value = NULL;
        const char *contents = NULL;
        char type = 0, expected[2] = { def->type, '\0' };
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r <= 0 || type != 'v' || !streq_ptr(contents, expected))
                return sd_bus_error_setf(ret_error, SBD_ERROR_INVALID_VALUE,
                                         "Property %s takes a value of type '%s', not '%s'.",
                                         def->property, expected, strempty(contents));
        r = sd_bus_message_enter_container(m, 'v', expected);
        if (r < 0)
                return r;
        r = read_value(m, def->type, &value);
        if (r < 0)
                return r;
        /* A zero-length write(2) never reaches the kernel's store(),
         * which would refuse it: it would "succeed" and change nothing. */
        if (value[0] == '\0')
                return sd_bus_error_setf(ret_error, SBD_ERROR_INVALID_VALUE,
                                         "Property %s takes no empty value.", def->property);
        if (strlen(value) >= ATTR_VALUE_MAX)
                return sd_bus_error_setf(ret_error, SBD_ERROR_INVALID_VALUE,
                                         "A value of %u bytes or more is too long for %s: sysfs takes less.",
                                         ATTR_VALUE_MAX, def->property);
        *ret = TAKE_PTR(value);
        return 1;
}

/* The module's rules for what it knows (validate.h), before polkit: a
 * value the kernel would refuse never prompts. The kernel stays the
 * judge of what passes. Fills ret_error (and returns its errno) when refused. */
static int check_rules(const struct sbd_object *o, const struct attr_def *def, const char *value,
                       sd_bus_error *ret_error) {
        uint64_t max_size = 0, max_total = 0;
        char why[256];

        if (o->kind != OBJECT_DEVICE)
                return 1;
        if (streq(def->file, "size"))
                module_size_limits(&max_size, &max_total);
        if (device_attr_check(def->file, value, max_size, max_total, why, sizeof(why)) < 0)
                return sd_bus_error_set(ret_error, SBD_ERROR_INVALID_VALUE, why);
        return 1;
}

int setprop_filter(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct daemon *d = userdata;
        struct set_request *s;
        const struct attr_def *def;
        const struct attr_value *v;
        const char *iface, *property;
        _cleanup_free_ char *value = NULL, *shown = NULL;
        struct sbd_object *o;
        int idx, r;

        if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "Set"))
                return 0;
        o = object_find_by_path(d, sd_bus_message_get_path(m));
        if (!o)
                return 0;
        /* Exactly (ssv): anything after the variant (an 8 MB array, say)
         * would otherwise be accepted and held while polkit decides. */
        if (!sd_bus_message_has_signature(m, "ssv"))
                return sd_bus_error_setf(ret_error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Set takes arguments of type (ssv), not (%s).",
                                         strempty(sd_bus_message_get_signature(m, true)));
        if (sd_bus_message_read(m, "ss", &iface, &property) < 0)
                return 0;
        if (!streq(iface, object_kind_interface(o->kind)))
                return 0;
        idx = attr_def_lookup(&d->tables[o->kind], property);
        if (idx < 0)
                return 0;
        def = &d->tables[o->kind].defs[idx];
        if (!(def->flags & ATTR_WRITABLE))
                return 0;
        v = &o->values[idx];
        if (!v->present)
                return sd_bus_error_setf(ret_error, SD_BUS_ERROR_UNKNOWN_PROPERTY,
                                         "%s has no attribute %s.", o->syspath, def->file);
        r = set_value(m, def, &value, ret_error);
        if (r > 0)
                r = check_rules(o, def, value, ret_error);
        if (sd_bus_error_is_set(ret_error)) {
                struct caller c;
                caller_of_message(d, m, &c);
                audit_refused(d, "Set", o->path, def->file, v->hidden ? NULL : value, ret_error, &c);
                return r;
        }
        if (r < 0)
                return r;
        /* Nothing would change: answer at once, without polkit (as
         * hostnamed does). Live attributes have no cache to compare; a
         * value hidden from others must not be guessable by its answer; and
         * while the caller's earlier requests wait, the cache may not be
         * what they leave behind (Set 1, Set 0 must end as 0). */
        if (!(def->flags & ATTR_LIVE) && !v->hidden && v->text && attr_value_equal(def->type, v->text, value) &&
            !auth_pending_of(d, sd_bus_message_get_sender(m))) {
                r = sd_bus_reply_method_return(m, NULL);
                return r < 0 ? r : 1;
        }

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->path = strdup(o->path);
        s->file = strdup(def->file);
        s->index = (size_t) idx;
        s->len = strlen(value);
        s->value = TAKE_PTR(value);
        s->st_dev = o->st_dev;
        s->st_ino = o->st_ino;
        if (!s->path || !s->file) {
                set_request_free(s);
                return -ENOMEM;
        }
        /* The caller's text, made harmless for the dialog: printable,
         * escaped, short (a 4 KiB value with newlines could pose as
         * other text there). */
        shown = text_for_dialog(s->value);
        if (!shown) {
                set_request_free(s);
                return -ENOMEM;
        }
        const char *details[] = {
                "device", o->name, "attribute", def->file, "value", shown,
                "destructive", attr_destructive(o->kind, def->file) ? "true" : "false", NULL
        };
        r = authorize_async(d, m, ACTION_SET_ATTRIBUTE, details, set_authorized, s, set_request_free);
        if (r < 0)
                return r;
        return 1;
}
