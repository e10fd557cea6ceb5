/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Timing, order statistics and /proc readings for the benchmark. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

double elapsed_us(uint64_t start_ns)
{
	return (now_ns() - start_ns) / 1000.0;
}

void samples_add(struct samples *s, double us)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		double *v = realloc(s->v, cap * sizeof(double));

		if (!v) {
			perror("samples");
			exit(1);
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = us;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double samples_quantile(struct samples *s, double q)
{
	size_t i;

	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(double), compare_double);
	i = (size_t)(q * (s->n - 1) + 0.5);
	return s->v[i];
}

double samples_median(struct samples *s)
{
	return samples_quantile(s, 0.5);
}

double samples_p99(struct samples *s)
{
	return samples_quantile(s, 0.99);
}

void samples_reset(struct samples *s)
{
	s->n = 0;
}

void samples_free(struct samples *s)
{
	free(s->v);
	*s = (struct samples){};
}

static long status_field(const char *path, const char *field)
{
	char line[256];
	long value = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, strlen(field)) == 0) {
			value = strtol(line + strlen(field), NULL, 10);
			break;
		}
	fclose(f);
	return value;
}

long proc_rss_kib(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return status_field(path, "VmRSS:");
}

long meminfo_kib(const char *field)
{
	return status_field("/proc/meminfo", field);
}

long proc_context_switches(int pid)
{
	char dir[64], path[384];
	struct dirent *de;
	long total = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, de->d_name);
		total += status_field(path, "voluntary_ctxt_switches:");
		total += status_field(path, "nonvoluntary_ctxt_switches:");
	}
	closedir(d);
	return total;
}
