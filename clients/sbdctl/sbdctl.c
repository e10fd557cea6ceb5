/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl: the command line client of sbdd. */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "agent.h"
#include "args.h"
#include "bus.h"
#include "sbdctl.h"
#include "terminal.h"
#include "util.h"

static int run_verb(const Verb *v, const SbdctlArgs *a) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        char *default_argv[] = { (char *) SBDCTL_DEFAULT_VERB, NULL };
        Context c = {
                .json = a->json != SBD_JSON_OFF,
                .json_pretty = a->json == SBD_JSON_PRETTY,
                .legend = !a->no_legend,
                .colors = a->json == SBD_JSON_OFF && sbd_colors_wanted(),
                .has_id = a->has_id,
                .id = a->id,
        };
        const char *where = a->host ?: a->machine ?: a->address;
        bool interactive = !a->no_ask_password && isatty(STDIN_FILENO);
        pid_t pager = 0, agent = 0;
        char buf[256];
        int r;

        if (v->needs_bus) {
                r = sbd_bus_connect(a->transport, where, interactive, &bus);
                if (r < 0)
                        return sbd_log_errno(r, "Failed to connect to %s",
                                             sbd_bus_describe(a->transport, where, buf, sizeof(buf)));
                c.bus = bus;
                if (a->no_auto_start) {
                        r = sbd_bus_check_running(bus);
                        if (r < 0)
                                return r;
                }
        }

        /* "module" alone only reads */
        if (interactive && v->may_ask && !(streq(v->name, "module") && a->argc < 2)) {
                agent = sbd_agent_open(a->transport == TRANSPORT_LOCAL);
                if (agent < 0)
                        agent = 0; /* then polkit finds no agent, and says so */
        }

        /* no pager while an agent may prompt on the same terminal */
        if (v->pager && !a->no_pager && agent == 0) {
                pager = sbd_pager_open();
                if (pager < 0)
                        pager = 0; /* no pager then, the output still goes out */
        }

        r = a->argc > 0 ? v->function(&c, a->argc, a->argv) : v->function(&c, 1, default_argv);

        sbd_pager_close(pager);
        sbd_agent_close(agent);
        return r;
}

int main(int argc, char *argv[]) {
        SbdctlArgs a;
        const Verb *v;
        int r;

        r = sbdctl_parse_args(argc, argv, &a);
        if (r < 0)
                return EXIT_FAILURE;
        if (a.json_help)
                return EXIT_SUCCESS;
        if (a.help) {
                sbdctl_help();
                return EXIT_SUCCESS;
        }
        if (a.version) {
                printf("sbdctl %s\n", PACKAGE_VERSION);
                return EXIT_SUCCESS;
        }

        v = sbdctl_find_verb(a.argc, a.argv);
        if (!v)
                return EXIT_FAILURE;

        r = run_verb(v, &a);
        if (fflush(stdout) != 0 && r >= 0)
                r = sbd_log_errno(-EIO, "Failed to write the output");
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
