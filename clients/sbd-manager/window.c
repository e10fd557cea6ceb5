/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The window: module status, an error bar, the device list, the add form. */

#include "app.h"
#include "names.h"
#include "values.h"
#include "writes.h"

static const char css[] =
        ".sbd-error { background-color: #c01c28; color: white; padding: 6px 12px; }\n"
        ".sbd-error button { color: white; }\n"
        ".sbd-header { font-weight: bold; }\n"
        ".sbd-key { color: alpha(currentColor, 0.6); }\n";

static void load_css(GtkWidget *window) {
        g_autoptr(GtkCssProvider) provider = gtk_css_provider_new();

        gtk_css_provider_load_from_data(provider, css, -1);
        gtk_style_context_add_provider_for_display(gtk_widget_get_display(window), GTK_STYLE_PROVIDER(provider),
                                                   GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

void sbd_window_show_error(SbdApp *app, const char *text) {
        gtk_label_set_text(GTK_LABEL(app->error_label), text);
        gtk_revealer_set_reveal_child(GTK_REVEALER(app->error_revealer), TRUE);
}

const char *sbd_window_error(SbdApp *app) {
        if (!gtk_revealer_get_reveal_child(GTK_REVEALER(app->error_revealer)))
                return NULL;
        return gtk_label_get_text(GTK_LABEL(app->error_label));
}

void sbd_window_clear_error(SbdApp *app) {
        gtk_revealer_set_reveal_child(GTK_REVEALER(app->error_revealer), FALSE);
        gtk_label_set_text(GTK_LABEL(app->error_label), "");
}

static void on_dismiss(GtkButton *button, gpointer user_data) {
        sbd_window_clear_error(user_data);
        sbd_output_model_changed(user_data);
}

static GtkWidget *build_error_bar(SbdApp *app) {
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        GtkWidget *dismiss = gtk_button_new_from_icon_name("window-close-symbolic");

        app->error_label = gtk_label_new("");
        gtk_label_set_wrap(GTK_LABEL(app->error_label), TRUE);
        gtk_label_set_xalign(GTK_LABEL(app->error_label), 0);
        gtk_widget_set_hexpand(app->error_label, TRUE);
        gtk_widget_set_tooltip_text(dismiss, "Dismiss");
        gtk_button_set_has_frame(GTK_BUTTON(dismiss), FALSE);
        g_signal_connect(dismiss, "clicked", G_CALLBACK(on_dismiss), app);
        gtk_box_append(GTK_BOX(box), app->error_label);
        gtk_box_append(GTK_BOX(box), dismiss);
        gtk_widget_add_css_class(box, "sbd-error");

        app->error_revealer = gtk_revealer_new();
        gtk_revealer_set_transition_duration(GTK_REVEALER(app->error_revealer), 0);
        gtk_revealer_set_child(GTK_REVEALER(app->error_revealer), box);
        return app->error_revealer;
}

static GtkWidget *status_field(GtkWidget *grid, int row, const char *key, GtkWidget **value) {
        GtkWidget *k = gtk_label_new(key);

        gtk_widget_add_css_class(k, "sbd-key");
        gtk_label_set_xalign(GTK_LABEL(k), 1);
        *value = gtk_label_new("…");
        gtk_label_set_xalign(GTK_LABEL(*value), 0);
        gtk_grid_attach(GTK_GRID(grid), k, 0, row, 1, 1);
        gtk_grid_attach(GTK_GRID(grid), *value, 1, row, 1, 1);
        return *value;
}

static GtkWidget *build_status(SbdApp *app) {
        GtkWidget *grid = gtk_grid_new();

        gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
        gtk_grid_set_row_spacing(GTK_GRID(grid), 4);
        status_field(grid, 0, "Module sbd", &app->status_label);
        gtk_grid_attach(GTK_GRID(grid), sbd_module_view_button(app), 2, 0, 1, 1);
        status_field(grid, 1, "Module version", &app->version_label);
        status_field(grid, 2, "Daemon", &app->daemon_label);
        return grid;
}

static GtkWidget *build_list_header(SbdApp *app) {
        static const char *const titles[N_COLUMNS] = { "Device", "Label", "Size", "Read-only", "Online", "" };
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);

        gtk_widget_set_margin_start(box, 6);
        gtk_widget_set_margin_end(box, 6);
        for (int c = 0; c < N_COLUMNS; c++) {
                GtkWidget *l = gtk_label_new(titles[c]);

                gtk_label_set_xalign(GTK_LABEL(l), 0);
                gtk_widget_add_css_class(l, "sbd-header");
                gtk_widget_set_hexpand(l, c == COLUMN_LABEL);
                gtk_size_group_add_widget(app->columns[c], l);
                gtk_box_append(GTK_BOX(box), l);
        }
        return box;
}

static int compare_rows(GtkListBoxRow *a, GtkListBoxRow *b, gpointer user_data) {
        const char *na = g_object_get_data(G_OBJECT(a), "sbd-name");
        const char *nb = g_object_get_data(G_OBJECT(b), "sbd-name");

        return sbd_name_compare(na ?: "", nb ?: "");
}

static GtkWidget *build_list(SbdApp *app) {
        GtkWidget *scrolled = gtk_scrolled_window_new();
        GtkWidget *placeholder = gtk_label_new("No devices");

        app->list = gtk_list_box_new();
        gtk_list_box_set_selection_mode(GTK_LIST_BOX(app->list), GTK_SELECTION_NONE);
        gtk_list_box_set_sort_func(GTK_LIST_BOX(app->list), compare_rows, NULL, NULL);
        gtk_widget_set_margin_top(placeholder, 12);
        gtk_widget_set_margin_bottom(placeholder, 12);
        gtk_list_box_set_placeholder(GTK_LIST_BOX(app->list), placeholder);
        gtk_widget_add_css_class(app->list, "boxed-list");
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), app->list);
        gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
        gtk_scrolled_window_set_propagate_natural_height(GTK_SCROLLED_WINDOW(scrolled), TRUE);
        gtk_widget_set_vexpand(scrolled, TRUE);
        return scrolled;
}

