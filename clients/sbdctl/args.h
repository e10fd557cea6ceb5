/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* sbdctl's command line: options, and the table of commands. */

#include <stdbool.h>
#include <stdint.h>

#include "sbdctl.h"

typedef struct SbdctlArgs {
        bool help;
        bool version;
        bool json_help;         /* --json=help: the modes were listed */
        SbdJsonMode json;
        bool no_pager;
        bool no_legend;
        bool no_ask_password;
        bool no_auto_start;     /* never D-Bus-activate sbdd (completion) */
        SbdTransport transport;
        const char *address;    /* TRANSPORT_ADDRESS: the bus's address */
        const char *host;       /* TRANSPORT_REMOTE: [USER@]HOST[:PORT] */
        const char *machine;    /* TRANSPORT_MACHINE: [USER@]NAME */
        bool has_id;
        uint32_t id;
        int argc;               /* the command and its arguments; 0: the default command */
        char **argv;
} SbdctlArgs;

typedef struct Verb {
        const char *name;
        int min_args;           /* counting the command's own name */
        int max_args;           /* -1: any number */
        bool pager;             /* whether its output may go through a pager */
        bool needs_bus;
        bool may_ask;           /* may need polkit's authorization: the text agent runs */
        VerbFunction function;
} Verb;

/* Parses the options; prints what is wrong on stderr and returns -EINVAL on bad use. */
int sbdctl_parse_args(int argc, char **argv, SbdctlArgs *ret);

/* Finds the command and checks its argument count; prints the problem and
 * returns NULL when it does not fit. */
const Verb *sbdctl_find_verb(int argc, char **argv);

/* The name of the default command ("list"). */
#define SBDCTL_DEFAULT_VERB "list"

void sbdctl_help(void);
