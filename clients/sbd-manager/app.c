/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Connecting to the daemon and following its objects with a GDBusObjectManagerClient. */

#include "app.h"
#include "device-row.h"
#include "errors.h"

static void add_object(SbdApp *app, GDBusObject *object) {
        const char *path = g_dbus_object_get_object_path(object);

        if (!sbd_object_peek_device(SBD_OBJECT(object)) || g_hash_table_contains(app->rows, path))
                return;
        g_hash_table_insert(app->rows, g_strdup(path), sbd_device_row_new(app, object));
}

static void on_object_added(GDBusObjectManager *manager, GDBusObject *object, gpointer user_data) {
        SbdApp *app = user_data;

        add_object(app, object);
        sbd_module_view_sync(app);
        sbd_output_model_changed(app);
}

static void on_object_removed(GDBusObjectManager *manager, GDBusObject *object, gpointer user_data) {
        SbdApp *app = user_data;

        g_hash_table_remove(app->rows, g_dbus_object_get_object_path(object));
        sbd_module_view_sync(app);
        sbd_output_model_changed(app);
}

static void refresh(SbdApp *app, const char *path) {
        DeviceRow *row = app->closing ? NULL : g_hash_table_lookup(app->rows, path);

        if (row)
                sbd_device_row_sync(row);
        sbd_module_view_sync(app);
        sbd_output_model_changed(app);
}

typedef struct Refetch {
        SbdApp *app;
        GDBusProxy *proxy;
        char *property;
} Refetch;

static void on_refetched(GObject *source, GAsyncResult *res, gpointer user_data) {
        Refetch *f = user_data;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, &error);

        if (reply) {
                g_autoptr(GVariant) value = NULL;

                g_variant_get(reply, "(v)", &value);
                g_dbus_proxy_set_cached_property(f->proxy, f->property, value);
                refresh(f->app, g_dbus_proxy_get_object_path(f->proxy));
        } else if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                g_printerr("sbd-manager: Could not read %s: %s\n", f->property, error->message);
        g_object_unref(f->proxy);
        g_free(f->property);
        g_free(f);
}

/* A property announced as invalidated without its value: read it. */
static void refetch(SbdApp *app, GDBusProxy *proxy, const char *property) {
        Refetch *f = g_new0(Refetch, 1);

        *f = (Refetch) { .app = app, .proxy = g_object_ref(proxy), .property = g_strdup(property) };
        g_dbus_connection_call(app->connection, SBD_BUS_NAME, g_dbus_proxy_get_object_path(proxy),
                               "org.freedesktop.DBus.Properties", "Get",
                               g_variant_new("(ss)", g_dbus_proxy_get_interface_name(proxy), property),
                               G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, -1, app->cancellable,
                               on_refetched, f);
}

static void on_properties_changed(GDBusObjectManagerClient *manager, GDBusObjectProxy *object,
                                  GDBusProxy *proxy, GVariant *changed, const char *const *invalidated,
                                  gpointer user_data) {
        SbdApp *app = user_data;

        for (const char *const *p = invalidated; p && *p; p++)
                refetch(app, proxy, *p);
        refresh(app, g_dbus_object_get_object_path(G_DBUS_OBJECT(object)));
}

static void on_name_owner(GObject *manager, GParamSpec *pspec, gpointer user_data) {
        sbd_module_view_sync(user_data);
        sbd_output_model_changed(user_data);
}

static void follow_objects(SbdApp *app) {
        g_autolist(GDBusObject) objects = g_dbus_object_manager_get_objects(app->objects);

        for (GList *l = objects; l; l = l->next)
                add_object(app, l->data);
        g_signal_connect(app->objects, "object-added", G_CALLBACK(on_object_added), app);
        g_signal_connect(app->objects, "object-removed", G_CALLBACK(on_object_removed), app);
        g_signal_connect(app->objects, "interface-proxy-properties-changed", G_CALLBACK(on_properties_changed), app);
        g_signal_connect(app->objects, "notify::name-owner", G_CALLBACK(on_name_owner), app);
}

