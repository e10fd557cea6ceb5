/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Loading and unloading the module off the event loop. init_module()
 * of sbd with 10,000 disks takes tens of seconds (its removal about a
 * minute): done on the loop, no call, no Ping and no uevent would be
 * served meanwhile, and a long load could outlast WatchdogSec= and get
 * sbdd killed half-way. So an authorized Load or Unload runs in a child
 * process (as systemd leaves loading to modprobe; a thread would share
 * the libkmod context, which is not thread-safe, with the loop's own
 * module_state()). The loop meanwhile serves calls and mirrors the
 * driver and disks from their uevents as the kernel adds them; when the
 * child exits, the tree is synchronised once and the caller answered.
 *
 * One operation at a time, in the order they were authorized: a Load
 * and an Unload running side by side would race in the kernel. The
 * child reports its result through a pipe: the negative errno and the
 * D-Bus error, so that the caller gets the same answer as before. */

#include <fcntl.h>
#include <sys/wait.h>

#include "daemon.h"
#include "errors.h"
#include "util.h"

struct module_op {
        bool unload;
        sd_bus_message *m;  /* the call to answer */
        char **params;      /* Load's parameters ("key=value") */
        uid_t uid;          /* who asked, for the audit record */
        pid_t pid;
        const char *polkit;
        struct module_op *next;
};

/* What the child sends back: its result, then the error's name and
 * message (each NUL-terminated, cut to fit). */
struct module_op_result {
        int r;
        char name[128];
        char message[384];
};

static int safe_close(int fd) {
        if (fd >= 0)
                close(fd);
        return -1;
}

static void module_op_free(struct module_op *op) {
        if (!op)
                return;
        sd_bus_message_unref(op->m);
        strv_free(op->params);
        free(op);
}

/* In the child: do it, report, exit. Never returns. */
static __attribute__((noreturn)) void module_op_child(struct daemon *d, struct module_op *op, int fd) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        struct module_op_result res = {};

        res.r = op->unload ? module_unload(d, &e) : module_load(d, op->params, &e);
        if (res.r < 0 && sd_bus_error_is_set(&e)) {
                snprintf(res.name, sizeof(res.name), "%s", e.name);
                snprintf(res.message, sizeof(res.message), "%s", strempty(e.message));
        }
        (void) !write(fd, &res, sizeof(res));
        /* _exit: the bus connection and everything else belong to the
         * parent; no atexit handler, no stdio flush of its buffers. */
        _exit(res.r < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
}

static void module_op_start_next(struct daemon *d);

/* Done (error NULL) or refused. */
static void module_op_audit(struct daemon *d, const struct module_op *op, const sd_bus_error *error) {
        _cleanup_free_ char *params = NULL;
        struct caller c = {
                .bus_name = sd_bus_message_get_sender(op->m), .uid = op->uid, .pid = op->pid, .polkit = op->polkit,
        };

        if (op->params)
                (void) config_params_string(op->params, &params);
        audit_log(d, &(struct audit_record) {
                .kind = error ? AUDIT_REFUSED : op->unload ? AUDIT_MODULE_UNLOADED : AUDIT_MODULE_LOADED,
                .operation = op->unload ? "Unload" : "Load",
                .object = SBD_MODULE_PATH,
                .attribute = params ? "parameters" : NULL,
                .new_value = params,
                .error = error,
                .caller = &c,
        });
}

static void module_op_finish(struct daemon *d, const struct module_op_result *res) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        struct module_op *op = d->module_ops;

        /* op stays first while the tree follows: the module's state
         * changes are this operation's record, not ones seen (module.c). */
        if (res->r < 0) {
                if (res->name[0])
                        (void) sd_bus_error_set(&e, res->name, res->message);
                else
                        (void) sd_bus_error_set_errno(&e, res->r);
                (void) sd_bus_reply_method_error(op->m, &e);
                module_op_audit(d, op, &e);
        } else {
                /* init_module() or delete_module() returned: the driver
                 * and the disks exist or are gone now, whatever uevents
                 * are still on their way. Which exist is all the reply
                 * needs: their values are current already. */
                if (tree_sync_presence(d) >= 0)
                        module_emit_changes(d, false);
                (void) sd_bus_reply_method_return(op->m, NULL);
                module_op_audit(d, op, NULL);
        }
        d->module_ops = op->next;
        module_op_free(op);
        module_op_start_next(d);
}

