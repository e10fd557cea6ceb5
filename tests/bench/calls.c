/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The D-Bus calls and sysfs writes the benchmark times, and its results. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static void die_bus(const char *what, int r, const sd_bus_error *error)
{
	fprintf(stderr, "bench: %s: %s\n", what,
		error && error->message ? error->message : strerror(-r));
	exit(1);
}

struct result *bench_result(struct bench *b, const char *row, const char *measure,
			    const char *unit, enum goal_kind kind, double goal)
{
	struct result *r;

	if (b->n_results == MAX_RESULTS) {
		fprintf(stderr, "bench: too many results\n");
		exit(1);
	}
	r = &b->results[b->n_results++];
	*r = (struct result){ .kind = kind, .goal = goal };
	snprintf(r->row, sizeof(r->row), "%s", row);
	snprintf(r->measure, sizeof(r->measure), "%s", measure);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	return r;
}

void result_set(struct result *r, struct samples *value, struct samples *limit)
{
	r->value_median = samples_median(value);
	r->value_p99 = samples_p99(value);
	if (limit) {
		r->limit_median = samples_median(limit);
		r->limit_p99 = samples_p99(limit);
	}
	r->ratio = r->limit_median > 0 ? r->value_median / r->limit_median : 0;
}

double call_ping(struct bench *b, const char *service)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	uint64_t t0 = now_ns();
	double us;
	int r;

	r = sd_bus_call_method(b->bus, service, "/", "org.freedesktop.DBus.Peer",
			       "Ping", &error, &reply, "");
	us = elapsed_us(t0);
	if (r < 0)
		die_bus("Ping", r, &error);
	sd_bus_message_unref(reply);
	return us;
}

double call_get(struct bench *b, const char *service, const char *path,
		const char *interface, const char *property)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	uint64_t t0 = now_ns();
	double us;
	int r;

	r = sd_bus_call_method(b->bus, service, path, "org.freedesktop.DBus.Properties",
			       "Get", &error, &reply, "ss", interface, property);
	us = elapsed_us(t0);
	if (r < 0)
		die_bus(property, r, &error);
	sd_bus_message_unref(reply);
	return us;
}

static unsigned int device_count(struct bench *b)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	char **devices = NULL;
	unsigned int n = 0;
	int r;

	r = sd_bus_get_property_strv(b->bus, SBD_SERVICE, SBD_ROOT, "org.sbd.Sbd1.Manager",
				     "Devices", &error, &devices);
	if (r < 0)
		die_bus("Devices", r, &error);
	for (char **d = devices; d && *d; d++, n++)
		free(*d);
	free(devices);
	return n;
}

/* Wait until the daemon mirrors @count devices (its uevents may lag). */
void wait_for_device_count(struct bench *b, unsigned int count)
{
	for (unsigned int tries = 0; tries < 6000; tries++) {
		if (device_count(b) == count)
			return;
		usleep(50000);
	}
	fprintf(stderr, "bench: sbdd never showed %u devices\n", count);
	exit(1);
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
