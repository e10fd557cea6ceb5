/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One device: an expander row titled with its name, its label and size in the
 * subtitle; expanded, entry rows for the label and size and switch rows for
 * read-only and online, edited in place; the trash button in the header. */

#include "device-row.h"
#include "names.h"
#include "values.h"
#include "writes.h"

struct DeviceRow {
        SbdApp *app;
        char *path;
        SbdDevice *device;
        GtkWidget *row;                 /* the AdwExpanderRow in the list */
        GtkWidget *label;               /* AdwEntryRow */
        GtkWidget *size;                /* AdwEntryRow */
        GtkWidget *read_only;           /* GtkSwitch, in an AdwActionRow */
        GtkWidget *online;
        GtkWidget *remove;              /* a menu button: its popover asks first */
        GtkWidget *confirm;             /* "Remove" in that popover */
        GtkWidget *question;
        char *label_shown;              /* the daemon's value last put into the entry */
        char *size_shown;
        gulong read_only_handler;
        gulong online_handler;
};

/* Which field a finished write must show the daemon's value in again. */
typedef enum Field { FIELD_LABEL, FIELD_SIZE, FIELD_READ_ONLY, FIELD_ONLINE } Field;

typedef struct Write {
        char *path;
        Field field;
} Write;

const char *sbd_device_row_name(DeviceRow *row) {
        return sbd_device_get_sys_name(row->device) ?: "";
}

static void write_free(gpointer p) {
        Write *w = p;

        g_free(w->path);
        g_free(w);
}

static void sync_entry(GtkWidget *entry, char **shown, const char *value, gboolean force) {
        /* Text the user typed and has not committed stays. */
        if (!force && *shown && !g_str_equal(gtk_editable_get_text(GTK_EDITABLE(entry)), *shown))
                return;
        g_free(*shown);
        *shown = g_strdup(value);
        gtk_editable_set_text(GTK_EDITABLE(entry), value);
}

static void sync_switch(GtkWidget *sw, gulong handler, gboolean value) {
        g_signal_handler_block(sw, handler);
        gtk_switch_set_active(GTK_SWITCH(sw), value);
        g_signal_handler_unblock(sw, handler);
}

static void sync_field(DeviceRow *row, Field field, gboolean force) {
        char buf[SBD_FORMAT_BYTES_MAX];
        g_autofree char *bytes = NULL;

        switch (field) {
        case FIELD_LABEL:
                sync_entry(row->label, &row->label_shown, sbd_device_get_label(row->device) ?: "", force);
                break;
        case FIELD_SIZE:
                sbd_format_bytes_exact(buf, sizeof(buf), sbd_device_get_size(row->device));
                sync_entry(row->size, &row->size_shown, buf, force);
                bytes = g_strdup_printf("%" G_GUINT64_FORMAT " bytes", sbd_device_get_size(row->device));
                gtk_widget_set_tooltip_text(row->size, bytes);
                break;
        case FIELD_READ_ONLY:
                sync_switch(row->read_only, row->read_only_handler, sbd_device_get_read_only(row->device));
                break;
        case FIELD_ONLINE:
                sync_switch(row->online, row->online_handler, sbd_device_get_online(row->device));
                break;
        }
}

/* "data · 16.0M · read-only · offline": the state at a glance, folded. */
static void sync_subtitle(DeviceRow *row) {
        char size[SBD_FORMAT_BYTES_MAX];
        g_autoptr(GString) s = g_string_new(sbd_device_get_label(row->device) ?: "");

        sbd_format_bytes(size, sizeof(size), sbd_device_get_size(row->device));
        g_string_append_printf(s, " · %s", size);
        if (sbd_device_get_read_only(row->device))
                g_string_append_printf(s, " · %s", _("read-only"));
        if (!sbd_device_get_online(row->device))
                g_string_append_printf(s, " · %s", _("offline"));
        adw_expander_row_set_subtitle(ADW_EXPANDER_ROW(row->row), s->str);
}

