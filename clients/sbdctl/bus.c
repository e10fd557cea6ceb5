/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "bus.h"
#include "names.h"

static int open_address(const char *address, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

int sbd_bus_connect(SbdTransport transport, const char *where, bool interactive, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        switch (transport) {
        case TRANSPORT_REMOTE: /* ssh -xT [-p PORT] [USER@]HOST systemd-stdio-bridge */
                r = sd_bus_open_system_remote(&bus, where);
                break;
        case TRANSPORT_MACHINE: /* the container's system bus, through systemd-machined */
                r = sd_bus_open_system_machine(&bus, where);
                break;
        case TRANSPORT_ADDRESS:
                r = open_address(where, &bus);
                break;
        default:
                r = sd_bus_open_system(&bus);
        }
        if (r < 0)
                return r;

        r = sd_bus_set_allow_interactive_authorization(bus, interactive);
        if (r < 0)
                return r;
        /* Longer than sbdd can take to answer (sbd-bus.h); sd-bus's
         * default of 25 s would end the call first. */
        r = sd_bus_set_method_call_timeout(bus, interactive ? SBD_CLIENT_INTERACTIVE_CALL_TIMEOUT_USEC
                                                            : SBD_CLIENT_CALL_TIMEOUT_USEC);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(bus);
        return 0;
}

const char *sbd_bus_describe(SbdTransport transport, const char *where, char *buf, size_t size) {
        switch (transport) {
        case TRANSPORT_REMOTE:
                snprintf(buf, size, "the system bus of host %s", where);
                return buf;
        case TRANSPORT_MACHINE:
                snprintf(buf, size, "the system bus of machine %s", where);
                return buf;
        case TRANSPORT_ADDRESS:
                return where;
        default:
                return "the system bus";
        }
}

int sbd_bus_check_running(sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetNameOwner", &error, NULL, "s", SBD_BUS_NAME);
        if (r < 0)
                return sbd_log_bus_error(-ESRCH, &error, "sbdd is not running, and --no-auto-start does not start it");
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
