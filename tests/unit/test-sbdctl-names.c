/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl: attribute to property names, device arguments to object paths. */

#include <errno.h>

#include "names.h"
#include "test-sbdctl-check.h"
#include "util.h"

static void check_property(const char *attribute, const char *expected) {
        _cleanup_free_ char *name = NULL;

        CHECK_INT(sbd_property_name(attribute, &name), 0);
        CHECK_STREQ(name, expected);
}

static void check_bad_property(const char *attribute) {
        char *name = NULL;

        CHECK_INT(sbd_property_name(attribute, &name), -EINVAL);
        CHECK(!name);
}

static void test_property_names(void) {
        /* The contract's examples. */
        check_property("read_only", "ReadOnly");
        check_property("power/runtime_status", "PowerRuntimeStatus");
        check_property("ndevices", "Ndevices");
        check_property("size", "Size");
        check_property("power/autosuspend_delay_ms", "PowerAutosuspendDelayMs");
        /* A property name maps to itself, so both spellings work. */
        check_property("ReadOnly", "ReadOnly");
        check_property("PowerRuntimeStatus", "PowerRuntimeStatus");
        check_property("Size", "Size");
        check_property("uevent", "Uevent");
        check_property("_x__y_", "XY");

        check_bad_property("");
        check_bad_property("_");
        check_bad_property("/");
        check_bad_property("bad-name");
        check_bad_property("1st");
        check_bad_property("size ");
        check_bad_property("läbel");
}

static void check_device(const char *dev, const char *expected) {
        _cleanup_free_ char *path = NULL;

        CHECK_INT(sbd_device_path(dev, &path), 0);
        CHECK_STREQ(path, expected);
}

static void test_device_paths(void) {
        char *path = NULL;

        check_device("sbd0", "/org/sbd/Sbd1/devices/sbd0");
        check_device("sbd17", "/org/sbd/Sbd1/devices/sbd17");
        check_device("/dev/sbd3", "/org/sbd/Sbd1/devices/sbd3");
        check_device("/org/sbd/Sbd1/devices/sbd0", "/org/sbd/Sbd1/devices/sbd0");
        check_device("/org/sbd/Sbd1/drivers/sbd", "/org/sbd/Sbd1/drivers/sbd");
        /* sd_bus_path_encode() escapes what is not a plain identifier, reversibly. */
        check_device("my-disk", "/org/sbd/Sbd1/devices/my_2ddisk");

        CHECK_INT(sbd_device_path("", &path), -EINVAL);
        CHECK_INT(sbd_device_path("a/b", &path), -EINVAL);
        CHECK_INT(sbd_device_path("/dev/", &path), -EINVAL);
        CHECK_INT(sbd_device_path("/org//sbd", &path), -EINVAL);
        CHECK_INT(sbd_device_path("/org/sbd/", &path), -EINVAL);
        CHECK_INT(sbd_device_path("/org/sbd-x", &path), -EINVAL);
        CHECK(!path);
}

static void check_object_name(const char *path, const char *expected) {
        _cleanup_free_ char *name = NULL;

        CHECK_INT(sbd_object_name(path, &name), 0);
        CHECK_STREQ(name, expected);
}

static void test_object_names(void) {
        check_object_name("/org/sbd/Sbd1", "manager");
        check_object_name("/org/sbd/Sbd1/module", "module");
        check_object_name("/org/sbd/Sbd1/drivers/sbd", "driver sbd");
        check_object_name("/org/sbd/Sbd1/devices/sbd12", "sbd12");
        check_object_name("/org/sbd/Sbd1/devices/my_2ddisk", "my-disk");
        check_object_name("/org/other", "/org/other");
}

static void test_object_paths(void) {
        CHECK(sbd_object_path_is_valid("/"));
        CHECK(sbd_object_path_is_valid("/org/sbd/Sbd1"));
        CHECK(sbd_object_path_is_valid("/a_b/C9"));
        CHECK(!sbd_object_path_is_valid(""));
        CHECK(!sbd_object_path_is_valid("org"));
        CHECK(!sbd_object_path_is_valid("//"));
        CHECK(!sbd_object_path_is_valid("/a/"));
        CHECK(!sbd_object_path_is_valid("/a.b"));
        CHECK(!sbd_object_path_is_valid(NULL));
}

static void test_name_order(void) {
        CHECK(sbd_name_compare("sbd2", "sbd10") < 0);
        CHECK(sbd_name_compare("sbd10", "sbd2") > 0);
        CHECK(sbd_name_compare("sbd0", "sbd0") == 0);
        CHECK(sbd_name_compare("sbd", "sbd0") < 0);
        CHECK(sbd_name_compare("abc", "abd") < 0);
}

int main(void) {
        test_property_names();
        test_device_paths();
        test_object_names();
        test_object_paths();
        test_name_order();
        return EXIT_SUCCESS;
}
