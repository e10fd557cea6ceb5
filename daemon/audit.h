/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The audit trail: one structured journal entry per change sbdd makes,
 * refuses or sees the kernel make (audit.c; the fields are documented in
 * docs/org.sbd.Sbd1.rst, the entries explained by systemd/sbdd.catalog). */

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

struct daemon;

enum audit_kind {
        AUDIT_SET,
        AUDIT_DEVICE_ADDED,
        AUDIT_DEVICE_REMOVED,
        AUDIT_MODULE_LOADED,
        AUDIT_MODULE_UNLOADED,
        AUDIT_REFUSED,
        _AUDIT_KIND_MAX,
};

/* Who asked. bus_name NULL: nobody, the kernel's own (or another
 * process's direct sysfs) change, seen from its uevent. */
struct caller {
        const char *bus_name;
        uid_t uid;           /* (uid_t) -1: not known */
        pid_t pid;           /* 0: not known */
        const char *polkit;  /* "not-asked" (root), "allowed", "denied", "challenge",
                              * "unavailable", "error"; NULL: refused before authorization */
};

struct audit_record {
        enum audit_kind kind;
        const char *operation;  /* "Set", "AddDevice", "RemoveDevice", "Load", "Unload", "uevent" */
        const char *object;     /* D-Bus object path */
        const char *attribute;  /* sysfs file name, or NULL */
        const char *old_value;  /* as cached, NULL: none or not shown */
        const char *new_value;  /* as asked for or seen, NULL: none or not shown */
        const sd_bus_error *error;     /* NULL: done */
        const struct caller *caller;   /* NULL: origin kernel */
};

void audit_log(struct daemon *d, const struct audit_record *rec);
/* A request refused: one AUDIT_REFUSED record. */
void audit_refused(struct daemon *d, const char *operation, const char *object, const char *attribute,
                   const char *new_value, const sd_bus_error *error, const struct caller *caller);
/* Listens to the changes sbdd sees (announce.h): each one that no request
 * of sbdd's made or claimed is recorded with SBD_ORIGIN=kernel. */
struct change;
void audit_on_change(struct change *c, void *userdata);
void audit_done(struct daemon *d);
