/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The window: a header bar with the primary menu; below it, in preferences-style
 * groups, the module's status, the device list and the form that adds a device.
 * Errors are toasts over the content: they follow the theme and stay until the
 * user dismisses them or the next error replaces them. */

#include "app.h"
#include "names.h"
#include "values.h"
#include "writes.h"

void sbd_accessible_name(GtkWidget *widget, const char *name) {
        gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

/* GTK 4.8 names a button made with gtk_button_new_with_mnemonic() by its raw
 * label and its text both ("_Add Device Add Device"): a plain button with a
 * mnemonic label as its child is named by the text alone. */
GtkWidget *sbd_mnemonic_button(const char *text) {
        GtkWidget *button = gtk_button_new();
        GtkWidget *label = gtk_label_new_with_mnemonic(text);

        gtk_label_set_mnemonic_widget(GTK_LABEL(label), button);
        gtk_button_set_child(GTK_BUTTON(button), label);
        return button;
}

void sbd_mnemonic_button_set(GtkWidget *button, const char *text) {
        gtk_label_set_text_with_mnemonic(GTK_LABEL(gtk_button_get_child(GTK_BUTTON(button))), text);
}

const char *sbd_mnemonic_button_text(GtkWidget *button) {
        return gtk_label_get_text(GTK_LABEL(gtk_button_get_child(GTK_BUTTON(button))));
}

static void on_toast_dismissed(AdwToast *toast, gpointer user_data) {
        SbdApp *app = user_data;

        if (app->toast != toast)
                return; /* an older one, replaced */
        g_clear_object(&app->toast);
        g_clear_pointer(&app->error, g_free);
        sbd_output_model_changed(app);
}

void sbd_window_show_error(SbdApp *app, const char *text) {
        AdwToast *toast;
        GtkWidget *label;

        /* A toast already up shows the new message in place. Dismissing it
         * and adding another while it still slides in makes libadwaita 1.2
         * unref a freed widget when the window closes (its animations'
         * "done" handlers run on unmap): seen as a crash with several
         * refusals in a row under MALLOC_PERTURB_. */
        if (app->toast) {
                gtk_label_set_text(GTK_LABEL(adw_toast_get_custom_title(app->toast)), text);
                g_free(app->error);
                app->error = g_strdup(text);
                return;
        }
        toast = adw_toast_new("");
        label = gtk_label_new(text);
        /* the whole message wraps (a plain title would be cut at one line) */
        gtk_label_set_wrap(GTK_LABEL(label), TRUE);
        gtk_label_set_wrap_mode(GTK_LABEL(label), PANGO_WRAP_WORD_CHAR);
        gtk_label_set_max_width_chars(GTK_LABEL(label), 60);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        adw_toast_set_custom_title(toast, label);
        adw_toast_set_timeout(toast, 0); /* until dismissed: an error must not go unread */
        g_signal_connect(toast, "dismissed", G_CALLBACK(on_toast_dismissed), app);
        app->toast = g_object_ref(toast);
        app->error = g_strdup(text);
        adw_toast_overlay_add_toast(ADW_TOAST_OVERLAY(app->toasts), toast); /* takes the first reference */
}

const char *sbd_window_error(SbdApp *app) {
        return app->error;
}

/* The scripted actions (--set, --add, ...) run one after the other within
 * milliseconds: each forgets the last error, and a toast still up is reused
 * by the next one (see sbd_window_show_error) rather than dismissed while it
 * slides in. */
void sbd_window_forget_error(SbdApp *app) {
        g_clear_pointer(&app->error, g_free);
}

void sbd_window_clear_error(SbdApp *app) {
        g_autoptr(AdwToast) toast = g_steal_pointer(&app->toast);

        g_clear_pointer(&app->error, g_free);
        if (toast)
                adw_toast_dismiss(toast);
}

static GtkWidget *status_row(GtkWidget *group, const char *title, GtkWidget **value) {
        GtkWidget *row = adw_action_row_new();

        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        *value = gtk_label_new("…");
        gtk_label_set_selectable(GTK_LABEL(*value), TRUE);
        gtk_widget_add_css_class(*value, "dim-label");
        adw_action_row_add_suffix(ADW_ACTION_ROW(row), *value);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
        return row;
}

static GtkWidget *build_status(SbdApp *app) {
        GtkWidget *group = adw_preferences_group_new();
        GtkWidget *state;

        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), _("Kernel module"));
        state = status_row(group, _("Module sbd"), &app->status_label);
        adw_action_row_add_suffix(ADW_ACTION_ROW(state), sbd_module_view_button(app));
        status_row(group, _("Module version"), &app->version_label);
        status_row(group, _("Daemon version"), &app->daemon_label);
        return group;
}

static int compare_rows(GtkListBoxRow *a, GtkListBoxRow *b, gpointer user_data) {
        const char *na = g_object_get_data(G_OBJECT(a), "sbd-name");
        const char *nb = g_object_get_data(G_OBJECT(b), "sbd-name");

        return sbd_name_compare(na ?: "", nb ?: "");
}

