/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "util.h"

int main(void) {
        struct config c;
        char *s = NULL;

        log_set_max_level(LOG_CRIT); /* the syntax errors below are expected */

        config_init(&c);
        CHECK(c.load && !c.unload_on_exit && c.uevent_source == UEVENT_SOURCE_AUTO);
        CHECK(config_set_param(&c, "ndevices=2") == 0);
        CHECK(config_set_param(&c, "size=64M") == 0);
        CHECK(config_set_param(&c, "ndevices=3") == 0); /* replaces */
        CHECK(config_params_string(c.params, &s) == 0);
        CHECK_STREQ(s, "ndevices=3 size=64M");
        free(s);
        CHECK(config_set_param(&c, "nokey") == -EINVAL);
        CHECK(config_set_param(&c, "=1") == -EINVAL);
        CHECK(config_set_param(&c, "size=") == -EINVAL);
        CHECK(config_set_param(&c, "size=1 ndevices=9") == -EINVAL);
        CHECK(config_set_param(&c, "size=\"1\"") == -EINVAL);
        CHECK(config_set_param(&c, "bad-key=1") == -EINVAL);
        config_done(&c);

        config_init(&c);
        CHECK(config_parse_string(&c,
                                  "# comment\n"
                                  "[Daemon]\n"
                                  "UeventSource = kernel\n"
                                  "LogLevel=debug\n"
                                  "\n"
                                  "[Module]\n"
                                  "Load=no\n"
                                  "Path=/lib/modules/x/sbd.ko\n"
                                  "UnloadOnExit=yes\n"
                                  "[Parameters]\n"
                                  "ndevices=4\n"
                                  "max_size=1G\n",
                                  "test") == 0);
        CHECK(c.uevent_source == UEVENT_SOURCE_KERNEL);
        CHECK(c.log_level == LOG_DEBUG);
        CHECK(!c.load);
        CHECK(c.unload_on_exit);
        CHECK_STREQ(c.module_path, "/lib/modules/x/sbd.ko");
        CHECK(config_params_string(c.params, &s) == 0);
        CHECK_STREQ(s, "ndevices=4 max_size=1G");
        free(s);
        config_done(&c);

        config_init(&c);
        CHECK(config_parse_string(&c, "Load=yes\n", "test") == -EINVAL);          /* no section */
        CHECK(config_parse_string(&c, "[Module]\nLoad=maybe\n", "test") == -EINVAL);
        CHECK(config_parse_string(&c, "[Module]\nColour=red\n", "test") == -EINVAL);
        CHECK(config_parse_string(&c, "[Daemon]\nUeventSource=netlink\n", "test") == -EINVAL);
        CHECK(config_parse_string(&c, "[Module\n", "test") == -EINVAL);
        CHECK(config_parse_string(&c, "[Parameters]\nsize=1 2\n", "test") == -EINVAL);
        config_done(&c);

        config_init(&c);
        CHECK(config_parse_file(&c, "/nonexistent/sbdd.conf") == -ENOENT);
        config_done(&c);

        CHECK(uevent_source_from_string("auto") == UEVENT_SOURCE_AUTO);
        CHECK(uevent_source_from_string("udev") == UEVENT_SOURCE_UDEV);
        CHECK(uevent_source_from_string("kernel") == UEVENT_SOURCE_KERNEL);
        CHECK(uevent_source_from_string("") < 0);
        CHECK(parse_boolean("yes") == 1 && parse_boolean("off") == 0 && parse_boolean("x") < 0);
        CHECK(log_parse_level("warning") == LOG_WARNING && log_parse_level("loud") < 0);

        return check_finish("config");
}
