/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Uevents: the monitor is created before the first enumeration so that
 * nothing happening in between is lost. Events come from udevd (the
 * "udev" netlink group) where it runs, or straight from the kernel
 * ("kernel" group) in minimal systems such as the test VM. A receive
 * buffer overrun (ENOBUFS) means events were lost: the whole tree is
 * then re-synchronised with sysfs. From the kernel, a socket filter
 * (uevent-filter.c) keeps the other objects' events out of the buffer. */

#include <libudev.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "daemon.h"
#include "sysfs.h"
#include "uevent-filter.h"
#include "util.h"

/* The attribute a change event of the module names (SBD_CHANGED=label),
 * as an index into the device's values; negative when it names none we know. */
static int changed_attr(struct daemon *d, struct udev_device *dev) {
        const char *file = udev_device_get_property_value(dev, "SBD_CHANGED");

        return file ? attr_def_find_file(&d->tables[OBJECT_DEVICE], file) : -1;
}

/* Anyone who may write an object's "uevent" file can make the kernel
 * announce any action for it (the kernel marks such synthetic events
 * with SYNTH_UUID). A synthetic "remove" is believed only when the
 * directory really is gone; a genuine one at once, as device_del() sends
 * it just before it deletes the directory. */
static bool believe_remove(struct udev_device *dev, struct sbd_object *o) {
        if (!udev_device_get_property_value(dev, "SYNTH_UUID") || object_gone(o))
                return true;
        log_notice("Ignoring a synthetic remove uevent for %s: it is still there.", o->syspath);
        return false;
}

static void handle_device(struct daemon *d, struct udev_device *dev, const char *action,
                          const char *sysname, const char *syspath) {
        struct sbd_object *o = object_find(d, OBJECT_DEVICE, sysname);
        int changed;

        if (streq(action, "add") || streq(action, "remove"))
                lists_recount(d);
        if (streq(action, "remove")) {
                if (o && streq(o->syspath, syspath) && believe_remove(dev, o))
                        tree_remove(d, o);
                return;
        }
        /* The module's own change events say which attribute changed:
         * re-read that one, not all of them (a Set, or a write behind
         * our back, brings one such event after its sysfs_notify). */
        if (streq(action, "change") && o && streq(o->syspath, syspath) &&
            (changed = changed_attr(d, dev)) >= 0 && !object_gone(o)) {
                if (object_refresh_attr(o, (size_t) changed) == -ENOENT && object_gone(o))
                        tree_remove(d, o);
                return;
        }
        /* device_add() sends a device's add uevent before the driver binds
         * to it and adds its disk: exported then, the object would show no
         * Driver and no BlockDevice and change a moment later. Its bind
         * uevent, sent once the disk exists, exports it whole. */
        if (!o && streq(action, "add") && !sysfs_has_entry(syspath, "driver")) {
                log_debug("%s is not bound yet: exported on its bind uevent.", syspath);
                return;
        }
        /* add, change, bind, unbind, online, offline, move: (re)read. */
        (void) tree_add(d, OBJECT_DEVICE, syspath, NULL);
}

static void handle_block(struct daemon *d, const char *syspath) {
        const char *p = strstr(syspath, "/block/");
        _cleanup_free_ char *parent = NULL;
        struct sbd_object *o;

        if (!p)
                return;
        parent = strndup(syspath, (size_t) (p - syspath));
        if (!parent)
                return (void) log_oom();
        o = object_find(d, OBJECT_DEVICE, path_basename(parent));
        /* DISK_RO, RESIZE, and the disk coming and going: the parent's
         * size, read_only and BlockDevice may have changed. */
        if (o && streq(o->syspath, parent) && object_refresh(o) == -ENOENT && object_gone(o))
                tree_remove(d, o); /* the block child went with its parent */
}

static void handle_driver(struct daemon *d, struct udev_device *dev, const char *action, const char *sysname, const char *syspath) {
        struct sbd_object *o = object_find(d, OBJECT_DRIVER, sysname);

        if (!startswith(syspath, SYSFS_DRIVERS_DIR "/"))
                return;
        if (streq(action, "remove")) {
                if (o && believe_remove(dev, o))
                        tree_remove(d, o);
                return;
        }
        (void) tree_add(d, OBJECT_DRIVER, syspath, NULL);
}

/* The whole tree and then the module's object, as they are now. */
static void sync_all(struct daemon *d, bool module_removed) {
        if (tree_sync(d) >= 0)
                module_emit_changes(d, module_removed);
}

static void handle_event(struct daemon *d, struct udev_device *dev) {
        const char *action = udev_device_get_action(dev);
        const char *subsystem = udev_device_get_subsystem(dev);
        const char *sysname = udev_device_get_sysname(dev);
        const char *syspath = udev_device_get_syspath(dev);

        if (!action || !subsystem || !sysname || !syspath)
                return;
        log_debug("uevent %s %s %s", action, subsystem, syspath);

        if (streq(subsystem, "sbd"))
                handle_device(d, dev, action, sysname, syspath);
        else if (streq(subsystem, "block")) {
                if (strstr(syspath, "/sbd/"))
                        handle_block(d, syspath);
        } else if (streq(subsystem, "drivers"))
                handle_driver(d, dev, action, sysname, syspath);
        else if ((streq(subsystem, "module") || streq(subsystem, "bus")) && streq(sysname, SBD_MODULE_NAME))
                /* The module (and with it the bus) came or went: the
                 * children have their own events, but make sure. */
                sync_all(d, streq(subsystem, "module") && streq(action, "remove") &&
                            !(udev_device_get_property_value(dev, "SYNTH_UUID") && module_driver_present()));
}

