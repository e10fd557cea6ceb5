/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon context: the one place that holds sbdd's state. Every
 * callback gets it (or an object that points back to it) as userdata. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "announce.h"
#include "attr.h"
#include "audit.h"
#include "config.h"
#include "hashmap.h"

#include "sbd-bus.h"

#define SBD_MODULE_NAME "sbd"
#define SYSFS_BUS_DIR "/sys/bus/sbd"
#define SYSFS_DRIVERS_DIR "/sys/bus/sbd/drivers"
#define SYSFS_DEVICES_DIR "/sys/bus/sbd/devices"
#define SYSFS_MODULE_DIR "/sys/module/sbd"

struct sbd_object;
struct auth_request;
struct device_waiter;
struct module_op;

/* One attribute of the union of all objects of a kind. */
struct attr_def {
        char *file;      /* "power/runtime_status" */
        char *property;  /* "PowerRuntimeStatus"; the vtable points here */
        char type;       /* 's', 't', 'b', 'u' */
        unsigned flags;  /* ATTR_* */
        unsigned mode;   /* st_mode when first seen: the same on every object */
};

/* The attribute properties of a kind: one vtable shared by every object
 * of the kind, rebuilt (rarely) when an object shows a new attribute. */
struct attr_table {
        enum object_kind kind;
        struct attr_def *defs;
        size_t n_defs;
        sd_bus_vtable *vtable;
        sd_bus_slot *slot;
};

/* One attribute of one object. The attribute vtable's property offsets
 * are indexes into an object's array of these. */
struct attr_value {
        struct sbd_object *object;
        size_t index;
        char *text;                /* cached value; NULL: not cached */
        int error;                 /* why text is NULL (negative errno) */
        int fd;                    /* kept open for ATTR_WATCH and (a few) ATTR_LIVE, else -1 */
        unsigned live_slot;        /* 1 + its slot in struct live_fds, 0: none */
        bool fd_writable;          /* fd is O_RDWR: Set writes through it */
        sd_event_source *watch;    /* POLLPRI on fd */
        bool present;              /* the object has this attribute */
        bool hidden;               /* its file is not world-readable (modes.c) */
};

struct sbd_object {
        struct daemon *daemon;
        enum object_kind kind;
        char *name;       /* "sbd0" */
        char *path;       /* "/org/sbd/Sbd1/devices/sbd0" */
        char *syspath;    /* "/sys/devices/system/sbd/sbd0" */
        int dirfd;
        dev_t st_dev;
        ino_t st_ino;
        struct attr_value *values;
        size_t n_values;
        /* devices only */
        char *driver_path;   /* driver object path, or "/" */
        char *block_device;  /* "/dev/sbd0", or "" */
        /* drivers only: the Devices list as last announced (lists.c) */
        uint64_t devices_fingerprint;
        /* a PropertiesChanged of it was refused: announce it again (resend.c) */
        bool resend_changed;
        /* a read of it failed for want of memory: read it again (reread.c) */
        bool reread;
        /* the inotify watch that follows its files' modes (modes.c), or -1 */
        int wd;
        char wd_key[16];
};

/* The objects of one kind: by path for sd-bus's find callbacks, and
 * sorted by name (natural order) for Devices and the node enumerator. */
struct object_set {
        struct daemon *daemon;
        enum object_kind kind;
        struct hashmap by_path;
        struct sbd_object **sorted;
        size_t n, allocated;
};

/* The fds kept open on live attributes (livefds.c). */
#define LIVE_FDS_MAX 64
struct live_fds {
        struct attr_value *slots[LIVE_FDS_MAX];
        unsigned next;   /* the slot to reuse next: the oldest */
        bool checked;    /* whether the attributes are on sysfs is known */
        bool enabled;    /* they are: fds may be kept */
};

struct daemon {
        struct config config;
        sd_event *event;
        sd_bus *bus;
        struct udev *udev;
        struct udev_monitor *monitor;
        sd_event_source *monitor_source;
        struct kmod_ctx *kmod;

        struct attr_table tables[_OBJECT_KIND_MAX];
        struct object_set objects[_OBJECT_KIND_MAX];

        /* Module.State as last announced, to signal only real changes. */
        char *module_state;
        char *module_params;       /* flattened, to compare */
        char **module_param_list;  /* key, value, key, value, ..., NULL */
        char **module_parm_names;  /* the parameters modinfo declares (module.c) */
        /* Load/Unload, running in a child process, then those queued (modop.c) */
        struct module_op *module_ops;
        sd_event_source *module_op_child;
        int module_op_fd;          /* the child's report, or -1 */

        /* Requests waiting for authorization (n_auth_requests: those
         * waiting for polkit) or for the kernel. */
        struct auth_request *auth_requests;
        unsigned n_auth_requests;
        sd_bus_slot *name_owner_slot;  /* callers leaving the bus (polkit.c) */
        sd_event_source *auth_answers; /* runs decided requests' callbacks (polkit.c) */
        struct device_waiter *waiters;
        unsigned n_waiters;

