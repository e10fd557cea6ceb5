/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The D-Bus calls and sysfs writes the benchmark times or needs. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static double call_timed(struct bench *b, const char *what, const char *service,
			 const char *path, const char *interface, const char *member,
			 sd_bus_message **ret, const char *types, ...)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	uint64_t t0;
	double us;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(b->bus, &m, service, path, interface, member);
	if (r >= 0 && types) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r < 0)
		bench_die(what, r, NULL);
	t0 = now_ns();
	r = sd_bus_call(b->bus, m, CALL_TIMEOUT_US, &error, &reply);
	us = elapsed_us(t0);
	if (r < 0)
		bench_die(what, r, &error);
	sd_bus_message_unref(m);
	if (ret)
		*ret = reply;
	else
		sd_bus_message_unref(reply);
	return us;
}

double call_ping(struct bench *b, const char *service)
{
	return call_timed(b, "Ping", service, "/", "org.freedesktop.DBus.Peer", "Ping", NULL,
			  NULL);
}

double call_get(struct bench *b, const char *service, const char *path,
		const char *interface, const char *property)
{
	return call_timed(b, property, service, path, "org.freedesktop.DBus.Properties", "Get",
			  NULL, "ss", interface, property);
}

double call_set_string(struct bench *b, const char *service, const char *path,
		       const char *interface, const char *property, const char *value)
{
	return call_timed(b, property, service, path, "org.freedesktop.DBus.Properties", "Set",
			  NULL, "ssv", interface, property, "s", value);
}

/* The floor's Get of the file it was given as --file NAME=PATH. */
double call_floor_file(struct bench *b, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/file/%s", FLOOR_ROOT, name);
	return call_get(b, FLOOR_SERVICE, path, FLOOR_FILE_IFACE, "Value");
}

double call_managed_objects(struct bench *b, const char *service, const char *root,
			    unsigned int *objects)
{
	sd_bus_message *reply = NULL;
	double us;
	int r;

	us = call_timed(b, "GetManagedObjects", service, root,
			"org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
			objects ? &reply : NULL, NULL);
	if (!objects)
		return us;
	*objects = 0;
	r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
	while (r >= 0 && (r = sd_bus_message_skip(reply, "{oa{sa{sv}}}")) > 0)
		(*objects)++;
	sd_bus_message_unref(reply);
	return us;
}

/* Copy the tree of @service below @root into the floor; its object count. */
unsigned int floor_load(struct bench *b, const char *service, const char *root)
{
	sd_bus_message *reply = NULL;
	unsigned int n;
	int r;

	call_timed(b, "floor Load", FLOOR_SERVICE, FLOOR_ROOT, "org.sbd.Floor.Control", "Load",
		   &reply, "so", service, root);
	r = sd_bus_message_read(reply, "u", &n);
	if (r < 0)
		bench_die("floor Load", r, NULL);
	sd_bus_message_unref(reply);
	return n;
}

int service_pid(struct bench *b, const char *service)
{
	sd_bus_message *reply = NULL;
	uint32_t pid;
	int r;

	call_timed(b, "GetConnectionUnixProcessID", "org.freedesktop.DBus",
		   "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
		   &reply, "s", service);
	r = sd_bus_message_read(reply, "u", &pid);
	if (r < 0)
		bench_die("GetConnectionUnixProcessID", r, NULL);
	sd_bus_message_unref(reply);
	return (int)pid;
}

unsigned int sbdd_device_count(struct bench *b)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	char **devices = NULL;
	unsigned int n = 0;
	int r;

	r = sd_bus_get_property_strv(b->bus, SBD_SERVICE, SBD_ROOT, "org.sbd.Sbd1.Manager",
				     "Devices", &error, &devices);
	if (r < 0)
		bench_die("Devices", r, &error);
	for (char **d = devices; d && *d; d++, n++)
		free(*d);
	free(devices);
	return n;
}

int sysfs_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * Make the module hold exactly @count devices, sbd0 to sbd<count-1>, through
 * new_device and delete_device, and wait until sbdd shows them all.
 */
void set_device_count(struct bench *b, unsigned int count)
{
	unsigned int *current = &b->current_devices;
	char value[32];
	int r;

	if (*current != count)
		bench_progress("%u -> %u devices", *current, count);
	for (; *current < count; (*current)++) {
		snprintf(value, sizeof(value), "1M %u", *current);
		r = sysfs_write("/sys/bus/sbd/drivers/sbd/new_device", value);
		if (r < 0 && r != -EEXIST)
			bench_die("new_device", r, NULL);
	}
	for (; *current > count; (*current)--) {
		snprintf(value, sizeof(value), "%u", *current - 1);
		r = sysfs_write("/sys/bus/sbd/drivers/sbd/delete_device", value);
		if (r < 0 && r != -ENODEV)
			bench_die("delete_device", r, NULL);
	}
	/* The daemon follows the uevents a little later. */
	for (unsigned int tries = 0; sbdd_device_count(b) != count; tries++) {
		if (tries == 6000)
			bench_die("sbdd never showed all devices", -ETIMEDOUT, NULL);
		usleep(50000);
	}
}

bool bus_wait_for(struct bench *b, const bool *done, unsigned int timeout_s)
{
	uint64_t deadline = now_ns() + timeout_s * 1000000000ULL;
	int r;

	while (!*done) {
		r = sd_bus_process(b->bus, NULL);
		if (r < 0)
			bench_die("process", r, NULL);
		if (r > 0)
			continue;
		if (now_ns() >= deadline)
			return false;
		r = sd_bus_wait(b->bus, (deadline - now_ns()) / 1000);
		if (r < 0)
			bench_die("wait", r, NULL);
	}
	return true;
}
