/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Authorization: uid 0 may do everything, everybody else goes through
 * polkit's CheckAuthorization over D-Bus. Both steps are asynchronous
 * calls, so a slow polkit (or an authentication dialog) never blocks
 * the daemon, and the answer always comes from the event loop, never
 * from inside authorize_async(). The caller's uid and pid come from the
 * bus driver (GetConnectionCredentials: what it recorded when the caller
 * connected); unique names are never reused on a bus, so a small cache of
 * name -> uid, pid is exact and saves that round trip on repeated writes.
 * The callback gets them with polkit's answer, for the audit record.
 *
 * Limits count per uid and only the checks waiting for polkit: uid 0
 * never asks polkit, so no limit ever refuses it, and one user's
 * connections share one cap. A caller that leaves the bus (its unique
 * name's NameOwnerChanged) takes its requests with it: their polkit
 * checks are cancelled and their places freed at once. */

#include "daemon.h"
#include "errors.h"
#include "util.h"

/* Checks waiting for polkit, per uid and in all: beyond these a request
 * is refused with LimitsExceeded. The total stays below dbus-daemon's
 * default max_replies_per_connection (128), which bounds the calls sbdd
 * itself may have pending; per uid is small because nothing a user does
 * needs more than a few writes in flight. Requests still waiting for
 * the caller's uid are not counted: that is one round trip to the bus
 * driver, which answers at once, shared by all requests of a caller. */
#define AUTH_PER_UID_MAX 8
#define AUTH_TOTAL_MAX 64

enum auth_state {
        AUTH_UID,     /* waiting for the bus driver to tell the caller's uid */
        AUTH_POLKIT,  /* waiting for polkit (counted against the limits) */
        AUTH_ANSWER,  /* decided: the callback runs from the event loop */
};

struct auth_request {
        struct daemon *d;
        sd_bus_message *m;
        const char *sender;   /* the caller's unique name (points into m), or NULL */
        uid_t uid;            /* known from AUTH_POLKIT on */
        pid_t pid;            /* with it, 0 if the bus did not say */
        const char *polkit;   /* what polkit said (struct caller), NULL: not asked yet */
        enum auth_state state;
        char *action;
        char **details;       /* key, value, ..., NULL */
        char cancel_id[32];   /* polkit's cancellation_id */
        auth_callback_t cb;
        void *userdata;
        void (*free_userdata)(void *);
        sd_bus_slot *slot;       /* the call in flight (uid or polkit) */
        int allowed;             /* AUTH_ANSWER: the decision */
        sd_bus_error error;
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
        if (a->state == AUTH_POLKIT)
                a->d->n_auth_requests--;
        sd_bus_slot_unref(a->slot);
        sd_bus_error_free(&a->error);
        sd_bus_message_unref(a->m);
        if (a->free_userdata)
                a->free_userdata(a->userdata);
        free(a->action);
        strv_free(a->details);
        free(a);
}

bool auth_pending_of(struct daemon *d, const char *sender) {
        for (struct auth_request *a = d->auth_requests; a; a = a->next)
                if (streq_ptr(a->sender, sender))
                        return true;
        return false;
}

void auth_requests_free_all(struct daemon *d) {
        while (d->auth_requests)
                auth_request_free(d->auth_requests);
        d->name_owner_slot = sd_bus_slot_unref(d->name_owner_slot);
        d->auth_answers = sd_event_source_disable_unref(d->auth_answers);
}

/* The oldest decided request (the list holds the newest first). */
static struct auth_request *oldest_answered(struct daemon *d) {
        struct auth_request *found = NULL;

        for (struct auth_request *a = d->auth_requests; a; a = a->next)
                if (a->state == AUTH_ANSWER)
                        found = a;
        return found;
}

/* The decided requests' callbacks, in the order the requests came (a
 * caller's writes are carried out in the order it sent them). */
static int auth_answers_run(sd_event_source *s, void *userdata) {
        struct daemon *d = userdata;
        struct auth_request *a;

        while ((a = oldest_answered(d))) {
                struct caller c = { .bus_name = a->sender, .uid = a->uid, .pid = a->pid, .polkit = a->polkit };
                a->cb(d, a->m, a->allowed, sd_bus_error_is_set(&a->error) ? &a->error : NULL, &c,
                      a->userdata);
                auth_request_free(a);
        }
        return 0;
}

/* The decision: the callback runs from the event loop, after whatever
 * called this has returned. */
static void auth_finish(struct auth_request *a, int allowed, const sd_bus_error *error) {
        struct daemon *d = a->d;
        int r = 0;

        a->slot = sd_bus_slot_unref(a->slot);
        if (a->state == AUTH_POLKIT)
                a->d->n_auth_requests--;
        a->state = AUTH_ANSWER;
        a->allowed = allowed;
        /* (returns the error's errno, not whether it copied; out of
         * memory it leaves a NoMemory error, which is answer enough) */
        if (error)
                (void) sd_bus_error_copy(&a->error, error);
        if (!d->auth_answers)
                r = sd_event_add_defer(d->event, &d->auth_answers, auth_answers_run, d);
        if (r >= 0)
                r = sd_event_source_set_enabled(d->auth_answers, SD_EVENT_ONESHOT);
        if (r < 0) {
                /* No memory to defer: answer without the callback. */
                (void) sd_bus_reply_method_errno(a->m, r, NULL);
                auth_request_free(a);
        }
}

static void auth_deny(struct auth_request *a, const char *reason, const char *detail) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        sd_bus_error_setf(&e, SBD_ERROR_NOT_AUTHORIZED, "Not authorized for %s%s%s%s.", a->action,
                          reason ? ": " : "", strempty(reason), strempty(detail));
        auth_finish(a, 0, &e);
}


