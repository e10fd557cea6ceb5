/* SPDX-License-Identifier: GPL-2.0-or-later */

/* sbdd: owns the sbd module and mirrors it on the system bus. */

#include <getopt.h>
#include <libkmod.h>
#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>
#include <systemd/sd-daemon.h>

#include "daemon.h"
#include "errors.h"
#include "util.h"

static void help(void) {
        printf("Usage: sbdd [OPTIONS...]\n\n"
               "Owns the sbd kernel module and mirrors its driver and devices on the\n"
               "system bus as org.sbd.Sbd1.\n\n"
               "  -h --help                 Show this help\n"
               "     --version              Show the version\n"
               "     --config=FILE          Read settings from FILE (default " SBDD_CONFIG_FILE ")\n"
               "     --module-path=FILE.ko  Load the module from this file instead of by name\n"
               "  -p --param=KEY=VALUE      Module parameter, e.g. --param ndevices=2 (repeatable)\n"
               "     --no-load              Do not load the module (tests, or loaded elsewhere)\n"
               "     --unload-on-exit       Unload the module on exit (loses the disks' data)\n"
               "     --uevent-source=auto|udev|kernel\n"
               "                            Where uevents come from (auto: udev if udevd runs)\n"
               "     --log-level=LEVEL      err, warning, notice, info (default) or debug\n");
}

enum {
        ARG_VERSION = 0x100,
        ARG_CONFIG,
        ARG_MODULE_PATH,
        ARG_NO_LOAD,
        ARG_UNLOAD_ON_EXIT,
        ARG_UEVENT_SOURCE,
        ARG_LOG_LEVEL,
};

static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "config", required_argument, NULL, ARG_CONFIG },
        { "module-path", required_argument, NULL, ARG_MODULE_PATH },
        { "param", required_argument, NULL, 'p' },
        { "no-load", no_argument, NULL, ARG_NO_LOAD },
        { "unload-on-exit", no_argument, NULL, ARG_UNLOAD_ON_EXIT },
        { "uevent-source", required_argument, NULL, ARG_UEVENT_SOURCE },
        { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
        {}
};

/* Returns 1 to run, 0 to exit successfully (--help), < 0 on error. */
static int parse_argv(int argc, char *argv[], struct config *c) {
        const char *config_file = SBDD_CONFIG_FILE;
        bool config_given = false;
        int opt, r;

        /* First pass: only --config, --help, --version, so that the file
         * is read before the other options override it. */
        opterr = 0;
        while ((opt = getopt_long(argc, argv, "hp:", options, NULL)) >= 0) {
                if (opt == 'h') {
                        help();
                        return 0;
                }
                if (opt == ARG_VERSION) {
                        printf("sbdd %s\n", PACKAGE_VERSION);
                        return 0;
                }
                if (opt == ARG_CONFIG) {
                        config_file = optarg;
                        config_given = true;
                }
        }
        r = config_parse_file(c, config_file);
        if (r == -ENOENT && !config_given)
                r = 0;
        if (r < 0)
                return log_error_errno(r, "Cannot read %s: %m", config_file);

        opterr = 1;
        optind = 0;
        while ((opt = getopt_long(argc, argv, "hp:", options, NULL)) >= 0) {
                switch (opt) {
                case 'h':
                case ARG_VERSION:
                case ARG_CONFIG:
                        break;
                case ARG_MODULE_PATH:
                        if (free_and_strdup(&c->module_path, optarg) < 0)
                                return log_oom();
                        break;
                case 'p':
                        r = config_set_param(c, optarg);
                        if (r < 0)
                                return log_error_errno(r, "Invalid module parameter '%s', expected KEY=VALUE.", optarg);
                        break;
                case ARG_NO_LOAD:
                        c->load = false;
                        break;
                case ARG_UNLOAD_ON_EXIT:
                        c->unload_on_exit = true;
                        break;
                case ARG_UEVENT_SOURCE:
                        r = uevent_source_from_string(optarg);
                        if (r < 0)
                                return log_error_errno(r, "Invalid --uevent-source '%s'.", optarg);
                        c->uevent_source = r;
                        break;
                case ARG_LOG_LEVEL:
                        r = log_parse_level(optarg);
                        if (r < 0)
                                return log_error_errno(r, "Invalid --log-level '%s'.", optarg);
                        c->log_level = r;
                        break;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc)
                return log_error_errno(-EINVAL, "Unexpected argument '%s'.", argv[optind]);
        return 1;
}

/* The most descriptors sbdd asks for: systemd's own default hard limit
 * (HIGH_RLIMIT_NOFILE), far more than 10,000 devices need. */
#define NOFILE_CAP 524288

static rlim_t nofile_wanted(void) {
        unsigned long nr_open = 0;
        FILE *f = fopen("/proc/sys/fs/nr_open", "re");

        /* The kernel refuses any limit above fs.nr_open. */
        if (f) {
                if (fscanf(f, "%lu", &nr_open) != 1)
                        nr_open = 0;
                fclose(f);
        }
        if (nr_open == 0)
                nr_open = 1024 * 1024; /* the kernel's default */
        return nr_open < NOFILE_CAP ? nr_open : NOFILE_CAP;
}

static void bump_nofile(void) {
        struct rlimit rl;
        rlim_t want = nofile_wanted();

        /* Three watched attributes and a directory per device: 10,000
         * devices need some 40,000 descriptors. Under systemd the hard
         * limit is high already and only the soft one is raised; started
         * by hand as root (hard limit 4096 or so), raise both, which
         * CAP_SYS_RESOURCE allows. */
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
                struct rlimit high = { .rlim_cur = want, .rlim_max = want };

                if (setrlimit(RLIMIT_NOFILE, &high) >= 0) {
                        log_debug("Raised the open file limit to %lu.", (unsigned long) want);
                        return;
                }
                log_debug_errno(-errno, "Cannot raise the hard open file limit to %lu: %m",
                                (unsigned long) want);
        }
        if (rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }
        if (getrlimit(RLIMIT_NOFILE, &rl) >= 0 && rl.rlim_cur < want)
                log_info("Open file limit is %lu: about %lu devices can be mirrored.",
                         (unsigned long) rl.rlim_cur, (unsigned long) rl.rlim_cur / 4);
}