/* One initial load is done (or failed): when all are, the window is up to date. */
static void loaded(SbdApp *app) {
        if (--app->loading > 0)
                return;
        app->up_to_date = TRUE;
        sbd_module_view_sync(app);
        sbd_output_model_changed(app);
        sbd_actions_start(app);
}

static void fail(SbdApp *app, const char *what, const GError *error) {
        g_autofree char *text = sbd_error_describe(what, error);

        g_printerr("sbd-manager: %s\n", text);
        sbd_window_show_error(app, text);
        app->exit_status = 1; /* the window still comes up, and tests see the error */
}

static void on_objects_ready(GObject *source, GAsyncResult *res, gpointer user_data) {
        SbdApp *app = user_data;
        g_autoptr(GError) error = NULL;

        app->objects = sbd_object_manager_client_new_finish(res, &error);
        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        if (app->objects)
                follow_objects(app);
        else
                fail(app, _("follow the SBD daemon"), error);
        loaded(app);
}

static void on_manager_changed(GDBusProxy *proxy, GVariant *changed, GStrv invalidated, gpointer user_data) {
        sbd_module_view_sync(user_data);
        sbd_output_model_changed(user_data);
}

static void on_manager_ready(GObject *source, GAsyncResult *res, gpointer user_data) {
        SbdApp *app = user_data;
        g_autoptr(GError) error = NULL;

        app->manager = sbd_manager_proxy_new_finish(res, &error);
        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        if (app->manager)
                g_signal_connect(app->manager, "g-properties-changed", G_CALLBACK(on_manager_changed), app);
        else
                fail(app, _("reach the SBD daemon"), error);
        loaded(app);
}

static void on_connected(GObject *source, GAsyncResult *res, gpointer user_data) {
        SbdApp *app = user_data;
        g_autoptr(GError) error = NULL;

        app->connection = app->address ? g_dbus_connection_new_for_address_finish(res, &error)
                                       : g_bus_get_finish(res, &error);
        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        if (!app->connection) {
                fail(app, app->address ? _("connect to the bus") : _("connect to the system bus"), error);
                app->loading = 1;
                loaded(app);
                return;
        }
        app->loading = 2;
        sbd_object_manager_client_new(app->connection, G_DBUS_OBJECT_MANAGER_CLIENT_FLAGS_NONE, SBD_BUS_NAME,
                                      SBD_ROOT_PATH, app->cancellable, on_objects_ready, app);
        sbd_manager_proxy_new(app->connection, G_DBUS_PROXY_FLAGS_NONE, SBD_BUS_NAME, SBD_ROOT_PATH,
                              app->cancellable, on_manager_ready, app);
}

void sbd_app_connect(SbdApp *app) {
        app->rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) sbd_device_row_free);
        app->cancellable = g_cancellable_new();
        if (app->address)
                g_dbus_connection_new_for_address(app->address,
                                                  G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                  G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                  NULL, app->cancellable, on_connected, app);
        else
                g_bus_get(G_BUS_TYPE_SYSTEM, app->cancellable, on_connected, app);
}

void sbd_app_shutdown(SbdApp *app) {
        app->closing = TRUE;
        if (app->cancellable)
                g_cancellable_cancel(app->cancellable);
        if (app->dump_source)
                g_source_remove(app->dump_source);
        app->dump_source = 0;
        if (app->objects)
                g_signal_handlers_disconnect_by_data(app->objects, app);
        if (app->manager)
                g_signal_handlers_disconnect_by_data(app->manager, app);
}

void sbd_app_free(SbdApp *app) {
        if (!app)
                return;
        sbd_app_shutdown(app);
        g_clear_object(&app->manager);
        g_clear_pointer(&app->rows, g_hash_table_unref);
        g_clear_object(&app->objects);
        g_clear_object(&app->connection);
        g_clear_object(&app->cancellable);
        if (app->toast)
                g_signal_handlers_disconnect_by_data(app->toast, app);
        g_clear_object(&app->toast);
        g_free(app->error);
        g_clear_object(&app->gtk);
        g_free(app->address);
        g_free(app->screenshot);
        g_strfreev(app->actions);
        g_free(app);
}