        /* unique bus name -> uid of recent callers (see polkit.c) */
        struct uid_cache_entry {
                char *name;
                uid_t uid;
                pid_t pid;
        } uid_cache[64];
        unsigned uid_cache_next;

        /* Manager/Driver Devices and Drivers are signalled once per loop
         * iteration, not once per device of a burst, and only when they
         * differ from what was announced (lists.c). */
        sd_event_source *lists_event;
        uint64_t list_fingerprint[_OBJECT_KIND_MAX];

        struct live_fds live_fds;

        /* chmod of attributes, followed with inotify (modes.c) */
        int inotify_fd;
        sd_event_source *inotify_source;
        struct hashmap mode_watches;   /* wd (decimal) -> object */
        bool inotify_full_warned;

        /* PropertiesChanged that could not be sent, sent again (resend.c) */
        sd_event_source *resend_timer;
        /* reads that failed for want of memory, made again (reread.c) */
        sd_event_source *reread_timer;
        uint64_t reread_delay;
        bool reread_tree, reread_running, reread_again;

        char *status;     /* the last STATUS= sent to systemd */

        /* who hears of each kind of change (announce.c; main.c subscribes) */
        struct announcer announcer;

        /* audit records per kind in the current interval (audit.c) */
        struct audit_window {
                uint64_t begin;
                unsigned n, suppressed;
        } audit[_AUDIT_KIND_MAX];
        sd_event_source *audit_timer;
        /* a request's own write is being read back: the change it makes
         * is that request's record, not one seen from the kernel */
        bool audit_own_change;

        bool ready; /* start-up enumeration done: emit signals */
        /* The re-read of sysfs that lost uevents call for (resync.c):
         * paced by when the last ended and what it cost (µs); done in
         * steps over the devices' names taken when it began. */
        sd_event_source *resync_source;
        uint64_t resync_last_end, resync_last_cost, resync_spent;
        unsigned resync_overruns, resync_covered, resyncs;
        char **resync_names;
        size_t resync_n, resync_pos;
        bool resync_running, resync_again;
};

static inline const char *object_kind_interface(enum object_kind kind) {
        return kind == OBJECT_DRIVER ? SBD_DRIVER_INTERFACE : SBD_DEVICE_INTERFACE;
}
static inline const char *object_kind_prefix(enum object_kind kind) {
        return kind == OBJECT_DRIVER ? SBD_DRIVERS_PATH : SBD_DEVICES_PATH;
}

/* objects.c: the mirrored tree */
/* livefds.c: read a live attribute, keeping its fd for the next Get. */
ssize_t live_fds_read(struct live_fds *l, struct sbd_object *o, struct attr_value *v, const char *file, char *buf);
void live_fds_forget(struct live_fds *l, struct attr_value *v);

void object_sets_init(struct daemon *d);
void object_sets_done(struct daemon *d);
struct sbd_object *object_find(struct daemon *d, enum object_kind kind, const char *name);
struct sbd_object *object_find_by_path(struct daemon *d, const char *path);
/* Add (or refresh, if known and still the same kobject) the object for
 * sysfs directory syspath. ret may be NULL. */
int tree_add(struct daemon *d, enum object_kind kind, const char *syspath, struct sbd_object **ret);
void tree_remove(struct daemon *d, struct sbd_object *o);
/* Re-read the object's cached attributes and links, signal changes.
 * -ENOENT (nothing changed, nothing signalled): an attribute vanished,
 * the object is being deleted; once object_gone(), tree_remove() it. */
int object_refresh(struct sbd_object *o);
int object_refresh_attr(struct sbd_object *o, size_t index);
/* The object's sysfs directory is no longer there (or was replaced). */
bool object_gone(struct sbd_object *o);
/* Make the tree equal sysfs: add, remove and refresh, with signals. The
 * module's own object is module_emit_changes()'s: callers follow a
 * successful sync with it. */
int tree_sync(struct daemon *d);
/* Only add devices that appeared (cheap at 10,000 devices). */
int tree_scan_new_devices(struct daemon *d);
int tree_sync_drivers(struct daemon *d);
int tree_sync_presence(struct daemon *d);
/* The mode of the object's file (e.g. "label") changed: show or hide
 * its value, or mirror a file that has become readable. */
void object_mode_changed(struct sbd_object *o, const char *file);

/* modes.c: following chmod of attribute files */
int modes_setup(struct daemon *d);
void modes_done(struct daemon *d);
void modes_watch(struct sbd_object *o);
void modes_unwatch(struct sbd_object *o);

/* lists.c: Manager.Drivers/Devices and Driver.Devices signals */
/* Listens to objects added and removed and devices bound or unbound
 * (announce.h): the lists are compared at the end of the iteration. */
void lists_on_change(struct change *c, void *userdata);
void lists_recount(struct daemon *d);
void lists_init(struct daemon *d);
void lists_done(struct daemon *d);

