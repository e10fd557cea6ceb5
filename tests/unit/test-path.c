/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <systemd/sd-bus.h>

#include "attr.h"
#include "check.h"

static void check_encode(const char *name, const char *expected) {
        char *p = NULL, *back = NULL;

        CHECK(sd_bus_path_encode("/org/sbd/Sbd1/devices", name, &p) >= 0);
        CHECK_STREQ(p, expected);
        CHECK(sd_bus_object_path_is_valid(p));
        /* reversible */
        CHECK(sd_bus_path_decode(p, "/org/sbd/Sbd1/devices", &back) > 0);
        CHECK_STREQ(back, name);
        free(p);
        free(back);
}

static void check_resolve(const char *dir, const char *target, const char *expected) {
        char *p = NULL;

        CHECK(path_resolve_link(dir, target, &p) == 0);
        CHECK_STREQ(p, expected);
        free(p);
}

int main(void) {
        /* plain identifiers stay as they are, the rest is escaped */
        check_encode("sbd0", "/org/sbd/Sbd1/devices/sbd0");
        check_encode("sbd12345", "/org/sbd/Sbd1/devices/sbd12345");
        check_encode("sbd-x", "/org/sbd/Sbd1/devices/sbd_2dx");
        check_encode("0", "/org/sbd/Sbd1/devices/_30");
        check_encode("", "/org/sbd/Sbd1/devices/_");

        check_resolve("/sys/bus/sbd/devices", "../../../devices/system/sbd/sbd0", "/sys/devices/system/sbd/sbd0");
        check_resolve("/sys/bus/sbd/drivers/sbd", "../../../../devices/system/sbd/sbd3",
                      "/sys/devices/system/sbd/sbd3");
        check_resolve("/sys/a", "/abs/./x//y", "/abs/x/y");
        check_resolve("/", "../../..", "/");
        CHECK_STREQ(path_basename("/sys/devices/system/sbd/sbd0"), "sbd0");
        CHECK_STREQ(path_basename("sbd0"), "sbd0");
        return check_finish("path");
}
