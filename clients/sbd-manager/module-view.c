/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The window's status lines: the module's state and version, the daemon;
 * and the button that loads or unloads the module (unloading destroys every
 * disk and its data: it asks first). */

#include "app.h"
#include "writes.h"

/* The first interface proxy of the given kind among the daemon's objects, or NULL. */
static GDBusInterface *first_interface(SbdApp *app, const char *name) {
        g_autolist(GDBusObject) objects = NULL;

        if (!app->objects)
                return NULL;
        objects = g_dbus_object_manager_get_objects(app->objects);
        for (GList *l = objects; l; l = l->next) {
                GDBusInterface *i = g_dbus_object_get_interface(l->data, name);

                if (i)
                        return i; /* a reference: the caller unrefs */
        }
        return NULL;
}

static const char *module_state(SbdApp *app, SbdModule *module) {
        g_autofree char *owner = NULL;

        if (!app->objects)
                return _("unknown (not connected)");
        owner = g_dbus_object_manager_client_get_name_owner(G_DBUS_OBJECT_MANAGER_CLIENT(app->objects));
        if (!owner)
                return _("unknown (sbdd is not running)");
        return module ? sbd_module_get_state(module) ?: _("unknown") : _("unknown");
}

/* What the module button does in this state: Load, Unload, or nothing. */
static void sync_module_button(SbdApp *app, const char *state) {
        gboolean live = g_str_equal(state, "live"), unloaded = g_str_equal(state, "unloaded");

        sbd_mnemonic_button_set(app->module_button, unloaded ? _("_Load") : _("_Unload…"));
        gtk_widget_set_sensitive(app->module_button, (live || unloaded) && !app->module_dialog);
}

static void sync_labels(SbdApp *app) {
        g_autoptr(GDBusInterface) module = first_interface(app, SBD_MODULE_INTERFACE);
        g_autoptr(GDBusInterface) driver = first_interface(app, SBD_DRIVER_INTERFACE);
        const char *version = driver ? sbd_driver_get_version(SBD_DRIVER(driver)) : NULL;
        const char *daemon = app->manager ? sbd_manager_get_version(app->manager) : NULL;
        const char *state = module_state(app, module ? SBD_MODULE(module) : NULL);

        gtk_label_set_text(GTK_LABEL(app->status_label), state);
        gtk_label_set_text(GTK_LABEL(app->version_label), version && *version ? version : "–");
        gtk_label_set_text(GTK_LABEL(app->daemon_label), daemon && *daemon ? daemon : "–");
        gtk_widget_set_sensitive(app->add_button, driver != NULL);
        sync_module_button(app, state);
}

static void call_module(SbdApp *app, GDBusInterface *module, const char *method, GVariant *parameters,
                        const char *what) {
        if (!module) {
                sbd_window_show_error(app, _("Could not reach the module: sbdd shows no module object."));
                return;
        }
        sbd_call(app, g_dbus_proxy_get_object_path(G_DBUS_PROXY(module)), SBD_MODULE_INTERFACE, method,
                 parameters, what, NULL, NULL, NULL);
}

static void on_unload_answered(AdwMessageDialog *dialog, const char *response, gpointer user_data) {
        SbdApp *app = user_data;
        g_autoptr(GDBusInterface) module = first_interface(app, SBD_MODULE_INTERFACE);

        if (app->module_dialog != GTK_WIDGET(dialog))
                return; /* answered already */
        app->module_dialog = NULL;
        if (g_str_equal(response, "unload"))
                call_module(app, module, "Unload", NULL, _("unload the sbd module"));
        sbd_module_view_sync(app);
        sbd_actions_continue(app);
}

/* Unloading destroys every disk and its data: ask, never by default. */
static void ask_unload(SbdApp *app) {
        GtkWidget *dialog = adw_message_dialog_new(GTK_WINDOW(app->window), _("Unload the sbd module?"),
                                                   _("Every sbd disk is destroyed, with the data on it."));

        adw_message_dialog_add_responses(ADW_MESSAGE_DIALOG(dialog), "cancel", _("_Cancel"),
                                         "unload", _("_Unload"), NULL);
        adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "unload", ADW_RESPONSE_DESTRUCTIVE);
        adw_message_dialog_set_default_response(ADW_MESSAGE_DIALOG(dialog), "cancel");
        adw_message_dialog_set_close_response(ADW_MESSAGE_DIALOG(dialog), "cancel");
        g_signal_connect(dialog, "response", G_CALLBACK(on_unload_answered), app);
        app->module_dialog = dialog;
        gtk_widget_set_sensitive(app->module_button, FALSE);
        gtk_window_present(GTK_WINDOW(dialog));
}

static void on_module_clicked(GtkButton *button, gpointer user_data) {
        SbdApp *app = user_data;
        g_autoptr(GDBusInterface) module = first_interface(app, SBD_MODULE_INTERFACE);
        const char *state = module_state(app, module ? SBD_MODULE(module) : NULL);

        sbd_window_clear_error(app);
        if (g_str_equal(state, "unloaded"))
                /* no parameters: the configured ones, as at sbdd's start */
                call_module(app, module, "Load",
                            g_variant_new("(@a{ss})", g_variant_new_array(G_VARIANT_TYPE("{ss}"), NULL, 0)),
                            _("load the sbd module"));
        else if (g_str_equal(state, "live"))
                ask_unload(app);
}

GtkWidget *sbd_module_view_button(SbdApp *app) {
        app->module_button = sbd_mnemonic_button(_("_Unload…"));
        gtk_widget_set_sensitive(app->module_button, FALSE);
        gtk_widget_set_valign(app->module_button, GTK_ALIGN_CENTER);
        g_signal_connect(app->module_button, "clicked", G_CALLBACK(on_module_clicked), app);
        return app->module_button;
}

void sbd_module_view_sync(SbdApp *app) {
        if (!app->closing)
                sync_labels(app);
}
