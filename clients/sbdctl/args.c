/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "args.h"
#include "util.h"
#include "values.h"

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_NO_PAGER,
        ARG_NO_LEGEND,
        ARG_SYSTEM,
        ARG_ADDRESS,
        ARG_ID,
        ARG_NO_ASK_PASSWORD,
        ARG_NO_AUTO_START,
};

static int verb_help(Context *c, int argc, char **argv) {
        sbdctl_help();
        return 0;
}

static const Verb verbs[] = {
        /* name    args    pager  bus    may ask */
        { "list",    1,  1, true,  true,  false, verb_list },
        { "show",    2,  2, true,  true,  false, verb_show },
        { "get",     3,  3, false, true,  false, verb_get },
        { "set",     4,  4, false, true,  true,  verb_set },
        { "add",     2,  2, false, true,  true,  verb_add },
        { "remove",  2,  2, false, true,  true,  verb_remove },
        { "module",  1, -1, true,  true,  true,  verb_module },  /* load, unload */
        { "monitor", 1,  1, false, true,  false, verb_monitor },
        { "help",    1,  1, false, false, false, verb_help },
};

void sbdctl_help(void) {
        printf("sbdctl [OPTIONS...] COMMAND ...\n\n"
               "Query and control SBD, the simple block devices, through sbdd.\n\n"
               "Commands:\n"
               "  list                     List the devices (the default)\n"
               "  show DEV                 Show every property of a device\n"
               "  get DEV ATTR             Print one property of a device\n"
               "  set DEV ATTR VALUE       Change a writable property of a device\n"
               "  add SIZE [--id N]        Create a device of SIZE bytes (K, M, G suffixes)\n"
               "  remove DEV               Delete a device and its data\n"
               "  module                   Show the kernel module's state\n"
               "  module load [PARAM=VALUE...]\n"
               "                           Load the kernel module\n"
               "  module unload            Unload the kernel module and lose every disk\n"
               "  monitor                  Print devices and properties as they change\n\n"
               "DEV is a device name (sbd0) or its object path; ATTR is a sysfs attribute\n"
               "name (read_only) or a property name (ReadOnly).\n\n"
               "Options:\n"
               "  -h --help                Show this help\n"
               "     --version             Show the version\n"
               "     --json=MODE           Print JSON: short, pretty or off (JSON lines for\n"
               "                           monitor); --json alone is short\n"
               "  -j                       --json=pretty on a terminal, --json=short otherwise\n"
               "     --no-pager            Do not pipe output into a pager\n"
               "     --no-legend           Do not print table headers and footers\n"
               "     --no-ask-password     Do not ask for a password (polkit), fail instead\n"
               "     --no-auto-start       Do not start sbdd by D-Bus activation (completion)\n"
               "     --system              Talk to sbdd on the local system bus (the default)\n"
               "  -H --host=[USER@]HOST[:PORT]\n"
               "                           Talk to sbdd on a remote host's system bus, over ssh\n"
               "  -M --machine=[USER@]CONTAINER\n"
               "                           Talk to sbdd in a local container (systemd-machined)\n"
               "     --address=ADDRESS     Talk to sbdd on the bus at ADDRESS\n"
               "     --id=N                With add: the device number to create\n\n"
               "See the sbdctl(1) man page for details.\n");
}

static int parse_id(const char *s, uint32_t *ret) {
        SbdValue v;
        int r;

        r = sbd_parse_value("u", s, &v);
        if (r < 0) {
                fprintf(stderr, "sbdctl: Invalid device id '%s': expected a number from 0 to %u.\n", s, UINT32_MAX);
                return -EINVAL;
        }
        *ret = (uint32_t) v.u;
        return 0;
}

/* --json=MODE, as systemd's tools take it; "help" lists the modes. */
static int parse_json(const char *mode, SbdctlArgs *a) {
        if (!mode || streq(mode, "short"))
                a->json = SBD_JSON_SHORT;
        else if (streq(mode, "pretty"))
                a->json = SBD_JSON_PRETTY;
        else if (streq(mode, "off"))
                a->json = SBD_JSON_OFF;
        else if (streq(mode, "help")) {
                printf("short\npretty\noff\n");
                a->json_help = true;
        } else {
                fprintf(stderr, "sbdctl: Unknown --json mode '%s': expected short, pretty or off.\n", mode);
                return -EINVAL;
        }
        return 0;
}

