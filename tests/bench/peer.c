/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The peer: udisks2 serving the same sbd disks in the same guest (booted
 * with systemd and udevd), measured the way sbdd is, beside sbdd in the
 * same run: its Get of Block.Size against the floor's Get of the same
 * sysfs file, its Ping, how its GetManagedObjects grows per disk, and its
 * RSS per disk.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define UDISKS_BLOCK_IFACE "org.freedesktop.UDisks2.Block"
#define UDISKS_BLOCKS UDISKS_ROOT "/block_devices/"

/* How many sbd block devices udisks2 shows. */
static unsigned int udisks_sbd_count(struct bench *b)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	unsigned int n = 0;
	const char *path;
	int r;

	r = sd_bus_call_method(b->bus, UDISKS_SERVICE, UDISKS_ROOT,
			       "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", &error,
			       &reply, "");
	if (r < 0)
		bench_die("udisks2 GetManagedObjects", r, &error);
	r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
	while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
		r = sd_bus_message_read_basic(reply, 'o', &path);
		if (r >= 0 && strncmp(path, UDISKS_BLOCKS "sbd", strlen(UDISKS_BLOCKS "sbd")) == 0)
			n++;
		if (r >= 0)
			r = sd_bus_message_skip(reply, "a{sa{sv}}");
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	sd_bus_message_unref(reply);
	return n;
}

static void udisks_wait(struct bench *b, unsigned int count)
{
	for (unsigned int tries = 0; udisks_sbd_count(b) != count; tries++) {
		if (tries == 1200)
			bench_die("udisks2 never showed all sbd disks", -ETIMEDOUT, NULL);
		usleep(100000);
	}
}

static void peer_get(struct bench *b)
{
	struct samples get = {}, floor = {}, ping = {}, floor_ping = {}, sbdd = {},
		       floor_label = {};
	char path[128];

	snprintf(path, sizeof(path), "%s%s", UDISKS_BLOCKS, b->device);
	for (unsigned int i = 0; i < b->warmup + b->iterations; i++) {
		double g = call_get(b, UDISKS_SERVICE, path, UDISKS_BLOCK_IFACE, "Size");
		double f = call_floor_file(b, "block_size");
		double p = call_ping(b, UDISKS_SERVICE);
		double fp = call_ping(b, FLOOR_SERVICE);
		double s = call_get(b, SBD_SERVICE, b->device_path, SBD_DEVICE_IFACE, "Label");
		double fl = call_floor_file(b, "label");

		if (i < b->warmup)
			continue;
		samples_add(&get, g);
		samples_add(&floor, f);
		samples_add(&ping, p);
		samples_add(&floor_ping, fp);
		samples_add(&sbdd, s);
		samples_add(&floor_label, fl);
	}
	bench_add_samples(b, "1", GOAL_PEER, 0, "us", &get, &floor,
			  "udisks2: Get of Block.Size / the floor's Get that preads "
			  "/sys/block/%s/size (systemd guest)", b->device);
	bench_add_samples(b, "1", GOAL_PEER, 0, "us", &ping, &floor_ping,
			  "udisks2: Ping of udisksd / Ping of the floor (systemd guest)");
	bench_add_samples(b, "1", GOAL_CONTEXT, 0, "us", &sbdd, &floor_label,
			  "sbdd beside udisks2: Get of Label / the floor's Get of label "
			  "(systemd guest)");
	samples_free(&get);
	samples_free(&floor);
	samples_free(&ping);
	samples_free(&floor_ping);
	samples_free(&sbdd);
	samples_free(&floor_label);
}

struct tree_times {
	double udisks, sbdd, ping_udisks, ping_sbdd;
	long udisks_kib;
};

static struct tree_times peer_tree_at(struct bench *b, unsigned int n, int udisks_pid)
{
	struct samples u = {}, s = {}, pu = {}, ps = {};
	unsigned int iterations = n >= 100 ? 20 : 100;
	struct tree_times t;

	set_device_count(b, n);
	udisks_wait(b, n);
	sleep(2); /* udisksd probes new disks after it announced them */
	t.udisks_kib = proc_rss_kib(udisks_pid);
	for (unsigned int i = 0; i < 2 + iterations; i++) {
		double du = call_managed_objects(b, UDISKS_SERVICE, UDISKS_ROOT, NULL);
		double ds = call_managed_objects(b, SBD_SERVICE, SBD_ROOT, NULL);
		double dpu = call_ping(b, UDISKS_SERVICE);
		double dps = call_ping(b, SBD_SERVICE);

		if (i < 2)
			continue;
		samples_add(&u, du);
		samples_add(&s, ds);
		samples_add(&pu, dpu);
		samples_add(&ps, dps);
	}
	t.udisks = samples_median(&u);
	t.sbdd = samples_median(&s);
	t.ping_udisks = samples_median(&pu);
	t.ping_sbdd = samples_median(&ps);
	bench_progress("%u disks: GetManagedObjects udisks2 %.0f us, sbdd %.0f us", n,
		       t.udisks, t.sbdd);
	samples_free(&u);
	samples_free(&s);
	samples_free(&pu);
	samples_free(&ps);
	return t;
}

void rows_udisks(struct bench *b)
{
	unsigned int n0 = b->sizes[0], n1 = b->sizes[b->n_sizes - 1];
	struct tree_times t0, t1;
	int pid;

	call_ping(b, UDISKS_SERVICE); /* D-Bus activation */
	pid = service_pid(b, UDISKS_SERVICE);
	set_device_count(b, 1);
	udisks_wait(b, 1);
	peer_get(b);
	if (n1 <= n0)
		return;

	t0 = peer_tree_at(b, n0, pid);
	t1 = peer_tree_at(b, n1, pid);
	bench_add_values(b, "3", GOAL_PEER, 0, "us", (t1.udisks - t0.udisks) / (n1 - n0),
			 t1.ping_udisks,
			 "udisks2: GetManagedObjects growth per disk, %u to %u disks (%.1f ms at "
			 "%u) / its Ping (systemd guest)", n0, n1, t1.udisks / 1000, n1);
	bench_add_values(b, "3", GOAL_CONTEXT, 0, "us", (t1.sbdd - t0.sbdd) / (n1 - n0),
			 t1.ping_sbdd,
			 "sbdd beside udisks2: GetManagedObjects growth per disk, %u to %u disks "
			 "(%.1f ms at %u) / its Ping (systemd guest)", n0, n1, t1.sbdd / 1000, n1);
	bench_add_values(b, "6", GOAL_PEER, 0, "KiB",
			 (double)(proc_rss_kib(pid) - t0.udisks_kib) / (n1 - n0), -1,
			 "udisks2: RSS growth per disk, %u to %u disks (%.1f MiB at %u)", n0, n1,
			 proc_rss_kib(pid) / 1024.0, n1);
	set_device_count(b, 1);
}
