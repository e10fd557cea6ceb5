/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows of performance.md's table that are one process talking to sbdd
 * and to the floor: each request and its limit measured side by side,
 * interleaved, after a warm-up, so that a noisy machine moves both.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define FLOOR_FILE_PATH	"/org/sbd/Floor/file"
#define FLOOR_TREE	"/org/sbd/Floor/tree"
#define PIPELINE_DEPTH	64

static void die(const char *what, int r)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(-r));
	exit(1);
}

/* Row 1: Get of a device attribute; the floor's Get reads the same file. */
void row_get(struct bench *b)
{
	struct samples get = {}, floor = {}, ping = {}, floor_ping = {};
	struct result *r;

	for (unsigned int i = 0; i < b->warmup + b->iterations; i++) {
		double g = call_get(b, SBD_SERVICE, b->device_path, "org.sbd.Sbd1.Device", "Label");
		double f = call_get(b, FLOOR_SERVICE, FLOOR_FILE_PATH, "org.sbd.Floor.File", "Value");
		double p = call_ping(b, SBD_SERVICE);
		double fp = call_ping(b, FLOOR_SERVICE);

		if (i < b->warmup)
			continue;
		samples_add(&get, g);
		samples_add(&floor, f);
		samples_add(&ping, p);
		samples_add(&floor_ping, fp);
	}
	r = bench_result(b, "1", "Properties.Get of Device.Label / floor's sysfs-backed Get", "us",
			 GOAL_RATIO_AT_MOST, 1.1);
	result_set(r, &get, &floor);
	r = bench_result(b, "1a", "context: Ping sbdd / Ping floor", "us", GOAL_RATIO_AT_MOST, 0);
	result_set(r, &ping, &floor_ping);
	samples_free(&get);
	samples_free(&floor);
	samples_free(&ping);
	samples_free(&floor_ping);
}

static double direct_write_read(const char *file, const char *value)
{
	char buf[64];
	uint64_t t0 = now_ns();
	int fd = open(file, O_RDWR | O_CLOEXEC);
	double us;

	if (fd < 0)
		die(file, -errno);
	if (write(fd, value, strlen(value)) < 0 || pread(fd, buf, sizeof(buf), 0) < 0)
		die(file, -errno);
	close(fd);
	us = elapsed_us(t0);
	return us;
}

static double call_set_label(struct bench *b, const char *value)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	uint64_t t0 = now_ns();
	double us;
	int r;

	r = sd_bus_set_property(b->bus, SBD_SERVICE, b->device_path, "org.sbd.Sbd1.Device",
				"Label", &error, "s", value);
	us = elapsed_us(t0);
	if (r < 0) {
		fprintf(stderr, "bench: Set Label: %s\n", error.message);
		exit(1);
	}
	return us;
}

/* Row 2: Set of label; the limit is a Ping plus a direct write and read. */
void row_set(struct bench *b)
{
	struct samples set = {}, limit = {};
	char value[32];

	for (unsigned int i = 0; i < b->warmup + b->iterations; i++) {
		double s, p, d;

		snprintf(value, sizeof(value), "bench-set-%u", i);
		s = call_set_label(b, value);
		p = call_ping(b, SBD_SERVICE);
		snprintf(value, sizeof(value), "bench-direct-%u", i);
		d = direct_write_read(b->label_file, value);
		if (i < b->warmup)
			continue;
		samples_add(&set, s);
		samples_add(&limit, p + d);
	}
	result_set(bench_result(b, "2", "Properties.Set of Label / Ping + direct write and read",
				"us", GOAL_RATIO_AT_MOST, 1.3), &set, &limit);
	samples_free(&set);
	samples_free(&limit);
}

static double call_managed_objects(struct bench *b, const char *service, const char *root)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	uint64_t t0 = now_ns();
	double us;
	int r;

	r = sd_bus_call_method(b->bus, service, root, "org.freedesktop.DBus.ObjectManager",
			       "GetManagedObjects", &error, &reply, "");
	us = elapsed_us(t0);
	if (r < 0) {
		fprintf(stderr, "bench: GetManagedObjects: %s\n", error.message);
		exit(1);
	}
	sd_bus_message_unref(reply);
	return us;
}

/*
 * Make the module hold exactly @count devices, sbd0 to sbd<count-1>, through
 * new_device and delete_device, and wait until sbdd shows them all.
 */
