/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The devices the daemon exports, read in one GetManagedObjects call. */

#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct SbdDevice {
        char *path;
        char *name;             /* SysName, or the last path element */
        char *label;            /* NULL when the attribute could not be read */
        char *block_device;
        uint64_t size;
        int has_size;
        int read_only;          /* -1: unknown */
        int online;             /* -1: unknown */
} SbdDevice;

typedef struct SbdDevices {
        SbdDevice *devices;     /* sorted by name, sbd2 before sbd10 */
        size_t n;
} SbdDevices;

int sbd_devices_load(sd_bus *bus, SbdDevices *ret, sd_bus_error *error);
void sbd_devices_done(SbdDevices *d);
