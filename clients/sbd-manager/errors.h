/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Daemon errors, said in words a user understands. */

#include <glib.h>

/* "Could not <what>: <why in words> (<the daemon's message>)." */
char *sbd_error_describe(const char *what, const GError *error);