/* STATUS= for `systemctl status`: sent at READY and whenever the device
 * count or the module's state changes (once per loop iteration at most:
 * the changes are the deferred list signal's and the module's uevent's). */
static void daemon_update_status(struct daemon *d) {
        _cleanup_free_ char *s = NULL;

        if (!d->ready)
                return;
        if (asprintf(&s, "Mirroring %zu sbd device(s), module %s.",
                     d->objects[OBJECT_DEVICE].n, d->module_state ?: "unloaded") < 0)
                return (void) log_oom();
        if (streq_ptr(s, d->status))
                return;
        (void) sd_notifyf(false, "STATUS=%s", s);
        free(d->status);
        d->status = TAKE_PTR(s);
}

static void status_on_change(struct change *c, void *userdata) {
        daemon_update_status(userdata);
}

/* Who hears of which change, in the order each must hear it. */
static int subscribe_listeners(struct daemon *d) {
        static const struct subscription {
                enum change_kind kind;
                change_listener_t fn;
        } table[] = {
                /* The lists only mark themselves to be compared at the
                 * end of the loop iteration. Then the waiter: it answers
                 * the request that asked for the device and claims it,
                 * and the audit trail then records as seen from the
                 * kernel only the devices no request claimed. These run
                 * after the object's InterfacesAdded/Removed (sent where
                 * the change is seen): a client answered by AddDevice
                 * already has the device's InterfacesAdded. */
                { CHANGE_OBJECT_ADDED, lists_on_change },
                { CHANGE_OBJECT_ADDED, waiters_on_change },
                { CHANGE_OBJECT_ADDED, audit_on_change },
                { CHANGE_OBJECT_REMOVED, lists_on_change },
                { CHANGE_OBJECT_REMOVED, waiters_on_change },
                { CHANGE_OBJECT_REMOVED, audit_on_change },
                { CHANGE_DEVICE_DRIVER, lists_on_change },
                { CHANGE_ATTRIBUTE, audit_on_change },
                { CHANGE_MODULE, audit_on_change },
                { CHANGE_MODULE, status_on_change },
                { CHANGE_LISTS, status_on_change },
                { CHANGE_CALLER_GONE, waiters_on_caller_gone },
        };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                r = announce_subscribe(&d->announcer, table[i].kind, table[i].fn, d);
                if (r < 0)
                        return log_error_errno(r, "Cannot subscribe to changes: %m");
        }
        return 0;
}

static void daemon_done(struct daemon *d) {
        audit_done(d);
        auth_requests_free_all(d);
        module_ops_free_all(d);
        waiters_free_all(d);
        resync_done(d);
        uevent_done(d);
        lists_done(d);
        resend_done(d);
        reread_done(d);
        object_sets_done(d);
        modes_done(d);
        attr_tables_done(d);
        uid_cache_done(d);
        if (d->bus) {
                sd_bus_flush(d->bus);
                d->bus = sd_bus_close_unref(d->bus);
        }
        d->event = sd_event_unref(d->event);
        if (d->kmod)
                d->kmod = kmod_unref(d->kmod);
        free(d->module_state);
        free(d->status);
        free(d->module_params);
        strv_free(d->module_param_list);
        module_forget_params(d);
        config_done(&d->config);
}

