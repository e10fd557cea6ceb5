// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sbd-faulttool: fail-nth sweeps for the fault-injection scenarios
 * (tests/vm/scenarios/fault-*.sh). Linked statically: it runs from a tmpfs
 * copy, so that a failed allocation never has to page it in over 9p.
 *
 * /proc/thread-self/fail-nth armed with N fails exactly the N-th fault
 * injection point (slab, page allocator, block request) this thread passes
 * next; reading it back gives 0 once that point was reached. A sweep arms
 * N = 1, 2, ... around one system call until the call completes without
 * reaching the N-th point: every allocation of that path has then failed
 * once. The debugfs knobs (ignore-gfp-wait, min-order, verbose) are the
 * scenario's to set.
 *
 *   sweep [--first N] [--max N] [--show PATH3] [--undo PATH2 VALUE2] PATH VALUE
 *       One write(2) of VALUE to PATH per N (the file opened before arming).
 *       Prints "N OK" or "N ERRNO" per step and "end N" when the N-th point
 *       was not reached; with --show, the first line of PATH3 read after the
 *       step follows ("N ENOMEM 16777216": the state a failure left). After
 *       a write that succeeded, VALUE2 is written to PATH2 unarmed (a
 *       creation is undone); that must succeed.
 *   sweep-io [--max N] DEVICE
 *       Step N writes 4 KiB of a pattern of N with O_DIRECT at offset
 *       (N-1) * 4 KiB, a page never written before (the first write of a
 *       page allocates it), and reads it back unarmed: "N OK" (and the data
 *       must be there, else "N CORRUPT"), "N ERRNO" or "N SHORT".
 *   sweep-load [--first N] [--max N] [--stride K] MODULE PARAMS
 *       One finit_module(2) of MODULE (a .ko, opened before arming; the
 *       module must not be loaded) with PARAMS per N: "N ERRNO", or, when
 *       it loaded, "N OK D" with D the disks it made (/sys/bus/sbd/devices),
 *       after which it is unloaded unarmed; that must succeed. --stride K
 *       takes every K-th point only (N = first, first + K, ...): a load
 *       passes some 1,500 points, each step a load and an unload.
 *
 *   --first N starts at the N-th point (default 1): with the debugfs knob
 *   verbose at 2, "--first 97 --max 97" replays one step of a sweep with
 *   the failed allocation's stack in the kernel log.
 *
 * Exit status: 0 when the sweep ended, 3 when --max was reached first, 64 for
 * a usage error, 1 for any other failure (an undo or read-back that failed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXIT_USAGE 64
#define EXIT_MAX 3
#define IO_SIZE 4096

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "EUNKNOWN";
}

static int usage(void)
{
	fputs("usage: sbd-faulttool sweep [--first N] [--max N] [--show PATH3] [--undo PATH2 VALUE2] PATH VALUE\n"
	      "       sbd-faulttool sweep-io [--max N] DEVICE\n"
	      "       sbd-faulttool sweep-load [--first N] [--max N] [--stride K] MODULE PARAMS\n", stderr);
	return EXIT_USAGE;
}

/* The calling thread's fail-nth file, opened once: no allocation later. */
static int nth_fd = -1;

static int nth_open(void)
{
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		perror("sbd-faulttool: /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)");
	return nth_fd;
}

static int nth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len) {
		perror("sbd-faulttool: arming fail-nth");
		return -1;
	}
	return 0;
}

/* Disarm and say whether the armed point was reached (fail-nth read 0). */
static int nth_reached(void)
{
	char buf[16] = "";
	ssize_t len = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	bool reached;

	if (len <= 0) {
		perror("sbd-faulttool: reading fail-nth");
		return -1;
	}
	reached = strtoul(buf, NULL, 10) == 0;
	if (nth_arm(0) < 0)
		return -1;
	return reached;
}

static bool parse_count(const char *s, unsigned int *ret)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || v == 0 || v > 1000000)
		return false;
	*ret = v;
	return true;
}

