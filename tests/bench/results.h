/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/*
 * One line of the benchmark's table: a measure and its limit, median and
 * p99 of each (p99 < 0: none), and the goal the ratio value/limit is held
 * to.  Results travel between the VM runs and the host as TSV lines (see
 * results_write), so that rows from fio, from the udisks2 run and from
 * sbd-bench end up in one table.
 */
enum goal_kind {
	GOAL_AT_MOST,	/* ratio value/limit <= goal */
	GOAL_AT_LEAST,	/* ratio value/limit >= goal (throughputs) */
	GOAL_VALUE,	/* value <= goal, no limit (wake-ups, KiB per device) */
	GOAL_CONTEXT,	/* shown for context: no goal */
	GOAL_PEER,	/* the peer (udisks2) measured the same way: no goal */
};

struct result {
	char row[8];
	char measure[160];
	char unit[12];
	enum goal_kind kind;
	double goal;
	double value_median, value_p99;
	double limit_median, limit_p99;
	double ratio;	/* when set (not NAN): the median of paired ratios */
};

double result_ratio(const struct result *r);
/* "meets", "MISSES", "context", "peer" */
const char *result_verdict(const struct result *r);

/*
 * One TSV line: row, kind, goal, unit, value median, p99, limit median,
 * p99, ratio ("-": value median / limit median), measure.
 */
void results_write(FILE *f, const struct result *r);
/*
 * Append the results of a TSV file to *results; returns how many or -errno
 * (-EBADMSG: some lines were not results; the others were appended).
 */
int results_read(const char *file, struct result **results, size_t *n);

/* The table, ratios first, rows in their table order (stable). */
void results_print(struct result *results, size_t n, bool markdown);
