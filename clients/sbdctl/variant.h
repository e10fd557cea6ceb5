/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Reading D-Bus values of any type out of a message, as text for humans or as JSON. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "json.h"

/* Reads one complete value (the message must be positioned on it; a variant is
 * unwrapped) and returns it as text: booleans as yes/no, arrays space-separated,
 * dictionaries as key=value. With `bytes`, a 't' is shown as a size ("16.0M"). */
int sbd_value_to_text(sd_bus_message *m, bool bytes, char **ret);

/* Reads one complete value and writes it as JSON: numbers, booleans, strings,
 * arrays; dictionaries with string keys become objects. */
int sbd_value_to_json(sd_bus_message *m, SbdJson *j);

/* The signature of the variant the message is positioned on, without reading it. */
int sbd_variant_peek_signature(sd_bus_message *m, const char **ret);
