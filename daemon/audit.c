/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The audit trail, the systemd way: every change sbdd makes or refuses,
 * and every change it only sees (a direct sysfs write, another process's
 * new_device or modprobe, seen from the uevent), is one structured
 * journal entry. A MESSAGE_ID per kind lets `journalctl MESSAGE_ID=...`
 * find them and the catalog (systemd/sbdd.catalog) explain them; the SBD_*
 * fields say what changed and who asked.
 *
 * Callers' text is hostile: values and error messages (which may quote
 * a caller's text) go through text_escape(), printable ASCII and short,
 * so that no entry can pose as another or grow without bound. Values of
 * attributes only root may read are left out: the journal has readers
 * (group adm) the file has not.
 *
 * An unprivileged caller can make refusals as fast as the bus carries
 * them, and a uevent storm makes "seen" records: each kind has its own
 * budget per interval (AuditRateLimitIntervalSec=, AuditRateLimitBurst=),
 * beyond which records are counted, not written; when the interval ends,
 * one record says how many of each kind were suppressed. */

#include <stdio.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>

#include "audit.h"
#include "daemon.h"
#include "util.h"
#include "validate.h"

#define AUDIT_VALUE_MAX 64
#define AUDIT_MESSAGE_MAX 256
#define AUDIT_FIELDS_MAX 24

/* systemd-id128 new; the catalog explains each. */
#define AUDIT_SUPPRESSED_ID "8db0b74e78b642ec87686d469433969e"
static const struct {
        const char *id;
        const char *what;
} kinds[_AUDIT_KIND_MAX] = {
        [AUDIT_SET] = { "d5335123e8434d6e94ffa9cd24e12892", "Attribute set" },
        [AUDIT_DEVICE_ADDED] = { "bf576c9807694788b492093b0882207a", "Device added" },
        [AUDIT_DEVICE_REMOVED] = { "fb9146c576cb4fb0b75d598baec7ff63", "Device removed" },
        [AUDIT_MODULE_LOADED] = { "f9a98d847eef4aacb4c04d33325a54d5", "Module loaded" },
        [AUDIT_MODULE_UNLOADED] = { "ea57c373181e4853bcf19942ca9862a4", "Module unloaded" },
        [AUDIT_REFUSED] = { "9a076503942c44a9a3710a3c3417426f", "Request refused" },
};
static const char *const kind_names[_AUDIT_KIND_MAX] = {
        [AUDIT_SET] = "set",
        [AUDIT_DEVICE_ADDED] = "device-added",
        [AUDIT_DEVICE_REMOVED] = "device-removed",
        [AUDIT_MODULE_LOADED] = "module-loaded",
        [AUDIT_MODULE_UNLOADED] = "module-unloaded",
        [AUDIT_REFUSED] = "refused",
};

struct fields {
        char *f[AUDIT_FIELDS_MAX];
        size_t n;
};

static void fields_done(struct fields *f) {
        for (size_t i = 0; i < f->n; i++)
                free(f->f[i]);
}

static void _printf_(2, 3) field_add(struct fields *f, const char *fmt, ...) {
        va_list ap;
        char *s;
        int r;

        if (f->n >= AUDIT_FIELDS_MAX)
                return;
        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r >= 0)
                f->f[f->n++] = s;
}

/* KEY=escaped text, if text. */
static void field_add_text(struct fields *f, const char *key, const char *text, size_t max) {
        _cleanup_free_ char *t = NULL;

        if (!text)
                return;
        t = text_escape(text, max);
        if (t)
                field_add(f, "%s=%s", key, t);
}

static int fields_send(struct fields *f) {
        struct iovec iov[AUDIT_FIELDS_MAX];

        for (size_t i = 0; i < f->n; i++)
                iov[i] = (struct iovec) { .iov_base = f->f[i], .iov_len = strlen(f->f[i]) };
        return sd_journal_sendv(iov, (int) f->n);
}