/* resend.c: PropertiesChanged the kernel would not carry, sent again */
void resend_later(struct sbd_object *o);
void resend_done(struct daemon *d);

/* reread.c: reads of sysfs that failed for want of memory, made again
 * shortly: of an object's attributes and links, or of the directories
 * (the drivers and new devices looked for again) */
void reread_later(struct sbd_object *o);
void reread_tree_later(struct daemon *d);
void reread_done(struct daemon *d);

/* vtables.c: sd-bus registration */
int vtables_register(struct daemon *d);
/* Whether the property getter runs for a Get of just that property (not
 * GetAll or GetManagedObjects): only then may it fail, saying why. */
bool property_get_is_single(sd_bus *bus);
int attr_table_add(struct daemon *d, enum object_kind kind, const char *file, unsigned mode, size_t *ret_index);
void attr_tables_done(struct daemon *d);
int attr_def_lookup(const struct attr_table *t, const char *property);
/* The index of the attribute of that file (e.g. "power/control"), or -ENOENT. */
int attr_def_find_file(const struct attr_table *t, const char *file);
int append_object_paths(sd_bus_message *reply, struct object_set *set, const char *driver_path);

/* manager.c */
extern const sd_bus_vtable manager_vtable[];
/* Listens to devices added and removed (announce.h): the request that
 * waited for one is answered and recorded, and claims the change. */
void waiters_on_change(struct change *c, void *userdata);
void waiters_free_all(struct daemon *d);
/* A caller left the bus (announce.h): its requests waiting for a device
 * are dropped. */
void waiters_on_caller_gone(struct change *c, void *userdata);

/* module.c */
extern const sd_bus_vtable module_vtable[];
int module_setup(struct daemon *d);
int module_load(struct daemon *d, char **params, sd_bus_error *error);
int module_unload(struct daemon *d, sd_bus_error *error);
void module_emit_changes(struct daemon *d, bool removed);
void module_forget_params(struct daemon *d);
bool module_driver_present(void);
/* The module's max_size and max_total parameters in bytes, 0 where unknown. */
void module_size_limits(uint64_t *ret_max_size, uint64_t *ret_max_total);

/* modop.c: Load and Unload in a child process, one at a time, in order;
 * m is answered when it is done. Takes params. */
int module_op_queue(struct daemon *d, sd_bus_message *m, bool unload, char **params, const struct caller *caller);
void module_ops_free_all(struct daemon *d);

/* uevent.c */
int uevent_setup(struct daemon *d);
void uevent_done(struct daemon *d);

/* resync.c */
void resync_request(struct daemon *d);
void resync_done(struct daemon *d);

/* polkit.c: authorize the sender of m for action; the callback runs
 * once, later (never from inside authorize_async). allowed < 0 is an
 * error already put in *error; 0 means denied (error filled); 1 allowed.
 * caller: who asked (uid (uid_t) -1 where it is not known) and what
 * polkit said, for the decision and for the audit record. */
typedef void (*auth_callback_t)(struct daemon *d, sd_bus_message *m, int allowed,
                                const sd_bus_error *error, const struct caller *caller, void *userdata);
#define ACTION_SET_ATTRIBUTE "org.sbd.sbd1.set-attribute"
#define ACTION_MANAGE_DEVICES "org.sbd.sbd1.manage-devices"
#define ACTION_MANAGE_MODULE "org.sbd.sbd1.manage-module"
/* details: key, value, ..., NULL (polkit's details; may be NULL). Answers
 * m itself with LimitsExceeded (the callback then never runs) when too
 * many of the caller's uid wait for polkit, or too many in all; never for
 * uid 0. A request whose caller leaves the bus is dropped (its polkit
 * check cancelled) and its callback never runs; free_userdata always does.
 * Where one action covers several operations (create and delete, load
 * and unload), the details carry the operation's own sentence as
 * "polkit.message" (AUTH_MESSAGE "..."): the .policy file has one message
 * per action, and polkitd takes this one from uid 0 callers such as sbdd
 * and expands its $(key) from the details as it does the .policy's. */
#define AUTH_MESSAGE "Authentication is required to "
int authorize_async(struct daemon *d, sd_bus_message *m, const char *action, const char *const *details,
                    auth_callback_t cb, void *userdata, void (*free_userdata)(void *));
void auth_requests_free_all(struct daemon *d);
/* Whether requests of this caller wait for authorization (a later one
 * must not overtake them). */
bool auth_pending_of(struct daemon *d, const char *sender);
/* The caller of m as far as known without asking the bus (the uid cache),
 * for requests refused before authorization and their audit record. */
void caller_of_message(struct daemon *d, sd_bus_message *m, struct caller *ret);
/* Watch callers leaving the bus (NameOwnerChanged). */
int auth_setup(struct daemon *d);
void uid_cache_done(struct daemon *d);

/* replysize.c: GetManagedObjects beyond the bus's message size */
int replysize_filter(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

/* setprop.c */
int setprop_filter(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
