/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test actions (--set, --add, --remove, --module): each drives the window's widgets as a
 * user would (types into an entry and presses Enter, flips a switch, clicks a
 * button), waits for the daemon's answers, and reports what the window shows. */

#include "app.h"
#include "device-row.h"

static void report(SbdApp *app, const char *action, const char *error) {
        g_autoptr(GString) out = g_string_new("{");

        if (error) {
                g_printerr("sbd-manager: action %s failed: %s\n", action, error);
                app->exit_status = 1;
        }
        if (!app->dump_model)
                return;
        sbd_output_json_field(out, "action", action);
        g_string_append_c(out, ',');
        sbd_output_json_field(out, "error", error);
        g_print("%s}\n", out->str);
        fflush(stdout); /* a reader sees each action's outcome as it comes */
}

/* "sbd0:Label=text" */
static gboolean run_set(SbdApp *app, const char *spec, GError **error) {
        g_auto(GStrv) dev = g_strsplit(spec, ":", 2);
        g_auto(GStrv) prop = NULL;
        DeviceRow *row;

        if (!dev[0] || !dev[1] || !strchr(dev[1], '=')) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "expected DEV:PROPERTY=VALUE");
                return FALSE;
        }
        prop = g_strsplit(dev[1], "=", 2);
        row = sbd_device_row_find(app, dev[0]);
        if (!row) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "the window shows no device %s", dev[0]);
                return FALSE;
        }
        return sbd_device_row_edit(row, prop[0], prop[1], error);
}

/* "64M" or "64M:3" */
static gboolean run_add(SbdApp *app, const char *spec, GError **error) {
        g_auto(GStrv) parts = g_strsplit(spec, ":", 2);

        gtk_editable_set_text(GTK_EDITABLE(app->add_size), parts[0] ?: "");
        gtk_editable_set_text(GTK_EDITABLE(app->add_id), parts[0] && parts[1] ? parts[1] : "");
        if (!gtk_widget_is_sensitive(app->add_button)) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "the Add button is disabled");
                return FALSE;
        }
        g_signal_emit_by_name(app->add_button, "clicked"); /* what a click emits */
        return TRUE;
}

/* "remove DEV" clicks the trash button, "expand DEV" the row's expander. */
static gboolean run_on_row(SbdApp *app, const char *name, void (*click)(DeviceRow *row), GError **error) {
        DeviceRow *row = sbd_device_row_find(app, name);

        if (!row) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "the window shows no device %s", name);
                return FALSE;
        }
        click(row);
        return TRUE;
}

/* "load", or "unload" (then the question is answered with Unload). */
static gboolean run_module(SbdApp *app, const char *what, GError **error) {
        const char *label = sbd_mnemonic_button_text(app->module_button);
        gboolean unload = g_str_equal(what, "unload");

        if (!unload && !g_str_equal(what, "load")) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "expected load or unload");
                return FALSE;
        }
        if (!gtk_widget_is_sensitive(app->module_button) || g_str_equal(label, _("Load")) == unload) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "the window offers no %s", what);
                return FALSE;
        }
        g_signal_emit_by_name(app->module_button, "clicked");
        if (unload && app->module_dialog) {
                /* the dialog's Unload button: its response, then the dialog closes */
                g_autoptr(GtkWidget) dialog = g_object_ref(app->module_dialog);

                adw_message_dialog_response(ADW_MESSAGE_DIALOG(dialog), "unload");
                gtk_window_close(GTK_WINDOW(dialog));
        }
        return TRUE;
}

static gboolean run(SbdApp *app, const char *action, GError **error) {
        if (g_str_has_prefix(action, "module "))
                return run_module(app, action + 7, error);
        if (g_str_has_prefix(action, "set "))
                return run_set(app, action + 4, error);
        if (g_str_has_prefix(action, "add "))
                return run_add(app, action + 4, error);
        if (g_str_has_prefix(action, "remove "))
                return run_on_row(app, action + 7, sbd_device_row_click_remove, error);
        if (g_str_has_prefix(action, "expand "))
                return run_on_row(app, action + 7, sbd_device_row_expand, error);
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "unknown action");
        return FALSE;
}

/* Called when an action's calls are answered: report what the window says. */
static void finish_previous(SbdApp *app) {
        if (app->next_action == 0)
                return;
        report(app, app->actions[app->next_action - 1], sbd_window_error(app));
}

void sbd_actions_continue(SbdApp *app) {
        g_autoptr(GError) error = NULL;
        const char *action;

        if (!app->up_to_date || app->in_flight > 0 || app->actions_done)
                return;
        finish_previous(app);
        if (!app->actions || !app->actions[app->next_action]) {
                app->actions_done = TRUE;
                sbd_output_when_ready(app);
                return;
        }

        action = app->actions[app->next_action++];
        sbd_window_forget_error(app);
        if (!run(app, action, &error)) {
                sbd_window_show_error(app, error->message);
                sbd_output_model_changed(app);
        }
        /* Nothing sent (no change, or refused here): go on. */
        if (app->in_flight == 0)
                g_idle_add_once((GSourceOnceFunc) sbd_actions_continue, app);
}

void sbd_actions_start(SbdApp *app) {
        sbd_actions_continue(app);
}