static int module_op_exited(sd_event_source *s, const siginfo_t *si, void *userdata) {
        struct daemon *d = userdata;
        struct module_op_result res = { .r = -EIO };
        ssize_t n = read(d->module_op_fd, &res, sizeof(res));

        if (n != (ssize_t) sizeof(res)) {
                /* Killed before it could say: the kernel may or may not
                 * have done it; the uevents tell the tree either way. */
                res = (struct module_op_result) { .r = -EIO };
                snprintf(res.name, sizeof(res.name), "%s", SBD_ERROR_KERNEL_ERROR);
                snprintf(res.message, sizeof(res.message), "The module loader ended unexpectedly (%s %d).",
                         si->si_code == CLD_EXITED ? "status" : "signal", si->si_status);
        }
        res.name[sizeof(res.name) - 1] = res.message[sizeof(res.message) - 1] = '\0';
        d->module_op_fd = safe_close(d->module_op_fd);
        d->module_op_child = sd_event_source_disable_unref(d->module_op_child);
        module_op_finish(d, &res);
        return 0;
}

/* close_range(2), or where a seccomp filter refuses it (it is newer
 * than some filters' lists), one close() per possible descriptor. */
static void close_from(int first) {
        long max = sysconf(_SC_OPEN_MAX);

        if (close_range((unsigned) first, ~0U, 0) >= 0)
                return;
        for (long fd = first; fd < max; fd++)
                (void) close((int) fd);
}

static int module_op_spawn(struct daemon *d, struct module_op *op) {
        int p[2];
        pid_t pid;
        int r;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        pid = fork();
        if (pid < 0) {
                r = -errno;
                close(p[0]);
                close(p[1]);
                return r;
        }
        if (pid == 0) {
                /* Nothing of the parent's but the report's pipe: the bus
                 * connection above all, which would keep sbdd's name
                 * owned after sbdd has gone until the load ends. */
                if (dup2(p[1], 3) < 0)
                        _exit(EXIT_FAILURE);
                close_from(4);
                module_op_child(d, op, 3);
        }
        close(p[1]);
        r = sd_event_add_child(d->event, &d->module_op_child, pid, WEXITED, module_op_exited, d);
        if (r < 0) {
                /* Cannot watch it: wait here, as sbdd did before. */
                (void) waitpid(pid, NULL, 0);
                close(p[0]);
                return r;
        }
        d->module_op_fd = p[0];
        log_debug("%s the module in process %d.", op->unload ? "Unloading" : "Loading", (int) pid);
        return 0;
}

static void module_op_start_next(struct daemon *d) {
        while (d->module_ops && !d->module_op_child) {
                int r = module_op_spawn(d, d->module_ops);
                if (r >= 0)
                        return;
                log_error_errno(r, "Cannot start the module loader: %m");
                struct module_op_result res = { .r = r };
                module_op_finish(d, &res);
                return;
        }
}

int module_op_queue(struct daemon *d, sd_bus_message *m, bool unload, char **params, const struct caller *caller) {
        struct module_op *op = calloc(1, sizeof(*op)), **tail = &d->module_ops;

        if (!op) {
                strv_free(params);
                return -ENOMEM;
        }
        *op = (struct module_op) {
                .unload = unload, .m = sd_bus_message_ref(m), .params = params,
                .uid = caller->uid, .pid = caller->pid, .polkit = caller->polkit,
        };
        while (*tail)
                tail = &(*tail)->next;
        *tail = op;
        module_op_start_next(d);
        return 0;
}

void module_ops_free_all(struct daemon *d) {
        /* A child still running is left to finish: killing it would not
         * stop init_module(), and the unit's stop takes its cgroup. */
        d->module_op_child = sd_event_source_disable_unref(d->module_op_child);
        d->module_op_fd = safe_close(d->module_op_fd);
        while (d->module_ops) {
                struct module_op *op = d->module_ops;
                d->module_ops = op->next;
                module_op_free(op);
        }
}
