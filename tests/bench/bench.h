/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include <systemd/sd-bus.h>

#include "results.h"
#include "stats.h"

#define SBD_SERVICE	"org.sbd.Sbd1"
#define SBD_ROOT	"/org/sbd/Sbd1"
#define SBD_DEVICE_IFACE "org.sbd.Sbd1.Device"
#define FLOOR_SERVICE	"org.sbd.Floor"
#define FLOOR_ROOT	"/org/sbd/Floor"
#define FLOOR_TREE	"/org/sbd/Floor/tree"
#define FLOOR_FILE_IFACE "org.sbd.Floor.File"
#define UDISKS_SERVICE	"org.freedesktop.UDisks2"
#define UDISKS_ROOT	"/org/freedesktop/UDisks2"
#define MAX_SIZES	8
/* Big GetManagedObjects replies under TCG take seconds: never time out. */
#define CALL_TIMEOUT_US	(600ULL * 1000000ULL)

struct bench {
	sd_bus *bus;
	const char *device;		/* "sbd0" */
	char device_path[128];		/* its object path */
	char label_file[256];		/* its label in sysfs */
	unsigned int iterations, warmup;
	unsigned int sizes[MAX_SIZES], n_sizes;
	unsigned int current_devices;	/* devices the module holds now */
	unsigned int startup_devices;
	char **startup_argv;		/* sbdd's command line for row 5 */
	const char *daemon_pid_file;	/* where the pid of the sbdd left running goes */
	int daemon_pid, floor_pid;
	FILE *results;			/* TSV, or NULL */
	struct result *table;
	size_t n_table;
};

void bench_add(struct bench *b, const struct result *r);
/* A result from two series of samples (limit may be NULL). */
void bench_add_samples(struct bench *b, const char *row, enum goal_kind kind, double goal,
		       const char *unit, struct samples *value, struct samples *limit,
		       const char *measure_fmt, ...) __attribute__((format(printf, 8, 9)));
/* A result from single numbers (no p99). */
void bench_add_values(struct bench *b, const char *row, enum goal_kind kind, double goal,
		      const char *unit, double value, double limit,
		      const char *measure_fmt, ...) __attribute__((format(printf, 8, 9)));
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_die(const char *what, int r, const sd_bus_error *error) __attribute__((noreturn));

/* calls.c: each call returns the time it took in µs, or exits on error. */
double call_ping(struct bench *b, const char *service);
double call_get(struct bench *b, const char *service, const char *path,
		const char *interface, const char *property);
double call_managed_objects(struct bench *b, const char *service, const char *root,
			    unsigned int *objects);
/* Properties.Set of a string property. */
double call_set_string(struct bench *b, const char *service, const char *path,
		       const char *interface, const char *property, const char *value);
double call_floor_file(struct bench *b, const char *name);
unsigned int floor_load(struct bench *b, const char *service, const char *root);
int service_pid(struct bench *b, const char *service);
unsigned int sbdd_device_count(struct bench *b);
int sysfs_write(const char *path, const char *value);
/* Make the module hold sbd0..sbd<count-1> and wait until sbdd shows them. */
void set_device_count(struct bench *b, unsigned int count);
/* Dispatch bus messages until *done or timeout; false on timeout. */
bool bus_wait_for(struct bench *b, const bool *done, unsigned int timeout_s);

/* rows.c */
void row_get(struct bench *b);
void row_set(struct bench *b);
void row_change_latency(struct bench *b);
void row_pipelined(struct bench *b);
/* rows-tree.c */
void row_managed_objects(struct bench *b);
void row_idle(struct bench *b);
/* startup.c */
void row_startup(struct bench *b);
/* peer.c */
void rows_udisks(struct bench *b);
