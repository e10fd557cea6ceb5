/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* A series of timings, in microseconds. */
struct samples {
	double *v;
	size_t n, cap;
};

uint64_t now_ns(void);
double elapsed_us(uint64_t start_ns);

void samples_add(struct samples *s, double us);
double samples_median(struct samples *s);
double samples_p99(struct samples *s);
void samples_reset(struct samples *s);
void samples_free(struct samples *s);

/* From /proc/PID/status: VmRSS in KiB, context switches of all threads. */
long proc_rss_kib(int pid);
/* A field of /proc/meminfo in KiB, e.g. "MemAvailable:". */
long meminfo_kib(const char *field);
long proc_context_switches(int pid);
