/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The window's status lines: the module's state and version, the daemon. */

#include "app.h"

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
                return "unknown (not connected)";
        owner = g_dbus_object_manager_client_get_name_owner(G_DBUS_OBJECT_MANAGER_CLIENT(app->objects));
        if (!owner)
                return "unknown (sbdd is not running)";
        return module ? sbd_module_get_state(module) ?: "unknown" : "unknown";
}

static void sync_labels(SbdApp *app) {
        g_autoptr(GDBusInterface) module = first_interface(app, "org.sbd.Sbd1.Module");
        g_autoptr(GDBusInterface) driver = first_interface(app, "org.sbd.Sbd1.Driver");
        const char *version = driver ? sbd_driver_get_version(SBD_DRIVER(driver)) : NULL;
        const char *daemon = app->manager ? sbd_manager_get_version(app->manager) : NULL;

        gtk_label_set_text(GTK_LABEL(app->status_label), module_state(app, module ? SBD_MODULE(module) : NULL));
        gtk_label_set_text(GTK_LABEL(app->version_label), version && *version ? version : "–");
        gtk_label_set_text(GTK_LABEL(app->daemon_label), daemon && *daemon ? daemon : "–");
        gtk_widget_set_sensitive(app->add_button, driver != NULL);
}

void sbd_module_view_sync(SbdApp *app) {
        if (!app->closing)
                sync_labels(app);
}
