/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows of performance.md's table that are single requests to sbdd:
 * each request and its limit measured side by side, interleaved, after a
 * warm-up, so that whatever disturbs the machine disturbs both.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define PIPELINE_DEPTH	64
#define PIPELINE_ROUNDS	5

/* Row 1: Get of a cached and of a live attribute, against the floor's Get. */
void row_get(struct bench *b)
{
	struct samples get = {}, floor = {}, live = {}, floor_live = {}, ping = {},
		       floor_ping = {};

	for (unsigned int i = 0; i < b->warmup + b->iterations; i++) {
		double g = call_get(b, SBD_SERVICE, b->device_path, SBD_DEVICE_IFACE, "Label");
		double f = call_floor_file(b, "label");
		double l = call_get(b, SBD_SERVICE, b->device_path, SBD_DEVICE_IFACE,
				    "PowerRuntimeStatus");
		double fl = call_floor_file(b, "runtime_status");
		double p = call_ping(b, SBD_SERVICE);
		double fp = call_ping(b, FLOOR_SERVICE);

		if (i < b->warmup)
			continue;
		samples_add(&get, g);
		samples_add(&floor, f);
		samples_add(&live, l);
		samples_add(&floor_live, fl);
		samples_add(&ping, p);
		samples_add(&floor_ping, fp);
	}
	bench_add_samples(b, "1", GOAL_AT_MOST, 1.1, "us", &get, &floor,
			  "Get of Label (cached) / the floor's Get that preads label");
	bench_add_samples(b, "1", GOAL_AT_MOST, 1.1, "us", &live, &floor_live,
			  "Get of PowerRuntimeStatus (read live) / the floor's Get that preads "
			  "power/runtime_status");
	bench_add_samples(b, "1", GOAL_CONTEXT, 0, "us", &ping, &floor_ping,
			  "Ping of sbdd / Ping of the floor");
	bench_add_samples(b, "1", GOAL_CONTEXT, 0, "us", &floor, &floor_ping,
			  "the floor's Get / the floor's Ping");
	samples_free(&get);
	samples_free(&floor);
	samples_free(&live);
	samples_free(&floor_live);
	samples_free(&ping);
	samples_free(&floor_ping);
}

struct label_wait {
	const char *expect;
	bool seen;
};

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct label_wait *w = userdata;
	const char *interface, *name, *value;
	int r;

	r = sd_bus_message_read(m, "s", &interface);
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r > 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &name);
		if (r >= 0 && strcmp(name, "Label") == 0) {
			r = sd_bus_message_read(m, "v", "s", &value);
			if (r >= 0 && w->expect && strcmp(value, w->expect) == 0)
				w->seen = true;
		} else if (r >= 0) {
			r = sd_bus_message_skip(m, "v");
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	return 0;
}

static sd_bus_slot *watch_label(struct bench *b, struct label_wait *w)
{
	sd_bus_slot *slot = NULL;
	int r;

	r = sd_bus_match_signal(b->bus, &slot, SBD_SERVICE, b->device_path,
				"org.freedesktop.DBus.Properties", "PropertiesChanged",
				on_properties_changed, w);
	if (r < 0)
		bench_die("match", r, NULL);
	return slot;
}

static void wait_label(struct bench *b, struct label_wait *w)
{
	if (!bus_wait_for(b, &w->seen, 10)) {
		fprintf(stderr, "bench: no PropertiesChanged with Label %s in 10 s\n", w->expect);
		exit(1);
	}
}

