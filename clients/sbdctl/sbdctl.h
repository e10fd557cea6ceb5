/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What every sbdctl command gets: the bus and the output settings. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/* --json=MODE: off, one line per document, or indented for people. */
typedef enum SbdJsonMode {
        SBD_JSON_OFF,
        SBD_JSON_SHORT,
        SBD_JSON_PRETTY,
} SbdJsonMode;

/* Which system bus: the local one, a bus at an address, over ssh, in a container. */
typedef enum SbdTransport {
        TRANSPORT_LOCAL,
        TRANSPORT_ADDRESS,
        TRANSPORT_REMOTE,
        TRANSPORT_MACHINE,
} SbdTransport;

typedef struct Context {
        sd_bus *bus;
        bool json;              /* one JSON document on stdout (JSON lines for monitor) */
        bool json_pretty;       /* --json=pretty: indented (monitor stays one line per event) */
        bool legend;            /* table headers and footers */
        bool colors;
        bool has_id;            /* add --id N */
        uint32_t id;
} Context;

/* A command: argv[0] is the command's name. Returns 0 or a negative errno
 * after printing what went wrong. */
typedef int (*VerbFunction)(Context *c, int argc, char **argv);

int verb_list(Context *c, int argc, char **argv);
int verb_show(Context *c, int argc, char **argv);
int verb_get(Context *c, int argc, char **argv);
int verb_set(Context *c, int argc, char **argv);
int verb_add(Context *c, int argc, char **argv);
int verb_remove(Context *c, int argc, char **argv);
int verb_module(Context *c, int argc, char **argv);
int verb_monitor(Context *c, int argc, char **argv);
