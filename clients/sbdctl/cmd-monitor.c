/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl monitor: one line per added or removed object and per property change.
 * The bus's standard interfaces (org.freedesktop.DBus.*) are left out of the lines. */

#include <errno.h>
#include <signal.h>
#include <systemd/sd-event.h>

#include "bus.h"
#include "introspect.h"
#include "json.h"
#include "names.h"
#include "sbdctl.h"
#include "table.h"
#include "util.h"
#include "variant.h"

#define OBJECT_MANAGER_INTERFACE "org.freedesktop.DBus.ObjectManager"

/* Starts a line: "sbd0: " for humans, {"event":...,"path":...,"name":... for JSON. */
static void begin_event(Context *c, SbdJson *j, const char *event, const char *path) {
        _cleanup_free_ char *name = NULL;

        (void) sbd_object_name(path, &name);
        if (!c->json) {
                printf("%s%s%s: ", c->colors ? ANSI_HIGHLIGHT : "", name ?: path, c->colors ? ANSI_NORMAL : "");
                return;
        }
        sbd_json_begin_object(j);
        sbd_json_key(j, "event");
        sbd_json_string(j, event);
        sbd_json_key(j, "path");
        sbd_json_string(j, path);
        sbd_json_key(j, "name");
        name ? sbd_json_string(j, name) : sbd_json_null(j);
}

static int end_event(Context *c, SbdJson *j, int r) {
        if (c->json)
                sbd_json_end_object(j);
        fputc('\n', stdout);
        fflush(stdout);
        if (r < 0)
                sbd_log_errno(r, "Failed to read a signal");
        return 0;
}

/* Prints Name=value for each entry of an a{sv}, or its JSON object; returns how many. */
static int print_properties(Context *c, SbdJson *j, sd_bus_message *m) {
        int n = 0, r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r >= 0 && c->json)
                sbd_json_begin_object(j);
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                _cleanup_free_ char *text = NULL;
                const char *name, *type = "";

                r = sd_bus_message_read(m, "s", &name);
                if (r >= 0 && c->json) {
                        sbd_json_key(j, name);
                        r = sbd_value_to_json(m, j);
                } else if (r >= 0) {
                        (void) sbd_variant_peek_signature(m, &type);
                        r = sbd_value_to_text(m, streq(name, "Size") && streq(type, "t"), &text);
                        if (r >= 0)
                                printf("%s%s=%s", n > 0 ? " " : "", name, text);
                }
                n++;
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0 && c->json)
                sbd_json_end_object(j);
        return r < 0 ? r : n;
}

static int print_invalidated(Context *c, SbdJson *j, sd_bus_message *m, bool any_changed) {
        const char *name;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "s");
        if (r >= 0 && c->json) {
                sbd_json_key(j, "invalidated");
                sbd_json_begin_array(j);
        }
        while (r >= 0 && (r = sd_bus_message_read(m, "s", &name)) > 0) {
                if (c->json)
                        sbd_json_string(j, name);
                else
                        printf("%s%s (invalidated)", any_changed ? " " : "", name);
                any_changed = true;
        }
        if (r >= 0 && c->json)
                sbd_json_end_array(j);
        return r < 0 ? r : sd_bus_message_exit_container(m);
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Context *c = userdata;
        SbdJson j = sbd_json_new(stdout, false) /* JSON lines */;
        const char *interface;
        int r;

        begin_event(c, &j, "changed", sd_bus_message_get_path(m));
        r = sd_bus_message_read(m, "s", &interface);
        if (r >= 0 && c->json) {
                sbd_json_key(&j, "interface");
                sbd_json_string(&j, interface);
                sbd_json_key(&j, "changed");
        }
        if (r >= 0)
                r = print_properties(c, &j, m);
        if (r >= 0)
                r = print_invalidated(c, &j, m, r > 0);
        return end_event(c, &j, r);
}

