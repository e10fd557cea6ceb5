/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Asynchronous calls to the daemon. Each is counted while in flight; a failure
 * is shown in the window in words, a success clears the last error. */

#include "app.h"

/* Called when the reply is in: result is NULL on failure. */
typedef void (*SbdDoneFunc)(SbdApp *app, GVariant *result, const GError *error, gpointer data);

/* `what` completes "Could not ..." in an error message: "set the label of sbd0". */
void sbd_call(SbdApp *app, const char *path, const char *interface, const char *method,
              GVariant *parameters, const char *what, SbdDoneFunc done, gpointer data,
              GDestroyNotify free_data);

void sbd_set_property(SbdApp *app, const char *path, const char *interface, const char *property,
                      GVariant *value, const char *what, SbdDoneFunc done, gpointer data,
                      GDestroyNotify free_data);
