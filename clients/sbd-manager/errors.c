/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <gio/gio.h>
#include <glib/gi18n.h>

#include "errors.h"

static const struct {
        const char *name;
        const char *words;
} explanations[] = {
        { "org.sbd.Sbd1.Error.InvalidValue", N_("the value is not valid") },
        { "org.sbd.Sbd1.Error.Busy", N_("the disk is in use") },
        { "org.sbd.Sbd1.Error.Exists", N_("a device with that number exists already") },
        { "org.sbd.Sbd1.Error.DeviceGone", N_("the device does not exist (any more)") },
        { "org.sbd.Sbd1.Error.PermissionDenied", N_("the kernel denied permission") },
        { "org.sbd.Sbd1.Error.NotAuthorized", N_("you are not authorized to do this") },
        { "org.sbd.Sbd1.Error.ModuleNotLoaded", N_("the sbd kernel module is not loaded") },
        { "org.sbd.Sbd1.Error.KernelError", N_("the kernel reported an error") },
        { "org.freedesktop.DBus.Error.PropertyReadOnly", N_("this property cannot be changed") },
        { "org.freedesktop.DBus.Error.AccessDenied", N_("the system bus denied access") },
        { "org.freedesktop.DBus.Error.ServiceUnknown", N_("the SBD daemon (sbdd) is not running") },
        { "org.freedesktop.DBus.Error.NoReply", N_("the SBD daemon did not answer") },
        { "org.freedesktop.DBus.Error.UnknownObject", N_("the object does not exist") },
        { "org.freedesktop.DBus.Error.InvalidArgs", N_("the request was not valid") },
};

static const char *explain(const char *name) {
        for (gsize i = 0; name && i < G_N_ELEMENTS(explanations); i++)
                if (g_str_equal(explanations[i].name, name))
                        return _(explanations[i].words);
        return NULL;
}

char *sbd_error_describe(const char *what, const GError *error) {
        g_autofree char *name = g_dbus_error_get_remote_error(error);
        g_autoptr(GError) copy = g_error_copy(error);
        const char *words = explain(name);

        g_dbus_error_strip_remote_error(copy);
        if (words)
                /* TRANSLATORS: what failed, why in words, the daemon's own message */
                return g_strdup_printf(_("Could not %s: %s (%s)."), what, words, copy->message);
        return g_strdup_printf(_("Could not %s: %s."), what, copy->message);
}