/* One open, write and read back of the label file, as a client could do it. */
static double direct_write_read(const char *file, const char *value)
{
	char buf[64];
	uint64_t t0 = now_ns();
	int fd = open(file, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		bench_die(file, -errno, NULL);
	if (write(fd, value, strlen(value)) < 0 || pread(fd, buf, sizeof(buf), 0) < 0)
		bench_die(file, -errno, NULL);
	close(fd);
	return elapsed_us(t0);
}

/* Until sbdd's Label is @value (it re-reads on sysfs_notify and uevents). */
static void wait_label_value(struct bench *b, const char *value)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;

	for (unsigned int tries = 0; tries < 10000; tries++) {
		char *label = NULL;
		bool same;
		int r = sd_bus_get_property_string(b->bus, SBD_SERVICE, b->device_path,
						   SBD_DEVICE_IFACE, "Label", &error, &label);

		if (r < 0)
			bench_die("Get Label", r, &error);
		same = strcmp(label, value) == 0;
		free(label);
		if (same)
			return;
		usleep(1000);
	}
	fprintf(stderr, "bench: sbdd never showed Label %s\n", value);
	exit(1);
}

/*
 * Row 2: Set of label; the limit is a Ping plus a direct write and read.
 * No one is subscribed to the signal the Set emits (the bus routes it to
 * no one, as for most Sets).  Beside it, the floor's Set: the least any
 * server can do for the contract's Set, whose signal before the reply is
 * one more message through the bus than a Ping (sbdd is stopped while it
 * runs, see below).  The direct and the
 * floor's writes make sbdd re-read too: wait until it shows the value
 * (untimed), so that this work does not land in the next Set.
 */
void row_set(struct bench *b)
{
	struct samples set = {}, limit = {}, floor = {};
	char value[32], direct[32], by_floor[32];

	for (unsigned int i = 0; i < b->warmup + b->iterations; i++) {
		double s, p, d, f;

		snprintf(value, sizeof(value), "bench-set-%u", i);
		s = call_set_string(b, SBD_SERVICE, b->device_path, SBD_DEVICE_IFACE, "Label",
				    value);
		p = call_ping(b, SBD_SERVICE);
		snprintf(direct, sizeof(direct), "bench-direct-%u", i);
		d = direct_write_read(b->label_file, direct);
		wait_label_value(b, direct);
		/*
		 * sbdd stopped meanwhile: the floor's write is a real change
		 * to sbdd, whose re-read and signal would otherwise run on
		 * the same CPU inside the floor's Set.
		 */
		snprintf(by_floor, sizeof(by_floor), "bench-floor-%u", i);
		kill(b->daemon_pid, SIGSTOP);
		f = call_set_string(b, FLOOR_SERVICE, FLOOR_ROOT "/file/label", FLOOR_FILE_IFACE,
				    "Value", by_floor);
		kill(b->daemon_pid, SIGCONT);
		wait_label_value(b, by_floor);
		if (i < b->warmup)
			continue;
		samples_add(&set, s);
		samples_add(&limit, p + d);
		samples_add(&floor, f);
	}
	bench_add_samples(b, "2", GOAL_AT_MOST, 1.3, "us", &set, &limit,
			  "Set of Label / Ping + direct open, write, pread of label");
	bench_add_samples(b, "2", GOAL_CONTEXT, 0, "us", &set, &floor,
			  "Set of Label / the floor's Set (write, pread, signal, reply)");
	bench_add_samples(b, "2", GOAL_CONTEXT, 0, "us", &floor, &limit,
			  "the floor's Set / Ping + direct open, write, pread of label");
	samples_free(&set);
	samples_free(&limit);
	samples_free(&floor);
}

