/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl: options and commands. */

#include <errno.h>
#include <unistd.h>

#include "args.h"
#include "test-sbdctl-check.h"
#include "util.h"

#define PARSE(a, ...)                                                  \
        ({                                                              \
                static char *_argv[] = { (char *) "sbdctl", ##__VA_ARGS__, NULL }; \
                sbdctl_parse_args((int) ELEMENTSOF(_argv) - 1, _argv, (a)); \
        })

static void test_options(void) {
        SbdctlArgs a;

        CHECK_INT(PARSE(&a, "list"), 0);
        CHECK(!a.json && !a.no_pager && !a.no_legend && !a.address && !a.has_id);
        CHECK_INT(a.argc, 1);
        CHECK_STREQ(a.argv[0], "list");

        CHECK_INT(PARSE(&a, "--json", "--no-pager", "--no-legend", "show", "sbd0"), 0);
        CHECK(a.json && a.no_pager && a.no_legend);
        CHECK_INT(a.argc, 2);
        CHECK_STREQ(a.argv[1], "sbd0");

        /* Options may follow the command, as with systemctl. */
        CHECK_INT(PARSE(&a, "get", "sbd0", "size", "--json"), 0);
        CHECK(a.json);
        CHECK_INT(a.argc, 3);

        CHECK_INT(PARSE(&a, "--address=unix:path=/run/x", "list"), 0);
        CHECK_STREQ(a.address, "unix:path=/run/x");
        CHECK_INT(PARSE(&a, "--address", "unix:path=/run/x", "--system", "list"), 0);
        CHECK(!a.address);

        CHECK_INT(PARSE(&a, "add", "64M", "--id", "7"), 0);
        CHECK(a.has_id);
        CHECK_INT(a.id, 7);
        CHECK_INT(a.argc, 2);
        CHECK_INT(PARSE(&a, "--id=4294967295", "add", "1M"), 0);
        CHECK_INT(a.id, UINT32_MAX);

        /* A value starting with a dash needs "--". */
        CHECK_INT(PARSE(&a, "set", "sbd0", "label", "--", "-x"), 0);
        CHECK_INT(a.argc, 4);
        CHECK_STREQ(a.argv[3], "-x");

        CHECK_INT(PARSE(&a), 0);
        CHECK_INT(a.argc, 0);
        CHECK_INT(PARSE(&a, "-h"), 0);
        CHECK(a.help);
        CHECK_INT(PARSE(&a, "--version"), 0);
        CHECK(a.version);
}

static void test_bad_options(void) {
        SbdctlArgs a;

        CHECK_INT(PARSE(&a, "--frobnicate", "list"), -EINVAL);
        CHECK_INT(PARSE(&a, "list", "--id", "3"), -EINVAL);
        CHECK_INT(PARSE(&a, "add", "1M", "--id", "x"), -EINVAL);
        CHECK_INT(PARSE(&a, "add", "1M", "--id", "-1"), -EINVAL);
        CHECK_INT(PARSE(&a, "add", "1M", "--id", "4294967296"), -EINVAL);
        CHECK_INT(PARSE(&a, "add", "1M", "--id"), -EINVAL);
        CHECK_INT(PARSE(&a, "--address"), -EINVAL);
        CHECK_INT(PARSE(&a, "--json=long", "list"), -EINVAL);
        CHECK_INT(PARSE(&a, "--json=", "list"), -EINVAL);
        CHECK_INT(PARSE(&a, "-H", "", "list"), -EINVAL);
        CHECK_INT(PARSE(&a, "--machine=", "list"), -EINVAL);
        CHECK_INT(PARSE(&a, "-H"), -EINVAL);
}

/* The options systemd's tools share. */
static void test_systemd_options(void) {
        SbdctlArgs a;

        CHECK_INT(PARSE(&a, "--json=short", "list"), 0);
        CHECK_INT(a.json, SBD_JSON_SHORT);
        CHECK_INT(PARSE(&a, "--json=pretty", "list"), 0);
        CHECK_INT(a.json, SBD_JSON_PRETTY);
        CHECK_INT(PARSE(&a, "--json", "--json=off", "list"), 0);
        CHECK_INT(a.json, SBD_JSON_OFF);
        /* -j: pretty on a terminal, short otherwise (the test's stdout is no terminal) */
        CHECK_INT(PARSE(&a, "-j", "list"), 0);
        CHECK_INT(a.json, isatty(STDOUT_FILENO) ? SBD_JSON_PRETTY : SBD_JSON_SHORT);

        CHECK_INT(PARSE(&a, "list"), 0);
        CHECK(!a.no_ask_password && !a.no_auto_start && a.transport == TRANSPORT_LOCAL);
        CHECK_INT(PARSE(&a, "--no-ask-password", "--no-auto-start", "set", "sbd0", "label", "x"), 0);
        CHECK(a.no_ask_password && a.no_auto_start);

        /* the last of --system, --address, -H and -M wins */
        CHECK_INT(PARSE(&a, "-H", "root@vm:2222", "list"), 0);
        CHECK_INT(a.transport, TRANSPORT_REMOTE);
        CHECK_STREQ(a.host, "root@vm:2222");
        CHECK(!a.address && !a.machine);
        CHECK_INT(PARSE(&a, "--host=vm", "-M", "box", "list"), 0);
        CHECK_INT(a.transport, TRANSPORT_MACHINE);
        CHECK_STREQ(a.machine, "box");
        CHECK(!a.host);
        CHECK_INT(PARSE(&a, "-Mbox", "--address=unix:path=/x", "list"), 0);
        CHECK_INT(a.transport, TRANSPORT_ADDRESS);
        CHECK(!a.machine);
        CHECK_INT(PARSE(&a, "-H", "vm", "--system", "list"), 0);
        CHECK_INT(a.transport, TRANSPORT_LOCAL);
        CHECK(!a.host);
}

static const Verb *find(int argc, const char *a0, const char *a1, const char *a2, const char *a3) {
        char *argv[] = { (char *) a0, (char *) a1, (char *) a2, (char *) a3, NULL };

        return sbdctl_find_verb(argc, argv);
}

static void test_verbs(void) {
        const Verb *v;

        v = find(0, NULL, NULL, NULL, NULL);
        CHECK(v);
        CHECK_STREQ(v->name, "list");
        CHECK(find(1, "list", NULL, NULL, NULL));
        CHECK(find(2, "show", "sbd0", NULL, NULL));
        CHECK(find(3, "get", "sbd0", "size", NULL));
        CHECK(find(4, "set", "sbd0", "size", "1M"));
        CHECK(find(2, "add", "1M", NULL, NULL));
        CHECK(find(2, "remove", "sbd0", NULL, NULL));
        CHECK(find(1, "module", NULL, NULL, NULL));
        CHECK(find(4, "module", "load", "size=1M", "ndevices=2"));
        CHECK(find(1, "monitor", NULL, NULL, NULL));
        CHECK(find(1, "help", NULL, NULL, NULL));

        CHECK(!find(1, "frobnicate", NULL, NULL, NULL));
        CHECK(!find(2, "list", "extra", NULL, NULL));
        CHECK(!find(1, "show", NULL, NULL, NULL));
        CHECK(!find(2, "get", "sbd0", NULL, NULL));
        CHECK(!find(3, "set", "sbd0", "size", NULL));
        CHECK(!find(1, "add", NULL, NULL, NULL));
        CHECK(!find(3, "add", "1M", "2", NULL));
        CHECK(!find(2, "monitor", "x", NULL, NULL));

        v = find(1, "list", NULL, NULL, NULL);
        CHECK(v->pager && v->needs_bus);
        v = find(1, "monitor", NULL, NULL, NULL);
        CHECK(!v->pager);
}

int main(void) {
        test_options();
        test_bad_options();
        test_systemd_options();
        test_verbs();
        return EXIT_SUCCESS;
}
