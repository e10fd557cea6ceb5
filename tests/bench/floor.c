/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbd-bench-floor: the bare sd-bus server the benchmark measures sbdd
 * against.  It does the least any server could do for the same requests:
 *
 *  - /org/sbd/Floor/file, org.sbd.Floor.File.Value: a Get that pread()s the
 *    same sysfs file a device attribute lives in, and nothing else;
 *  - /org/sbd/Floor/tree/...: a copy of sbdd's whole object tree, taken with
 *    one GetManagedObjects call on Load(), served from memory through
 *    fallback vtables, with an ObjectManager at /org/sbd/Floor/tree.
 *
 * Usage: sbd-bench-floor --file PATH [--name NAME]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "floor-tree.h"

#define FLOOR_NAME	"org.sbd.Floor"
#define FLOOR_FILE_PATH	"/org/sbd/Floor/file"

struct floor {
	int file_fd;
	struct floor_tree tree;
	sd_bus *bus;
};

static int file_get_value(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *reply,
			  void *userdata, sd_bus_error *error)
{
	struct floor *floor = userdata;
	char buf[4096];
	ssize_t n;

	n = pread(floor->file_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return sd_bus_message_append_basic(reply, 's', buf);
}

static const sd_bus_vtable file_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Value", "s", file_get_value, 0, 0),
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
	printf("Usage: sbd-bench-floor --file PATH [--name NAME]\n"
	       "The benchmark's bare sd-bus server (see performance.md).\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct floor floor = { .file_fd = -1 };
	const char *name = FLOOR_NAME, *file = NULL;
	sd_event *event = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, "f:n:h", options, NULL)) >= 0) {
		switch (c) {
		case 'f': file = optarg; break;
		case 'n': name = optarg; break;
		case 'h': usage(); return 0;
		default: return 2;
		}
	}
	if (!file) {
		usage();
		return 2;
	}

	floor.file_fd = open(file, O_RDONLY | O_CLOEXEC);
	if (floor.file_fd < 0) {
		fprintf(stderr, "floor: open %s: %m\n", file);
		return 1;
	}

	r = sd_event_default(&event);
	if (r >= 0)
		r = sd_bus_open_system(&floor.bus);
	if (r >= 0)
		r = sd_bus_add_object_vtable(floor.bus, NULL, FLOOR_FILE_PATH,
					     "org.sbd.Floor.File", file_vtable, &floor);
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
	close(floor.file_fd);
	return r < 0 ? 1 : 0;
}