static void caller_fields(struct fields *f, const struct caller *c) {
        _cleanup_free_ char *unit = NULL;

        if (!c) {
                field_add(f, "SBD_ORIGIN=kernel");
                return;
        }
        field_add(f, "SBD_ORIGIN=sbdd");
        field_add_text(f, "SBD_CALLER_BUS_NAME", c->bus_name, AUDIT_VALUE_MAX);
        if (c->uid != (uid_t) -1)
                field_add(f, "SBD_CALLER_UID=%u", (unsigned) c->uid);
        if (c->pid > 0) {
                field_add(f, "SBD_CALLER_PID=%d", (int) c->pid);
                /* journald adds OBJECT_UID=, OBJECT_SYSTEMD_UNIT=, ... of
                 * this process from its own sources (root senders only). */
                field_add(f, "OBJECT_PID=%d", (int) c->pid);
                if (sd_pid_get_unit(c->pid, &unit) >= 0)
                        field_add_text(f, "SBD_CALLER_UNIT", unit, AUDIT_MESSAGE_MAX);
        }
        field_add(f, "SBD_POLKIT=%s", c->polkit ?: "not-reached");
}

static void audit_write(const struct audit_record *rec) {
        _cleanup_(fields_done) struct fields f = {};
        _cleanup_free_ char *old = NULL, *new = NULL, *who = NULL;
        const struct caller *c = rec->caller;
        const char *result = rec->error ? rec->error->name : "success";

        old = rec->old_value ? text_escape(rec->old_value, AUDIT_VALUE_MAX) : NULL;
        new = rec->new_value ? text_escape(rec->new_value, AUDIT_VALUE_MAX) : NULL;
        if (!c)
                who = strdup("the kernel, not through sbdd");
        else if (c->uid != (uid_t) -1 && asprintf(&who, "uid %u (%s)", (unsigned) c->uid, strempty(c->bus_name)) < 0)
                who = NULL;
        else if (c->uid == (uid_t) -1)
                who = strdup(strempty(c->bus_name));

        field_add(&f, "MESSAGE_ID=%s", kinds[rec->kind].id);
        field_add(&f, "PRIORITY=%d", rec->kind == AUDIT_REFUSED ? LOG_NOTICE : LOG_INFO);
        field_add(&f, "MESSAGE=%s%s%s: %s%s%s%s%s%s%s%s%s, by %s: %s", kinds[rec->kind].what,
                  rec->kind == AUDIT_REFUSED ? ", " : "", rec->kind == AUDIT_REFUSED ? rec->operation : "",
                  strempty(rec->object), rec->attribute ? " " : "", strempty(rec->attribute),
                  old ? " from '" : "", strempty(old), old ? "'" : "", new ? " to '" : "", strempty(new),
                  new ? "'" : "", strempty(who), result);
        field_add(&f, "SBD_OPERATION=%s", rec->operation);
        if (rec->object)
                field_add(&f, "SBD_OBJECT=%s", rec->object);
        field_add_text(&f, "SBD_ATTRIBUTE", rec->attribute, AUDIT_VALUE_MAX);
        if (old)
                field_add(&f, "SBD_OLD_VALUE=%s", old);
        if (new)
                field_add(&f, "SBD_NEW_VALUE=%s", new);
        field_add(&f, "SBD_RESULT=%s", result);
        if (rec->error)
                field_add_text(&f, "SBD_RESULT_MESSAGE", rec->error->message, AUDIT_MESSAGE_MAX);
        caller_fields(&f, c);
        (void) fields_send(&f);
}

static void audit_report_suppressed(struct daemon *d) {
        for (int k = 0; k < _AUDIT_KIND_MAX; k++) {
                struct audit_window *w = &d->audit[k];
                if (w->suppressed == 0)
                        continue;
                sd_journal_send("MESSAGE_ID=" AUDIT_SUPPRESSED_ID, "PRIORITY=%d", LOG_WARNING,
                                "MESSAGE=Suppressed %u audit records of kind %s (more than %u in %" PRIu64 " s).",
                                w->suppressed, kind_names[k], d->config.audit_rate_burst,
                                d->config.audit_rate_interval_usec / 1000000,
                                "SBD_SUPPRESSED=%u", w->suppressed, "SBD_SUPPRESSED_KIND=%s", kind_names[k],
                                NULL);
                w->suppressed = 0;
        }
}

static int audit_timer_fired(sd_event_source *s, uint64_t usec, void *userdata) {
        struct daemon *d = userdata;

        audit_report_suppressed(d);
        return 0;
}

/* Whether a record of kind fits in its budget; if not it is counted,
 * and a timer reports the count when the interval ends. */
