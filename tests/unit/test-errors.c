/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "check.h"
#include "errors.h"

int main(void) {
        sd_bus_error e = SD_BUS_ERROR_NULL;

        /* the contract's mapping */
        CHECK_STREQ(sbd_error_name_from_errno(EINVAL), SBD_ERROR_INVALID_VALUE);
        CHECK_STREQ(sbd_error_name_from_errno(-EINVAL), SBD_ERROR_INVALID_VALUE);
        CHECK_STREQ(sbd_error_name_from_errno(ERANGE), SBD_ERROR_INVALID_VALUE);
        CHECK_STREQ(sbd_error_name_from_errno(EBUSY), SBD_ERROR_BUSY);
        CHECK_STREQ(sbd_error_name_from_errno(EEXIST), SBD_ERROR_EXISTS);
        CHECK_STREQ(sbd_error_name_from_errno(ENODEV), SBD_ERROR_DEVICE_GONE);
        CHECK_STREQ(sbd_error_name_from_errno(ENOENT), SBD_ERROR_DEVICE_GONE);
        CHECK_STREQ(sbd_error_name_from_errno(ENXIO), SBD_ERROR_DEVICE_GONE);
        CHECK_STREQ(sbd_error_name_from_errno(EACCES), SBD_ERROR_PERMISSION_DENIED);
        CHECK_STREQ(sbd_error_name_from_errno(EPERM), SBD_ERROR_PERMISSION_DENIED);
        CHECK_STREQ(sbd_error_name_from_errno(EIO), SBD_ERROR_KERNEL_ERROR);
        CHECK_STREQ(sbd_error_name_from_errno(ENOMEM), SBD_ERROR_KERNEL_ERROR);
        CHECK_STREQ(sbd_error_name_from_errno(ENOSPC), SBD_ERROR_KERNEL_ERROR);

        /* KernelError messages carry the errno's text */
        CHECK(sbd_error_set_errno(&e, -EIO, "Writing size") == -EIO);
        CHECK_STREQ(e.name, SBD_ERROR_KERNEL_ERROR);
        CHECK(strstr(e.message, "Writing size") && strstr(e.message, "Input/output error") &&
              strstr(e.message, "EIO"));
        sd_bus_error_free(&e);

        /* the registered map turns names back into errnos */
        CHECK(sd_bus_error_add_map(sbd_error_map) >= 0);
        sd_bus_error_set(&e, SBD_ERROR_BUSY, "x");
        CHECK(sd_bus_error_get_errno(&e) == EBUSY);
        sd_bus_error_free(&e);
        sd_bus_error_set(&e, SBD_ERROR_DEVICE_GONE, "x");
        CHECK(sd_bus_error_get_errno(&e) == ENODEV);
        sd_bus_error_free(&e);

        return check_finish("errors");
}
