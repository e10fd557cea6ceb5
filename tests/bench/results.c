/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The benchmark's results: TSV in and out, verdicts and the table. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

static const char *const kind_names[] = {
	[GOAL_AT_MOST] = "at-most",
	[GOAL_AT_LEAST] = "at-least",
	[GOAL_VALUE] = "value",
	[GOAL_CONTEXT] = "context",
	[GOAL_PEER] = "peer",
};

/* A result without a limit is judged on its value. */
static bool result_is_value(const struct result *r)
{
	return r->kind == GOAL_VALUE || r->limit_median < 0;
}

double result_ratio(const struct result *r)
{
	if (result_is_value(r))
		return r->value_median;
	if (!isnan(r->ratio))
		return r->ratio;
	return r->limit_median > 0 ? r->value_median / r->limit_median : NAN;
}

const char *result_verdict(const struct result *r)
{
	double ratio = result_ratio(r);

	switch (r->kind) {
	case GOAL_AT_MOST:
	case GOAL_VALUE:
		return isnan(ratio) ? "no data" : ratio <= r->goal ? "meets" : "MISSES";
	case GOAL_AT_LEAST:
		return isnan(ratio) ? "no data" : ratio >= r->goal ? "meets" : "MISSES";
	case GOAL_CONTEXT:
		return "context";
	case GOAL_PEER:
		return "peer";
	}
	return "?";
}

void results_write(FILE *f, const struct result *r)
{
	char ratio[32] = "-";

	if (!isnan(r->ratio))
		snprintf(ratio, sizeof(ratio), "%.4f", r->ratio);
	fprintf(f, "%s\t%s\t%g\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\n", r->row,
		kind_names[r->kind], r->goal, *r->unit ? r->unit : "-", r->value_median, r->value_p99,
		r->limit_median, r->limit_p99, ratio, r->measure);
	fflush(f);
}

static int parse_line(char *line, struct result *r)
{
	char *field[10], *save = NULL;
	int i;

	line[strcspn(line, "\n")] = '\0';
	for (i = 0; i < 10; i++) {
		field[i] = strtok_r(i ? NULL : line, "\t", &save);
		if (!field[i])
			return -EINVAL;
	}
	*r = (struct result){};
	snprintf(r->row, sizeof(r->row), "%s", field[0]);
	for (i = 0; i < (int)(sizeof(kind_names) / sizeof(kind_names[0])); i++)
		if (strcmp(field[1], kind_names[i]) == 0)
			break;
	if (i == sizeof(kind_names) / sizeof(kind_names[0]))
		return -EINVAL;
	r->kind = i;
	r->goal = strtod(field[2], NULL);
	snprintf(r->unit, sizeof(r->unit), "%s", strcmp(field[3], "-") ? field[3] : "");
	r->value_median = strtod(field[4], NULL);
	r->value_p99 = strtod(field[5], NULL);
	r->limit_median = strtod(field[6], NULL);
	r->limit_p99 = strtod(field[7], NULL);
	r->ratio = strcmp(field[8], "-") ? strtod(field[8], NULL) : NAN;
	snprintf(r->measure, sizeof(r->measure), "%s", field[9]);
	return 0;
}

int results_read(const char *file, struct result **results, size_t *n)
{
	char line[512];
	int count = 0, lineno = 0, bad = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct result *more;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		more = realloc(*results, (*n + 1) * sizeof(**results));
		if (!more) {
			fclose(f);
			return -ENOMEM;
		}
		*results = more;
		if (parse_line(line, &more[*n]) < 0) {
			fprintf(stderr, "bench: %s:%d: not a result line\n", file, lineno);
			bad++;
			continue;
		}
		(*n)++;
		count++;
	}
	fclose(f);
	return bad ? -EBADMSG : count;
}

/* Table order: the row's number, then the order the results came in. */
static int row_number(const char *row)
{
	return atoi(row);
}

static void sort_rows(struct result *results, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct result r = results[i];
		size_t j = i;

		while (j > 0 && row_number(results[j - 1].row) > row_number(r.row)) {
			results[j] = results[j - 1];
			j--;
		}
		results[j] = r;
	}
}

/* A value with its unit, scaled to ms or s when large. */
static void format_value(char *buf, size_t size, double v, const char *unit)
{
	if (v < 0 || isnan(v))
		snprintf(buf, size, "-");
	else if (strcmp(unit, "us") == 0 && v >= 1e6)
		snprintf(buf, size, "%.2f s", v / 1e6);
	else if (strcmp(unit, "us") == 0 && v >= 1e4)
		snprintf(buf, size, "%.1f ms", v / 1e3);
	else if (v >= 100 || v == floor(v))
		snprintf(buf, size, "%.0f%s%s", v, *unit ? " " : "", unit);
	else
		snprintf(buf, size, "%.2f%s%s", v, *unit ? " " : "", unit);
}

static void format_pair(char *buf, size_t size, double median, double p99, const char *unit)
{
	char m[32], p[32];

	format_value(m, sizeof(m), median, unit);
	if (p99 < 0 || isnan(p99)) {
		snprintf(buf, size, "%s", m);
		return;
	}
	format_value(p, sizeof(p), p99, unit);
	snprintf(buf, size, "%s (p99 %s)", m, p);
}

static void format_ratio(char *buf, size_t size, const struct result *r)
{
	double ratio = result_ratio(r);

	if (isnan(ratio))
		snprintf(buf, size, "-");
	else if (result_is_value(r))
		format_value(buf, size, ratio, r->unit);
	else
		snprintf(buf, size, "%.2fx", ratio);
}

static void format_goal(char *buf, size_t size, const struct result *r)
{
	switch (r->kind) {
	case GOAL_AT_MOST:
		snprintf(buf, size, "<= %gx", r->goal);
		break;
	case GOAL_AT_LEAST:
		snprintf(buf, size, ">= %gx", r->goal);
		break;
	case GOAL_VALUE:
		snprintf(buf, size, "<= %g%s%s", r->goal, *r->unit ? " " : "", r->unit);
		break;
	default:
		snprintf(buf, size, "-");
	}
}

void results_print(struct result *results, size_t n, bool markdown)
{
	sort_rows(results, n);
	if (markdown)
		printf("| row | ratio | goal | verdict | measure | value | limit |\n"
		       "|---|---|---|---|---|---|---|\n");
	else
		printf("%-4s %-9s %-9s %-7s  %s\n", "row", "ratio", "goal", "verdict",
		       "measure: value / limit");

	for (size_t i = 0; i < n; i++) {
		const struct result *r = &results[i];
		char ratio[32], goal[32], value[80], limit[80];

		format_ratio(ratio, sizeof(ratio), r);
		format_goal(goal, sizeof(goal), r);
		format_pair(value, sizeof(value), r->value_median, r->value_p99, r->unit);
		format_pair(limit, sizeof(limit), r->limit_median, r->limit_p99, r->unit);
		if (markdown)
			printf("| %s | %s | %s | %s | %s | %s | %s |\n", r->row, ratio, goal,
			       result_verdict(r), r->measure, value, limit);
		else
			printf("%-4s %-9s %-9s %-7s  %s: %s / %s\n", r->row, ratio, goal,
			       result_verdict(r), r->measure, value, limit);
	}
}
