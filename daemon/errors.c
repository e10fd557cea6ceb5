/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "util.h"

const sd_bus_error_map sbd_error_map[] = {
        SD_BUS_ERROR_MAP(SBD_ERROR_INVALID_VALUE, EINVAL),
        SD_BUS_ERROR_MAP(SBD_ERROR_BUSY, EBUSY),
        SD_BUS_ERROR_MAP(SBD_ERROR_EXISTS, EEXIST),
        SD_BUS_ERROR_MAP(SBD_ERROR_DEVICE_GONE, ENODEV),
        SD_BUS_ERROR_MAP(SBD_ERROR_PERMISSION_DENIED, EPERM),
        SD_BUS_ERROR_MAP(SBD_ERROR_NOT_AUTHORIZED, EACCES),
        SD_BUS_ERROR_MAP(SBD_ERROR_MODULE_NOT_LOADED, ENOPKG),
        SD_BUS_ERROR_MAP(SBD_ERROR_KERNEL_ERROR, EIO),
        SD_BUS_ERROR_MAP_END
};

const char *sbd_error_name_from_errno(int error) {
        switch (abs(error)) {
        case EINVAL:
        case ERANGE:
                return SBD_ERROR_INVALID_VALUE;
        case EBUSY:
                return SBD_ERROR_BUSY;
        case EEXIST:
                return SBD_ERROR_EXISTS;
        case ENODEV:
        case ENOENT:
        case ENXIO:
                return SBD_ERROR_DEVICE_GONE;
        case EACCES:
        case EPERM:
                return SBD_ERROR_PERMISSION_DENIED;
        default:
                return SBD_ERROR_KERNEL_ERROR;
        }
}

int sbd_error_set_errno(sd_bus_error *ret, int error, const char *what) {
        error = abs(error);
        /* strerror() is fine: sbdd is single-threaded. */
        sd_bus_error_setf(ret, sbd_error_name_from_errno(error), "%s: %s (%s)",
                          what, strerror(error), strerrorname_np(error) ?: "unknown errno");
        return -error;
}
