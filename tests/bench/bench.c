/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbd-bench: measures sbdd against the physical limits of performance.md,
 * each figure a ratio to a limit measured in the same run, side by side.
 * It expects sbdd (org.sbd.Sbd1) and sbd-bench-floor (org.sbd.Floor) on the
 * system bus and the sbd module with device sbd0: tests/bench/run-bench
 * sets that up in the VM (bench-vm.sh).  Block I/O (row 8) is fio's, in
 * the scenario; the table of several runs is printed with --table.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(void)
{
	printf("Usage: sbd-bench [OPTIONS]            measure, print the table\n"
	       "       sbd-bench --table FILE... [--markdown]   print the table of result files\n"
	       "  --rows LIST           get,set,change,pipelined,tree,idle,startup,udisks\n"
	       "                        (default: all but udisks)\n"
	       "  --device NAME         device to measure (sbd0)\n"
	       "  --iterations N        timed calls per measure (2000)\n"
	       "  --warmup N            untimed calls first (200)\n"
	       "  --sizes N,N,...       device counts for GetManagedObjects (1,100,1000,10000)\n"
	       "  --daemon-pid PID      sbdd's pid (RSS, idle wake-ups, start-up)\n"
	       "  --floor-pid PID       the floor's pid (RSS)\n"
	       "  --startup CMD         sbdd's command line (split at spaces) for start-up\n"
	       "  --startup-devices N   devices present for the start-up measure (1000)\n"
	       "  --daemon-pid-file F   write the pid of the sbdd left running there\n"
	       "  --results FILE        append each result to FILE as TSV\n"
	       "  --markdown            print the table as Markdown\n");
}

void bench_progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void bench_die(const char *what, int r, const sd_bus_error *error)
{
	fprintf(stderr, "bench: %s: %s\n", what,
		error && error->message ? error->message : strerror(r < 0 ? -r : r));
	exit(1);
}

void bench_add(struct bench *b, const struct result *r)
{
	struct result *t = realloc(b->table, (b->n_table + 1) * sizeof(*t));

	if (!t)
		bench_die("results", -ENOMEM, NULL);
	b->table = t;
	t[b->n_table++] = *r;
	if (b->results)
		results_write(b->results, r);
	bench_progress("row %s: %s: %.1f / %.1f %s", r->row, r->measure, r->value_median,
		       r->limit_median, r->unit);
}

static void __attribute__((format(printf, 6, 0)))
result_init(struct result *r, const char *row, enum goal_kind kind, double goal,
	    const char *unit, const char *fmt, va_list ap)
{
	*r = (struct result){ .kind = kind, .goal = goal, .value_p99 = -1, .limit_p99 = -1,
			      .limit_median = -1, .ratio = NAN };
	snprintf(r->row, sizeof(r->row), "%s", row);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	vsnprintf(r->measure, sizeof(r->measure), fmt, ap);
}

void bench_add_samples(struct bench *b, const char *row, enum goal_kind kind, double goal,
		       const char *unit, struct samples *value, struct samples *limit,
		       const char *measure_fmt, ...)
{
	struct result r;
	va_list ap;

	va_start(ap, measure_fmt);
	result_init(&r, row, kind, goal, unit, measure_fmt, ap);
	va_end(ap);
	r.value_median = samples_median(value);
	r.value_p99 = samples_p99(value);
	if (limit) {
		r.limit_median = samples_median(limit);
		r.limit_p99 = samples_p99(limit);
	}
	bench_add(b, &r);
}

void bench_add_values(struct bench *b, const char *row, enum goal_kind kind, double goal,
		      const char *unit, double value, double limit, const char *measure_fmt, ...)
{
	struct result r;
	va_list ap;

	va_start(ap, measure_fmt);
	result_init(&r, row, kind, goal, unit, measure_fmt, ap);
	va_end(ap);
	r.value_median = value;
	r.limit_median = limit;
	bench_add(b, &r);
}

static int parse_sizes(struct bench *b, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;

	b->n_sizes = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (b->n_sizes == MAX_SIZES || atoi(tok) < 1 ||
		    (b->n_sizes && (unsigned int)atoi(tok) <= b->sizes[b->n_sizes - 1])) {
			free(copy);
			return -EINVAL;
		}
		b->sizes[b->n_sizes++] = atoi(tok);
	}
	free(copy);
	return b->n_sizes ? 0 : -EINVAL;
}