static int uid_cache_get(struct daemon *d, const char *name, uid_t *ret, pid_t *ret_pid) {
        for (size_t i = 0; i < ELEMENTSOF(d->uid_cache); i++)
                if (d->uid_cache[i].name && streq(d->uid_cache[i].name, name)) {
                        *ret = d->uid_cache[i].uid;
                        *ret_pid = d->uid_cache[i].pid;
                        return 1;
                }
        return 0;
}

static void uid_cache_put(struct daemon *d, const char *name, uid_t uid, pid_t pid) {
        struct uid_cache_entry *e = &d->uid_cache[d->uid_cache_next];
        char *s = strdup(name);

        if (!s)
                return;
        free(e->name);
        e->name = s;
        e->uid = uid;
        e->pid = pid;
        d->uid_cache_next = (d->uid_cache_next + 1) % ELEMENTSOF(d->uid_cache);
}

void caller_of_message(struct daemon *d, sd_bus_message *m, struct caller *ret) {
        *ret = (struct caller) { .bus_name = sd_bus_message_get_sender(m), .uid = (uid_t) -1 };
        if (ret->bus_name)
                (void) uid_cache_get(d, ret->bus_name, &ret->uid, &ret->pid);
}

void uid_cache_done(struct daemon *d) {
        for (size_t i = 0; i < ELEMENTSOF(d->uid_cache); i++) {
                free(d->uid_cache[i].name);
                d->uid_cache[i].name = NULL;
        }
}


static void uid_cache_forget(struct daemon *d, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(d->uid_cache); i++)
                if (d->uid_cache[i].name && streq(d->uid_cache[i].name, name)) {
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
                        a->polkit = "unavailable";
                        auth_deny(a, "polkit is not available, only root may do this", NULL);
                        return 0;
                }
                a->polkit = "error";
                log_warning("polkit check failed: %s: %s", e->name, strempty(e->message));
                auth_deny(a, "polkit failed: ", e->message);
                return 0;
        }
        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0) {
                a->polkit = "error";
                auth_deny(a, "polkit sent a malformed answer", NULL);
                return 0;
        }
        a->polkit = authorized ? "allowed" : challenge ? "challenge" : "denied";
        if (authorized)
                auth_finish(a, 1, NULL);
        else if (challenge && sd_bus_message_get_allow_interactive_authorization(a->m) <= 0) {
                _cleanup_(sd_bus_error_free) sd_bus_error ie = SD_BUS_ERROR_NULL;
                sd_bus_error_setf(&ie, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                  "%s needs authentication: call again allowing interactive authorization.",
                                  a->action);
                auth_finish(a, 0, &ie);
        } else {
                a->polkit = "denied";
                auth_deny(a, challenge ? "authentication failed or was dismissed" : NULL, NULL);
        }
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

