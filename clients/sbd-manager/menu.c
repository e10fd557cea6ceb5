/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The primary menu and what it opens (the About window, the shortcuts window),
 * and the actions behind the keyboard shortcuts. The shortcuts window is
 * gtk/help-overlay.ui in the program's resources; it names the actions, and
 * GTK shows the keys set here for them. */

#include "app.h"

static const struct {
        const char *action;
        const char *accels[3];
} shortcuts[] = {
        { "app.quit",                { "<Control>q", NULL } },
        { "window.close",            { "<Control>w", NULL } },
        { "win.new-device",          { "<Control>n", NULL } },
        { "win.show-help-overlay",   { "<Control>question", NULL } },
};

static void on_about(GSimpleAction *action, GVariant *parameter, gpointer user_data) {
        SbdApp *app = user_data;
        static const char *const developers[] = { "The SBD developers", NULL };
        GtkWidget *about = adw_about_window_new();

        gtk_window_set_transient_for(GTK_WINDOW(about), GTK_WINDOW(app->window));
        adw_about_window_set_application_name(ADW_ABOUT_WINDOW(about), _("SBD Manager"));
        adw_about_window_set_application_icon(ADW_ABOUT_WINDOW(about), "drive-harddisk");
        adw_about_window_set_version(ADW_ABOUT_WINDOW(about), PACKAGE_VERSION);
        adw_about_window_set_developer_name(ADW_ABOUT_WINDOW(about), _("The SBD developers"));
        adw_about_window_set_developers(ADW_ABOUT_WINDOW(about), (const char **) developers);
        adw_about_window_set_comments(ADW_ABOUT_WINDOW(about),
                                      _("Create, remove and configure SBD's simple block devices "
                                        "through the sbdd system service."));
        adw_about_window_set_license_type(ADW_ABOUT_WINDOW(about), GTK_LICENSE_GPL_2_0);
        /* TRANSLATORS: put your own name here, one per line */
        adw_about_window_set_translator_credits(ADW_ABOUT_WINDOW(about), _("translator-credits"));
        gtk_window_present(GTK_WINDOW(about));
}

static void on_quit(GSimpleAction *action, GVariant *parameter, gpointer user_data) {
        SbdApp *app = user_data;

        gtk_window_destroy(GTK_WINDOW(app->window));
}

/* Ctrl+N: to the size field of the New device form. */
static void on_new_device(GSimpleAction *action, GVariant *parameter, gpointer user_data) {
        SbdApp *app = user_data;

        gtk_widget_grab_focus(app->add_size);
}

GtkWidget *sbd_menu_button(SbdApp *app) {
        g_autoptr(GMenu) menu = g_menu_new();
        g_autoptr(GMenu) section = g_menu_new();
        GtkWidget *button = gtk_menu_button_new();

        g_menu_append(section, _("_Keyboard Shortcuts"), "win.show-help-overlay");
        g_menu_append(section, _("_About SBD Manager"), "app.about");
        g_menu_append_section(menu, NULL, G_MENU_MODEL(section));
        gtk_menu_button_set_menu_model(GTK_MENU_BUTTON(button), G_MENU_MODEL(menu));
        gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(button), "open-menu-symbolic");
        gtk_menu_button_set_primary(GTK_MENU_BUTTON(button), TRUE); /* F10 opens it */
        gtk_widget_set_tooltip_text(button, _("Main Menu"));
        sbd_accessible_name(button, _("Main Menu"));
        return button;
}

void sbd_menu_add_actions(SbdApp *app) {
        const GActionEntry app_entries[] = {
                { .name = "about", .activate = on_about },
                { .name = "quit", .activate = on_quit },
        };
        const GActionEntry win_entries[] = {
                { .name = "new-device", .activate = on_new_device },
        };
        g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource("/org/sbd/Manager/gtk/help-overlay.ui");

        g_action_map_add_action_entries(G_ACTION_MAP(app->gtk), app_entries, G_N_ELEMENTS(app_entries), app);
        g_action_map_add_action_entries(G_ACTION_MAP(app->window), win_entries, G_N_ELEMENTS(win_entries), app);
        for (gsize i = 0; i < G_N_ELEMENTS(shortcuts); i++)
                gtk_application_set_accels_for_action(GTK_APPLICATION(app->gtk), shortcuts[i].action,
                                                      shortcuts[i].accels);
        gtk_application_window_set_help_overlay(GTK_APPLICATION_WINDOW(app->window),
                                                GTK_SHORTCUTS_WINDOW(gtk_builder_get_object(builder, "help_overlay")));
}