static int write_once(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The first line of @path, or "?" with the errno's name. */
static void show(const char *path)
{
	char buf[128] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	int err = errno;

	if (fd >= 0)
		close(fd);
	if (len < 0) {
		printf(" ?%s", errno_name(err));
		return;
	}
	buf[len] = 0;
	buf[strcspn(buf, "\n")] = 0;
	printf(" %s", buf);
}

struct sweep_args {
	unsigned int first, max, stride;
	const char *show;
	const char *undo_path, *undo_value;
};

static int sweep(const struct sweep_args *a, const char *path, const char *value)
{
	size_t len = strlen(value);
	unsigned int n;

	for (n = a->first; n <= a->max; n++) {
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		ssize_t w;
		int err, reached;

		if (fd < 0) {
			fprintf(stderr, "sbd-faulttool: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (nth_arm(n) < 0)
			return 1;
		w = write(fd, value, len);
		err = errno;
		reached = nth_reached();
		close(fd);
		if (reached < 0)
			return 1;
		printf("%u %s", n, w >= 0 ? "OK" : errno_name(err));
		if (a->show)
			show(a->show);
		printf("\n");
		if (w >= 0 && a->undo_path) {
			int ret = write_once(a->undo_path, a->undo_value);

			if (ret < 0) {
				printf("undo %s\n", errno_name(-ret));
				return 1;
			}
		}
		if (!reached) {
			printf("end %u\n", n);
			return 0;
		}
	}
	return EXIT_MAX;
}

static int sweep_io(unsigned int max, const char *dev)
{
	char *buf, *back;
	unsigned int n;
	int fd;

	fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "sbd-faulttool: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (posix_memalign((void **)&buf, IO_SIZE, IO_SIZE) ||
	    posix_memalign((void **)&back, IO_SIZE, IO_SIZE))
		return 1;
	for (n = 1; n <= max; n++) {
		off_t off = (off_t)(n - 1) * IO_SIZE;
		ssize_t w;
		int err, reached;

		memset(buf, n % 251 + 1, IO_SIZE);
		if (nth_arm(n) < 0)
			return 1;
		w = pwrite(fd, buf, IO_SIZE, off);
		err = errno;
		reached = nth_reached();
		if (reached < 0)
			return 1;
		if (w < 0) {
			printf("%u %s\n", n, errno_name(err));
		} else if (w != IO_SIZE) {
			printf("%u SHORT\n", n);
		} else if (pread(fd, back, IO_SIZE, off) != IO_SIZE ||
			   memcmp(buf, back, IO_SIZE)) {
			printf("%u CORRUPT\n", n);
			return 1;
		} else {
			printf("%u OK\n", n);
		}
		fflush(stdout);
		if (!reached) {
			printf("end %u\n", n);
			return 0;
		}
	}
	return EXIT_MAX;
}

/* Entries of @path that are not dot files, or -1. */
static int count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int sweep_load(const struct sweep_args *a, const char *module, const char *params)
{
	unsigned int n;

	for (n = a->first; n <= a->max; n += a->stride) {
		int fd = open(module, O_RDONLY | O_CLOEXEC);
		long ret;
		int err, reached;

		if (fd < 0) {
			fprintf(stderr, "sbd-faulttool: %s: %s\n", module, strerror(errno));
			return 1;
		}
		if (nth_arm(n) < 0)
			return 1;
		ret = syscall(SYS_finit_module, fd, params, 0);
		err = errno;
		reached = nth_reached();
		close(fd);
		if (reached < 0)
			return 1;
		if (ret < 0) {
			printf("%u %s\n", n, errno_name(err));
		} else {
			printf("%u OK %d\n", n, count_entries("/sys/bus/sbd/devices"));
			if (syscall(SYS_delete_module, "sbd", O_NONBLOCK) < 0) {
				printf("unload %s\n", errno_name(errno));
				return 1;
			}
		}
		if (!reached) {
			printf("end %u\n", n);
			return 0;
		}
	}
	return EXIT_MAX;
}

int main(int argc, char **argv)
{
	struct sweep_args a = { .first = 1, .max = 10000, .stride = 1 };
	const char *cmd;
	int i = 2;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--max") && i + 1 < argc) {
			if (!parse_count(argv[i + 1], &a.max))
				return usage();
			i += 2;
		} else if (!strcmp(argv[i], "--first") && i + 1 < argc) {
			if (!parse_count(argv[i + 1], &a.first))
				return usage();
			i += 2;
		} else if (!strcmp(argv[i], "--stride") && i + 1 < argc) {
			if (!parse_count(argv[i + 1], &a.stride))
				return usage();
			i += 2;
		} else if (!strcmp(argv[i], "--show") && i + 1 < argc) {
			a.show = argv[i + 1];
			i += 2;
		} else if (!strcmp(argv[i], "--undo") && i + 2 < argc) {
			a.undo_path = argv[i + 1];
			a.undo_value = argv[i + 2];
			i += 3;
		} else {
			return usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "sweep") && argc - i == 2 && a.stride == 1) {
		if (nth_open() < 0)
			return 1;
		return sweep(&a, argv[i], argv[i + 1]);
	}
	if (!strcmp(cmd, "sweep-io") && argc - i == 1 && !a.undo_path && !a.show && a.stride == 1) {
		if (nth_open() < 0)
			return 1;
		return sweep_io(a.max, argv[i]);
	}
	if (!strcmp(cmd, "sweep-load") && argc - i == 2 && !a.undo_path && !a.show) {
		if (nth_open() < 0)
			return 1;
		return sweep_load(&a, argv[i], argv[i + 1]);
	}
	return usage();
}
