/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Authorization: uid 0 may do everything, everybody else goes through
 * polkit's CheckAuthorization over D-Bus. Both steps are asynchronous
 * calls, so a slow polkit (or an authentication dialog) never blocks
 * the daemon. The caller's uid comes from the bus driver; unique names
 * are never reused on a bus, so a small cache of name -> uid is exact
 * and saves that round trip on repeated writes. */

#include "daemon.h"
#include "errors.h"
#include "util.h"


/* Requests waiting for an answer (the bus driver's uid, then polkit),
 * per caller and in all: beyond these a request is refused at once with
 * LimitsExceeded. The total stays below dbus-daemon's default
 * max_replies_per_connection (128), which bounds the calls sbdd itself
 * may have pending; per caller is small because nothing a client does
 * needs more than a few writes in flight. */
#define AUTH_PER_SENDER_MAX 8
#define AUTH_TOTAL_MAX 64

struct auth_request {
        struct daemon *d;
        sd_bus_message *m;
        char *action;
        char **details;       /* key, value, ..., NULL */
        char cancel_id[32];   /* polkit's cancellation_id */
        auth_callback_t cb;
        void *userdata;
        void (*free_userdata)(void *);
        sd_bus_slot *slot;
        struct auth_request *prev, *next;
};

static void auth_request_free(struct auth_request *a) {
        if (!a)
                return;
        if (a->prev)
                a->prev->next = a->next;
        else if (a->d->auth_requests == a)
                a->d->auth_requests = a->next;
        if (a->next)
                a->next->prev = a->prev;
        sd_bus_slot_unref(a->slot);
        sd_bus_message_unref(a->m);
        if (a->free_userdata)
                a->free_userdata(a->userdata);
        free(a->action);
        strv_free(a->details);
        a->d->n_auth_requests--;
        free(a);
}

void auth_requests_free_all(struct daemon *d) {
        while (d->auth_requests)
                auth_request_free(d->auth_requests);
}

static void auth_finish(struct auth_request *a, int allowed, const sd_bus_error *error) {
        a->cb(a->d, a->m, allowed, error, a->userdata);
        auth_request_free(a);
}

static void auth_deny(struct auth_request *a, const char *reason, const char *detail) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        sd_bus_error_setf(&e, SBD_ERROR_NOT_AUTHORIZED, "Not authorized for %s%s%s%s.", a->action,
                          reason ? ": " : "", strempty(reason), strempty(detail));
        auth_finish(a, 0, &e);
}

static int uid_cache_get(struct daemon *d, const char *name, uid_t *ret) {
        for (size_t i = 0; i < ELEMENTSOF(d->uid_cache); i++)
                if (d->uid_cache[i].name && streq(d->uid_cache[i].name, name)) {
                        *ret = d->uid_cache[i].uid;
                        return 1;
                }
        return 0;
}

static void uid_cache_put(struct daemon *d, const char *name, uid_t uid) {
        struct uid_cache_entry *e = &d->uid_cache[d->uid_cache_next];
        char *s = strdup(name);

        if (!s)
                return;
        free(e->name);
        e->name = s;
        e->uid = uid;
        d->uid_cache_next = (d->uid_cache_next + 1) % ELEMENTSOF(d->uid_cache);
}

void uid_cache_done(struct daemon *d) {
        for (size_t i = 0; i < ELEMENTSOF(d->uid_cache); i++) {
                free(d->uid_cache[i].name);
                d->uid_cache[i].name = NULL;
        }
}

static bool polkit_absent(const sd_bus_error *e) {
        return sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
               (e->name && startswith(e->name, "org.freedesktop.DBus.Error.Spawn."));
}

static void polkit_cancel(struct auth_request *a) {
        (void) sd_bus_call_method_async(a->d->bus, NULL, "org.freedesktop.PolicyKit1",
                                        "/org/freedesktop/PolicyKit1/Authority",
                                        "org.freedesktop.PolicyKit1.Authority", "CancelCheckAuthorization",
                                        NULL, NULL, "s", a->cancel_id);
}

static int polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        struct auth_request *a = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int authorized = 0, challenge = 0, r;

        a->slot = sd_bus_slot_unref(a->slot);
        if (e) {
                if (sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY))
                        polkit_cancel(a); /* close the dialog: it would authorize nothing */
                if (polkit_absent(e)) {
                        auth_deny(a, "polkit is not available, only root may do this", NULL);
                        return 0;
                }
                log_warning("polkit check failed: %s: %s", e->name, strempty(e->message));
                auth_deny(a, "polkit failed: ", e->message);
                return 0;
        }
        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0) {
                auth_deny(a, "polkit sent a malformed answer", NULL);
                return 0;
        }
        if (authorized)
                auth_finish(a, 1, NULL);
        else if (challenge && sd_bus_message_get_allow_interactive_authorization(a->m) <= 0) {
                _cleanup_(sd_bus_error_free) sd_bus_error ie = SD_BUS_ERROR_NULL;
                sd_bus_error_setf(&ie, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                  "%s needs authentication: call again allowing interactive authorization.",
                                  a->action);
                auth_finish(a, 0, &ie);
        } else
                auth_deny(a, challenge ? "authentication failed or was dismissed" : NULL, NULL);
        return 0;
}

