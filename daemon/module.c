/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The sbd kernel module: loading and unloading it with libkmod, and the
 * org.sbd.Sbd1.Module object. Its properties are read from
 * /sys/module/sbd on each Get (one object, a few small files); State and
 * Parameters are signalled when module uevents show them changed, while
 * RefCount changes with every open of a disk and has no event at all, so
 * it is documented as not emitting PropertiesChanged. */

#include <libkmod.h>

#include "daemon.h"
#include "errors.h"
#include "sysfs.h"
#include "util.h"
#include "validate.h"

/* "live", "coming", "going", "builtin" or "unloaded". */
static int module_state(struct daemon *d, char **ret) {
        char buf[ATTR_VALUE_MAX + 1];
        ssize_t n = sysfs_read_at(AT_FDCWD, SYSFS_MODULE_DIR "/initstate", buf);
        const char *s = buf;

        if (n < 0 && sysfs_error_is_transient((int) n))
                return (int) n; /* cannot be told now (no memory): not "builtin" */
        if (n < 0) {
                if (access(SYSFS_MODULE_DIR, F_OK) >= 0)
                        s = "builtin"; /* built-in modules have no initstate */
                else {
                        s = "unloaded";
                        if (d->kmod) {
                                struct kmod_module *mod = NULL;
                                if (kmod_module_new_from_name(d->kmod, SBD_MODULE_NAME, &mod) >= 0) {
                                        if (kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN)
                                                s = "builtin";
                                        kmod_module_unref(mod);
                                }
                        }
                }
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

void module_size_limits(uint64_t *ret_max_size, uint64_t *ret_max_total) {
        char buf[ATTR_VALUE_MAX + 1];

        *ret_max_size = *ret_max_total = 0;
        if (sysfs_read_at(AT_FDCWD, SYSFS_MODULE_DIR "/parameters/max_size", buf) >= 0)
                (void) attr_parse_u64(buf, ret_max_size);
        if (sysfs_read_at(AT_FDCWD, SYSFS_MODULE_DIR "/parameters/max_total", buf) >= 0)
                (void) attr_parse_u64(buf, ret_max_total);
}

bool module_driver_present(void) {
        return access(SYSFS_DRIVERS_DIR "/" SBD_MODULE_NAME, F_OK) >= 0;
}

/* The parameters as "k=v\n" lines (sorted by readdir of sysfs). A read
 * that fails for want of memory fails the whole list: one parameter left
 * out would be announced as gone. */
static int module_params(char ***ret) {
        _cleanup_closedir_ DIR *dh = opendir(SYSFS_MODULE_DIR "/parameters");
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0;

        if (!dh && sysfs_error_is_transient(-errno))
                return -errno;
        l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (struct dirent *de; dh && (de = readdir(dh));) {
                char buf[ATTR_VALUE_MAX + 1], path[PATH_MAX];
                char **nl;
                ssize_t r;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), SYSFS_MODULE_DIR "/parameters/%s", de->d_name);
                r = sysfs_read_at(AT_FDCWD, path, buf);
                if (r < 0 && sysfs_error_is_transient((int) r))
                        return (int) r;
                if (r < 0)
                        continue; /* write-only or unreadable */
                nl = realloc(l, (n + 3) * sizeof(char *));
                if (!nl)
                        return -ENOMEM;
                l = nl;
                l[n] = strdup(de->d_name);
                l[n + 1] = strdup(buf);
                l[n + 2] = NULL;
                if (!l[n] || !l[n + 1])
                        return -ENOMEM;
                n += 2;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static char *params_flatten(char **l) {
        char *s = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&s, &size);

        if (!f)
                return NULL;
        for (char **i = l; i && i[0] && i[1]; i += 2)
                fprintf(f, "%s=%s\n", i[0], i[1]);
        fclose(f);
        return s;
}

void module_emit_changes(struct daemon *d, bool removed) {
        _cleanup_free_ char *state = NULL, *flat = NULL, *old_state = NULL;
        _cleanup_strv_free_ char **params = NULL;
        const char *names[3] = {};
        bool state_changed = false;
        size_t n = 0;
        int r;

        /* The kernel sends the module's "remove" uevent before it deletes
         * /sys/module/sbd, which then still says "going": the event is
         * the news, there will be no later one. */
        if (removed)
                state = strdup("unloaded");
        else if ((r = module_state(d, &state)) < 0) {
                /* No memory to tell (reread.c): what was announced stands. */
                log_debug_errno(r, "Cannot read the module's state for now, keeping it: %m");
                reread_tree_later(d);
                return;
        }
        if (!state)
                return (void) log_oom();
        r = module_params(&params);
        if (r < 0) {
                log_debug_errno(r, "Cannot read the module's parameters for now, keeping them: %m");
                reread_tree_later(d);
                return;
        }
        if (removed) {
                module_forget_params(d);
                strv_free(params);
                params = calloc(1, sizeof(char *));
                if (!params)
                        return (void) log_oom();
        }
        flat = params_flatten(params);
        if (!flat)
                return (void) log_oom();
        if (!streq_ptr(d->module_state, state)) {
                old_state = TAKE_PTR(d->module_state);
                state_changed = true;
                d->module_state = TAKE_PTR(state);
                names[n++] = "State";
                log_info("Module %s is %s.", SBD_MODULE_NAME, d->module_state);
        }
        if (!streq_ptr(d->module_params, flat)) {
                free(d->module_params);
                d->module_params = TAKE_PTR(flat);
                strv_free(d->module_param_list);
                d->module_param_list = TAKE_PTR(params);
                names[n++] = "Parameters";
        }
        if (n == 0)
                return;
        if (d->ready)
                (void) sd_bus_emit_properties_changed_strv(d->bus, SBD_MODULE_PATH, SBD_MODULE_INTERFACE, (char **) names);
        announce(&d->announcer, &(struct change) {
                .kind = CHANGE_MODULE,
                .old_value = state_changed ? old_state : d->module_state, /* NULL: the first look */
                .new_value = d->module_state,
        });
}

static int kmod_error(sd_bus_error *error, int r, const char *what) {
        if (!error)
                return r;
        return sbd_error_set_errno(error, r, what);
}

static int module_get(struct daemon *d, struct kmod_module **ret, sd_bus_error *error) {
        int r;

        if (d->config.module_path)
                r = kmod_module_new_from_path(d->kmod, d->config.module_path, ret);
        else
                r = kmod_module_new_from_name(d->kmod, SBD_MODULE_NAME, ret);
        if (r < 0)
                return kmod_error(error, r, "Cannot find the sbd module");
        return 0;
}

/* Refuse parameters the module does not declare: the kernel would only
 * log "unknown parameter ignored" and load anyway. */
static int check_params(struct kmod_module *mod, char **params, sd_bus_error *error) {
        struct kmod_list *info = NULL, *i;
        bool any = false;
        int r;

        r = kmod_module_get_info(mod, &info);
        if (r < 0)
                return 0; /* no modinfo: let the kernel judge */
        for (char **p = params; p && *p; p++) {
                size_t klen = strcspn(*p, "=");
                bool found = false;

                kmod_list_foreach(i, info) {
                        const char *key = kmod_module_info_get_key(i);
                        const char *value = kmod_module_info_get_value(i);
                        if (!streq(key, "parm") || !value)
                                continue;
                        any = true;
                        if (strncmp(value, *p, klen) == 0 && value[klen] == ':')
                                found = true;
                }
                if (any && !found) {
                        kmod_module_info_free_list(info);
                        if (error)
                                sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE,
                                                  "The sbd module has no parameter '%.*s'.", (int) klen, *p);
                        return -EINVAL;
                }
        }
        kmod_module_info_free_list(info);
        return 0;
}