/* Uevents handled per wake-up: at most 64, and no more once 50 ms have
 * gone (a slow machine, the debug kernel). The socket holds up to
 * 128 MiB of them: drained in one go, 10,000 "change" events kept the
 * loop from the bus for 9 s (1 vCPU, daemon-scale's storm). The fd stays
 * readable, and sd-event dispatches the bus, pending since longer,
 * before coming back: a call waits for one batch at most. */
#define UEVENT_BATCH 64
#define UEVENT_BATCH_USEC (50 * 1000)

static int monitor_handler(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct daemon *d = userdata;
        uint64_t start = monotonic_usec();

        for (unsigned n = 0; n < UEVENT_BATCH && monotonic_usec() - start < UEVENT_BATCH_USEC; n++) {
                struct udev_device *dev;

                errno = 0;
                dev = udev_monitor_receive_device(d->monitor);
                if (!dev) {
                        if (errno == ENOBUFS) {
                                /* Paced and coalesced there: every overrun is counted. */
                                resync_request(d);
                                continue;
                        }
                        break; /* EAGAIN: drained; other errors: a bad message, skipped */
                }
                handle_event(d, dev);
                udev_device_unref(dev);
        }
        return 0;
}

/* Large enough for a burst of thousands of adds and removes. Beyond
 * net.core.rmem_max it takes SO_RCVBUFFORCE, i.e. CAP_NET_ADMIN: root
 * started by hand has it, the shipped unit does not (README). A smaller
 * buffer still works, an overrun costs a full re-synchronisation: say
 * so once, as a warning, with the size the kernel really gave. */
#define UEVENT_BUFFER_SIZE (128 * 1024 * 1024)

static void uevent_buffer_setup(struct udev_monitor *monitor) {
        int r, size = 0;
        socklen_t len = sizeof(size);

        r = udev_monitor_set_receive_buffer_size(monitor, UEVENT_BUFFER_SIZE);
        if (getsockopt(udev_monitor_get_fd(monitor), SOL_SOCKET, SO_RCVBUF, &size, &len) < 0)
                size = 0;
        /* The kernel reports twice what was set (its bookkeeping). */
        if (r < 0 || size < UEVENT_BUFFER_SIZE)
                log_warning("The uevent receive buffer is %d KiB, not the %d MiB wanted%s: a burst of events "
                            "beyond it makes sbdd re-read all of sysfs.", size / 2 / 1024,
                            UEVENT_BUFFER_SIZE / 1024 / 1024, r < 0 ? " (no CAP_NET_ADMIN?)" : "");
        else
                log_debug("The uevent receive buffer is %d MiB.", size / 2 / 1024 / 1024);
}

/* After udev_monitor_enable_receiving(), where libudev installs its own
 * filter, which SO_ATTACH_FILTER replaces: for the kernel group libudev
 * attaches none (older versions one that passes every kernel
 * message: they read only their own format); its subsystem match runs
 * in user space behind this one. Without it (EPERM under a seccomp
 * policy, ENOMEM beyond net.core.optmem_max) sbdd works as before. */
static void uevent_kernel_filter_setup(struct udev_monitor *monitor) {
        int r = uevent_filter_attach(udev_monitor_get_fd(monitor));

        if (r < 0)
                log_warning_errno(r, "Cannot filter kernel uevents in the kernel, every uevent of the host "
                                  "reaches sbdd: %m");
        else
                log_debug("Kernel uevents of objects other than sbd's are dropped by a socket filter.");
}

static bool udevd_running(void) {
        /* What libudev itself checks: udevd's control socket. */
        return access("/run/udev/control", F_OK) >= 0;
}

int uevent_setup(struct daemon *d) {
        static const char *const subsystems[] = { "sbd", "block", "module", "bus", "drivers" };
        enum uevent_source source = d->config.uevent_source;
        const char *group;
        int r;

        if (source == UEVENT_SOURCE_AUTO)
                source = udevd_running() ? UEVENT_SOURCE_UDEV : UEVENT_SOURCE_KERNEL;
        group = source == UEVENT_SOURCE_UDEV ? "udev" : "kernel";

        d->udev = udev_new();
        if (!d->udev)
                return log_error_errno(-errno ?: -ENOMEM, "Cannot create the udev context: %m");
        d->monitor = udev_monitor_new_from_netlink(d->udev, group);
        if (!d->monitor)
                return log_error_errno(-errno ?: -ENOMEM, "Cannot create the %s uevent monitor: %m", group);
        for (size_t i = 0; i < ELEMENTSOF(subsystems); i++) {
                r = udev_monitor_filter_add_match_subsystem_devtype(d->monitor, subsystems[i], NULL);
                if (r < 0)
                        return log_error_errno(r, "Cannot filter uevents: %m");
        }
        uevent_buffer_setup(d->monitor);
        r = udev_monitor_enable_receiving(d->monitor);
        if (r < 0)
                return log_error_errno(r, "Cannot listen to %s uevents: %m", group);
        if (source == UEVENT_SOURCE_KERNEL)
                uevent_kernel_filter_setup(d->monitor);
        r = sd_event_add_io(d->event, &d->monitor_source, udev_monitor_get_fd(d->monitor), EPOLLIN,
                            monitor_handler, d);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the uevent monitor: %m");
        log_info("Listening to %s uevents.", group);
        return 0;
}

void uevent_done(struct daemon *d) {
        d->monitor_source = sd_event_source_disable_unref(d->monitor_source);
        d->monitor = udev_monitor_unref(d->monitor);
        d->udev = udev_unref(d->udev);
}