static int on_interfaces_added(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Context *c = userdata;
        SbdJson j = sbd_json_new(stdout, false) /* JSON lines */;
        const char *path, *interface;
        int r;

        r = sd_bus_message_read(m, "o", &path);
        if (r < 0)
                return 0;
        begin_event(c, &j, "added", path);
        if (c->json) {
                sbd_json_key(&j, "interfaces");
                sbd_json_begin_object(&j);
        } else
                fputs("added", stdout);
        r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
                r = sd_bus_message_read(m, "s", &interface);
                if (r >= 0 && sbd_interface_is_standard(interface))
                        r = sd_bus_message_skip(m, "a{sv}");
                else if (r >= 0 && c->json) {
                        sbd_json_key(&j, interface);
                        r = print_properties(c, &j, m);
                } else if (r >= 0) {
                        printf(" %s", interface);
                        r = sd_bus_message_skip(m, "a{sv}");
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (c->json)
                sbd_json_end_object(&j);
        return end_event(c, &j, r);
}

static int on_interfaces_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Context *c = userdata;
        SbdJson j = sbd_json_new(stdout, false) /* JSON lines */;
        const char *path, *interface;
        int r;

        r = sd_bus_message_read(m, "o", &path);
        if (r < 0)
                return 0;
        begin_event(c, &j, "removed", path);
        if (c->json) {
                sbd_json_key(&j, "interfaces");
                sbd_json_begin_array(&j);
        } else
                fputs("removed", stdout);
        r = sd_bus_message_enter_container(m, 'a', "s");
        while (r >= 0 && (r = sd_bus_message_read(m, "s", &interface)) > 0) {
                if (sbd_interface_is_standard(interface))
                        continue;
                if (c->json)
                        sbd_json_string(&j, interface);
                else
                        printf(" %s", interface);
        }
        if (c->json)
                sbd_json_end_array(&j);
        return end_event(c, &j, r);
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Context *c = userdata;
        SbdJson j = sbd_json_new(stdout, false) /* JSON lines */;
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (c->json) {
                sbd_json_begin_object(&j);
                sbd_json_key(&j, "event");
                sbd_json_string(&j, *new_owner ? "daemon-started" : "daemon-stopped");
                sbd_json_key(&j, "owner");
                sbd_json_string(&j, *new_owner ? new_owner : old_owner);
                sbd_json_end_object(&j);
                fputc('\n', stdout);
        } else
                printf("%s: %s\n", SBD_BUS_NAME, *new_owner ? "daemon started" : "daemon stopped");
        fflush(stdout);
        return 0;
}

static int add_matches(Context *c) {
        int r;

        r = sd_bus_match_signal(c->bus, NULL, SBD_BUS_NAME, SBD_ROOT_PATH, OBJECT_MANAGER_INTERFACE,
                                "InterfacesAdded", on_interfaces_added, c);
        if (r >= 0)
                r = sd_bus_match_signal(c->bus, NULL, SBD_BUS_NAME, SBD_ROOT_PATH, OBJECT_MANAGER_INTERFACE,
                                        "InterfacesRemoved", on_interfaces_removed, c);
        if (r >= 0)
                r = sd_bus_add_match(c->bus, NULL,
                                     "type='signal',sender='" SBD_BUS_NAME "',"
                                     "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                                     "path_namespace='" SBD_ROOT_PATH "'",
                                     on_properties_changed, c);
        if (r >= 0)
                r = sd_bus_add_match(c->bus, NULL,
                                     "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                     "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                                     "arg0='" SBD_BUS_NAME "'",
                                     on_owner_changed, c);
        return r;
}

int verb_monitor(Context *c, int argc, char **argv) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        int r;

        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL);
        if (r >= 0)
                r = sd_bus_attach_event(c->bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0) /* losing the bus ends the loop with an error */
                r = sd_bus_set_exit_on_disconnect(c->bus, true);
        if (r < 0)
                return sbd_log_errno(r, "Failed to set up the event loop");

        /* sd_bus_add_match() waits for the bus to confirm, so once this line is out
         * no event can be missed. */
        r = add_matches(c);
        if (r < 0)
                return sbd_log_errno(r, "Failed to subscribe to the signals of %s", SBD_BUS_NAME);
        fprintf(stderr, "Monitoring %s; press Ctrl+C to stop.\n", SBD_BUS_NAME);

        r = sd_event_loop(event);
        sd_bus_detach_event(c->bus);
        return r < 0 ? sbd_log_errno(r, "Event loop failed") : 0;
}
