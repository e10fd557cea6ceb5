/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbd-bench-floor: the bare sd-bus server the benchmark measures sbdd
 * against.  It does the least any server could do for the same requests:
 *
 *  - /org/sbd/Floor/file/NAME, org.sbd.Floor.File.Value: a Get that
 *    pread()s the sysfs file given as --file NAME=PATH (the one a device
 *    attribute lives in) through an fd kept open, and nothing else; and a
 *    Set that does what the contract asks of sbdd's Set (write, read back,
 *    PropertiesChanged, reply) and nothing else;
 *  - /org/sbd/Floor/tree/...: a copy of sbdd's whole object tree, taken with
 *    one GetManagedObjects call on Load(), served from memory through
 *    fallback vtables, with an ObjectManager at /org/sbd/Floor/tree.
 *
 * Usage: sbd-bench-floor [--file NAME=PATH]... [--name BUSNAME]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "floor-tree.h"

#define FLOOR_NAME	"org.sbd.Floor"
#define FLOOR_FILE_PREFIX "/org/sbd/Floor/file/"
#define FLOOR_MAX_FILES	8
/* Loading 10,000 objects from sbdd takes seconds under TCG. */
#define FLOOR_CALL_TIMEOUT_US (600ULL * 1000000ULL)

struct floor_file {
	int fd;
	bool writable;
	char path[128];
};

struct floor {
	struct floor_file files[FLOOR_MAX_FILES];
	unsigned int n_files;
	struct floor_tree tree;
	sd_bus *bus;
};

static int file_get_value(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *reply,
			  void *userdata, sd_bus_error *error)
{
	struct floor_file *file = userdata;
	char buf[4096];
	ssize_t n;

	n = pread(file->fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return sd_bus_message_append_basic(reply, 's', buf);
}

/*
 * The contract's Set done by the least server: one pwrite() of the value,
 * read back, PropertiesChanged, and the reply (sd-bus sends it after this
 * returns).  Only files opened read-write take it.
 */
static int file_set_value(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *value,
			  void *userdata, sd_bus_error *error)
{
	struct floor_file *file = userdata;
	const char *s;
	char buf[4096];
	int r;

	if (!file->writable)
		return sd_bus_error_set(error, SD_BUS_ERROR_PROPERTY_READ_ONLY, "read-only file");
	r = sd_bus_message_read_basic(value, 's', &s);
	if (r < 0)
		return r;
	if (pwrite(file->fd, s, strlen(s), 0) < 0 || pread(file->fd, buf, sizeof(buf), 0) < 0)
		return -errno;
	return sd_bus_emit_properties_changed(bus, path, interface, property, NULL);
}

static const sd_bus_vtable file_vtable[] = {
	SD_BUS_VTABLE_START(0),
	/* UNPRIVILEGED: else sd-bus asks the bus for the caller's
	 * credentials (a round trip) before every Set */
	SD_BUS_WRITABLE_PROPERTY("Value", "s", file_get_value, file_set_value, 0,
				 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

/* Load(s service, o root): copy the tree of @service below @root. */
static int method_load(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct floor *floor = userdata;
	const char *service, *root;
	unsigned int count;
	int r;

	r = sd_bus_message_read(m, "so", &service, &root);
	if (r < 0)
		return r;
	r = floor_tree_load(&floor->tree, floor->bus, service, root);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Loading %s failed: %m", service);
	count = floor_tree_count(&floor->tree);
	return sd_bus_reply_method_return(m, "u", count);
}

static const sd_bus_vtable control_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_ARGS("Load",
		SD_BUS_ARGS("s", service, "o", root),
		SD_BUS_RESULT("u", objects),
		method_load, 0),
	SD_BUS_VTABLE_END,
};

static void usage(void)
{
	printf("Usage: sbd-bench-floor [--file NAME=PATH]... [--name BUSNAME]\n"
	       "The benchmark's bare sd-bus server (see performance.md).\n");
}

/* --file NAME=PATH: open PATH, to be served at FLOOR_FILE_PREFIX NAME. */
static int add_file(struct floor *floor, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct floor_file *file;

	if (!eq || eq == arg || floor->n_files == FLOOR_MAX_FILES) {
		fprintf(stderr, "floor: bad --file %s (NAME=PATH, at most %d)\n", arg,
			FLOOR_MAX_FILES);
		return -EINVAL;
	}
	file = &floor->files[floor->n_files];
	snprintf(file->path, sizeof(file->path), "%s%.*s", FLOOR_FILE_PREFIX,
		 (int)(eq - arg), arg);
	if (!sd_bus_object_path_is_valid(file->path)) {
		fprintf(stderr, "floor: bad name in --file %s\n", arg);
		return -EINVAL;
	}
	file->fd = open(eq + 1, O_RDWR | O_CLOEXEC);
	file->writable = file->fd >= 0;
	if (file->fd < 0)
		file->fd = open(eq + 1, O_RDONLY | O_CLOEXEC);
	if (file->fd < 0) {
		fprintf(stderr, "floor: open %s: %m\n", eq + 1);
		return -errno;
	}
	floor->n_files++;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct floor floor = {};
	const char *name = FLOOR_NAME;
	sd_event *event = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, "f:n:h", options, NULL)) >= 0) {
		switch (c) {
		case 'f':
			if (add_file(&floor, optarg) < 0)
				return 2;
			break;
		case 'n': name = optarg; break;
		case 'h': usage(); return 0;
		default: return 2;
		}
	}
	if (optind < argc) {
		usage();
		return 2;
	}

	r = sd_event_default(&event);
	if (r >= 0)
		r = sd_bus_open_system(&floor.bus);
	if (r >= 0)
		r = sd_bus_set_method_call_timeout(floor.bus, FLOOR_CALL_TIMEOUT_US);
	for (unsigned int i = 0; r >= 0 && i < floor.n_files; i++)
		r = sd_bus_add_object_vtable(floor.bus, NULL, floor.files[i].path,
					     "org.sbd.Floor.File", file_vtable, &floor.files[i]);
	if (r >= 0)
		r = sd_bus_add_object_vtable(floor.bus, NULL, "/org/sbd/Floor",
					     "org.sbd.Floor.Control", control_vtable, &floor);
	if (r >= 0)
		r = floor_tree_register(&floor.tree, floor.bus);
	if (r >= 0)
		r = sd_bus_request_name(floor.bus, name, 0);
	if (r >= 0)
		r = sd_bus_attach_event(floor.bus, event, 0);
	if (r < 0) {
		fprintf(stderr, "floor: setting up the bus failed: %s\n", strerror(-r));
		return 1;
	}

	sd_notify(0, "READY=1");
	r = sd_event_loop(event);
	floor_tree_clear(&floor.tree);
	sd_bus_flush_close_unref(floor.bus);
	sd_event_unref(event);
	for (unsigned int i = 0; i < floor.n_files; i++)
		close(floor.files[i].fd);
	return r < 0 ? 1 : 0;
}
