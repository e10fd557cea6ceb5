/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>

#include "bus.h"
#include "names.h"

int sbd_bus_connect(const char *address, bool interactive, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        if (!address)
                r = sd_bus_open_system(&bus);
        else {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, 1);
                if (r >= 0)
                        r = sd_bus_start(bus);
        }
        if (r < 0)
                return r;

        r = sd_bus_set_allow_interactive_authorization(bus, interactive);
        if (r < 0)
                return r;
        /* sbdd waits up to 2 minutes for a password, then cancels: wait
         * longer than that (plus the work itself), so that no request is
         * reported failed here and then carried out. */
        if (interactive) {
                r = sd_bus_set_method_call_timeout(bus, 5ULL * 60 * 1000 * 1000);
                if (r < 0)
                        return r;
        }

        *ret = TAKE_PTR(bus);
        return 0;
}

_printf_(1, 0) static void vlog_prefix(const char *fmt, va_list ap) {
        fputs("sbdctl: ", stderr);
        vfprintf(stderr, fmt, ap);
}

int sbd_log_errno(int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vlog_prefix(fmt, ap);
        va_end(ap);
        fprintf(stderr, ": %s\n", strerror(r < 0 ? -r : r));
        return r;
}

int sbd_log_bus_error(int r, const sd_bus_error *error, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vlog_prefix(fmt, ap);
        va_end(ap);
        if (error && sd_bus_error_is_set(error))
                fprintf(stderr, ": %s (%s)\n", error->message ?: error->name, error->name);
        else
                fprintf(stderr, ": %s\n", strerror(r < 0 ? -r : r));
        return r;
}

int sbd_introspect(sd_bus *bus, const char *path, SbdIntrospection *ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *xml;
        int r;

        r = sd_bus_call_method(bus, SBD_BUS_NAME, path, "org.freedesktop.DBus.Introspectable",
                               "Introspect", error, &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "s", &xml);
        if (r < 0)
                return r;
        return sbd_introspection_parse(xml, ret);
}