int module_load(struct daemon *d, char **params, sd_bus_error *error) {
        struct kmod_module *mod = NULL;
        _cleanup_free_ char *state = NULL, *opts = NULL;
        int r;

        r = module_state(d, &state);
        if (r < 0)
                return r;
        if (streq(state, "live") || streq(state, "builtin") || streq(state, "coming")) {
                log_debug("Module %s is %s, not loading it.", SBD_MODULE_NAME, state);
                return 0;
        }
        if (!d->kmod)
                return kmod_error(error, -ENOSYS, "libkmod is not available");
        r = module_get(d, &mod, error);
        if (r < 0)
                return r;
        r = check_params(mod, params, error);
        if (r < 0)
                goto finish;
        r = config_params_string(params, &opts);
        if (r < 0)
                goto finish;

        if (d->config.module_path)
                r = kmod_module_insert_module(mod, 0, opts);
        else {
                /* By name: honour the blacklist, pull in dependencies. */
                r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, opts, NULL, NULL, NULL);
                if (r == KMOD_PROBE_APPLY_BLACKLIST) {
                        log_info("Module %s is blacklisted, not loading it.", SBD_MODULE_NAME);
                        if (error)
                                sd_bus_error_setf(error, SBD_ERROR_PERMISSION_DENIED, "The sbd module is blacklisted.");
                        r = -EPERM;
                        goto finish;
                }
        }
        if (r == -EEXIST)
                r = 0; /* raced with another loader: it is there */
        if (r < 0) {
                log_error_errno(r, "Failed to load module %s: %m", d->config.module_path ?: SBD_MODULE_NAME);
                kmod_error(error, r, "Cannot load the sbd module");
                goto finish;
        }
        log_info("Loaded module %s%s%s.", d->config.module_path ?: SBD_MODULE_NAME,
                 opts[0] ? " with " : "", opts);
