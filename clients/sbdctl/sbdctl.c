/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl: the command line client of sbdd. */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "args.h"
#include "bus.h"
#include "sbdctl.h"
#include "terminal.h"
#include "util.h"

static int run_verb(const Verb *v, const SbdctlArgs *a) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        char *default_argv[] = { (char *) SBDCTL_DEFAULT_VERB, NULL };
        Context c = {
                .json = a->json,
                .legend = !a->no_legend,
                .colors = !a->json && sbd_colors_wanted(),
                .has_id = a->has_id,
                .id = a->id,
        };
        pid_t pager = 0;
        int r;

        if (v->needs_bus) {
                r = sbd_bus_connect(a->address, isatty(STDIN_FILENO), &bus);
                if (r < 0)
                        return sbd_log_errno(r, "Failed to connect to %s", a->address ?: "the system bus");
                c.bus = bus;
        }

        if (v->pager && !a->no_pager) {
                pager = sbd_pager_open();
                if (pager < 0)
                        pager = 0; /* no pager then, the output still goes out */
        }

        r = a->argc > 0 ? v->function(&c, a->argc, a->argv) : v->function(&c, 1, default_argv);

        sbd_pager_close(pager);
        return r;
}

int main(int argc, char *argv[]) {
        SbdctlArgs a;
        const Verb *v;
        int r;

        r = sbdctl_parse_args(argc, argv, &a);
        if (r < 0)
                return EXIT_FAILURE;
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
