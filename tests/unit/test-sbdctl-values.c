/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl: parsing values typed from introspection, and formatting sizes. */

#include <errno.h>
#include <stdint.h>

#include "test-sbdctl-check.h"
#include "values.h"

static void test_bool(void) {
        const char *truths[] = { "yes", "YES", "true", "True", "on", "1", "y", "t" };
        const char *lies[] = { "no", "No", "false", "FALSE", "off", "0", "n", "f" };
        const char *junk[] = { "", "2", "yess", "ja", " yes", "-1", "onn" };

        for (size_t i = 0; i < sizeof(truths) / sizeof(truths[0]); i++)
                CHECK_INT(sbd_parse_bool(truths[i]), 1);
        for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++)
                CHECK_INT(sbd_parse_bool(lies[i]), 0);
        for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
                CHECK_INT(sbd_parse_bool(junk[i]), -EINVAL);
}

static void check_size(const char *text, uint64_t expected) {
        uint64_t v = 0;

        CHECK_INT(sbd_parse_size(text, &v), 0);
        CHECK(v == expected);
}

static void test_size(void) {
        uint64_t v = 7;

        check_size("0", 0);
        check_size("4096", 4096);
        check_size("512B", 512);
        check_size("64K", 64 << 10);
        check_size("64k", 64 << 10);
        check_size("64M", 64 << 20);
        check_size("16MiB", 16 << 20);
        check_size("1G", UINT64_C(1) << 30);
        check_size("2gb", UINT64_C(2) << 30);
        check_size("3T", UINT64_C(3) << 40);
        check_size("18446744073709551615", UINT64_MAX);
        check_size("15E", UINT64_C(15) << 60);

        CHECK_INT(sbd_parse_size("12x", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("M", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("-1", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("+1", &v), -EINVAL);
        CHECK_INT(sbd_parse_size(" 1", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("1 M", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("1.5M", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("0x10", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("1MM", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("1Mx", &v), -EINVAL);
        CHECK_INT(sbd_parse_size("16E", &v), -ERANGE);
        CHECK_INT(sbd_parse_size("18446744073709551616", &v), -ERANGE);
        CHECK(v == 7);
}

static void test_typed(void) {
        SbdValue v;

        CHECK_INT(sbd_parse_value("b", "yes", &v), 0);
        CHECK(v.type == 'b' && v.b == 1);
        CHECK_INT(sbd_parse_value("b", "off", &v), 0);
        CHECK(v.type == 'b' && v.b == 0);
        CHECK_INT(sbd_parse_value("b", "maybe", &v), -EINVAL);

        CHECK_INT(sbd_parse_value("t", "64M", &v), 0);
        CHECK(v.type == 't' && v.u == (64 << 20));
        CHECK_INT(sbd_parse_value("t", "12x", &v), -EINVAL);

        CHECK_INT(sbd_parse_value("u", "4294967295", &v), 0);
        CHECK(v.u == UINT32_MAX);
        CHECK_INT(sbd_parse_value("u", "4294967296", &v), -ERANGE);
        CHECK_INT(sbd_parse_value("u", "1K", &v), -EINVAL);
        CHECK_INT(sbd_parse_value("u", "-1", &v), -EINVAL);
        CHECK_INT(sbd_parse_value("y", "256", &v), -ERANGE);
        CHECK_INT(sbd_parse_value("q", "65535", &v), 0);

        CHECK_INT(sbd_parse_value("i", "-2147483648", &v), 0);
        CHECK(v.i == INT32_MIN);
        CHECK_INT(sbd_parse_value("i", "2147483648", &v), -ERANGE);
        CHECK_INT(sbd_parse_value("n", "-32769", &v), -ERANGE);
        CHECK_INT(sbd_parse_value("x", "-9223372036854775808", &v), 0);
        CHECK_INT(sbd_parse_value("x", "1e3", &v), -EINVAL);
        CHECK_INT(sbd_parse_value("i", "", &v), -EINVAL);

        CHECK_INT(sbd_parse_value("d", "2.5", &v), 0);
        CHECK(v.d == 2.5);
        CHECK_INT(sbd_parse_value("d", "nan", &v), -ERANGE);
        CHECK_INT(sbd_parse_value("d", "x", &v), -EINVAL);

        CHECK_INT(sbd_parse_value("s", "", &v), 0);
        CHECK_STREQ(v.s, "");
        CHECK_INT(sbd_parse_value("s", "my disk", &v), 0);
        CHECK_STREQ(v.s, "my disk");
        CHECK_INT(sbd_parse_value("o", "/org/sbd", &v), 0);
        CHECK_INT(sbd_parse_value("o", "org", &v), -EINVAL);

        CHECK_INT(sbd_parse_value("ao", "/a", &v), -EOPNOTSUPP);
        CHECK_INT(sbd_parse_value("a{ss}", "a=b", &v), -EOPNOTSUPP);
        CHECK_INT(sbd_parse_value("v", "1", &v), -EOPNOTSUPP);
        CHECK_INT(sbd_parse_value("", "1", &v), -EOPNOTSUPP);
}

static void check_bytes(uint64_t bytes, const char *expected) {
        char buf[SBD_FORMAT_BYTES_MAX];

        CHECK_STREQ(sbd_format_bytes(buf, sizeof(buf), bytes), expected);
}

static void test_format_bytes(void) {
        check_bytes(0, "0B");
        check_bytes(512, "512B");
        check_bytes(1023, "1023B");
        check_bytes(1024, "1.0K");
        check_bytes(1536, "1.5K");
        check_bytes(16 << 20, "16.0M");
        check_bytes((64 << 20) + (99 << 20) / 100, "64.9M"); /* truncated, as systemd does */
        check_bytes(UINT64_C(1) << 30, "1.0G");
        check_bytes((UINT64_C(1) << 30) * 3 / 2, "1.5G");
        check_bytes(UINT64_C(5) << 40, "5.0T");
        check_bytes(UINT64_MAX, "15.9E");
}

static void check_exact(uint64_t bytes, const char *expected) {
        char buf[SBD_FORMAT_BYTES_MAX];
        uint64_t back;

        CHECK_STREQ(sbd_format_bytes_exact(buf, sizeof(buf), bytes), expected);
        CHECK_INT(sbd_parse_size(buf, &back), 0);
        CHECK(back == bytes);
}

static void test_format_bytes_exact(void) {
        check_exact(0, "0");
        check_exact(1000, "1000");
        check_exact(512, "512");
        check_exact(1024, "1K");
        check_exact(16 << 20, "16M");
        check_exact((UINT64_C(3) << 30) / 2, "1536M");
        check_exact((16 << 20) + 512, "16777728"); /* no unit divides it */
        check_exact(UINT64_C(2) << 60, "2E");
        check_exact(UINT64_MAX, "18446744073709551615");
}

static void test_hints(void) {
        CHECK(strstr(sbd_value_hint("b"), "yes/no"));
        CHECK(strstr(sbd_value_hint("t"), "suffix"));
        CHECK(strstr(sbd_value_hint("ao"), "cannot"));
}

int main(void) {
        test_bool();
        test_size();
        test_typed();
        test_format_bytes();
        test_format_bytes_exact();
        test_hints();
        return EXIT_SUCCESS;
}
