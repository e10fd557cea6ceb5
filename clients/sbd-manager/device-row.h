/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* One device in the list: its name, and its writable properties edited in place. */

#include "app.h"

typedef struct DeviceRow DeviceRow;

/* Creates the row for an object with the org.sbd.Sbd1.Device interface and adds it to the list. */
DeviceRow *sbd_device_row_new(SbdApp *app, GDBusObject *object);

/* Removes the row from the list and frees it. */
void sbd_device_row_free(DeviceRow *row);

/* Shows the daemon's values; fields the user is editing keep their text. */
void sbd_device_row_sync(DeviceRow *row);

const char *sbd_device_row_name(DeviceRow *row);

/* Test actions: drive the row's widgets as a user would. */
gboolean sbd_device_row_edit(DeviceRow *row, const char *property, const char *value, GError **error);
void sbd_device_row_click_remove(DeviceRow *row);  /* trash, then the popover's Remove */
void sbd_device_row_expand(DeviceRow *row);        /* as a click on the row's header */

/* What the row shows, read from its widgets, as a JSON object. */
void sbd_device_row_to_json(DeviceRow *row, GString *out);

/* Finds the row of a device by name ("sbd0"). */
DeviceRow *sbd_device_row_find(SbdApp *app, const char *name);