/* "a b c" -> { "a", "b", "c", NULL } */
static char **split_words(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	char **argv = calloc(strlen(s) / 2 + 2, sizeof(char *));
	size_t n = 0;

	if (!copy || !argv)
		bench_die("startup", -ENOMEM, NULL);
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	return argv;
}

static bool has_row(const char *rows, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = rows; (p = strstr(p, name)); p += len)
		if ((p == rows || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

static int print_tables(int argc, char **argv, int first, bool markdown)
{
	struct result *results = NULL;
	size_t n = 0;
	int status = 0;

	for (int i = first; i < argc; i++) {
		int r = results_read(argv[i], &results, &n);

		if (r == -EBADMSG) {
			status = 1;	/* a row lost is a table that lies */
		} else if (r < 0) {
			fprintf(stderr, "bench: %s: %s\n", argv[i], strerror(-r));
			return 1;
		}
	}
	results_print(results, n, markdown);
	free(results);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "rows", required_argument, NULL, 'r' },
		{ "device", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "sizes", required_argument, NULL, 's' },
		{ "daemon-pid", required_argument, NULL, 'p' },
		{ "floor-pid", required_argument, NULL, 'f' },
		{ "startup", required_argument, NULL, 'S' },
		{ "startup-devices", required_argument, NULL, 'D' },
		{ "daemon-pid-file", required_argument, NULL, 'P' },
		{ "results", required_argument, NULL, 'R' },
		{ "table", no_argument, NULL, 'T' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct bench b = {
		.device = "sbd0", .iterations = 2000, .warmup = 200,
		.sizes = { 1, 100, 1000, 10000 }, .n_sizes = 4, .current_devices = 1,
		.startup_devices = 1000,
	};
	const char *rows = "get,set,change,pipelined,tree,idle,startup";
	bool markdown = false, table = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (c) {
		case 'r': rows = optarg; break;
		case 'd': b.device = optarg; break;
		case 'i': b.iterations = atoi(optarg); break;
		case 'w': b.warmup = atoi(optarg); break;
		case 's':
			if (parse_sizes(&b, optarg) < 0) {
				fprintf(stderr, "bench: bad --sizes %s (increasing counts)\n", optarg);
				return 2;
			}
			break;
		case 'p': b.daemon_pid = atoi(optarg); break;
		case 'f': b.floor_pid = atoi(optarg); break;
		case 'S': b.startup_argv = split_words(optarg); break;
		case 'D': b.startup_devices = atoi(optarg); break;
		case 'P': b.daemon_pid_file = optarg; break;
		case 'R':
			b.results = fopen(optarg, "ae");
			if (!b.results) {
				fprintf(stderr, "bench: %s: %m\n", optarg);
				return 1;
			}
			break;
		case 'T': table = true; break;
		case 'm': markdown = true; break;
		case 'h': usage(); return 0;
		default: return 2;
		}
	}
	if (table)
		return print_tables(argc, argv, optind, markdown);
	if (optind < argc || b.iterations < 1) {
		usage();
		return 2;
	}
	if (!b.daemon_pid || !b.floor_pid) {
		fprintf(stderr, "bench: --daemon-pid and --floor-pid are required\n");
		return 2;
	}
	if (has_row(rows, "startup") && !b.startup_argv) {
		fprintf(stderr, "bench: the startup row needs --startup CMD\n");
		return 2;
	}
	snprintf(b.device_path, sizeof(b.device_path), "%s/devices/%s", SBD_ROOT, b.device);
	snprintf(b.label_file, sizeof(b.label_file), "/sys/devices/system/sbd/%s/label", b.device);

	r = sd_bus_open_system(&b.bus);
	if (r < 0)
		bench_die("system bus", r, NULL);
	(void)sd_bus_set_method_call_timeout(b.bus, CALL_TIMEOUT_US);
	b.current_devices = sbdd_device_count(&b);

	if (has_row(rows, "get"))
		row_get(&b);
	if (has_row(rows, "set"))
		row_set(&b);
	if (has_row(rows, "change"))
		row_change_latency(&b);
	if (has_row(rows, "pipelined"))
		row_pipelined(&b);
	if (has_row(rows, "udisks"))
		rows_udisks(&b);
	if (has_row(rows, "tree"))
		row_managed_objects(&b);
	if (has_row(rows, "idle"))
		row_idle(&b);
	if (has_row(rows, "startup"))
		row_startup(&b);
	set_device_count(&b, 1);

	results_print(b.table, b.n_table, markdown);
	free(b.table);
	if (b.results)
		fclose(b.results);
	sd_bus_flush_close_unref(b.bus);
	return 0;
}