void sbd_device_row_sync(DeviceRow *row) {
        const char *name = sbd_device_row_name(row);

        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row->row), name);
        g_object_set_data(G_OBJECT(row->row), "sbd-row", row);
        g_object_set_data_full(G_OBJECT(row->row), "sbd-name", g_strdup(name), g_free);
        for (Field f = FIELD_LABEL; f <= FIELD_ONLINE; f++)
                sync_field(row, f, FALSE);
        sync_subtitle(row);
        gtk_list_box_row_changed(GTK_LIST_BOX_ROW(row->row));
}

/* After a write, successful or refused, the field shows what the daemon has. */
static void on_write_done(SbdApp *app, GVariant *result, const GError *error, gpointer data) {
        Write *w = data;
        DeviceRow *row = app->closing ? NULL : g_hash_table_lookup(app->rows, w->path);

        if (row)
                sync_field(row, w->field, TRUE);
}

static void write_property(DeviceRow *row, Field field, const char *property, GVariant *value, const char *shown) {
        Write *w = g_new0(Write, 1);
        /* TRANSLATORS: completes "Could not …": a property name, a device name, a value */
        g_autofree char *what = g_strdup_printf(_("set %s of %s to “%s”"), property, sbd_device_row_name(row), shown);

        w->path = g_strdup(row->path);
        w->field = field;
        sbd_set_property(row->app, row->path, SBD_DEVICE_INTERFACE, property, value, what, on_write_done, w, write_free);
}

static void commit_label(DeviceRow *row) {
        const char *text = gtk_editable_get_text(GTK_EDITABLE(row->label));

        if (row->app->closing) /* closing the window drops an edit not applied */
                return;
        if (g_strcmp0(text, sbd_device_get_label(row->device)) == 0)
                return;
        write_property(row, FIELD_LABEL, "Label", g_variant_new_string(text), text);
}

static void commit_size(DeviceRow *row) {
        const char *text = gtk_editable_get_text(GTK_EDITABLE(row->size));
        g_autofree char *message = NULL;
        uint64_t bytes;

        if (row->app->closing || g_strcmp0(text, row->size_shown) == 0)
                return;
        if (sbd_parse_size(text, &bytes) < 0) {
                message = g_strdup_printf(_("Could not set Size of %s: “%s” is not a size "
                                            "(expected bytes, or a number with K, M or G)."),
                                          sbd_device_row_name(row), text);
                sbd_window_show_error(row->app, message);
                sync_field(row, FIELD_SIZE, TRUE);
                sbd_output_model_changed(row->app);
                return;
        }
        write_property(row, FIELD_SIZE, "Size", g_variant_new_uint64(bytes), text);
}

static void on_label_activate(AdwEntryRow *entry, gpointer user_data) {
        commit_label(user_data);
}

static void on_size_activate(AdwEntryRow *entry, gpointer user_data) {
        commit_size(user_data);
}

static void on_focus_leave(GtkEventControllerFocus *controller, gpointer user_data) {
        DeviceRow *row = user_data;
        GtkWidget *w = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(controller));

        if (w == row->label)
                commit_label(row);
        else
                commit_size(row);
}

static void on_switch(GtkSwitch *sw, GParamSpec *pspec, gpointer user_data) {
        DeviceRow *row = user_data;
        gboolean on = gtk_switch_get_active(sw);
        gboolean ro = GTK_WIDGET(sw) == row->read_only;
        gboolean now = ro ? sbd_device_get_read_only(row->device) : sbd_device_get_online(row->device);

        if (on == now)
                return;
        write_property(row, ro ? FIELD_READ_ONLY : FIELD_ONLINE, ro ? "ReadOnly" : "Online",
                       g_variant_new_boolean(on), on ? "yes" : "no");
}

static void on_remove(GtkButton *button, gpointer user_data) {
        DeviceRow *row = user_data;
        g_autofree char *what = g_strdup_printf(_("remove %s"), sbd_device_row_name(row));

        gtk_menu_button_popdown(GTK_MENU_BUTTON(row->remove));

        sbd_call(row->app, SBD_ROOT_PATH, SBD_MANAGER_INTERFACE, "RemoveDevice",
                 g_variant_new("(oa{sv})", row->path, NULL), what, NULL, NULL, NULL);
}

