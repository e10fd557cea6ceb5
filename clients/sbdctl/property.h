/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Reading and writing one property of a resolved target. */

#include "sbdctl.h"
#include "target.h"

/* Reads the target's property and prints it: the bare value, or with --json
 * {"path", "property", "type", "value"}. */
int sbd_property_print(Context *c, const SbdTarget *t);

/* Parses text as the property's type and sets it; prints the problem on failure. */
int sbd_property_write(Context *c, const SbdTarget *t, const char *text);