/* Row 4: a change made in sysfs behind sbdd's back, until the signal. */
void row_change_latency(struct bench *b)
{
	struct samples change = {}, ping = {};
	struct label_wait w = {};
	sd_bus_slot *slot = watch_label(b, &w);
	char value[32];
	int r;

	for (unsigned int i = 0; i < b->warmup + b->iterations; i++) {
		uint64_t t0;

		snprintf(value, sizeof(value), "bench-change-%u", i);
		w = (struct label_wait){ .expect = value };
		t0 = now_ns();
		r = sysfs_write(b->label_file, value);
		if (r < 0)
			bench_die(b->label_file, r, NULL);
		wait_label(b, &w);
		if (i >= b->warmup) {
			samples_add(&change, elapsed_us(t0));
			samples_add(&ping, call_ping(b, SBD_SERVICE));
		}
	}
	bench_add_samples(b, "4", GOAL_AT_MOST, 2.0, "us", &change, &ping,
			  "label written in sysfs until PropertiesChanged / Ping");
	sd_bus_slot_unref(slot);
	samples_free(&change);
	samples_free(&ping);
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	unsigned int *outstanding = userdata;

	if (sd_bus_message_is_method_error(m, NULL))
		bench_die("pipelined call", -EIO, sd_bus_message_get_error(m));
	(*outstanding)--;
	return 0;
}

/* Calls per second with PIPELINE_DEPTH calls in flight. */
static double pipelined_rate(struct bench *b, const char *service, bool get, unsigned int total)
{
	bool floor = strcmp(service, FLOOR_SERVICE) == 0;

	unsigned int sent = 0, outstanding = 0;
	uint64_t t0 = now_ns();
	int r;

	while (sent < total || outstanding) {
		while (sent < total && outstanding < PIPELINE_DEPTH) {
			if (get && floor)
				r = sd_bus_call_method_async(b->bus, NULL, service,
					FLOOR_ROOT "/file/label", "org.freedesktop.DBus.Properties",
					"Get", on_reply, &outstanding, "ss", FLOOR_FILE_IFACE, "Value");
			else if (get)
				r = sd_bus_call_method_async(b->bus, NULL, service, b->device_path,
					"org.freedesktop.DBus.Properties", "Get", on_reply,
					&outstanding, "ss", SBD_DEVICE_IFACE, "Label");
			else
				r = sd_bus_call_method_async(b->bus, NULL, service, "/",
					"org.freedesktop.DBus.Peer", "Ping", on_reply,
					&outstanding, "");
			if (r < 0)
				bench_die("async call", r, NULL);
			sent++;
			outstanding++;
		}
		r = sd_bus_process(b->bus, NULL);
		if (r < 0)
			bench_die("process", r, NULL);
		if (r == 0)
			sd_bus_wait(b->bus, UINT64_MAX);
	}
	return total / (elapsed_us(t0) / 1e6);
}

/* Row 9: pipelined Get throughput against pipelined Ping throughput. */
void row_pipelined(struct bench *b)
{
	struct samples get = {}, ping = {}, floor_get = {}, floor_ping = {};
	unsigned int total = b->iterations * 2;

	pipelined_rate(b, SBD_SERVICE, true, b->warmup);
	pipelined_rate(b, SBD_SERVICE, false, b->warmup);
	pipelined_rate(b, FLOOR_SERVICE, true, b->warmup);
	for (unsigned int round = 0; round < PIPELINE_ROUNDS; round++) {
		samples_add(&get, pipelined_rate(b, SBD_SERVICE, true, total));
		samples_add(&ping, pipelined_rate(b, SBD_SERVICE, false, total));
		samples_add(&floor_get, pipelined_rate(b, FLOOR_SERVICE, true, total));
		samples_add(&floor_ping, pipelined_rate(b, FLOOR_SERVICE, false, total));
	}
	/* Medians of a few rounds: a p99 of five throughputs means nothing. */
	bench_add_values(b, "9", GOAL_AT_LEAST, 0.9, "calls/s", samples_median(&get),
			 samples_median(&ping),
			 "pipelined Get of Label / pipelined Ping, %d in flight", PIPELINE_DEPTH);
	bench_add_values(b, "9", GOAL_CONTEXT, 0, "calls/s", samples_median(&floor_get),
			 samples_median(&floor_ping),
			 "the floor's pipelined Get (a pread each) / its pipelined Ping");
	samples_free(&get);
	samples_free(&ping);
	samples_free(&floor_get);
	samples_free(&floor_ping);
}
