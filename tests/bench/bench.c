/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbd-bench: measures sbdd against the physical limits of performance.md,
 * every figure a ratio to a floor measured in the same run.  It expects
 * sbdd (org.sbd.Sbd1) and sbd-bench-floor (org.sbd.Floor) on the system
 * bus and the sbd module with device sbd0; tests/bench/run-bench sets that
 * up in the VM.  Block I/O (row 8) is fio's, in the driver script.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(void)
{
	printf("Usage: sbd-bench [OPTIONS]\n"
	       "  --device NAME         device to measure (sbd0)\n"
	       "  --iterations N        timed calls per measure (2000)\n"
	       "  --warmup N            untimed calls first (200)\n"
	       "  --sizes N,N,...       device counts for GetManagedObjects (1,100,1000,10000)\n"
	       "  --daemon-pid PID      sbdd's pid (RSS, idle wake-ups, start-up)\n"
	       "  --floor-pid PID       the floor's pid (RSS)\n"
	       "  --startup CMD         measure start-up by restarting sbdd as CMD\n"
	       "  --startup-devices N   devices present for the start-up measure (1000)\n"
	       "  --no-idle             skip the 10 s idle measure\n"
	       "  --markdown            print the table as Markdown\n");
}

static int parse_sizes(struct bench *b, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;

	b->n_sizes = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (b->n_sizes == sizeof(b->sizes) / sizeof(b->sizes[0]) || atoi(tok) < 1) {
			free(copy);
			return -EINVAL;
		}
		b->sizes[b->n_sizes++] = atoi(tok);
	}
	free(copy);
	return b->n_sizes ? 0 : -EINVAL;
}

static const char *verdict(const struct result *r)
{
	switch (r->kind) {
	case GOAL_RATIO_AT_MOST:
		if (r->goal == 0)
			return "context";
		return r->ratio <= r->goal ? "meets" : "MISSES";
	case GOAL_RATIO_AT_LEAST:
		return r->ratio >= r->goal ? "meets" : "MISSES";
	case GOAL_ABSOLUTE_AT_MOST:
		return r->value_median <= r->goal ? "meets" : "MISSES";
	}
	return "?";
}

static void goal_text(const struct result *r, char *buf, size_t size)
{
	if (r->kind == GOAL_RATIO_AT_MOST && r->goal == 0)
		snprintf(buf, size, "-");
	else if (r->kind == GOAL_RATIO_AT_MOST)
		snprintf(buf, size, "<= %.1fx", r->goal);
	else if (r->kind == GOAL_RATIO_AT_LEAST)
		snprintf(buf, size, ">= %.1fx", r->goal);
	else
		snprintf(buf, size, "<= %g %s", r->goal, r->unit);
}

static void print_table(const struct bench *b, bool markdown)
{
	const char *sep = markdown ? " | " : "  ";

	if (markdown)
		printf("| row | ratio | goal | verdict | measure | sbdd median (p99) | limit median (p99) |\n"
		       "|---|---|---|---|---|---|---|\n");
	else
		printf("%-4s%s%-8s%s%-9s%s%-7s%s%s\n", "row", sep, "ratio", sep, "goal", sep,
		       "verdict", sep, "measure: sbdd median (p99) / limit median (p99)");

	for (unsigned int i = 0; i < b->n_results; i++) {
		const struct result *r = &b->results[i];
		char ratio[16], goal[24];

		if (r->kind == GOAL_ABSOLUTE_AT_MOST)
			snprintf(ratio, sizeof(ratio), "%.2f", r->value_median);
		else
			snprintf(ratio, sizeof(ratio), "%.2fx", r->ratio);
		goal_text(r, goal, sizeof(goal));
		if (markdown)
			printf("| %s | %s | %s | %s | %s | %.1f (%.1f) %s | %.1f (%.1f) %s |\n",
			       r->row, ratio, goal, verdict(r), r->measure,
			       r->value_median, r->value_p99, r->unit,
			       r->limit_median, r->limit_p99, r->unit);
		else
			printf("%-4s%s%-8s%s%-9s%s%-7s%s%s: %.1f (%.1f) / %.1f (%.1f) %s\n",
			       r->row, sep, ratio, sep, goal, sep, verdict(r), sep, r->measure,
			       r->value_median, r->value_p99, r->limit_median, r->limit_p99, r->unit);
	}
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "sizes", required_argument, NULL, 's' },
		{ "daemon-pid", required_argument, NULL, 'p' },
		{ "floor-pid", required_argument, NULL, 'f' },
		{ "startup", required_argument, NULL, 'S' },
		{ "startup-devices", required_argument, NULL, 'D' },
		{ "no-idle", no_argument, NULL, 'I' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct bench b = {
		.device = "sbd0", .sysfs = "/sys", .iterations = 2000, .warmup = 200,
		.sizes = { 1, 100, 1000, 10000 }, .n_sizes = 4, .current_devices = 1,
		.startup_devices = 1000,
	};
	const char *startup = NULL;
	bool idle = true, markdown = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (c) {
		case 'd': b.device = optarg; break;
		case 'i': b.iterations = atoi(optarg); break;
		case 'w': b.warmup = atoi(optarg); break;
		case 's':
			if (parse_sizes(&b, optarg) < 0) {
				fprintf(stderr, "bench: bad --sizes %s\n", optarg);
				return 2;
			}
			break;
		case 'p': b.daemon_pid = atoi(optarg); break;
		case 'f': b.floor_pid = atoi(optarg); break;
		case 'S': startup = optarg; break;
		case 'D': b.startup_devices = atoi(optarg); break;
		case 'I': idle = false; break;
		case 'm': markdown = true; break;
		case 'h': usage(); return 0;
		default: return 2;
		}
	}
	if (!b.daemon_pid || !b.floor_pid || b.iterations < 1) {
		fprintf(stderr, "bench: --daemon-pid and --floor-pid are required\n");
		return 2;
	}
	snprintf(b.device_path, sizeof(b.device_path), "%s/devices/%s", SBD_ROOT, b.device);
	snprintf(b.label_file, sizeof(b.label_file), "%s/devices/system/sbd/%s/label",
		 b.sysfs, b.device);

	r = sd_bus_open_system(&b.bus);
	if (r < 0) {
		fprintf(stderr, "bench: system bus: %s\n", strerror(-r));
		return 1;
	}

	row_get(&b);
	row_set(&b);
	row_change_latency(&b);
	row_pipelined(&b);
	row_managed_objects(&b);
	if (idle)
		row_idle(&b);
	if (startup) {
		set_device_count(&b, b.startup_devices);
		row_startup(&b, startup);
		set_device_count(&b, 1);
	}

	print_table(&b, markdown);
	sd_bus_flush_close_unref(b.bus);
	return 0;
}
