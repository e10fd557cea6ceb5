/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* sbd-manager's one context: options, the bus, the window's widgets, the rows. */

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sbd-generated.h"

#include "sbd-bus.h"

typedef struct SbdApp {
        AdwApplication *gtk;

        /* Options */
        char *address;                  /* NULL: the system bus */
        char *screenshot;               /* write a PNG once up to date, then exit */
        gboolean dump_model;            /* print the rows shown, as JSON */
        gboolean watch;                 /* keep running and print the rows on every change */
        char **actions;                 /* --set/--add/--remove, in command line order */

        /* The bus */
        GCancellable *cancellable;
        GDBusConnection *connection;
        GDBusObjectManager *objects;
        SbdManager *manager;            /* /org/sbd/Sbd1 itself is no managed object */
        unsigned loading;               /* initial loads still running */
        gboolean up_to_date;            /* the initial GetManagedObjects and GetAll are in */
        gboolean closing;               /* the window is going: touch no widget, send nothing */

        /* The window */
        GtkWidget *window;              /* an AdwApplicationWindow */
        GtkWidget *toasts;              /* AdwToastOverlay: errors are shown as toasts */
        AdwToast *toast;                /* the error shown, until dismissed or replaced */
        char *error;                    /* its text */
        GtkWidget *status_label;        /* "Module sbd: live" etc. */
        GtkWidget *module_button;       /* Load, or Unload… */
        GtkWidget *module_dialog;       /* the AdwMessageDialog asking before unloading, while open */
        GtkWidget *version_label;
        GtkWidget *daemon_label;
        GtkWidget *list;                /* GtkListBox of device rows (AdwExpanderRow) */
        GtkWidget *add_size;            /* AdwEntryRow */
        GtkWidget *add_id;              /* AdwEntryRow */
        GtkWidget *add_button;
        GHashTable *rows;               /* object path -> DeviceRow */

        /* Operations on the daemon not answered yet, and the test actions */
        unsigned in_flight;
        unsigned next_action;
        gboolean actions_done;
        guint dump_source;
        int exit_status;
} SbdApp;

/* app.c: connecting and following the daemon's objects. */
void sbd_app_connect(SbdApp *app);
/* The window is being destroyed: stop following the daemon, cancel what runs. */
void sbd_app_shutdown(SbdApp *app);
void sbd_app_free(SbdApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SbdApp, sbd_app_free)

/* window.c */
void sbd_window_build(SbdApp *app);
/* An error stays shown (as a toast) until dismissed or replaced by the next one. */
void sbd_window_show_error(SbdApp *app, const char *text);
const char *sbd_window_error(SbdApp *app);
void sbd_window_clear_error(SbdApp *app);
void sbd_window_forget_error(SbdApp *app);

/* module-view.c: the module's state and version, the daemon's version. */
void sbd_module_view_sync(SbdApp *app);
/* The button that loads the module, or unloads it after asking. */
GtkWidget *sbd_module_view_button(SbdApp *app);

/* menu.c: the primary menu, the About window, the shortcuts window and the
 * application's actions with their keyboard shortcuts. */
GtkWidget *sbd_menu_button(SbdApp *app);
void sbd_menu_add_actions(SbdApp *app);

/* Gives a widget the name assistive technologies read out (GTK_ACCESSIBLE_PROPERTY_LABEL). */
void sbd_accessible_name(GtkWidget *widget, const char *name);
/* A button labelled "_Text" (Alt+T), named "Text" for assistive technologies. */
GtkWidget *sbd_mnemonic_button(const char *text);
void sbd_mnemonic_button_set(GtkWidget *button, const char *text);
const char *sbd_mnemonic_button_text(GtkWidget *button);  /* without the underscore */

/* actions.c: --set, --add and --remove, run once up to date, one after the other. */
void sbd_actions_start(SbdApp *app);
void sbd_actions_continue(SbdApp *app);

/* output.c: --dump-model and --screenshot. */
void sbd_output_model_changed(SbdApp *app);
void sbd_output_when_ready(SbdApp *app);
char *sbd_output_model_json(SbdApp *app);
void sbd_output_json_string(GString *out, const char *s);
/* "key":"value" (value NULL: null) */
void sbd_output_json_field(GString *out, const char *key, const char *value);