static GtkWidget *build_list(SbdApp *app) {
        GtkWidget *group = adw_preferences_group_new();
        GtkWidget *placeholder = gtk_label_new(_("No devices"));

        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), _("Devices"));
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(group),
                                              _("Expand a device to edit it; Enter or leaving a field applies."));
        app->list = gtk_list_box_new();
        sbd_accessible_name(app->list, _("Devices"));
        gtk_list_box_set_selection_mode(GTK_LIST_BOX(app->list), GTK_SELECTION_NONE);
        gtk_list_box_set_sort_func(GTK_LIST_BOX(app->list), compare_rows, NULL, NULL);
        gtk_widget_add_css_class(placeholder, "dim-label");
        gtk_widget_set_margin_top(placeholder, 12);
        gtk_widget_set_margin_bottom(placeholder, 12);
        gtk_list_box_set_placeholder(GTK_LIST_BOX(app->list), placeholder);
        gtk_widget_add_css_class(app->list, "boxed-list");
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), app->list);
        return group;
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
                text = g_strdup_printf(_("Could not add a device: “%s” is not a device number."), id);
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
                g_autofree char *text = g_strdup_printf(_("Could not add a device: “%s” is not a size "
                                                          "(expected bytes, or a number with K, M or G)."), size);
                sbd_window_show_error(app, text);
                sbd_output_model_changed(app);
                return;
        }
        if (!add_options(app, &options)) {
                sbd_output_model_changed(app);
                return;
        }
        what = g_strdup_printf(_("add a device of %s"), size);
        sbd_call(app, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE, "AddDevice",
                 g_variant_new("(ta{sv})", (guint64) bytes, &options), what, on_add_done, NULL, NULL);
}

static GtkWidget *add_entry_row(GtkWidget *group, const char *title, const char *tooltip) {
        GtkWidget *row = adw_entry_row_new();

        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        gtk_widget_set_tooltip_text(row, tooltip);
        /* its accessible name is its title: AdwEntryRow labels itself with it */
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
        return row;
}

static GtkWidget *build_add_form(SbdApp *app) {
        GtkWidget *group = adw_preferences_group_new();

        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), _("New device"));
        app->add_button = sbd_mnemonic_button(_("_Add Device"));
        gtk_widget_add_css_class(app->add_button, "suggested-action");
        gtk_widget_set_valign(app->add_button, GTK_ALIGN_CENTER);
        adw_preferences_group_set_header_suffix(ADW_PREFERENCES_GROUP(group), app->add_button);
        g_signal_connect(app->add_button, "clicked", G_CALLBACK(on_add_clicked), app);

        app->add_size = add_entry_row(group, _("Size of the new device"),
                                      _("Capacity of the new disk: bytes, or a number with K, M or G"));
        app->add_id = add_entry_row(group, _("Device number (optional)"),
                                    _("The device number N of sbdN; empty for the lowest free one"));
        /* Enter in either field adds, as the button does */
        g_signal_connect_swapped(app->add_size, "entry-activated", G_CALLBACK(gtk_widget_activate), app->add_button);
        g_signal_connect_swapped(app->add_id, "entry-activated", G_CALLBACK(gtk_widget_activate), app->add_button);
        return group;
}

static void on_destroy(GtkWidget *window, gpointer user_data) {
        sbd_app_shutdown(user_data);
}

static GtkWidget *build_header(SbdApp *app) {
        GtkWidget *header = adw_header_bar_new();

        adw_header_bar_pack_end(ADW_HEADER_BAR(header), sbd_menu_button(app));
        return header;
}

void sbd_window_build(SbdApp *app) {
        GtkWidget *content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 24);
        GtkWidget *outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *clamp = adw_clamp_new();
        GtkWidget *scrolled = gtk_scrolled_window_new();

        app->window = adw_application_window_new(GTK_APPLICATION(app->gtk));
        gtk_window_set_title(GTK_WINDOW(app->window), _("SBD Manager"));
        gtk_window_set_default_size(GTK_WINDOW(app->window), 640, 720);
        g_signal_connect(app->window, "destroy", G_CALLBACK(on_destroy), app);

        gtk_widget_set_margin_start(content, 12);
        gtk_widget_set_margin_end(content, 12);
        gtk_widget_set_margin_top(content, 24);
        gtk_widget_set_margin_bottom(content, 24);
        gtk_box_append(GTK_BOX(content), build_status(app));
        gtk_box_append(GTK_BOX(content), build_list(app));
        gtk_box_append(GTK_BOX(content), build_add_form(app));

        adw_clamp_set_child(ADW_CLAMP(clamp), content);
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), clamp);
        gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
        gtk_widget_set_vexpand(scrolled, TRUE);
        app->toasts = adw_toast_overlay_new();
        adw_toast_overlay_set_child(ADW_TOAST_OVERLAY(app->toasts), scrolled);

        gtk_box_append(GTK_BOX(outer), build_header(app));
        gtk_box_append(GTK_BOX(outer), app->toasts);
        adw_application_window_set_content(ADW_APPLICATION_WINDOW(app->window), outer);
        sbd_menu_add_actions(app);
}