void set_device_count(struct bench *b, unsigned int count)
{
	unsigned int *current = &b->current_devices;
	char path[256], value[32];
	int r;

	for (; *current < count; (*current)++) {
		snprintf(path, sizeof(path), "%s/bus/sbd/drivers/sbd/new_device", b->sysfs);
		snprintf(value, sizeof(value), "1M %u", *current);
		r = sysfs_write(path, value);
		if (r < 0 && r != -EEXIST)
			die("new_device", r);
	}
	for (; *current > count; (*current)--) {
		snprintf(path, sizeof(path), "%s/bus/sbd/drivers/sbd/delete_device", b->sysfs);
		snprintf(value, sizeof(value), "%u", *current - 1);
		r = sysfs_write(path, value);
		if (r < 0)
			die("delete_device", r);
	}
	wait_for_device_count(b, count);
}

static unsigned int floor_load(struct bench *b)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	unsigned int n;
	int r;

	r = sd_bus_call_method(b->bus, FLOOR_SERVICE, "/org/sbd/Floor", "org.sbd.Floor.Control",
			       "Load", &error, &reply, "so", SBD_SERVICE, SBD_ROOT);
	if (r >= 0)
		r = sd_bus_message_read(reply, "u", &n);
	if (r < 0) {
		fprintf(stderr, "bench: floor Load: %s\n", error.message ? error.message : strerror(-r));
		exit(1);
	}
	sd_bus_message_unref(reply);
	return n;
}

/*
 * Row 3 at every size, and row 6 (RSS per device) from the same runs:
 * the daemon's and the floor's RSS at the smallest and the largest size.
 */
void row_managed_objects(struct bench *b)
{
	long rss_first = 0, floor_rss_first = 0, first = 0;
	unsigned int objects = 0;
	struct result *r;

	for (unsigned int s = 0; s < b->n_sizes; s++) {
		unsigned int n = b->sizes[s];
		unsigned int iterations = n >= 1000 ? 10 : n >= 100 ? 200 : b->iterations;
		struct samples sbdd = {}, floor = {};
		char measure[96];

		set_device_count(b, n);
		objects = floor_load(b);
		for (unsigned int i = 0; i < b->warmup / 10 + iterations; i++) {
			double d = call_managed_objects(b, SBD_SERVICE, SBD_ROOT);
			double f = call_managed_objects(b, FLOOR_SERVICE, FLOOR_TREE);

			if (i < b->warmup / 10)
				continue;
			samples_add(&sbdd, d);
			samples_add(&floor, f);
		}
		snprintf(measure, sizeof(measure),
			 "GetManagedObjects, %u devices (%u objects) / floor from memory", n, objects);
		r = bench_result(b, "3", measure, "us", GOAL_RATIO_AT_MOST, 1.5);
		result_set(r, &sbdd, &floor);
		samples_free(&sbdd);
		samples_free(&floor);

		if (s == 0) {
			first = n;
			rss_first = proc_rss_kib(b->daemon_pid);
			floor_rss_first = proc_rss_kib(b->floor_pid);
		} else if (s == b->n_sizes - 1 && n > first) {
			r = bench_result(b, "6", "RSS growth per device: sbdd / floor per object",
					 "KiB", GOAL_ABSOLUTE_AT_MOST, 4.0);
			r->value_median = r->value_p99 =
				(double)(proc_rss_kib(b->daemon_pid) - rss_first) / (n - first);
			r->limit_median = r->limit_p99 =
				(double)(proc_rss_kib(b->floor_pid) - floor_rss_first) / (n - first);
			r->ratio = r->limit_median > 0 ? r->value_median / r->limit_median : 0;
		}
	}
	set_device_count(b, 1);
}

struct change_wait {
	const char *expect;
	bool seen;
};

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct change_wait *w = userdata;
	const char *interface, *name, *value;
	int r;

	r = sd_bus_message_read(m, "s", &interface);
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r > 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &name);
		if (r >= 0 && strcmp(name, "Label") == 0) {
			r = sd_bus_message_read(m, "v", "s", &value);
			if (r >= 0 && strcmp(value, w->expect) == 0)
				w->seen = true;
		} else if (r >= 0) {
			r = sd_bus_message_skip(m, "v");
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	return 0;
}