static GtkWidget *entry_row(DeviceRow *row, const char *title, GCallback activate) {
        GtkWidget *entry = adw_entry_row_new();
        GtkEventController *focus = gtk_event_controller_focus_new();

        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(entry), title);
        g_signal_connect(entry, "entry-activated", activate, row);
        g_signal_connect(focus, "leave", G_CALLBACK(on_focus_leave), row);
        gtk_widget_add_controller(entry, focus);
        adw_expander_row_add_row(ADW_EXPANDER_ROW(row->row), entry);
        return entry;
}

static GtkWidget *switch_row(DeviceRow *row, const char *title, const char *subtitle) {
        GtkWidget *action_row = adw_action_row_new();
        GtkWidget *sw = gtk_switch_new();

        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(action_row), title);
        adw_action_row_set_subtitle(ADW_ACTION_ROW(action_row), subtitle);
        gtk_widget_set_valign(sw, GTK_ALIGN_CENTER);
        adw_action_row_add_suffix(ADW_ACTION_ROW(action_row), sw);
        adw_action_row_set_activatable_widget(ADW_ACTION_ROW(action_row), sw);
        adw_expander_row_add_row(ADW_EXPANDER_ROW(row->row), action_row);
        return sw;
}

/* Removing loses the disk's data: the trash button asks before. */
static GtkWidget *build_remove_button(DeviceRow *row) {
        GtkWidget *button = gtk_menu_button_new();
        GtkWidget *popover = gtk_popover_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);

        row->question = gtk_label_new("");
        row->confirm = sbd_mnemonic_button(_("_Remove"));
        gtk_widget_add_css_class(row->confirm, "destructive-action");
        gtk_box_append(GTK_BOX(box), row->question);
        gtk_box_append(GTK_BOX(box), row->confirm);
        gtk_popover_set_child(GTK_POPOVER(popover), box);
        gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(button), "user-trash-symbolic");
        gtk_menu_button_set_popover(GTK_MENU_BUTTON(button), popover);
        gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
        gtk_widget_add_css_class(button, "flat");
        return button;
}

static void build_widgets(DeviceRow *row) {
        row->row = g_object_ref_sink(adw_expander_row_new()); /* ours until freed, also after the window */
        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row->row), FALSE); /* labels are the user's text */
        row->label = entry_row(row, _("Label"), G_CALLBACK(on_label_activate));
        row->size = entry_row(row, _("Size"), G_CALLBACK(on_size_activate));
        row->read_only = switch_row(row, _("Read-only"), _("Writes to the disk fail"));
        row->online = switch_row(row, _("Online"), _("An offline disk fails all I/O"));
        row->remove = build_remove_button(row);
        adw_expander_row_add_action(ADW_EXPANDER_ROW(row->row), row->remove);

        row->read_only_handler = g_signal_connect(row->read_only, "notify::active", G_CALLBACK(on_switch), row);
        row->online_handler = g_signal_connect(row->online, "notify::active", G_CALLBACK(on_switch), row);
        g_signal_connect(row->confirm, "clicked", G_CALLBACK(on_remove), row);
}

/* Accessible names: a control with a visible text is named by it (the entry
 * rows and the switches by their rows' titles, the popover's Remove by its
 * label); GTK 4.8 would say an explicit name and that text both. The
 * expander row (the device, whose rows say which field) and the icon-only
 * trash button get one. */
static void set_names(DeviceRow *row) {
        const char *name = sbd_device_row_name(row);
        g_autofree char *remove = g_strdup_printf(_("Remove %s"), name);
        g_autofree char *question = g_strdup_printf(_("Remove %s and its data?"), name);

        gtk_widget_set_tooltip_text(row->label, _("Label: 1 to 31 printable characters; Enter applies"));
        gtk_widget_set_tooltip_text(row->remove, remove);
        gtk_label_set_text(GTK_LABEL(row->question), question);
        sbd_accessible_name(row->remove, remove);
        sbd_accessible_name(row->row, name);
}

