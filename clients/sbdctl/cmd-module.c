/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl module [load [PARAM=VALUE...]|unload]: the kernel module. */

#include <errno.h>
#include <inttypes.h>

#include "bus.h"
#include "json.h"
#include "names.h"
#include "sbdctl.h"
#include "table.h"
#include "util.h"
#include "variant.h"

typedef struct ModuleInfo {
        sd_bus_message *module;         /* the GetAll reply of org.sbd.Sbd1.Module */
        char *version;                  /* the driver's Version attribute, NULL without a driver */
        char *daemon_version;
} ModuleInfo;

static void module_info_done(ModuleInfo *m) {
        sd_bus_message_unref(m->module);
        free(m->version);
        free(m->daemon_version);
}

static int get_string(sd_bus *bus, const char *path, const char *interface, const char *name, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

        return sd_bus_get_property_string(bus, SBD_BUS_NAME, path, interface, name, &error, ret);
}

/* The module's version is the driver's "version" attribute; no driver, no version. */
static int driver_version(sd_bus *bus, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *driver = NULL;
        int r;

        r = sd_bus_get_property(bus, SBD_BUS_NAME, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE, "Drivers", &error, &reply, "ao");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "o");
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &driver);
        if (r <= 0)
                return r;
        return get_string(bus, driver, SBD_DRIVER_INTERFACE, "Version", ret);
}

static int module_info_load(sd_bus *bus, ModuleInfo *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        ModuleInfo m = {};
        int r;

        r = sd_bus_call_method(bus, SBD_BUS_NAME, SBD_MODULE_PATH, "org.freedesktop.DBus.Properties", "GetAll",
                               &error, &m.module, "s", SBD_MODULE_INTERFACE);
        if (r < 0)
                return sbd_log_bus_error(r, &error, "Failed to get the module's properties");
        (void) driver_version(bus, &m.version);
        (void) get_string(bus, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE, "Version", &m.daemon_version);
        *ret = m;
        return 0;
}

static void print_field(const char *key, const char *value, const char *color) {
        printf("%12s: %s%s%s\n", key, color ?: "", value, color ? ANSI_NORMAL : "");
}

static const char *state_color(const char *state, bool colors) {
        if (!colors)
                return NULL;
        return streq(state, "live") ? ANSI_GREEN : streq(state, "unloaded") ? ANSI_GREY : ANSI_HIGHLIGHT;
}

static int print_module_text(Context *c, ModuleInfo *m) {
        sd_bus_message *msg = m->module;
        int r;

        r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                _cleanup_free_ char *text = NULL;
                const char *name;

                r = sd_bus_message_read(msg, "s", &name);
                if (r >= 0)
                        r = sbd_value_to_text(msg, false, &text);
                if (r >= 0)
                        print_field(name, text, streq(name, "State") ? state_color(text, c->colors) : NULL);
                if (r >= 0)
                        r = sd_bus_message_exit_container(msg);
        }
        if (r < 0)
                return sbd_log_errno(r, "Failed to read the module's properties");
        print_field("Version", m->version ?: "-", NULL);
        print_field("Daemon", m->daemon_version ?: "-", NULL);
        return 0;
}

/* "RefCount" -> "ref_count", for the JSON keys of this command. */
static void json_key_snake(SbdJson *j, const char *name) {
        char key[64];
        size_t n = 0;

        for (const char *p = name; *p && n + 2 < sizeof(key); p++) {
                if (*p >= 'A' && *p <= 'Z') {
                        if (p != name)
                                key[n++] = '_';
                        key[n++] = (char) (*p - 'A' + 'a');
                } else
                        key[n++] = *p;
        }
        key[n] = '\0';
        sbd_json_key(j, key);
}

static int print_module_json(const Context *c, ModuleInfo *m) {
        sd_bus_message *msg = m->module;
        SbdJson j = sbd_json_new(stdout, c->json_pretty);
        int r;

        sbd_json_begin_object(&j);
        r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                const char *name;

                r = sd_bus_message_read(msg, "s", &name);
                if (r >= 0) {
                        json_key_snake(&j, name);
                        r = sbd_value_to_json(msg, &j);
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(msg);
        }
        sbd_json_key(&j, "version");
        m->version ? sbd_json_string(&j, m->version) : sbd_json_null(&j);
        sbd_json_key(&j, "daemon_version");
        m->daemon_version ? sbd_json_string(&j, m->daemon_version) : sbd_json_null(&j);
        sbd_json_end_object(&j);
        fputc('\n', stdout);
        return r < 0 ? sbd_log_errno(r, "Failed to read the module's properties") : 0;
}

static int module_status(Context *c) {
        _cleanup_(module_info_done) ModuleInfo m = {};
        int r;

        r = module_info_load(c->bus, &m);
        if (r < 0)
                return r;
        return c->json ? print_module_json(c, &m) : print_module_text(c, &m);
}

static int build_load(Context *c, int n, char **params, sd_bus_message **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(c->bus, &m, SBD_BUS_NAME, SBD_MODULE_PATH, SBD_MODULE_INTERFACE, "Load");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{ss}");
        for (int i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *key = NULL;
                const char *eq = strchr(params[i], '=');

                if (!eq || eq == params[i]) {
                        fprintf(stderr, "sbdctl: Invalid module parameter '%s': expected PARAM=VALUE.\n", params[i]);
                        return -EINVAL;
                }
                key = strndup(params[i], (size_t) (eq - params[i]));
                r = key ? sd_bus_message_append(m, "{ss}", key, eq + 1) : -ENOMEM;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return sbd_log_errno(r, "Failed to build the request");
        *ret = TAKE_PTR(m);
        return 0;
}

static int module_load(Context *c, int n, char **params) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = build_load(c, n, params, &m);
        if (r < 0)
                return r;
        r = sd_bus_call(c->bus, m, 0, &error, NULL);
        if (r < 0)
                return sbd_log_bus_error(r, &error, "Failed to load the module");
        return c->json ? module_status(c) : 0;
}

static int module_unload(Context *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(c->bus, SBD_BUS_NAME, SBD_MODULE_PATH, SBD_MODULE_INTERFACE, "Unload", &error, NULL, NULL);
        if (r < 0)
                return sbd_log_bus_error(r, &error, "Failed to unload the module");
        return c->json ? module_status(c) : 0;
}

int verb_module(Context *c, int argc, char **argv) {
        if (argc == 1)
                return module_status(c);
        if (streq(argv[1], "load"))
                return module_load(c, argc - 2, argv + 2);
        if (streq(argv[1], "unload") && argc == 2)
                return module_unload(c);
        if (streq(argv[1], "unload"))
                fprintf(stderr, "sbdctl: 'module unload' takes no arguments.\n");
        else
                fprintf(stderr, "sbdctl: Unknown module command '%s': expected load or unload.\n", argv[1]);
        return -EINVAL;
}