/* The last of --system, --address, -H and -M says which bus. */
static int set_transport(SbdctlArgs *a, SbdTransport t, const char *arg) {
        if (t != TRANSPORT_LOCAL && (!arg || !*arg)) {
                fprintf(stderr, "sbdctl: %s needs a value.\n",
                        t == TRANSPORT_REMOTE ? "--host" : t == TRANSPORT_MACHINE ? "--machine" : "--address");
                return -EINVAL;
        }
        a->transport = t;
        a->address = t == TRANSPORT_ADDRESS ? arg : NULL;
        a->host = t == TRANSPORT_REMOTE ? arg : NULL;
        a->machine = t == TRANSPORT_MACHINE ? arg : NULL;
        return 0;
}

static int parse_option(int c, SbdctlArgs *a) {
        switch (c) {
        case 'h': a->help = true; return 0;
        case ARG_VERSION: a->version = true; return 0;
        case ARG_JSON: return parse_json(optarg, a);
        case 'j': a->json = isatty(STDOUT_FILENO) ? SBD_JSON_PRETTY : SBD_JSON_SHORT; return 0;
        case ARG_NO_PAGER: a->no_pager = true; return 0;
        case ARG_NO_LEGEND: a->no_legend = true; return 0;
        case ARG_NO_ASK_PASSWORD: a->no_ask_password = true; return 0;
        case ARG_NO_AUTO_START: a->no_auto_start = true; return 0;
        case ARG_SYSTEM: return set_transport(a, TRANSPORT_LOCAL, NULL);
        case ARG_ADDRESS: return set_transport(a, TRANSPORT_ADDRESS, optarg);
        case 'H': return set_transport(a, TRANSPORT_REMOTE, optarg);
        case 'M': return set_transport(a, TRANSPORT_MACHINE, optarg);
        case ARG_ID:
                a->has_id = true;
                return parse_id(optarg, &a->id);
        default: /* getopt already said what was wrong */
                return -EINVAL;
        }
}

int sbdctl_parse_args(int argc, char **argv, SbdctlArgs *ret) {
        static const struct option options[] = {
                { "help",      no_argument,       NULL, 'h' },
                { "version",   no_argument,       NULL, ARG_VERSION },
                { "json",            optional_argument, NULL, ARG_JSON },
                { "no-pager",        no_argument,       NULL, ARG_NO_PAGER },
                { "no-legend",       no_argument,       NULL, ARG_NO_LEGEND },
                { "no-ask-password", no_argument,       NULL, ARG_NO_ASK_PASSWORD },
                { "no-auto-start",   no_argument,       NULL, ARG_NO_AUTO_START },
                { "system",          no_argument,       NULL, ARG_SYSTEM },
                { "host",            required_argument, NULL, 'H' },
                { "machine",         required_argument, NULL, 'M' },
                { "address",         required_argument, NULL, ARG_ADDRESS },
                { "id",              required_argument, NULL, ARG_ID },
                {}
        };
        SbdctlArgs a = {};
        int c, r;

        optind = 0; /* full reinitialisation, so that tests may parse more than once */
        while ((c = getopt_long(argc, argv, "hjH:M:", options, NULL)) >= 0) {
                r = parse_option(c, &a);
                if (r < 0)
                        return r;
        }

        a.argc = argc - optind;
        a.argv = argv + optind;
        if (a.has_id && (a.argc == 0 || !streq(a.argv[0], "add"))) {
                fprintf(stderr, "sbdctl: --id is only valid with the add command.\n");
                return -EINVAL;
        }

        *ret = a;
        return 0;
}

const Verb *sbdctl_find_verb(int argc, char **argv) {
        const char *name = argc > 0 ? argv[0] : SBDCTL_DEFAULT_VERB;

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const Verb *v = verbs + i;
                int n = argc > 0 ? argc : 1;

                if (!streq(v->name, name))
                        continue;
                if (n < v->min_args) {
                        fprintf(stderr, "sbdctl: Too few arguments for '%s'; see sbdctl --help.\n", name);
                        return NULL;
                }
                if (v->max_args >= 0 && n > v->max_args) {
                        fprintf(stderr, "sbdctl: Too many arguments for '%s'; see sbdctl --help.\n", name);
                        return NULL;
                }
                return v;
        }
        fprintf(stderr, "sbdctl: Unknown command '%s'; see sbdctl --help.\n", name);
        return NULL;
}
