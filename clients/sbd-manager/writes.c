/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "errors.h"
#include "writes.h"

typedef struct Call {
        SbdApp *app;
        char *what;
        SbdDoneFunc done;
        gpointer data;
        GDestroyNotify free_data;
} Call;

static void call_free(Call *c) {
        if (c->free_data)
                c->free_data(c->data);
        g_free(c->what);
        g_free(c);
}

static void on_reply(GObject *source, GAsyncResult *res, gpointer user_data) {
        Call *c = user_data;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) result = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, &error);
        SbdApp *app = c->app;

        /* At shutdown the app is gone: touch nothing. */
        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
                call_free(c);
                return;
        }

        app->in_flight--;
        if (error) {
                g_autofree char *text = sbd_error_describe(c->what, error);

                g_printerr("sbd-manager: %s\n", text);
                sbd_window_show_error(app, text);
        } else
                sbd_window_clear_error(app);

        if (c->done)
                c->done(app, result, error, c->data);
        call_free(c);
        sbd_output_model_changed(app);
        sbd_actions_continue(app);
}

void sbd_call(SbdApp *app, const char *path, const char *interface, const char *method,
              GVariant *parameters, const char *what, SbdDoneFunc done, gpointer data,
              GDestroyNotify free_data) {
        Call *c;

        if (app->closing) {
                if (free_data)
                        free_data(data);
                return;
        }
        c = g_new0(Call, 1);
        *c = (Call) { .app = app, .what = g_strdup(what), .done = done, .data = data, .free_data = free_data };
        app->in_flight++;
        g_dbus_connection_call(app->connection, SBD_BUS_NAME, path, interface, method, parameters, NULL,
                               /* longer than sbdd takes to answer (sbd-bus.h) */
                               G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                               SBD_CLIENT_INTERACTIVE_CALL_TIMEOUT_USEC / 1000, app->cancellable,
                               on_reply, c);
}

void sbd_set_property(SbdApp *app, const char *path, const char *interface, const char *property,
                      GVariant *value, const char *what, SbdDoneFunc done, gpointer data,
                      GDestroyNotify free_data) {
        sbd_call(app, path, "org.freedesktop.DBus.Properties", "Set",
                 g_variant_new("(ssv)", interface, property, value), what, done, data, free_data);
}
