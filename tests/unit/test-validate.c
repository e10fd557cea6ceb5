/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checks sbdd makes before asking polkit (validate.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "config.h"
#include "util.h"
#include "validate.h"

static void test_params(void) {
        char *known[] = { "ndevices", "size", "max_size", NULL };
        struct param_check c = { .known = known };
        char key[32], big[LOAD_PARAM_VALUE_MAX + 2], long_key[LOAD_PARAM_KEY_MAX + 2];

        CHECK(param_check_add(&c, "ndevices", "2") == 0);
        CHECK(param_check_add(&c, "size", "16M") == 0);
        CHECK(param_check_add(&c, "size", "32M") == -ENOTUNIQ);
        CHECK(param_check_add(&c, "nosuch", "1") == -ENOKEY);
        CHECK(param_check_add(&c, "bad key", "1") == -EINVAL);
        CHECK(param_check_add(&c, "max_size", "") == -EINVAL);
        CHECK(param_check_add(&c, "max_size", "1 ndevices=9") == -EINVAL);
        memset(big, '1', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        CHECK(param_check_add(&c, "max_size", big) == -EINVAL);
        big[LOAD_PARAM_VALUE_MAX] = '\0';
        CHECK(param_check_add(&c, "max_size", big) == 0);
        param_check_done(&c);

        /* The module's list unknown: any well-formed key, each once, and
         * never more than LOAD_PARAMS_MAX of them. */
        c = (struct param_check) {};
        char keys[LOAD_PARAMS_MAX + 1][32];
        for (int i = 0; i < LOAD_PARAMS_MAX; i++) {
                snprintf(keys[i], sizeof(keys[i]), "p%d", i);
                CHECK(param_check_add(&c, keys[i], "1") == 0);
        }
        snprintf(key, sizeof(key), "p%d", LOAD_PARAMS_MAX);
        CHECK(param_check_add(&c, key, "1") == -E2BIG);
        param_check_done(&c);
        c = (struct param_check) {};
        CHECK(param_check_add(&c, "p1", "1") == 0);
        CHECK(param_check_add(&c, "p1", "1") == -ENOTUNIQ);
        /* Names up to NAME_MAX bytes, checked before anything else. */
        memset(long_key, 'k', sizeof(long_key) - 1);
        long_key[sizeof(long_key) - 1] = '\0';
        CHECK(param_check_add(&c, long_key, "1") == -ENAMETOOLONG);
        long_key[LOAD_PARAM_KEY_MAX - 1] = ' ';
        CHECK(param_check_add(&c, long_key, "1") == -ENAMETOOLONG);
        long_key[LOAD_PARAM_KEY_MAX - 1] = 'k';
        long_key[LOAD_PARAM_KEY_MAX] = '\0';
        CHECK(param_check_add(&c, long_key, "1") == 0);
        param_check_done(&c);
}

static void test_config_params_bounded(void) {
        struct config c;
        char a[32];
        int r = 0;

        config_init(&c);
        for (int i = 0; i <= LOAD_PARAMS_MAX && r == 0; i++) {
                snprintf(a, sizeof(a), "p%d=1", i);
                r = config_set_param(&c, a);
        }
        CHECK(r == -E2BIG);
        config_done(&c);
}

static void test_equal(void) {
        CHECK(attr_value_equal('s', "sbd0", "sbd0"));
        CHECK(!attr_value_equal('s', "sbd0", "sbd1"));
        CHECK(attr_value_equal('b', "1", "1"));
        CHECK(attr_value_equal('b', "Y", "1"));
        CHECK(!attr_value_equal('b', "0", "1"));
        CHECK(!attr_value_equal('b', "", "0"));
        CHECK(attr_value_equal('t', "16777216", "16777216"));
        CHECK(!attr_value_equal('t', "16777216", "16777217"));
        CHECK(!attr_value_equal('t', "garbage", "0"));
        CHECK(attr_value_equal('u', "007", "7"));
}

static void test_add_size(void) {
        CHECK(add_size_check(0, 0) == -EINVAL);
        CHECK(add_size_check(513, 0) == -EINVAL);
        CHECK(add_size_check(512, 0) == 0);
        CHECK(add_size_check(1 << 30, 1 << 30) == 0);
        CHECK(add_size_check((1 << 30) + 512, 1 << 30) == -ERANGE);
}

static void test_utf8(void) {
        char *s = NULL;

        CHECK(utf8_valid("plain"));
        CHECK(utf8_valid("gr\xc3\xbc\xc3\x9f"));
        CHECK(!utf8_valid("\xff"));
        CHECK(!utf8_valid("\xc0\x80"));          /* overlong NUL */
        CHECK(!utf8_valid("\xed\xa0\x80"));      /* a surrogate */
        CHECK(!utf8_valid("\xf4\x90\x80\x80"));  /* above U+10FFFF */
        CHECK(!utf8_valid("ab\xe2\x82"));        /* cut short */
        CHECK(text_make_utf8("plain", &s) == 0 && !s);
        CHECK(text_make_utf8("a\xff" "b", &s) == 1);
        CHECK_STREQ(s, "a\xef\xbf\xbd" "b");
        CHECK(utf8_valid(s));
        free(s);
        CHECK(text_make_utf8("\xe2\x82", &s) == 1);
        CHECK_STREQ(s, "\xef\xbf\xbd\xef\xbf\xbd");
        free(s);
}

static void test_device_attr(void) {
        char why[256], label[40];

        CHECK(device_attr_check("size", "1048576", 1 << 30, 0, why, sizeof(why)) == 0);
        CHECK(device_attr_check("size", "1000", 0, 0, why, sizeof(why)) == -EINVAL);
        CHECK(strstr(why, "multiple of 512") != NULL);
        CHECK(device_attr_check("size", "0", 0, 0, why, sizeof(why)) == -EINVAL);
        CHECK(device_attr_check("size", "2147483648", 1 << 30, 0, why, sizeof(why)) == -EINVAL);
        CHECK(strstr(why, "max_size of 1073741824") != NULL);
        CHECK(device_attr_check("size", "1073741824", 1 << 30, 1 << 29, why, sizeof(why)) == -EINVAL);
        CHECK(strstr(why, "max_total") != NULL);
        CHECK(device_attr_check("size", "1073741824", 0, 0, why, sizeof(why)) == 0);

        memset(label, 'x', sizeof(label));
        label[LABEL_MAX] = '\0';
        CHECK(device_attr_check("label", label, 0, 0, why, sizeof(why)) == 0);
        label[LABEL_MAX] = 'x';
        label[LABEL_MAX + 1] = '\0';
        CHECK(device_attr_check("label", label, 0, 0, why, sizeof(why)) == -EINVAL);
        CHECK(device_attr_check("label", "", 0, 0, why, sizeof(why)) == -EINVAL);
        CHECK(device_attr_check("label", " ~", 0, 0, why, sizeof(why)) == 0);
        CHECK(device_attr_check("label", "a\nb", 0, 0, why, sizeof(why)) == -EINVAL);
        CHECK(device_attr_check("label", "a\tb", 0, 0, why, sizeof(why)) == -EINVAL);
        CHECK(device_attr_check("label", "caf\xc3\xa9", 0, 0, why, sizeof(why)) == -EINVAL);
        CHECK(device_attr_check("label", "\x7f", 0, 0, why, sizeof(why)) == -EINVAL);
        /* no rules of sbdd's: the kernel judges */
        CHECK(device_attr_check("power/control", "a\nb", 0, 0, why, sizeof(why)) == 0);
}

static void test_dialog_text(void) {
        char big[4096];
        char *s;

        s = text_for_dialog("plain text");
        CHECK_STREQ(s, "plain text");
        free(s);
        s = text_for_dialog("a\nb\tc\\d\x1b\xc3\xa9");
        CHECK_STREQ(s, "a\\nb\\tc\\\\d\\x1b\\xc3\\xa9");
        free(s);
        memset(big, 'y', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        s = text_for_dialog(big);
        CHECK(s && strlen(s) == DIALOG_TEXT_MAX + 3 && strcmp(s + DIALOG_TEXT_MAX, "...") == 0);
        free(s);
        /* an escape is never cut in two */
        memset(big, 'y', DIALOG_TEXT_MAX - 2);
        strcpy(big + DIALOG_TEXT_MAX - 2, "\x01zzz");
        s = text_for_dialog(big);
        CHECK(s && strlen(s) == DIALOG_TEXT_MAX - 2 + 3 && strstr(s, "\\x") == NULL);
        free(s);
        s = text_for_dialog("");
        CHECK_STREQ(s, "");
        free(s);
}

/* The audit records' bound: the same escaping, cut where asked. */
static void test_text_escape(void) {
        char *s;

        s = text_escape("0123456789\n", 10);
        CHECK_STREQ(s, "0123456789...");
        free(s);
        s = text_escape("ab\ncd", 256);
        CHECK_STREQ(s, "ab\\ncd");
        free(s);
}

int main(void) {
        test_params();
        test_config_params_bounded();
        test_equal();
        test_add_size();
        test_utf8();
        test_device_attr();
        test_dialog_text();
        test_text_escape();
        return check_finish("test-validate");
}