finish:
        kmod_module_unref(mod);
        return r;
}

int module_unload(struct daemon *d, sd_bus_error *error) {
        struct kmod_module *mod = NULL;
        _cleanup_free_ char *state = NULL;
        int r;

        r = module_state(d, &state);
        if (r < 0)
                return r;
        if (streq(state, "unloaded")) {
                if (error)
                        sd_bus_error_set(error, SBD_ERROR_MODULE_NOT_LOADED, "The sbd module is not loaded.");
                return -ENOENT;
        }
        if (!d->kmod)
                return kmod_error(error, -ENOSYS, "libkmod is not available");
        r = kmod_module_new_from_name(d->kmod, SBD_MODULE_NAME, &mod);
        if (r < 0)
                return kmod_error(error, r, "Cannot find the sbd module");
        r = kmod_module_remove_module(mod, 0);
        kmod_module_unref(mod);
        if (r == -ENOENT) {
                if (error)
                        sd_bus_error_set(error, SBD_ERROR_MODULE_NOT_LOADED, "The sbd module is not loaded.");
                return r;
        }
        /* libkmod always asks delete_module() not to wait (O_NONBLOCK):
         * a module still in use (an open disk holds a reference) then
         * fails with EWOULDBLOCK, not EBUSY. For the caller it is Busy. */
        if (r == -EAGAIN || r == -EBUSY) {
                if (error)
                        sd_bus_error_set(error, SBD_ERROR_BUSY,
                                         "The sbd module is in use (a disk is open): close it first.");
                return -EBUSY;
        }
        if (r < 0)
                return kmod_error(error, r, "Cannot unload the sbd module");
        log_info("Unloaded module %s.", SBD_MODULE_NAME);
        return 0;
}

/* libkmod prints its own errors to stderr ("libkmod: ERROR ...:
 * could not remove 'sbd': ..."), which under systemd reach the journal
 * without a priority, beside sbdd's own message about the same failure.
 * Like systemd's module-util, keep them at debug level. */
static void _printf_(6, 0) kmod_log(void *data, int priority, const char *file, int line, const char *fn,
                                    const char *format, va_list args) {
        _cleanup_free_ char *msg = NULL;

        if (log_get_max_level() < LOG_DEBUG || vasprintf(&msg, format, args) < 0)
                return;
        msg[strcspn(msg, "\n")] = '\0'; /* libkmod ends its lines itself */
        log_debug("libkmod: %s", msg);
}

int module_setup(struct daemon *d) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        d->kmod = kmod_new(NULL, NULL);
        if (!d->kmod)
                log_warning("libkmod is not available, cannot load or unload the module.");
        else
                kmod_set_log_fn(d->kmod, kmod_log, NULL);
        if (!d->config.load) {
                log_debug("Not loading the module (--no-load).");
                return 0;
        }
        r = module_load(d, d->config.params, &e);
        if (r < 0)
                /* Keep running: the Module object shows it unloaded and
                 * Load() can try again. */
                log_error("Could not load the sbd module: %s", e.message ?: strerror(-r));
        return 0;
}

/* The D-Bus interface */

/* State and Parameters are served as last read on a module uevent (or
 * a re-synchronisation): that is when they change, and the signal must
 * carry the value the event announced. */
static int property_get_state(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;

        return sd_bus_message_append_basic(reply, 's', d->module_state ?: "unloaded");
}

static int property_get_refcount(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        char buf[ATTR_VALUE_MAX + 1];
        uint32_t v = 0;

        if (sysfs_read_at(AT_FDCWD, SYSFS_MODULE_DIR "/refcnt", buf) >= 0)
                (void) attr_parse_u32(buf, &v);
        return sd_bus_message_append_basic(reply, 'u', &v);
}

