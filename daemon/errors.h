/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <systemd/sd-bus.h>

#define SBD_ERROR_INVALID_VALUE "org.sbd.Sbd1.Error.InvalidValue"
#define SBD_ERROR_BUSY "org.sbd.Sbd1.Error.Busy"
#define SBD_ERROR_EXISTS "org.sbd.Sbd1.Error.Exists"
#define SBD_ERROR_DEVICE_GONE "org.sbd.Sbd1.Error.DeviceGone"
#define SBD_ERROR_PERMISSION_DENIED "org.sbd.Sbd1.Error.PermissionDenied"
#define SBD_ERROR_NOT_AUTHORIZED "org.sbd.Sbd1.Error.NotAuthorized"
#define SBD_ERROR_MODULE_NOT_LOADED "org.sbd.Sbd1.Error.ModuleNotLoaded"
#define SBD_ERROR_KERNEL_ERROR "org.sbd.Sbd1.Error.KernelError"

/* Name -> errno, for sd_bus_error_add_map(): lets sd_bus_error_get_errno()
 * and clients built on sd-bus turn our errors back into errnos. */
extern const sd_bus_error_map sbd_error_map[];

/* The contract's errno -> error name mapping (positive or negative errno). */
const char *sbd_error_name_from_errno(int error);

/* Fill *ret with the named error for a kernel errno; the message says
 * what was being done (what) and carries the errno's text. Returns the
 * negative errno so that callbacks can return it. */
int sbd_error_set_errno(sd_bus_error *ret, int error, const char *what);