DeviceRow *sbd_device_row_new(SbdApp *app, GDBusObject *object) {
        DeviceRow *row = g_new0(DeviceRow, 1);

        row->app = app;
        row->path = g_strdup(g_dbus_object_get_object_path(object));
        row->device = sbd_object_get_device(SBD_OBJECT(object));
        build_widgets(row);
        sbd_device_row_sync(row);
        set_names(row);
        gtk_list_box_append(GTK_LIST_BOX(app->list), row->row);
        return row;
}

void sbd_device_row_free(DeviceRow *row) {
        if (!row)
                return;
        if (gtk_widget_get_parent(row->row))
                gtk_list_box_remove(GTK_LIST_BOX(row->app->list), row->row);
        g_clear_object(&row->row);
        g_clear_object(&row->device);
        g_free(row->path);
        g_free(row->label_shown);
        g_free(row->size_shown);
        g_free(row);
}

DeviceRow *sbd_device_row_find(SbdApp *app, const char *name) {
        GHashTableIter i;
        gpointer value;

        g_hash_table_iter_init(&i, app->rows);
        while (g_hash_table_iter_next(&i, NULL, &value))
                if (g_str_equal(sbd_device_row_name(value), name))
                        return value;
        return NULL;
}

static gboolean set_switch(GtkWidget *sw, const char *value, GError **error) {
        int b = sbd_parse_bool(value);

        if (b < 0) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "“%s” is not a boolean", value);
                return FALSE;
        }
        gtk_switch_set_active(GTK_SWITCH(sw), b); /* as a click does: notify::active writes */
        return TRUE;
}

gboolean sbd_device_row_edit(DeviceRow *row, const char *property, const char *value, GError **error) {
        g_autofree char *name = NULL;
        GtkWidget *entry = NULL;

        if (sbd_property_name(property, &name) < 0)
                name = g_strdup(property);
        if (g_str_equal(name, "ReadOnly"))
                return set_switch(row->read_only, value, error);
        if (g_str_equal(name, "Online"))
                return set_switch(row->online, value, error);
        if (g_str_equal(name, "Label"))
                entry = row->label;
        else if (g_str_equal(name, "Size"))
                entry = row->size;
        if (!entry) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "the window has no field for %s", property);
                return FALSE;
        }
        /* Type the text and press Enter (the row's "entry-activated", as Enter emits it). */
        gtk_editable_set_text(GTK_EDITABLE(entry), value);
        g_signal_emit_by_name(entry, "entry-activated");
        return TRUE;
}

void sbd_device_row_click_remove(DeviceRow *row) {
        /* Click the trash button, then the popover's Remove. */
        gtk_menu_button_popup(GTK_MENU_BUTTON(row->remove));
        g_signal_emit_by_name(row->confirm, "clicked"); /* what a click emits */
}

void sbd_device_row_expand(DeviceRow *row) {
        adw_expander_row_set_expanded(ADW_EXPANDER_ROW(row->row), TRUE);
}

void sbd_device_row_to_json(DeviceRow *row, GString *out) {
        g_string_append_c(out, '{');
        sbd_output_json_field(out, "name", adw_preferences_row_get_title(ADW_PREFERENCES_ROW(row->row)));
        g_string_append_c(out, ',');
        sbd_output_json_field(out, "label", gtk_editable_get_text(GTK_EDITABLE(row->label)));
        g_string_append_c(out, ',');
        sbd_output_json_field(out, "size", gtk_editable_get_text(GTK_EDITABLE(row->size)));
        g_string_append_printf(out, ",\"read_only\":%s,\"online\":%s}",
                               gtk_switch_get_active(GTK_SWITCH(row->read_only)) ? "true" : "false",
                               gtk_switch_get_active(GTK_SWITCH(row->online)) ? "true" : "false");
}