static int auth_check_polkit(struct auth_request *a) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        int interactive = sd_bus_message_get_allow_interactive_authorization(a->m) > 0;
        int r;

        r = sd_bus_message_new_method_call(a->d->bus, &call, "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
        if (r < 0)
                return r;
        r = sd_bus_message_append(call, "(sa{sv})s", "system-bus-name", 1, "name", "s",
                                  sd_bus_message_get_sender(a->m), a->action);
        if (r < 0)
                return r;
        /* Details for rules (action.lookup("attribute")) and for the
         * dialog's message ($(device) in the .policy file). */
        r = sd_bus_message_open_container(call, 'a', "{ss}");
        for (char **i = a->details; r >= 0 && i && i[0] && i[1]; i += 2)
                r = sd_bus_message_append(call, "{ss}", i[0], i[1]);
        if (r >= 0)
                r = sd_bus_message_close_container(call);
        if (r >= 0)
                r = sd_bus_message_append(call, "us", (uint32_t) (interactive ? 1 : 0), /* AllowUserInteraction */
                                          a->cancel_id);
        if (r < 0)
                return r;
        return sd_bus_call_async(a->d->bus, &a->slot, call, polkit_reply, a,
                                 interactive ? SBD_POLKIT_INTERACTIVE_TIMEOUT_USEC : SBD_POLKIT_TIMEOUT_USEC);
}

static void auth_with_uid(struct auth_request *a, uid_t uid) {
        int r;

        if (uid == 0) {
                auth_finish(a, 1, NULL);
                return;
        }
        r = auth_check_polkit(a);
        if (r < 0) {
                log_warning_errno(r, "Cannot ask polkit: %m");
                auth_deny(a, "cannot ask polkit", NULL);
        }
}

static int uid_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        struct auth_request *a = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        uint32_t uid;

        a->slot = sd_bus_slot_unref(a->slot);
        if (e || sd_bus_message_read(reply, "u", &uid) < 0) {
                auth_deny(a, "cannot identify the caller", NULL);
                return 0;
        }
        uid_cache_put(a->d, sd_bus_message_get_sender(a->m), uid);
        auth_with_uid(a, uid);
        return 0;
}

static unsigned auth_requests_of(struct daemon *d, const char *sender) {
        unsigned n = 0;

        for (struct auth_request *a = d->auth_requests; a; a = a->next)
                n += streq_ptr(sd_bus_message_get_sender(a->m), sender);
        return n;
}

int authorize_async(struct daemon *d, sd_bus_message *m, const char *action, const char *const *details,
                    auth_callback_t cb, void *userdata, void (*free_userdata)(void *)) {
        static unsigned long long serial;
        struct auth_request *a;
        const char *sender = sd_bus_message_get_sender(m);
        uid_t uid;
        int r;

        if (d->n_auth_requests >= AUTH_TOTAL_MAX || auth_requests_of(d, sender) >= AUTH_PER_SENDER_MAX) {
                if (free_userdata)
                        free_userdata(userdata);
                r = sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                               "Too many requests waiting for authorization (%s%u in all, %u per caller).",
                                               d->n_auth_requests >= AUTH_TOTAL_MAX ? "" : "at most ",
                                               AUTH_TOTAL_MAX, AUTH_PER_SENDER_MAX);
                return r < 0 ? r : 1;
        }
        a = calloc(1, sizeof(*a));
        if (!a) {
                if (free_userdata)
                        free_userdata(userdata);
                return -ENOMEM;
        }
        *a = (struct auth_request) {
                .d = d,
                .m = sd_bus_message_ref(m),
                .action = strdup(action),
                .details = strv_copy(details),
                .cb = cb,
                .userdata = userdata,
                .free_userdata = free_userdata,
                .next = d->auth_requests,
        };
        snprintf(a->cancel_id, sizeof(a->cancel_id), "sbdd-%llu", ++serial);
        d->n_auth_requests++;
        if (d->auth_requests)
                d->auth_requests->prev = a;
        d->auth_requests = a;
        if (!a->action || (details && !a->details)) {
                auth_request_free(a);
                return -ENOMEM;
        }

        if (!sender) {
                auth_deny(a, "the caller has no bus name", NULL);
                return 1;
        }
        if (uid_cache_get(d, sender, &uid)) {
                auth_with_uid(a, uid);
                return 1;
        }
        r = sd_bus_call_method_async(d->bus, &a->slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "GetConnectionUnixUser", uid_reply, a,
                                     "s", sender);
        if (r < 0) {
                log_warning_errno(r, "Cannot ask the bus for the caller's uid: %m");
                auth_deny(a, "cannot identify the caller", NULL);
        }
        return 1;
}