static int run(struct daemon *d) {
        const char *unique_name;
        sigset_t mask;
        int r;

        /* Leave the working directory wherever we were started. */
        if (chdir("/") < 0)
                return log_error_errno(-errno, "Cannot chdir to /: %m");
        bump_nofile();
        r = subscribe_listeners(d);
        if (r < 0)
                return r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        /* sd_event_add_child() needs it blocked (modop.c) */
        sigaddset(&mask, SIGCHLD);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        signal(SIGPIPE, SIG_IGN);

        r = sd_event_default(&d->event);
        if (r < 0)
                return log_error_errno(r, "Cannot create the event loop: %m");
        /* Under systemd with WatchdogSec=, the loop itself sends
         * WATCHDOG=1 (at 1/2 to 3/4 of the interval, coalesced with other
         * timers): a stuck loop gets the service restarted. Without
         * WATCHDOG_USEC there is no timer at all. */
        r = sd_event_set_watchdog(d->event, true);
        if (r < 0)
                log_warning_errno(r, "Cannot set up the service watchdog: %m");
        (void) sd_event_add_signal(d->event, NULL, SIGTERM, NULL, NULL);
        (void) sd_event_add_signal(d->event, NULL, SIGINT, NULL, NULL);

        r = sd_bus_error_add_map(sbd_error_map);
        if (r < 0)
                return log_error_errno(r, "Cannot register the error map: %m");
        r = sd_bus_open_system(&d->bus);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to the system bus: %m");
        /* sd-bus authenticates and says Hello only as the connection is
         * processed, and nothing processes it until the event loop runs:
         * loading a module with thousands of disks and enumerating them
         * can take longer than the bus daemon waits for a connection to
         * authenticate (dbus-daemon's auth_timeout, 30 s), which then
         * drops it. Finish the handshake now. */
        r = sd_bus_get_unique_name(d->bus, &unique_name);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to the system bus: %m");
        r = sd_bus_attach_event(d->bus, d->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Cannot attach the bus to the event loop: %m");
        /* A connection the bus dropped (a failed allocation in sd-bus, the
         * bus daemon restarting) would leave sbdd running off the bus, where
         * nobody can reach it and systemd would not restart it: end the loop
         * instead (it then returns 1, a failure, and Restart=on-failure
         * brings sbdd back). */
        r = sd_bus_set_exit_on_disconnect(d->bus, true);
        if (r < 0)
                return log_error_errno(r, "Cannot make a lost bus connection end sbdd: %m");
        r = module_setup(d);
        if (r < 0)
                return r;
        /* The monitor first: nothing may happen unseen between the
         * enumeration and the first event. */
        r = uevent_setup(d);
        if (r < 0)
                return r;
        (void) modes_setup(d); /* without it, modes are followed at each re-read */
        r = vtables_register(d);
        if (r < 0)
                return r;
        r = auth_setup(d);
        if (r < 0)
                return r;
        r = tree_sync(d);
        if (r < 0)
                return log_error_errno(r, "Cannot enumerate sbd devices: %m");
        module_emit_changes(d, false);
        d->ready = true;
        lists_init(d);

        /* Only now, with every object in place, take the name. */
        r = sd_bus_request_name(d->bus, SBD_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot own %s on the system bus: %m", SBD_BUS_NAME);

        log_info("Mirroring %zu device(s) as %s.", d->objects[OBJECT_DEVICE].n, SBD_BUS_NAME);
        daemon_update_status(d);
        (void) sd_notify(false, "READY=1");

        r = sd_event_loop(d->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        if (r > 0)
                return log_error_errno(-ECONNRESET, "Lost the connection to the system bus.");

        (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping.");
        if (d->config.unload_on_exit) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                if (module_unload(d, &e) < 0)
                        log_warning("Could not unload the module: %s", strempty(e.message));
        }
        return 0;
}

/* Any caller can make sbdd read a message of up to the bus's limit (an
 * 8 MB Set is refused, but only once read). glibc raises its mmap
 * threshold after such a buffer is freed, so the next big ones would come
 * from the heap and stay in RSS. Fixed thresholds (which also turn the
 * raising off) hand every big buffer back to the kernel when freed. */
static void malloc_setup(void) {
        (void) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        (void) mallopt(M_TRIM_THRESHOLD, 256 * 1024);
}

int main(int argc, char *argv[]) {
        struct daemon d = { .inotify_fd = -1, .module_op_fd = -1 };
        int r;

        malloc_setup();
        config_init(&d.config);
        object_sets_init(&d);
        r = parse_argv(argc, argv, &d.config);
        if (r <= 0) {
                config_done(&d.config);
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }
        log_set_max_level(d.config.log_level);

        r = run(&d);
        daemon_done(&d);
        log_debug("Exiting.");
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
