/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rows 3 and 6: GetManagedObjects at each device count against the floor
 * serving a copy of the same tree from memory, and the memory each mirrored
 * device costs sbdd (and the guest); row 7: wake-ups of an idle sbdd.
 */
#include <unistd.h>

#include "bench.h"

struct memory {
	long sbdd_kib, floor_kib, guest_available_kib;
	unsigned int devices;
};

static struct memory memory_now(struct bench *b, unsigned int devices)
{
	return (struct memory){
		.sbdd_kib = proc_rss_kib(b->daemon_pid),
		.floor_kib = proc_rss_kib(b->floor_pid),
		.guest_available_kib = meminfo_kib("MemAvailable:"),
		.devices = devices,
	};
}

/* Row 6 from the smallest and the largest size. */
static void rows_memory(struct bench *b, const struct memory *first, const struct memory *last)
{
	double n = (double)last->devices - first->devices;

	if (n <= 0)
		return;
	bench_add_values(b, "6", GOAL_VALUE, 4.0, "KiB",
			 (last->sbdd_kib - first->sbdd_kib) / n,
			 (last->floor_kib - first->floor_kib) / n,
			 "RSS growth per device, %u to %u devices: sbdd / the floor per object "
			 "(sbdd %.1f MiB at %u)", first->devices, last->devices,
			 last->sbdd_kib / 1024.0, last->devices);
	bench_add_values(b, "6", GOAL_CONTEXT, 0, "KiB",
			 (first->guest_available_kib - last->guest_available_kib) / n,
			 (last->sbdd_kib - first->sbdd_kib) / n,
			 "the guest's MemAvailable drop per device (kernel + sbdd + bus) / sbdd's "
			 "RSS growth per device");
}

/*
 * GetManagedObjects of sbdd and of the floor, interleaved.  Each call is
 * timed alone; the number of calls shrinks with the size so that the
 * largest size stays within minutes under TCG.
 */
static void managed_objects_at(struct bench *b, unsigned int n, unsigned int floor_objects,
			       double *per_device)
{
	unsigned int iterations = n >= 10000 ? 5 : n >= 1000 ? 20 : n >= 100 ? 100 :
				  b->iterations / 4 + 1;
	unsigned int warmup = n >= 1000 ? 1 : b->warmup / 10 + 1;
	struct samples sbdd = {}, floor = {};
	unsigned int objects = 0;

	if (iterations > b->iterations)
		iterations = b->iterations;
	for (unsigned int i = 0; i < warmup + iterations; i++) {
		double d = call_managed_objects(b, SBD_SERVICE, SBD_ROOT, &objects);
		double f = call_managed_objects(b, FLOOR_SERVICE, FLOOR_TREE, NULL);

		if (i < warmup)
			continue;
		samples_add(&sbdd, d);
		samples_add(&floor, f);
	}
	if (objects != floor_objects)
		bench_progress("sbdd answered %u objects, the floor copied %u", objects,
			       floor_objects);
	*per_device = samples_median(&sbdd) / n;
	bench_add_samples(b, "3", GOAL_AT_MOST, 1.5, "us", &sbdd, &floor,
			  "GetManagedObjects, %u devices (%u objects, %.0f us per device) / "
			  "the floor from memory (%.0f us per object)", n, objects,
			  samples_median(&sbdd) / n, samples_median(&floor) / floor_objects);
	samples_free(&sbdd);
	samples_free(&floor);
}

void row_managed_objects(struct bench *b)
{
	struct memory first = {}, last = {};
	double per_device[MAX_SIZES];

	for (unsigned int s = 0; s < b->n_sizes; s++) {
		unsigned int n = b->sizes[s], floor_objects;
		struct memory m;

		/*
		 * Memory before any GetManagedObjects at this size (its reply is
		 * not the tree); the floor's once it holds its copy.
		 */
		set_device_count(b, n);
		m = memory_now(b, n);
		floor_objects = floor_load(b, SBD_SERVICE, SBD_ROOT);
		m.floor_kib = proc_rss_kib(b->floor_pid);
		if (s == 0)
			first = m;
		else if (s == b->n_sizes - 1)
			last = m;
		managed_objects_at(b, n, floor_objects, &per_device[s]);
	}
	/* Linear: the cost per device stays put between the two largest sizes. */
	if (b->n_sizes >= 2 && b->sizes[b->n_sizes - 2] >= 100) {
		unsigned int s = b->n_sizes - 1;

		bench_add_values(b, "3", GOAL_AT_MOST, 1.25, "us", per_device[s],
				 per_device[s - 1],
				 "linear: GetManagedObjects per device at %u / per device at %u",
				 b->sizes[s], b->sizes[s - 1]);
	}
	if (b->n_sizes >= 2)
		rows_memory(b, &first, &last);
	set_device_count(b, 1);
}

/* Row 7: wake-ups of an idle sbdd in 10 s, once it has settled. */
void row_idle(struct bench *b)
{
	long before, after;

	/* Until a second passes without a context switch (at most 60 s). */
	after = proc_context_switches(b->daemon_pid);
	for (unsigned int i = 0; i < 60; i++) {
		before = after;
		sleep(1);
		after = proc_context_switches(b->daemon_pid);
		if (after == before)
			break;
	}
	before = proc_context_switches(b->daemon_pid);
	sleep(10);
	after = proc_context_switches(b->daemon_pid);
	bench_add_values(b, "7", GOAL_VALUE, 0, "", after - before, -1,
			 "wake-ups (context switches) of an idle sbdd in 10 s");
}