static void on_add_done(SbdApp *app, GVariant *result, const GError *error, gpointer data) {
        if (error)
                return; /* keep what the user typed, so that it can be corrected */
        gtk_editable_set_text(GTK_EDITABLE(app->add_size), "");
        gtk_editable_set_text(GTK_EDITABLE(app->add_id), "");
}

static gboolean add_options(SbdApp *app, GVariantBuilder *options) {
        const char *id = gtk_editable_get_text(GTK_EDITABLE(app->add_id));
        g_autofree char *text = NULL;
        SbdValue v;

        if (!*id)
                return TRUE;
        if (sbd_parse_value("u", id, &v) < 0) {
                text = g_strdup_printf("Could not add a device: “%s” is not a device number.", id);
                sbd_window_show_error(app, text);
                return FALSE;
        }
        g_variant_builder_add(options, "{sv}", "id", g_variant_new_uint32((guint32) v.u));
        return TRUE;
}

static void on_add_clicked(GtkButton *button, gpointer user_data) {
        SbdApp *app = user_data;
        const char *size = gtk_editable_get_text(GTK_EDITABLE(app->add_size));
        g_auto(GVariantBuilder) options = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a{sv}"));
        g_autofree char *what = NULL;
        uint64_t bytes;

        if (sbd_parse_size(size, &bytes) < 0) {
                g_autofree char *text = g_strdup_printf("Could not add a device: “%s” is not a size "
                                                        "(expected bytes, or a number with K, M or G).", size);
                sbd_window_show_error(app, text);
                sbd_output_model_changed(app);
                return;
        }
        if (!add_options(app, &options)) {
                sbd_output_model_changed(app);
                return;
        }
        what = g_strdup_printf("add a device of %s", size);
        sbd_call(app, SBD_ROOT_PATH, "org.sbd.Sbd1.Manager", "AddDevice",
                 g_variant_new("(ta{sv})", (guint64) bytes, &options), what, on_add_done, NULL, NULL);
}

static GtkWidget *build_add_form(SbdApp *app) {
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);

        app->add_size = gtk_entry_new();
        gtk_entry_set_placeholder_text(GTK_ENTRY(app->add_size), "Size, e.g. 64M");
        gtk_widget_set_tooltip_text(app->add_size, "Capacity of the new disk: bytes, or a number with K, M or G");
        app->add_id = gtk_entry_new();
        gtk_entry_set_placeholder_text(GTK_ENTRY(app->add_id), "Number (optional)");
        gtk_widget_set_tooltip_text(app->add_id, "The device number N of sbdN; empty for the lowest free one");
        app->add_button = gtk_button_new_with_mnemonic("_Add device");
        gtk_widget_add_css_class(app->add_button, "suggested-action");
        g_signal_connect(app->add_button, "clicked", G_CALLBACK(on_add_clicked), app);
        g_signal_connect_swapped(app->add_size, "activate", G_CALLBACK(gtk_widget_activate), app->add_button);

        gtk_box_append(GTK_BOX(box), app->add_size);
        gtk_box_append(GTK_BOX(box), app->add_id);
        gtk_box_append(GTK_BOX(box), app->add_button);
        return box;
}

static void on_destroy(GtkWidget *window, gpointer user_data) {
        sbd_app_shutdown(user_data);
}

void sbd_window_build(SbdApp *app) {
        GtkWidget *content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        GtkWidget *outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);

        for (int c = 0; c < N_COLUMNS; c++)
                app->columns[c] = gtk_size_group_new(GTK_SIZE_GROUP_HORIZONTAL);

        app->window = gtk_application_window_new(app->gtk);
        gtk_window_set_title(GTK_WINDOW(app->window), "SBD Manager");
        gtk_window_set_default_size(GTK_WINDOW(app->window), 720, 420);
        g_signal_connect(app->window, "destroy", G_CALLBACK(on_destroy), app);
        load_css(app->window);

        gtk_widget_set_margin_start(content, 18);
        gtk_widget_set_margin_end(content, 18);
        gtk_widget_set_margin_top(content, 18);
        gtk_widget_set_margin_bottom(content, 18);
        gtk_box_append(GTK_BOX(content), build_status(app));
        gtk_box_append(GTK_BOX(content), build_list_header(app));
        gtk_box_append(GTK_BOX(content), build_list(app));
        gtk_box_append(GTK_BOX(content), build_add_form(app));

        gtk_box_append(GTK_BOX(outer), build_error_bar(app));
        gtk_box_append(GTK_BOX(outer), content);
        gtk_window_set_child(GTK_WINDOW(app->window), outer);
}
