/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --dump-model and --screenshot: what the window shows, as JSON and as a PNG. */

#include "app.h"
#include "device-row.h"

void sbd_output_json_string(GString *out, const char *s) {
        g_string_append_c(out, '"');
        for (const unsigned char *p = (const unsigned char *) (s ?: ""); *p; p++) {
                if (*p == '"' || *p == '\\')
                        g_string_append_printf(out, "\\%c", *p);
                else if (*p < 0x20 || *p == 0x7f)
                        g_string_append_printf(out, "\\u%04x", *p);
                else
                        g_string_append_c(out, (char) *p);
        }
        g_string_append_c(out, '"');
}

void sbd_output_json_field(GString *out, const char *key, const char *value) {
        sbd_output_json_string(out, key);
        g_string_append_c(out, ':');
        if (value)
                sbd_output_json_string(out, value);
        else
                g_string_append(out, "null");
}

/* Read from the widgets, in the order the list shows them. */
char *sbd_output_model_json(SbdApp *app) {
        GString *out = g_string_new("{");
        GtkListBoxRow *r;

        sbd_output_json_field(out, "module_state", gtk_label_get_text(GTK_LABEL(app->status_label)));
        g_string_append_c(out, ',');
        sbd_output_json_field(out, "module_version", gtk_label_get_text(GTK_LABEL(app->version_label)));
        g_string_append_c(out, ',');
        sbd_output_json_field(out, "daemon_version", gtk_label_get_text(GTK_LABEL(app->daemon_label)));
        g_string_append(out, ",\"devices\":[");
        for (int i = 0; (r = gtk_list_box_get_row_at_index(GTK_LIST_BOX(app->list), i)); i++) {
                DeviceRow *row = g_object_get_data(G_OBJECT(r), "sbd-row");

                if (i > 0)
                        g_string_append_c(out, ',');
                if (row)
                        sbd_device_row_to_json(row, out);
        }
        g_string_append(out, "],");
        sbd_output_json_field(out, "error", sbd_window_error(app));
        g_string_append_c(out, '}');
        return g_string_free(out, FALSE);
}

static void print_model(SbdApp *app) {
        g_autofree char *json = sbd_output_model_json(app);

        g_print("%s\n", json);
}

static gboolean dump_later(gpointer user_data) {
        SbdApp *app = user_data;
        g_autofree char *json = sbd_output_model_json(app);
        char *last = g_object_get_data(G_OBJECT(app->window), "sbd-last-dump");

        app->dump_source = 0;
        if (g_strcmp0(json, last) != 0) {
                g_print("%s\n", json);
                g_object_set_data_full(G_OBJECT(app->window), "sbd-last-dump", g_steal_pointer(&json), g_free);
        }
        return G_SOURCE_REMOVE;
}

/* With --watch, once up to date: print the model whenever what it shows changed. */
void sbd_output_model_changed(SbdApp *app) {
        if (app->closing || !app->dump_model || !app->watch || !app->actions_done || app->dump_source)
                return;
        app->dump_source = g_idle_add(dump_later, app);
}

static gboolean save_png(SbdApp *app, GError **error) {
        GtkWidget *w = app->window;
        int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
        g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new(w);
        GtkSnapshot *snapshot = gtk_snapshot_new();
        g_autoptr(GskRenderNode) node = NULL;
        g_autoptr(GdkTexture) texture = NULL;

        gdk_paintable_snapshot(paintable, snapshot, width, height);
        node = gtk_snapshot_free_to_node(snapshot);
        if (!node) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "the window drew nothing");
                return FALSE;
        }
        texture = gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(w)), node,
                                              &GRAPHENE_RECT_INIT(0, 0, width, height));
        if (!gdk_texture_save_to_png(texture, app->screenshot)) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "could not write %s", app->screenshot);
                return FALSE;
        }
        return TRUE;
}

#define SCREENSHOT_MAX_FRAMES 120

/* Runs on frames: the first ones lay the window out; then it is shot. */
static gboolean on_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer user_data) {
        SbdApp *app = user_data;
        g_autoptr(GError) error = NULL;
        int frames = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(widget), "sbd-frames")) + 1;

        g_object_set_data(G_OBJECT(widget), "sbd-frames", GINT_TO_POINTER(frames));
        if (frames < 3)
                return G_SOURCE_CONTINUE;

        /* A window still animating in (a toast sliding up, a row expanding)
         * can draw nothing on a given frame, most often on a loaded X
         * server: try the following frames, for about two seconds at 60 Hz. */
        if (!save_png(app, &error) && frames < SCREENSHOT_MAX_FRAMES)
                return G_SOURCE_CONTINUE;
        if (error) {
                g_printerr("sbd-manager: Could not save the screenshot: %s\n", error->message);
                app->exit_status = 1;
        }
        gtk_window_destroy(GTK_WINDOW(app->window));
        return G_SOURCE_REMOVE;
}

/* Up to date and the actions done: dump, shoot, exit, or keep watching. */
void sbd_output_when_ready(SbdApp *app) {
        if (app->dump_model) {
                print_model(app);
                if (app->watch) {
                        g_object_set_data_full(G_OBJECT(app->window), "sbd-last-dump",
                                               sbd_output_model_json(app), g_free);
                        return;
                }
        }
        if (app->screenshot) {
                gtk_widget_queue_draw(app->window);
                gtk_widget_add_tick_callback(app->window, on_tick, app, NULL);
                return;
        }
        if (app->dump_model || app->actions)
                gtk_window_destroy(GTK_WINDOW(app->window));
}
