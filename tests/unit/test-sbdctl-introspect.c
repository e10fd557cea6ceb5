/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl: reading property types and access out of introspection XML,
 * checked on the project's own dbus/org.sbd.Sbd1.xml and on sd-bus's output. */

#include <errno.h>

#include "introspect.h"
#include "test-sbdctl-check.h"
#include "util.h"

/* What sd-bus answers for an object with a fallback vtable, abridged. */
static const char sd_bus_xml[] =
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
        "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"
        "<node>\n"
        " <interface name=\"org.freedesktop.DBus.Properties\">\n"
        "  <method name=\"Get\">\n"
        "   <arg name=\"interface_name\" direction=\"in\" type=\"s\"/>\n"
        "  </method>\n"
        "  <signal name=\"PropertiesChanged\">\n"
        "   <arg type=\"s\" name=\"interface_name\"/>\n"
        "  </signal>\n"
        " </interface>\n"
        " <interface name=\"org.freedesktop.DBus.Peer\">\n"
        " </interface>\n"
        " <interface name=\"org.sbd.Sbd1.Device\">\n"
        "  <property name=\"Size\" type=\"t\" access=\"readwrite\">\n"
        "   <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"true\"/>\n"
        "  </property>\n"
        "  <property name=\"Name\" type=\"s\" access=\"read\">\n"
        "   <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"false\"/>\n"
        "  </property>\n"
        "  <property type='b' access='readwrite' name='ReadOnly'/>\n"
        "  <property name=\"NewAttribute\" type=\"s\" access=\"read\"></property>\n"
        "  <!-- <property name=\"Commented\" type=\"s\" access=\"read\"/> -->\n"
        " </interface>\n"
        " <node name=\"child\"/>\n"
        "</node>\n";

static void check_property(const SbdIntrospection *i, const char *interface, const char *name,
                           const char *type, bool writable) {
        const SbdProperty *p = sbd_introspection_find(i, interface, name);

        CHECK(p);
        CHECK_STREQ(p->name, name);
        CHECK_STREQ(p->type, type);
        CHECK(p->readable);
        CHECK_INT(p->writable, writable);
}

static void test_sd_bus_output(void) {
        _cleanup_(sbd_introspection_done) SbdIntrospection i = {};

        CHECK_INT(sbd_introspection_parse(sd_bus_xml, &i), 0);
        CHECK_INT(i.n_properties, 4);
        CHECK_STREQ(i.interfaces[0], "org.freedesktop.DBus.Properties");
        CHECK_STREQ(i.interfaces[2], "org.sbd.Sbd1.Device");
        CHECK(!i.interfaces[3]);

        check_property(&i, NULL, "Size", "t", true);
        check_property(&i, "org.sbd.Sbd1.Device", "Name", "s", false);
        check_property(&i, NULL, "ReadOnly", "b", true);
        check_property(&i, NULL, "NewAttribute", "s", false);
        CHECK(!sbd_introspection_find(&i, NULL, "Commented"));
        CHECK(!sbd_introspection_find(&i, NULL, "size"));
        CHECK(!sbd_introspection_find(&i, "org.sbd.Sbd1.Driver", "Size"));
}

static char *read_file(const char *path) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char *buf;
        long l;

        CHECK(f);
        CHECK(fseek(f, 0, SEEK_END) == 0);
        l = ftell(f);
        CHECK(l > 0);
        rewind(f);
        buf = calloc(1, (size_t) l + 1);
        CHECK(buf);
        CHECK(fread(buf, 1, (size_t) l, f) == (size_t) l);
        return buf;
}

/* The API's source of truth parses, and says what the contract says. */
static void test_project_xml(void) {
        _cleanup_(sbd_introspection_done) SbdIntrospection i = {};
        _cleanup_free_ char *xml = read_file(SBD_XML);

        CHECK_INT(sbd_introspection_parse(xml, &i), 0);
        check_property(&i, "org.sbd.Sbd1.Manager", "Version", "s", false);
        check_property(&i, "org.sbd.Sbd1.Manager", "Devices", "ao", false);
        check_property(&i, "org.sbd.Sbd1.Module", "State", "s", false);
        check_property(&i, "org.sbd.Sbd1.Module", "RefCount", "u", false);
        check_property(&i, "org.sbd.Sbd1.Module", "Parameters", "a{ss}", false);
        check_property(&i, "org.sbd.Sbd1.Driver", "Ndevices", "u", false);
        check_property(&i, "org.sbd.Sbd1.Device", "Size", "t", true);
        check_property(&i, "org.sbd.Sbd1.Device", "ReadOnly", "b", true);
        check_property(&i, "org.sbd.Sbd1.Device", "Online", "b", true);
        check_property(&i, "org.sbd.Sbd1.Device", "Label", "s", true);
        check_property(&i, "org.sbd.Sbd1.Device", "Name", "s", false);
        check_property(&i, "org.sbd.Sbd1.Device", "PowerRuntimeStatus", "s", false);
        check_property(&i, "org.sbd.Sbd1.Device", "Driver", "o", false);
}

static void test_bad_xml(void) {
        SbdIntrospection i = {};

        CHECK_INT(sbd_introspection_parse("<node><interface name=\"a\"><property name=\"x\"", &i), -EBADMSG);
        CHECK_INT(sbd_introspection_parse("<node><property name=\"x\" type=\"s\" access=\"read\"/></node>", &i), -EBADMSG);
        CHECK_INT(sbd_introspection_parse("<node><interface name=\"a\"><property name=\"x\"/></interface></node>", &i), -EBADMSG);
        CHECK_INT(sbd_introspection_parse("<node><interface name=a></interface></node>", &i), -EBADMSG);
        CHECK_INT(sbd_introspection_parse("<!-- never closed", &i), -EBADMSG);
        CHECK_INT(sbd_introspection_parse("", &i), 0);
        CHECK_INT(i.n_properties, 0);
        sbd_introspection_done(&i);
}

static void test_standard_interfaces(void) {
        CHECK(sbd_interface_is_standard("org.freedesktop.DBus.Properties"));
        CHECK(sbd_interface_is_standard("org.freedesktop.DBus.ObjectManager"));
        CHECK(!sbd_interface_is_standard("org.sbd.Sbd1.Device"));
        CHECK(!sbd_interface_is_standard("org.freedesktop.DBusX"));
}

int main(void) {
        test_sd_bus_output();
        test_project_xml();
        test_bad_xml();
        test_standard_interfaces();
        return EXIT_SUCCESS;
}