static int property_get_parameters(sd_bus *bus, const char *path, const char *interface, const char *property,
                                   sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;
        char **l = d->module_param_list;
        int r;

        _cleanup_close_ int dirfd = open(SYSFS_MODULE_DIR "/parameters", O_PATH | O_DIRECTORY | O_CLOEXEC);
        int dir_error = dirfd < 0 ? -errno : 0;

        r = sd_bus_message_open_container(reply, 'a', "{ss}");
        if (r < 0)
                return r;
        for (char **i = l; i && i[0] && i[1]; i += 2) {
                unsigned mode;

                /* A parameter's file mode is the module's choice (0600
                 * for a secret) and root may chmod it: shown exactly
                 * when it is world-readable now. A handful of files.
                 * One that cannot be looked at for want of memory is
                 * left out (never shown unchecked); a Get of just this
                 * property says so instead of answering a short list. */
                r = dirfd < 0 ? dir_error : sysfs_mode_at(dirfd, i[0], &mode);
                if (r < 0 && sysfs_error_is_transient(r) && property_get_is_single(bus))
                        return sbd_error_set_errno(error, r, "Cannot look at the module's parameters");
                if (r < 0 || !attr_mode_is_shown(mode))
                        continue;
                r = sd_bus_message_append(reply, "{ss}", i[0], i[1]);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_get_name(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append_basic(reply, 's', SBD_MODULE_NAME);
}

/* Answer m with error and record the refusal. */
static void module_refuse(struct daemon *d, sd_bus_message *m, const sd_bus_error *error, const struct caller *caller) {
        (void) sd_bus_reply_method_error(m, error);
        audit_refused(d, sd_bus_message_get_member(m), SBD_MODULE_PATH, NULL, NULL, error, caller);
}

static void load_authorized(struct daemon *d, sd_bus_message *m, int allowed, const sd_bus_error *error,
                            const struct caller *caller, void *userdata) {
        char ***params = userdata;

        if (allowed <= 0)
                return module_refuse(d, m, error, caller);
        /* Off the loop (modop.c), which answers m when it is done. */
        if (module_op_queue(d, m, false, TAKE_PTR(*params), caller) < 0)
                (void) sd_bus_reply_method_errno(m, -ENOMEM, NULL);
}

/* A refusal before authorization, recorded. */
static int module_refused_early(struct daemon *d, sd_bus_message *m, int r, const sd_bus_error *error) {
        struct caller c;

        if (sd_bus_error_is_set(error)) {
                caller_of_message(d, m, &c);
                audit_refused(d, sd_bus_message_get_member(m), SBD_MODULE_PATH, NULL, NULL, error, &c);
        }
        return r;
}

/* Load's userdata: a pointer to its parameters, which the module
 * operation takes over once authorized. */
static void strv_free_void(void *p) {
        char ***l = p;

        strv_free(*l);
        free(l);
}

/* The parameter names the module declares (modinfo's parm list), read
 * once and kept: reading them opens (and may decompress) the .ko, which
 * an unprivileged caller must not be able to make sbdd do on every call.
 * Forgotten when the module goes, as a new one may be installed. NULL
 * when unknown (no module file): the kernel judges then. */
static char *const *module_known_params(struct daemon *d) {
        struct kmod_module *mod = NULL;
        struct kmod_list *info = NULL, *i;
        char **l = NULL;
        size_t n = 0;

        if (d->module_parm_names || !d->kmod)
                return d->module_parm_names;
        if (module_get(d, &mod, NULL) < 0)
                return NULL;
        if (kmod_module_get_info(mod, &info) >= 0) {
                kmod_list_foreach(i, info) {
                        const char *value = kmod_module_info_get_value(i);
                        char **nl;
                        if (!streq(kmod_module_info_get_key(i), "parm") || !value || !strchr(value, ':'))
                                continue;
                        nl = realloc(l, (n + 2) * sizeof(char *));
                        if (!nl)
                                break;
                        l = nl;
                        l[n] = strndup(value, strcspn(value, ":"));
                        l[n + 1] = NULL;
                        if (!l[n])
                                break;
                        n++;
                }
                kmod_module_info_free_list(info);
        }
        kmod_module_unref(mod);
        d->module_parm_names = l;
        return l;
}

void module_forget_params(struct daemon *d) {
        strv_free(d->module_parm_names);
        d->module_parm_names = NULL;
}

/* Read Load's a{ss} into params, checking each pair as it comes (see
 * validate.h): at most LOAD_PARAMS_MAX, known to the module, each once. */
static int load_read_params(struct daemon *d, sd_bus_message *m, struct config *params, sd_bus_error *error) {
        struct param_check check = { .known = module_known_params(d) };
        const char *key, *value;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{ss}");
        while (r >= 0 && (r = sd_bus_message_read(m, "{ss}", &key, &value)) > 0) {
                _cleanup_free_ char *a = NULL;

                r = param_check_add(&check, key, value);
                if (r == -E2BIG)
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                              "At most %u module parameters.", LOAD_PARAMS_MAX);
                else if (r == -ENAMETOOLONG)
                        r = sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE,
                                              "Module parameter name '%.64s...' is longer than %u bytes.", key,
                                              LOAD_PARAM_KEY_MAX);
                else if (r == -ENOKEY)
                        r = sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE,
                                              "The sbd module has no parameter '%s'.", key);
                else if (r == -ENOTUNIQ)
                        r = sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE, "Parameter '%s' given twice.", key);
                else if (r == -EINVAL)
                        r = sd_bus_error_setf(error, SBD_ERROR_INVALID_VALUE, "Invalid module parameter '%.64s=%.64s%s'.",
                                              key, value, strlen(value) > 64 ? "..." : "");
                else if (r >= 0 && asprintf(&a, "%s=%s", key, value) < 0)
                        r = -ENOMEM;
                else if (r >= 0)
                        r = config_set_param(params, a);
        }
        param_check_done(&check);
        return r;
}

