/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "bus.h"
#include "names.h"
#include "property.h"
#include "values.h"
#include "variant.h"

#define PROPERTIES_INTERFACE "org.freedesktop.DBus.Properties"

static int print_json(Context *c, sd_bus_message *reply, const SbdTarget *t) {
        SbdJson j = sbd_json_new(stdout, c->json_pretty);
        int r;

        sbd_json_begin_object(&j);
        sbd_json_key(&j, "path");
        sbd_json_string(&j, t->path);
        sbd_json_key(&j, "property");
        sbd_json_string(&j, t->property->name);
        sbd_json_key(&j, "type");
        sbd_json_string(&j, t->property->type);
        sbd_json_key(&j, "value");
        r = sbd_value_to_json(reply, &j);
        if (r < 0)
                return r;
        sbd_json_end_object(&j);
        fputc('\n', stdout);
        return 0;
}

int sbd_property_print(Context *c, const SbdTarget *t) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *text = NULL;
        int r;

        r = sd_bus_call_method(c->bus, SBD_BUS_NAME, t->path, PROPERTIES_INTERFACE, "Get", &error, &reply,
                               "ss", t->property->interface, t->property->name);
        if (r < 0)
                return sbd_log_bus_error(r, &error, "Failed to get %s of %s", t->property->name, t->name);

        if (c->json)
                r = print_json(c, reply, t);
        else {
                r = sbd_value_to_text(reply, false, &text);
                if (r >= 0)
                        puts(text);
        }
        if (r < 0)
                return sbd_log_errno(r, "Failed to read %s of %s", t->property->name, t->name);
        return 0;
}

static int append_value(sd_bus_message *m, const SbdValue *v) {
        uint8_t y = (uint8_t) v->u;
        uint16_t q = (uint16_t) v->u;
        uint32_t u = (uint32_t) v->u;
        int16_t n = (int16_t) v->i;
        int32_t i = (int32_t) v->i;
        char sig[2] = { v->type, '\0' };
        const void *p;
        int r;

        switch (v->type) {
        case 'b': p = &v->b; break;
        case 'y': p = &y; break;
        case 'q': p = &q; break;
        case 'u': p = &u; break;
        case 't': p = &v->u; break;
        case 'n': p = &n; break;
        case 'i': p = &i; break;
        case 'x': p = &v->i; break;
        case 'd': p = &v->d; break;
        default: p = v->s;
        }

        r = sd_bus_message_open_container(m, 'v', sig);
        if (r < 0)
                return r;
        r = sd_bus_message_append_basic(m, v->type, p);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

/* The value in the property's type (from the introspection data). Text
 * that is no value of that type is sent as it is, a string: the daemon is
 * the one authority on what a property takes, and its refusal (the same
 * InvalidValue that busctl would get) is what the user sees, with a hint. */
static int parse_for(const SbdTarget *t, const char *text, SbdValue *ret) {
        const SbdProperty *p = t->property;
        int r;

        r = sbd_parse_value(p->type, text, ret);
        if (r == -EOPNOTSUPP) {
                fprintf(stderr, "sbdctl: %s of %s has type %s, which sbdctl cannot write.\n",
                        p->name, t->name, p->type);
                return r;
        }
        if (r < 0)
                *ret = (SbdValue) { .type = 's', .s = text };
        return 0;
}

int sbd_property_write(Context *c, const SbdTarget *t, const char *text) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        SbdValue v;
        int r;

        r = parse_for(t, text, &v);
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_call(c->bus, &m, SBD_BUS_NAME, t->path, PROPERTIES_INTERFACE, "Set");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", t->property->interface, t->property->name);
        if (r >= 0)
                r = append_value(m, &v);
        if (r < 0)
                return sbd_log_errno(r, "Failed to build the request");

        r = sd_bus_call(c->bus, m, 0, &error, &reply);
        if (r < 0) {
                r = sbd_log_bus_error(r, &error, "Failed to set %s of %s to '%s'", t->property->name, t->name, text);
                if (v.type != t->property->type[0]) /* sent as text: say what it takes */
                        fprintf(stderr, "sbdctl: %s (%s) takes %s.\n", t->property->name, t->property->type,
                                sbd_value_hint(t->property->type));
                return r;
        }
        return 0;
}
