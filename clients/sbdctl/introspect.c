/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "introspect.h"
#include "util.h"

/* A cursor over the XML text and the interface being read. */
typedef struct Parser {
        const char *p;
        char *interface;
        SbdIntrospection *out;
} Parser;

static char *xml_unescape(const char *s, size_t l) {
        static const struct { const char *entity; char c; } entities[] = {
                { "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' },
        };
        char *r = malloc(l + 1), *o = r;

        if (!r)
                return NULL;
        for (size_t i = 0; i < l; ) {
                bool done = false;

                for (size_t e = 0; s[i] == '&' && e < ELEMENTSOF(entities); e++) {
                        size_t el = strlen(entities[e].entity);

                        if (i + el <= l && strncmp(s + i, entities[e].entity, el) == 0) {
                                *o++ = entities[e].c;
                                i += el;
                                done = true;
                                break;
                        }
                }
                if (!done)
                        *o++ = s[i++];
        }
        *o = '\0';
        return r;
}

/* Finds attribute `name` in the tag text [tag, end) and returns its value. */
static int tag_attribute(const char *tag, const char *end, const char *name, char **ret) {
        size_t nl = strlen(name);

        for (const char *p = tag; p < end; p++) {
                const char *v, *close;

                if (strncmp(p, name, nl) != 0 || (p > tag && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n'))
                        continue;
                v = p + nl;
                while (v < end && (*v == ' ' || *v == '\t' || *v == '\n'))
                        v++;
                if (v >= end || *v != '=')
                        continue;
                v++;
                while (v < end && (*v == ' ' || *v == '\t' || *v == '\n'))
                        v++;
                if (v >= end || (*v != '"' && *v != '\''))
                        return -EBADMSG;
                close = memchr(v + 1, *v, (size_t) (end - v - 1));
                if (!close)
                        return -EBADMSG;
                *ret = xml_unescape(v + 1, (size_t) (close - v - 1));
                return *ret ? 1 : -ENOMEM;
        }
        *ret = NULL;
        return 0;
}

static int strv_push(char ***l, char *s) {
        size_t n = 0;
        char **nl;

        while (*l && (*l)[n])
                n++;
        nl = realloc(*l, (n + 2) * sizeof(char *));
        if (!nl)
                return -ENOMEM;
        nl[n] = s;
        nl[n + 1] = NULL;
        *l = nl;
        return 0;
}

static int open_interface(Parser *p, const char *tag, const char *end) {
        _cleanup_free_ char *name = NULL, *copy = NULL;
        int r;

        r = tag_attribute(tag, end, "name", &name);
        if (r <= 0)
                return r < 0 ? r : -EBADMSG;
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        r = strv_push(&p->out->interfaces, copy);
        if (r < 0)
                return r;
        copy = NULL;
        free(p->interface);
        p->interface = TAKE_PTR(name);
        return 0;
}

static int add_property(Parser *p, const char *tag, const char *end) {
        _cleanup_free_ char *name = NULL, *type = NULL, *access = NULL, *interface = NULL;
        SbdProperty *n;

        if (!p->interface)
                return -EBADMSG;
        if (tag_attribute(tag, end, "name", &name) <= 0 ||
            tag_attribute(tag, end, "type", &type) <= 0 ||
            tag_attribute(tag, end, "access", &access) <= 0)
                return -EBADMSG;
        interface = strdup(p->interface);
        if (!interface)
                return -ENOMEM;

        n = realloc(p->out->properties, (p->out->n_properties + 1) * sizeof(SbdProperty));
        if (!n)
                return -ENOMEM;
        p->out->properties = n;
        p->out->properties[p->out->n_properties++] = (SbdProperty) {
                .interface = TAKE_PTR(interface),
                .name = TAKE_PTR(name),
                .type = TAKE_PTR(type),
                .readable = strstr(access, "read") != NULL,
                .writable = strstr(access, "write") != NULL,
        };
        return 0;
}

/* Skips a comment, declaration or processing instruction starting at p->p. */
static int skip_special(Parser *p) {
        const char *e;

        if (startswith(p->p, "<!--")) {
                e = strstr(p->p + 4, "-->");
                if (!e)
                        return -EBADMSG;
                p->p = e + 3;
                return 0;
        }
        e = strchr(p->p, '>');
        if (!e)
                return -EBADMSG;
        p->p = e + 1;
        return 0;
}

static int handle_tag(Parser *p) {
        const char *tag = p->p + 1, *end;

        if (tag[0] == '!' || tag[0] == '?')
                return skip_special(p);

        end = strchr(tag, '>');
        if (!end)
                return -EBADMSG;
        p->p = end + 1;

        if (startswith(tag, "/interface")) {
                free(p->interface);
                p->interface = NULL;
                return 0;
        }
        if (startswith(tag, "interface ") || startswith(tag, "interface\t") || startswith(tag, "interface\n"))
                return end[-1] == '/' ? 0 : open_interface(p, tag, end);
        if (startswith(tag, "property ") || startswith(tag, "property\t") || startswith(tag, "property\n"))
                return add_property(p, tag, end);
        return 0;
}

int sbd_introspection_parse(const char *xml, SbdIntrospection *ret) {
        SbdIntrospection out = {};
        Parser p = { .p = xml, .out = &out };
        int r = 0;

        while ((p.p = strchr(p.p, '<'))) {
                r = handle_tag(&p);
                if (r < 0)
                        break;
        }
        free(p.interface);
        if (r < 0) {
                sbd_introspection_done(&out);
                return r;
        }
        *ret = out;
        return 0;
}

void sbd_introspection_done(SbdIntrospection *i) {
        for (size_t k = 0; k < i->n_properties; k++) {
                free(i->properties[k].interface);
                free(i->properties[k].name);
                free(i->properties[k].type);
        }
        free(i->properties);
        strv_free(i->interfaces);
        *i = (SbdIntrospection) {};
}

bool sbd_interface_is_standard(const char *interface) {
        return startswith(interface, "org.freedesktop.DBus.") != NULL;
}

const SbdProperty *sbd_introspection_find(const SbdIntrospection *i, const char *interface, const char *name) {
        for (size_t k = 0; k < i->n_properties; k++) {
                const SbdProperty *prop = i->properties + k;

                if (interface ? !streq(prop->interface, interface) : sbd_interface_is_standard(prop->interface))
                        continue;
                if (streq(prop->name, name))
                        return prop;
        }
        return NULL;
}