/* Whether the module is live with each of params ("key=value") as it
 * shows it now: then Load has nothing to do. */
static bool module_live_with(struct daemon *d, char **params) {
        _cleanup_free_ char *state = NULL;
        _cleanup_strv_free_ char **current = NULL;

        if (module_state(d, &state) < 0 || !streq(state, "live") || module_params(&current) < 0)
                return false;
        for (char **p = params; p && *p; p++) {
                size_t klen = strcspn(*p, "=");
                bool same = false;

                for (char **c = current; c[0] && c[1] && !same; c += 2)
                        same = strlen(c[0]) == klen && strncmp(c[0], *p, klen) == 0 &&
                               (*p)[klen] == '=' && streq(c[1], *p + klen + 1);
                if (!same)
                        return false;
        }
        return true;
}

static int method_load(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct daemon *d = userdata;
        _cleanup_(config_done) struct config params = {};
        _cleanup_free_ char *flat = NULL;
        int r;

        r = load_read_params(d, m, &params, error);
        if (r < 0)
                return module_refused_early(d, m, r, error);
        /* No parameters: the configured ones (sbdd.conf, -p), as at start-up. */
        for (char **p = params.params ? NULL : d->config.params; p && *p; p++) {
                r = config_set_param(&params, *p);
                if (r < 0)
                        return r;
        }
        /* Nothing to do: answered without asking anybody. */
        if (module_live_with(d, params.params))
                return sd_bus_reply_method_return(m, NULL);
        r = config_params_string(params.params, &flat);
        if (r < 0)
                return r;
        const char *details[] = {
                "polkit.message",
                flat[0] ? AUTH_MESSAGE "load the kernel module $(module) with the parameters $(parameters)."
                        : AUTH_MESSAGE "load the kernel module $(module).",
                "module", SBD_MODULE_NAME, "parameters", flat, NULL,
        };
        char ***held = malloc(sizeof(char **));
        if (!held)
                return -ENOMEM;
        *held = TAKE_PTR(params.params);
        return authorize_async(d, m, ACTION_MANAGE_MODULE, details, load_authorized, held, strv_free_void);
}

static void unload_authorized(struct daemon *d, sd_bus_message *m, int allowed, const sd_bus_error *error,
                              const struct caller *caller, void *userdata) {
        if (allowed <= 0)
                return module_refuse(d, m, error, caller);
        if (module_op_queue(d, m, true, NULL, caller) < 0)
                (void) sd_bus_reply_method_errno(m, -ENOMEM, NULL);
}

static int method_unload(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *state = NULL;
        int r;

        r = module_state(userdata, &state);
        if (r < 0)
                return r;
        /* Nothing to unload: the answer needs no polkit. */
        if (streq(state, "unloaded"))
                return module_refused_early(userdata, m,
                                            sd_bus_error_set(error, SBD_ERROR_MODULE_NOT_LOADED,
                                                             "The sbd module is not loaded."),
                                            error);
        const char *details[] = {
                "polkit.message", AUTH_MESSAGE "unload the kernel module $(module), deleting its simple block devices "
                                               "and the data on them.",
                "module", SBD_MODULE_NAME, "destructive", "true", NULL,
        };

        return authorize_async(userdata, m, ACTION_MANAGE_MODULE, details, unload_authorized, NULL, NULL);
}

const sd_bus_vtable module_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", property_get_name, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("State", "s", property_get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("RefCount", "u", property_get_refcount, 0, 0),
        SD_BUS_PROPERTY("Parameters", "a{ss}", property_get_parameters, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("Load", SD_BUS_ARGS("a{ss}", parameters), SD_BUS_NO_RESULT,
                                method_load, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Unload", NULL, NULL, method_unload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};
