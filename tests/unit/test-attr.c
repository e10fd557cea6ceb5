/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "attr.h"
#include "check.h"

static void check_name(const char *file, const char *expected) {
        char *p = NULL;
        int r = attr_property_name(file, &p);

        if (!expected) {
                CHECK(r < 0);
                return;
        }
        CHECK(r == 0);
        CHECK_STREQ(p, expected);
        free(p);
}

int main(void) {
        bool b;
        uint64_t t;
        uint32_t u;
        char buf[16];

        /* the contract's examples */
        check_name("read_only", "ReadOnly");
        check_name("power/runtime_status", "PowerRuntimeStatus");
        check_name("ndevices", "Ndevices");
        check_name("size", "Size");
        check_name("label", "Label");
        check_name("power/autosuspend_delay_ms", "PowerAutosuspendDelayMs");
        check_name("power/runtime_active_time", "PowerRuntimeActiveTime");
        /* beyond: characters a member name cannot hold split too */
        check_name("foo-bar.baz", "FooBarBaz");
        check_name("2nd_try", "X2ndTry");
        check_name("__x__", "X");
        check_name("", NULL);
        check_name("___", NULL);

        /* the schema */
        CHECK(attr_type(OBJECT_DEVICE, "Size") == 't');
        CHECK(attr_type(OBJECT_DEVICE, "ReadOnly") == 'b');
        CHECK(attr_type(OBJECT_DEVICE, "Online") == 'b');
        CHECK(attr_type(OBJECT_DRIVER, "Ndevices") == 'u');
        CHECK(attr_type(OBJECT_DEVICE, "Label") == 's');
        CHECK(attr_type(OBJECT_DEVICE, "Ndevices") == 's');
        CHECK(attr_type(OBJECT_DRIVER, "Size") == 's');
        CHECK(attr_type(OBJECT_DEVICE, "SomethingNew") == 's');

        CHECK(attr_flags(OBJECT_DEVICE, "size") == ATTR_WATCH);
        CHECK(attr_flags(OBJECT_DEVICE, "read_only") == ATTR_WATCH);
        CHECK(attr_flags(OBJECT_DEVICE, "label") == ATTR_WATCH);
        CHECK(attr_flags(OBJECT_DEVICE, "online") == 0);
        CHECK(attr_flags(OBJECT_DEVICE, "power/runtime_status") == ATTR_LIVE);
        CHECK(attr_flags(OBJECT_DRIVER, "mem_used") == ATTR_LIVE);
        CHECK(attr_flags(OBJECT_DEVICE, "mem_used") == ATTR_LIVE);
        CHECK(attr_flags(OBJECT_DRIVER, "mem_max") == 0);
        CHECK(attr_flags(OBJECT_DEVICE, "power/control") == ATTR_LIVE);
        CHECK(attr_flags(OBJECT_DRIVER, "size") == 0);

        /* modes: readable by the owner makes a property, writable a readwrite one */
        CHECK(attr_mode_is_property(S_IFREG | 0444));
        CHECK(attr_mode_is_property(S_IFREG | 0644));
        CHECK(!attr_mode_is_property(S_IFREG | 0200));
        CHECK(!attr_mode_is_property(S_IFREG | 0000));
        CHECK(!attr_mode_is_property(S_IFDIR | 0755));
        CHECK(attr_mode_is_property(S_IFREG | 0600));
        CHECK(attr_mode_is_shown(S_IFREG | 0644));
        CHECK(attr_mode_is_shown(S_IFREG | 0404));
        CHECK(!attr_mode_is_shown(S_IFREG | 0600));
        CHECK(!attr_mode_is_shown(S_IFREG | 0640));
        CHECK(attr_mode_is_writable(S_IFREG | 0644));
        CHECK(!attr_mode_is_writable(S_IFREG | 0444));

        /* parsing */
        CHECK(attr_parse_bool("1", &b) == 0 && b);
        CHECK(attr_parse_bool("0", &b) == 0 && !b);
        CHECK(attr_parse_bool("Y", &b) == 0 && b);
        CHECK(attr_parse_bool("off", &b) == 0 && !b);
        CHECK(attr_parse_bool("2", &b) < 0);
        CHECK(attr_parse_bool("", &b) < 0);
        CHECK(attr_parse_u64("16777216", &t) == 0 && t == 16777216);
        CHECK(attr_parse_u64("18446744073709551615", &t) == 0 && t == UINT64_MAX);
        CHECK(attr_parse_u64("18446744073709551616", &t) == -ERANGE);
        CHECK(attr_parse_u64("-1", &t) < 0);
        CHECK(attr_parse_u64("12abc", &t) < 0);
        CHECK(attr_parse_u64("", &t) < 0);
        CHECK(attr_parse_u64(" 1", &t) < 0);
        CHECK(attr_parse_u32("4294967295", &u) == 0 && u == UINT32_MAX);
        CHECK(attr_parse_u32("4294967296", &u) == -ERANGE);

        strcpy(buf, "abc\n");
        CHECK(attr_strip_newline(buf, 4) == 3);
        CHECK_STREQ(buf, "abc");
        strcpy(buf, "abc");
        CHECK(attr_strip_newline(buf, 3) == 3);
        strcpy(buf, "a\n\n");
        CHECK(attr_strip_newline(buf, 3) == 2); /* only one newline is the kernel's */
        CHECK(ATTR_VALUE_MAX == 4096);

        return check_finish("attr");
}