static unsigned auth_polkit_checks_of(struct daemon *d, uid_t uid) {
        unsigned n = 0;

        for (struct auth_request *a = d->auth_requests; a; a = a->next)
                n += a->state == AUTH_POLKIT && a->uid == uid;
        return n;
}

/* The caller's uid is known: root is allowed, others ask polkit if the
 * limits leave room, else m is answered with LimitsExceeded here (the
 * callback never runs). */
static void auth_with_uid(struct auth_request *a, uid_t uid, pid_t pid) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        struct daemon *d = a->d;
        int r;

        a->uid = uid;
        a->pid = pid;
        if (uid == 0) {
                a->polkit = "not-asked";
                auth_finish(a, 1, NULL);
                return;
        }
        if (d->n_auth_requests >= AUTH_TOTAL_MAX || auth_polkit_checks_of(d, uid) >= AUTH_PER_UID_MAX) {
                struct caller c = { .bus_name = a->sender, .uid = uid, .pid = pid };
                (void) sd_bus_error_setf(&e, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "Too many requests waiting for authorization (%s%u in all, %u per user).",
                                         d->n_auth_requests >= AUTH_TOTAL_MAX ? "" : "at most ",
                                         AUTH_TOTAL_MAX, AUTH_PER_UID_MAX);
                (void) sd_bus_reply_method_error(a->m, &e);
                audit_refused(d, sd_bus_message_get_member(a->m), sd_bus_message_get_path(a->m), NULL, NULL, &e,
                              &c);
                auth_request_free(a);
                return;
        }
        a->state = AUTH_POLKIT;
        d->n_auth_requests++;
        r = auth_check_polkit(a);
        if (r < 0) {
                a->polkit = "error";
                log_warning_errno(r, "Cannot ask polkit: %m");
                auth_deny(a, "cannot ask polkit", NULL);
        }
}

/* The oldest request of sender still waiting for its uid, or NULL (the
 * list holds the newest first). */
static struct auth_request *oldest_waiting_for_uid(struct daemon *d, const char *sender) {
        struct auth_request *found = NULL;

        for (struct auth_request *a = d->auth_requests; a; a = a->next)
                if (a->state == AUTH_UID && streq_ptr(a->sender, sender))
                        found = a;
        return found;
}

/* GetConnectionCredentials' answer: UnixUserID (always there on Linux)
 * and ProcessID. 0, or a negative errno when there is no uid. */
static int read_creds(sd_bus_message *reply, uint32_t *ret_uid, pid_t *ret_pid) {
        bool have_uid = false;
        uint32_t v;
        int r;

        *ret_pid = 0;
        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key;
                r = sd_bus_message_read_basic(reply, 's', &key);
                if (r < 0)
                        return r;
                if (streq(key, "UnixUserID") || streq(key, "ProcessID")) {
                        r = sd_bus_message_read(reply, "v", "u", &v);
                        if (r < 0)
                                return r;
                        if (key[0] == 'U') {
                                *ret_uid = v;
                                have_uid = true;
                        } else
                                *ret_pid = (pid_t) v;
                } else {
                        r = sd_bus_message_skip(reply, "v");
                        if (r < 0)
                                return r;
                }
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return have_uid ? 0 : -ENODATA;
}

static int uid_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        struct auth_request *a = userdata, *w;
        struct daemon *d = a->d;
        /* a may be answered (and freed) in the loop below: hold its message */
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *held = sd_bus_message_ref(a->m);
        const char *sender = sd_bus_message_get_sender(held);
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        uint32_t uid = 0;
        pid_t pid = 0;
        bool known;

        a->slot = sd_bus_slot_unref(a->slot);
        known = !e && read_creds(reply, &uid, &pid) >= 0;
        if (known)
                uid_cache_put(d, sender, uid, pid);
        /* Every request of this caller waited for this one answer, in
         * the order they came (each leaves AUTH_UID here). */
        while ((w = oldest_waiting_for_uid(d, sender))) {
                if (known)
                        auth_with_uid(w, uid, pid);
                else
                        auth_deny(w, "cannot identify the caller", NULL);
        }
        return 0;
}

