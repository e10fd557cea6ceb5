/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbd-manager: the desktop client of sbdd. */

#include <glib-unix.h>
#include <locale.h>

#include "app.h"

static gboolean add_action(const char *kind, const char *value, gpointer data, GError **error) {
        GStrvBuilder *b = data;
        g_autofree char *action = g_strdup_printf("%s %s", kind, value);

        g_strv_builder_add(b, action);
        return TRUE;
}

static gboolean on_set(const char *name, const char *value, gpointer data, GError **error) {
        return add_action("set", value, data, error);
}

static gboolean on_add(const char *name, const char *value, gpointer data, GError **error) {
        return add_action("add", value, data, error);
}

static gboolean on_remove(const char *name, const char *value, gpointer data, GError **error) {
        return add_action("remove", value, data, error);
}

static gboolean on_expand(const char *name, const char *value, gpointer data, GError **error) {
        return add_action("expand", value, data, error);
}

static gboolean on_module(const char *name, const char *value, gpointer data, GError **error) {
        return add_action("module", value, data, error);
}

static gboolean parse_options(SbdApp *app, int *argc, char ***argv, GError **error) {
        gboolean version = FALSE;
        g_autoptr(GStrvBuilder) actions = g_strv_builder_new();
        const GOptionEntry entries[] = {
                { "address", 0, 0, G_OPTION_ARG_STRING, &app->address, N_("Use the bus at ADDRESS instead of the system bus"), "ADDRESS" },
                { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, &app->screenshot, N_("Save the window as a PNG once up to date, then exit"), "FILE.png" },
                { "dump-model", 0, 0, G_OPTION_ARG_NONE, &app->dump_model, N_("Print what the window shows as JSON once up to date, then exit"), NULL },
                { "watch", 0, 0, G_OPTION_ARG_NONE, &app->watch, N_("With --dump-model: keep running, print again on every change"), NULL },
                { "set", 0, 0, G_OPTION_ARG_CALLBACK, on_set, N_("Test action: edit a property in the window (e.g. sbd0:Label=data)"), "DEV:PROP=VALUE" },
                { "add", 0, 0, G_OPTION_ARG_CALLBACK, on_add, N_("Test action: add a device with the window's form"), "SIZE[:ID]" },
                { "remove", 0, 0, G_OPTION_ARG_CALLBACK, on_remove, N_("Test action: click a device's remove button"), "DEV" },
                { "expand", 0, 0, G_OPTION_ARG_CALLBACK, on_expand, N_("Test action: expand a device's row"), "DEV" },
                { "module", 0, 0, G_OPTION_ARG_CALLBACK, on_module, N_("Test action: click Load, or Unload and answer Unload"), "load|unload" },
                { "version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Show the version"), NULL },
                {}
        };
        g_autoptr(GOptionContext) context = g_option_context_new(_("- manage SBD's simple block devices"));
        GOptionGroup *group = g_option_group_new("sbd-manager", "sbd-manager", "sbd-manager", actions, NULL);

        g_option_group_set_translation_domain(group, GETTEXT_PACKAGE);

        g_option_group_add_entries(group, entries);
        g_option_context_set_main_group(context, group);
        if (!g_option_context_parse(context, argc, argv, error))
                return FALSE;
        if (version) {
                g_print("sbd-manager %s\n", PACKAGE_VERSION);
                exit(EXIT_SUCCESS);
        }
        if (*argc > 1) {
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "unexpected argument %s", (*argv)[1]);
                return FALSE;
        }
        app->actions = g_strv_builder_end(actions);
        if (!app->actions[0])
                g_clear_pointer(&app->actions, g_strfreev);
        return TRUE;
}

static void on_activate(AdwApplication *gtk, gpointer user_data) {
        SbdApp *app = user_data;

        if (app->window) {
                gtk_window_present(GTK_WINDOW(app->window));
                return;
        }
        sbd_window_build(app);
        gtk_window_present(GTK_WINDOW(app->window));
        sbd_app_connect(app);
}

static gboolean on_signal(gpointer user_data) {
        g_application_quit(user_data);
        return G_SOURCE_CONTINUE;
}

int main(int argc, char *argv[]) {
        g_autoptr(SbdApp) app = g_new0(SbdApp, 1);
        g_autoptr(GError) error = NULL;
        gboolean testing;
        char *args[] = { argv[0], NULL };
        const char *localedir = g_getenv("SBD_MANAGER_LOCALEDIR");
        int r;

        setlocale(LC_ALL, "");
        /* The integration tests run the binary uninstalled, where LOCALEDIR
         * holds no translation: they name the build tree's instead, laid out
         * as LOCALEDIR is (LANG/LC_MESSAGES/sbd-manager.mo). */
        bindtextdomain(GETTEXT_PACKAGE, localedir && *localedir ? localedir : LOCALEDIR);
        bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
        textdomain(GETTEXT_PACKAGE);
        if (!parse_options(app, &argc, &argv, &error)) {
                g_printerr("sbd-manager: %s\n", error->message);
                return EXIT_FAILURE;
        }

        /* Test runs neither need nor want to meet a running instance. */
        testing = app->screenshot || app->dump_model || app->actions;
        app->gtk = adw_application_new("org.sbd.Manager", testing ? G_APPLICATION_NON_UNIQUE : G_APPLICATION_DEFAULT_FLAGS);
        g_signal_connect(app->gtk, "activate", G_CALLBACK(on_activate), app);
        g_unix_signal_add(SIGINT, on_signal, app->gtk);
        g_unix_signal_add(SIGTERM, on_signal, app->gtk);

        r = g_application_run(G_APPLICATION(app->gtk), 1, args);
        return r != 0 ? r : app->exit_status;
}
