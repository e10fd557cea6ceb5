/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* sbdd's settings: built-in defaults, then the config file, then the
 * command line (main.c), each overriding the one before. */

#include <stdbool.h>
#include <stdint.h>

/* dbus-daemon's default max_message_size, on the system bus too. */
#define BUS_MESSAGE_SIZE_DEFAULT (32U * 1024 * 1024)

/* Audit records (audit.c), per kind: at most this many per interval. A
 * caller refused as fast as the bus carries it costs 20 entries a second. */
#define AUDIT_RATE_INTERVAL_SEC_DEFAULT 10
#define AUDIT_RATE_BURST_DEFAULT 200

enum uevent_source {
        UEVENT_SOURCE_AUTO,
        UEVENT_SOURCE_UDEV,
        UEVENT_SOURCE_KERNEL,
};

struct config {
        char *module_path;          /* load from this .ko instead of by name */
        bool load;                  /* load the module at start-up */
        bool unload_on_exit;
        enum uevent_source uevent_source;
        char **params;              /* "key=value" strv, keys unique */
        int log_level;              /* syslog priority */
        uint64_t max_message_size;  /* the bus's max_message_size (replysize.c) */
        uint64_t audit_rate_interval_usec;  /* audit records: per kind, at most */
        unsigned audit_rate_burst;          /* this many per interval (0: no limit) */
};

#define SBDD_CONFIG_FILE SYSCONFDIR "/sbd/sbdd.conf"

void config_init(struct config *c);
void config_done(struct config *c);

int uevent_source_from_string(const char *s);
const char *uevent_source_to_string(enum uevent_source s);

/* Validate "key=value" as a module parameter and set it, replacing an
 * earlier value for the same key. -EINVAL for a bad key or value,
 * -E2BIG beyond LOAD_PARAMS_MAX (validate.h) keys. */
int config_set_param(struct config *c, const char *assignment);
bool module_param_key_valid(const char *key, size_t len);
bool module_param_value_valid(const char *value);

/* Join the parameters for kmod: "ndevices=2 size=64M". */
int config_params_string(char **params, char **ret);

/* Parse an ini file:
 *   [Daemon]     UeventSource=auto|udev|kernel  LogLevel=info  MaxMessageSize=BYTES
 *                AuditRateLimitIntervalSec=10  AuditRateLimitBurst=200
 *   [Module]     Load=yes|no  Path=/path/sbd.ko  UnloadOnExit=yes|no
 *   [Parameters] ndevices=2 ...
 * Returns -ENOENT when the file does not exist, -EINVAL (logged with the
 * line number) on a syntax error. */
int config_parse_file(struct config *c, const char *path);
int config_parse_string(struct config *c, const char *text, const char *origin);

int parse_boolean(const char *s);