static bool uid_lookup_pending(struct daemon *d, const char *sender) {
        for (struct auth_request *a = d->auth_requests; a; a = a->next)
                if (a->state == AUTH_UID && a->slot && streq_ptr(a->sender, sender))
                        return true;
        return false;
}

static void auth_lookup_uid(struct auth_request *a) {
        struct daemon *d = a->d;
        uid_t uid;
        pid_t pid;
        int r;

        if (uid_cache_get(d, a->sender, &uid, &pid)) {
                auth_with_uid(a, uid, pid);
                return;
        }
        a->state = AUTH_UID;
        if (uid_lookup_pending(d, a->sender))
                return; /* its answer serves this request too */
        r = sd_bus_call_method_async(d->bus, &a->slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "GetConnectionCredentials", uid_reply, a,
                                     "s", a->sender);
        if (r < 0) {
                log_warning_errno(r, "Cannot ask the bus for the caller's uid: %m");
                auth_deny(a, "cannot identify the caller", NULL);
        }
}

int authorize_async(struct daemon *d, sd_bus_message *m, const char *action, const char *const *details,
                    auth_callback_t cb, void *userdata, void (*free_userdata)(void *)) {
        static unsigned long long serial;
        struct auth_request *a;

        a = calloc(1, sizeof(*a));
        if (!a) {
                if (free_userdata)
                        free_userdata(userdata);
                return -ENOMEM;
        }
        *a = (struct auth_request) {
                .d = d,
                .m = sd_bus_message_ref(m),
                .sender = sd_bus_message_get_sender(m),
                .uid = (uid_t) -1,
                .state = AUTH_UID,
                .action = strdup(action),
                .details = strv_copy(details),
                .cb = cb,
                .userdata = userdata,
                .free_userdata = free_userdata,
                .error = SD_BUS_ERROR_NULL,
                .next = d->auth_requests,
        };
        snprintf(a->cancel_id, sizeof(a->cancel_id), "sbdd-%llu", ++serial);
        if (d->auth_requests)
                d->auth_requests->prev = a;
        d->auth_requests = a;
        if (!a->action || (details && !a->details)) {
                auth_request_free(a);
                return -ENOMEM;
        }
        if (!a->sender)
                auth_deny(a, "the caller has no bus name", NULL);
        else
                auth_lookup_uid(a);
        return 1;
}

/* A unique name left the bus: its requests can no longer be answered.
 * Drop them at once, cancelling their polkit checks (polkitd closes
 * the dialog), so that they stop counting against the limits. */
static int name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct daemon *d = userdata;
        const char *name, *old_owner, *new_owner;
        unsigned n = 0;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || name[0] != ':' || new_owner[0])
                return 0;
        for (struct auth_request *a = d->auth_requests, *next; a; a = next) {
                next = a->next;
                if (!streq_ptr(a->sender, name))
                        continue;
                if (a->state == AUTH_POLKIT)
                        polkit_cancel(a);
                auth_request_free(a);
                n++;
        }
        if (n > 0)
                log_debug("%s left the bus: dropped %u request(s) waiting for authorization.", name, n);
        uid_cache_forget(d, name);
        announce(&d->announcer, &(struct change) { .kind = CHANGE_CALLER_GONE, .name = name });
        return 0;
}

int auth_setup(struct daemon *d) {
        int r;

        /* Only disconnections (the new owner is empty), not every name
         * that changes hands on the system bus. */
        r = sd_bus_add_match(d->bus, &d->name_owner_slot,
                             "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                             "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg2=''",
                             name_owner_changed, d);
        if (r < 0)
                return log_error_errno(r, "Cannot watch callers leaving the bus: %m");
        return 0;
}
