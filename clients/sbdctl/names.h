/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Names of the org.sbd.Sbd1 API: the bus name, object paths and interfaces
 * (sbd-bus.h, shared with sbdd), and the mapping from sysfs attribute names
 * to D-Bus property names (contract.md, section 3). */

#include <stdbool.h>

#include "sbd-bus.h"

/* "read_only" -> "ReadOnly", "power/runtime_status" -> "PowerRuntimeStatus";
 * a property name ("ReadOnly") maps to itself. Returns -EINVAL when the
 * result would not be a D-Bus member name. */
int sbd_property_name(const char *attribute, char **ret);

/* Whether s is a syntactically valid D-Bus object path. */
bool sbd_object_path_is_valid(const char *s);

/* "sbd0", "/dev/sbd0" or an object path -> the device's object path. */
int sbd_device_path(const char *dev, char **ret);

/* An object path -> a short name for humans: "sbd0", "module", "driver sbd",
 * "manager"; other paths are returned unchanged. */
int sbd_object_name(const char *path, char **ret);

/* Compares two names so that "sbd2" sorts before "sbd10". */
int sbd_name_compare(const char *a, const char *b);
