/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include <systemd/sd-bus.h>

#include "stats.h"

#define SBD_SERVICE	"org.sbd.Sbd1"
#define SBD_ROOT	"/org/sbd/Sbd1"
#define FLOOR_SERVICE	"org.sbd.Floor"
#define MAX_RESULTS	32

enum goal_kind {
	GOAL_RATIO_AT_MOST,	/* value / limit <= goal */
	GOAL_RATIO_AT_LEAST,	/* value / limit >= goal (throughputs) */
	GOAL_ABSOLUTE_AT_MOST,	/* value <= goal, no limit */
};

struct result {
	char row[8];
	char measure[96];
	char unit[8];
	double value_median, value_p99;
	double limit_median, limit_p99;
	double ratio;
	double goal;
	enum goal_kind kind;
};

struct bench {
	sd_bus *bus;
	const char *device;		/* "sbd0" */
	char device_path[128];		/* its object path */
	char label_file[256];		/* its label in sysfs */
	const char *sysfs;		/* "/sys" */
	unsigned int iterations, warmup;
	unsigned int sizes[8], n_sizes;
	unsigned int current_devices;	/* devices the module holds now */
	unsigned int startup_devices;
	int daemon_pid, floor_pid;
	struct result results[MAX_RESULTS];
	unsigned int n_results;
};

struct result *bench_result(struct bench *b, const char *row, const char *measure,
			    const char *unit, enum goal_kind kind, double goal);
void result_set(struct result *r, struct samples *value, struct samples *limit);

/* Calls; each returns the time it took in µs, or exits on error. */
double call_ping(struct bench *b, const char *service);
double call_get(struct bench *b, const char *service, const char *path,
		const char *interface, const char *property);
void wait_for_device_count(struct bench *b, unsigned int count);
int sysfs_write(const char *path, const char *value);

void set_device_count(struct bench *b, unsigned int count);

void row_get(struct bench *b);
void row_set(struct bench *b);
void row_managed_objects(struct bench *b);
void row_change_latency(struct bench *b);
void row_idle(struct bench *b);
void row_pipelined(struct bench *b);
void row_startup(struct bench *b, const char *command);