static bool audit_ratelimit(struct daemon *d, enum audit_kind kind) {
        struct audit_window *w = &d->audit[kind];
        uint64_t now = 0;
        int r;

        if (d->config.audit_rate_burst == 0 || sd_event_now(d->event, CLOCK_MONOTONIC, &now) < 0)
                return true;
        if (w->n == 0 || now >= w->begin + d->config.audit_rate_interval_usec) {
                if (w->suppressed > 0)
                        audit_report_suppressed(d);
                w->begin = now;
                w->n = 0;
        }
        if (w->n < d->config.audit_rate_burst) {
                w->n++;
                return true;
        }
        if (w->suppressed++ == 0) {
                uint64_t when = w->begin + d->config.audit_rate_interval_usec;
                if (!d->audit_timer)
                        r = sd_event_add_time(d->event, &d->audit_timer, CLOCK_MONOTONIC, when, 0,
                                              audit_timer_fired, d);
                else {
                        uint64_t armed = 0;
                        r = sd_event_source_get_time(d->audit_timer, &armed);
                        if (r >= 0 && (sd_event_source_get_enabled(d->audit_timer, NULL) <= 0 || when < armed))
                                r = sd_event_source_set_time(d->audit_timer, when);
                        if (r >= 0)
                                r = sd_event_source_set_enabled(d->audit_timer, SD_EVENT_ONESHOT);
                }
                if (r < 0)
                        log_warning_errno(r, "Cannot schedule the report of suppressed audit records: %m");
        }
        return false;
}

void audit_log(struct daemon *d, const struct audit_record *rec) {
        if (audit_ratelimit(d, rec->kind))
                audit_write(rec);
}

void audit_refused(struct daemon *d, const char *operation, const char *object, const char *attribute,
                   const char *new_value, const sd_bus_error *error, const struct caller *caller) {
        audit_log(d, &(struct audit_record) {
                .kind = AUDIT_REFUSED,
                .operation = operation,
                .object = object,
                .attribute = attribute,
                .new_value = new_value,
                .error = error,
                .caller = caller,
        });
}

/* A value changed that no request of sbdd's wrote (a direct write to
 * sysfs, or the kernel's own doing). Not the first read of a new object,
 * nor values only root may read. */
static void audit_seen_attribute(struct daemon *d, const struct change *c) {
        if (!d->ready || d->audit_own_change || !c->old_value || !c->new_value || c->hidden)
                return;
        audit_log(d, &(struct audit_record) {
                .kind = AUDIT_SET,
                .operation = "uevent",
                .object = c->path,
                .attribute = c->attribute,
                .old_value = c->old_value,
                .new_value = c->new_value,
        });
}

/* A device no AddDevice or RemoveDevice waited for: another process's
 * new_device or delete_device, or the module's own at load time. */
static void audit_seen_device(struct daemon *d, const struct change *c) {
        bool added = c->kind == CHANGE_OBJECT_ADDED;

        if (c->claimed || !d->ready || c->object_kind != OBJECT_DEVICE || !c->name)
                return;
        audit_log(d, &(struct audit_record) {
                .kind = added ? AUDIT_DEVICE_ADDED : AUDIT_DEVICE_REMOVED,
                .operation = "uevent",
                .object = c->path,
        });
}

/* The module came or went, not by a Load or Unload of sbdd's (whose
 * own record says so): modprobe, rmmod, another program. */
static void audit_seen_module(struct daemon *d, const struct change *c) {
        bool loaded = streq(c->new_value, "live"), unloaded = streq(c->new_value, "unloaded");

        if (!d->ready || d->module_ops || !c->old_value || streq(c->old_value, c->new_value) || !(loaded || unloaded))
                return;
        audit_log(d, &(struct audit_record) {
                .kind = loaded ? AUDIT_MODULE_LOADED : AUDIT_MODULE_UNLOADED,
                .operation = "uevent",
                .object = SBD_MODULE_PATH,
                .attribute = "initstate",
                .old_value = c->old_value,
                .new_value = c->new_value,
        });
}

void audit_on_change(struct change *c, void *userdata) {
        struct daemon *d = userdata;

        switch (c->kind) {
        case CHANGE_ATTRIBUTE:
                return audit_seen_attribute(d, c);
        case CHANGE_OBJECT_ADDED:
        case CHANGE_OBJECT_REMOVED:
                return audit_seen_device(d, c);
        case CHANGE_MODULE:
                return audit_seen_module(d, c);
        default:
                return;
        }
}

void audit_done(struct daemon *d) {
        audit_report_suppressed(d);
        d->audit_timer = sd_event_source_disable_unref(d->audit_timer);
}