/* Row 4: a change made in sysfs behind sbdd's back, until the signal. */
void row_change_latency(struct bench *b)
{
	struct samples change = {}, ping = {};
	struct change_wait w = {};
	sd_bus_slot *slot = NULL;
	char value[32];
	int r;

	r = sd_bus_match_signal(b->bus, &slot, SBD_SERVICE, b->device_path,
				"org.freedesktop.DBus.Properties", "PropertiesChanged",
				on_properties_changed, &w);
	if (r < 0)
		die("match", r);

	for (unsigned int i = 0; i < b->warmup + b->iterations; i++) {
		uint64_t t0;

		snprintf(value, sizeof(value), "bench-change-%u", i);
		w = (struct change_wait){ .expect = value };
		t0 = now_ns();
		r = sysfs_write(b->label_file, value);
		if (r < 0)
			die(b->label_file, r);
		while (!w.seen) {
			r = sd_bus_process(b->bus, NULL);
			if (r < 0)
				die("process", r);
			if (r == 0 && sd_bus_wait(b->bus, 5 * 1000000ULL) == 0) {
				fprintf(stderr, "bench: no PropertiesChanged for %s in 5 s\n", value);
				exit(1);
			}
		}
		if (i >= b->warmup) {
			samples_add(&change, elapsed_us(t0));
			samples_add(&ping, call_ping(b, SBD_SERVICE));
		}
	}
	result_set(bench_result(b, "4", "sysfs change until PropertiesChanged / Ping", "us",
				GOAL_RATIO_AT_MOST, 2.0), &change, &ping);
	sd_bus_slot_unref(slot);
	samples_free(&change);
	samples_free(&ping);
}

/* Row 7: wake-ups of an idle sbdd in 10 s. */
void row_idle(struct bench *b)
{
	long before, after;
	struct result *r;

	/* Let the previous rows' signals and timers settle first. */
	sleep(1);
	before = proc_context_switches(b->daemon_pid);
	sleep(10);
	after = proc_context_switches(b->daemon_pid);
	r = bench_result(b, "7", "idle wake-ups of sbdd in 10 s", "", GOAL_ABSOLUTE_AT_MOST, 0);
	r->value_median = r->value_p99 = after - before;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	unsigned int *outstanding = userdata;

	if (sd_bus_message_is_method_error(m, NULL)) {
		fprintf(stderr, "bench: pipelined call failed: %s\n",
			sd_bus_message_get_error(m)->message);
		exit(1);
	}
	(*outstanding)--;
	return 0;
}

/* Calls per second with PIPELINE_DEPTH calls in flight. */
static double pipelined_rate(struct bench *b, bool get, unsigned int total)
{
	unsigned int sent = 0, outstanding = 0;
	uint64_t t0 = now_ns();
	int r;

	while (sent < total || outstanding) {
		while (sent < total && outstanding < PIPELINE_DEPTH) {
			if (get)
				r = sd_bus_call_method_async(b->bus, NULL, SBD_SERVICE, b->device_path,
					"org.freedesktop.DBus.Properties", "Get", on_reply,
					&outstanding, "ss", "org.sbd.Sbd1.Device", "Label");
			else
				r = sd_bus_call_method_async(b->bus, NULL, SBD_SERVICE, "/",
					"org.freedesktop.DBus.Peer", "Ping", on_reply,
					&outstanding, "");
			if (r < 0)
				die("async call", r);
			sent++;
			outstanding++;
		}
		r = sd_bus_process(b->bus, NULL);
		if (r < 0)
			die("process", r);
		if (r == 0)
			sd_bus_wait(b->bus, UINT64_MAX);
	}
	return total / (elapsed_us(t0) / 1e6);
}

/* Row 9: pipelined Get throughput against pipelined Ping throughput. */
void row_pipelined(struct bench *b)
{
	struct samples get = {}, ping = {};
	unsigned int total = b->iterations * 2;

	pipelined_rate(b, true, b->warmup);
	for (unsigned int round = 0; round < 5; round++) {
		samples_add(&get, pipelined_rate(b, true, total));
		samples_add(&ping, pipelined_rate(b, false, total));
	}
	result_set(bench_result(b, "9", "pipelined Get / pipelined Ping throughput", "calls/s",
				GOAL_RATIO_AT_LEAST, 0.9), &get, &ping);
	samples_free(&get);
	samples_free(&ping);
}
