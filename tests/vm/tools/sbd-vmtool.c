// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sbd-vmtool: small, deterministic helpers for the VM scenarios, for what a
 * shell cannot observe exactly.
 *
 *   write PATH VALUE
 *       One open(2) and one write(2) of VALUE (as given, no newline added).
 *       On failure prints the errno's name (EINVAL, EBUSY, ...) on stdout,
 *       a message on stderr, and exits 1.
 *   wait-notify [--ready FILE] PATH TIMEOUT_MS
 *       Opens and reads PATH (a sysfs attribute), creates FILE, then waits
 *       for POLLPRI|POLLERR (what sysfs_notify() raises) and prints the value
 *       read after the wake-up. Exits 2 on time-out.
 *   uevents [--ready FILE] [--match KEY=GLOB]... TIMEOUT_MS COUNT
 *       Listens on the kernel's uevent netlink group (1), creates FILE once
 *       listening, and prints every event whose variables match all the
 *       --match patterns on one line: ACTION=... DEVPATH=... SUBSYSTEM=...
 *       and the other variables in the kernel's order. Stops after COUNT
 *       such events (exit 0), or at TIMEOUT_MS (exit 2 if COUNT was not
 *       reached; COUNT 0 means: print until the time-out and exit 0).
 *   fill-interleaved MIB DEV...
 *       Writes zeros to the first MIB MiB of each DEV with direct I/O, one
 *       1 MiB write to each in turn (MiB 0 of every DEV, then MiB 1, ...):
 *       what a loop of `dd bs=1M count=1 seek=N oflag=direct` per disk
 *       does, without an exec per MiB (the benchmark's fill before fio).
 *
 * Exit status 64 for a usage error, 1 for any other failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 64
#define EXIT_TIMEOUT 2
#define MAX_MATCHES 16
#define MAX_FILL_DEVS 8
#define MIB (1024 * 1024)

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "EUNKNOWN";
}

static int usage(void)
{
	fputs("usage: sbd-vmtool write PATH VALUE\n"
	      "       sbd-vmtool wait-notify [--ready FILE] PATH TIMEOUT_MS\n"
	      "       sbd-vmtool uevents [--ready FILE] [--match KEY=GLOB]... TIMEOUT_MS COUNT\n"
	      "       sbd-vmtool fill-interleaved MIB DEV...\n",
	      stderr);
	return EXIT_USAGE;
}

static bool parse_uint(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return false;
	*out = v;
	return true;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int touch_ready(const char *ready)
{
	int fd;

	if (!ready)
		return 0;
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "sbd-vmtool: cannot create %s: %m\n", ready);
		return -1;
	}
	close(fd);
	return 0;
}

static int cmd_write(int argc, char **argv)
{
	const char *path, *value;
	size_t len;
	ssize_t n;
	int fd;

	if (argc != 3)
		return usage();
	path = argv[1];
	value = argv[2];
	len = strlen(value);

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		printf("%s\n", errno_name(err));
		fprintf(stderr, "sbd-vmtool: open %s: %s\n", path, strerror(err));
		return 1;
	}
	n = write(fd, value, len);
	if (n < 0) {
		int err = errno;

		printf("%s\n", errno_name(err));
		fprintf(stderr, "sbd-vmtool: write '%s' to %s: %s\n", value, path, strerror(err));
		close(fd);
		return 1;
	}
	if ((size_t)n != len) {
		printf("SHORT\n");
		fprintf(stderr, "sbd-vmtool: short write to %s: %zd of %zu bytes\n", path, n, len);
		close(fd);
		return 1;
	}
	if (close(fd) < 0) {
		int err = errno;

		printf("%s\n", errno_name(err));
		fprintf(stderr, "sbd-vmtool: close %s: %s\n", path, strerror(err));
		return 1;
	}
	return 0;
}

/* Read the whole attribute from offset 0 into buf, without the trailing newline. */
static int read_attr(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static int cmd_wait_notify(int argc, char **argv)
{
	const char *ready = NULL, *path;
	struct pollfd pfd;
	char buf[4096];
	long timeout;
	int fd, r;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-') {
		if (strcmp(argv[0], "--ready") || argc < 2)
			return usage();
		ready = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (argc != 2 || !parse_uint(argv[1], &timeout) || timeout > 0x7fffffff)
		return usage();
	path = argv[0];

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "sbd-vmtool: open %s: %m\n", path);
		return 1;
	}
	/* kernfs arms the notification for this open file once it has been read. */
	r = read_attr(fd, buf, sizeof(buf));
	if (r < 0) {
		fprintf(stderr, "sbd-vmtool: read %s: %s\n", path, strerror(-r));
		return 1;
	}
	if (touch_ready(ready) < 0)
		return 1;

	pfd.fd = fd;
	pfd.events = POLLPRI | POLLERR;
	for (;;) {
		r = poll(&pfd, 1, (int)timeout);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "sbd-vmtool: poll %s: %m\n", path);
			return 1;
		}
		break;
	}
	if (r == 0) {
		printf("timeout\n");
		return EXIT_TIMEOUT;
	}
	r = read_attr(fd, buf, sizeof(buf));
	if (r < 0) {
		fprintf(stderr, "sbd-vmtool: read %s after the wake-up: %s\n", path, strerror(-r));
		return 1;
	}
	printf("%s\n", buf);
	return 0;
}

struct match {
	const char *key;
	size_t keylen;
	const char *glob;
};

static bool event_matches(const char *vars, size_t len, const struct match *m, int n)
{
	for (int i = 0; i < n; i++) {
		bool found = false;

		for (const char *p = vars; p < vars + len; p += strlen(p) + 1) {
			if (!strncmp(p, m[i].key, m[i].keylen) && p[m[i].keylen] == '=' &&
			    !fnmatch(m[i].glob, p + m[i].keylen + 1, 0)) {
				found = true;
				break;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

static int cmd_uevents(int argc, char **argv)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct match matches[MAX_MATCHES];
	const char *ready = NULL;
	long timeout, count, seen = 0;
	int nmatches = 0, bufsize = 4 * MIB;
	long long deadline;
	static char buf[16384];
	int fd;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-') {
		if (argc < 2)
			return usage();
		if (!strcmp(argv[0], "--ready")) {
			ready = argv[1];
		} else if (!strcmp(argv[0], "--match") && nmatches < MAX_MATCHES) {
			const char *eq = strchr(argv[1], '=');

			if (!eq || eq == argv[1])
				return usage();
			matches[nmatches].key = argv[1];
			matches[nmatches].keylen = (size_t)(eq - argv[1]);
			matches[nmatches].glob = eq + 1;
			nmatches++;
		} else {
			return usage();
		}
		argc -= 2;
		argv += 2;
	}
	if (argc != 2 || !parse_uint(argv[0], &timeout) || !parse_uint(argv[1], &count))
		return usage();

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0) {
		fprintf(stderr, "sbd-vmtool: netlink socket: %m\n");
		return 1;
	}
	/* A burst of events must not overflow the queue (root may force it). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof(bufsize));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "sbd-vmtool: bind to the uevent group: %m\n");
		return 1;
	}
	if (touch_ready(ready) < 0)
		return 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	deadline = now_ms() + timeout;
	while (count == 0 || seen < count) {
		struct sockaddr_nl src;
		socklen_t srclen = sizeof(src);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		const char *vars;
		ssize_t n;
		int r;

		if (left <= 0)
			break;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "sbd-vmtool: poll: %m\n");
			return 1;
		}
		if (r == 0)
			break;
		n = recvfrom(fd, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&src, &srclen);
		if (n < 0) {
			if (errno == ENOBUFS)
				fprintf(stderr, "sbd-vmtool: uevents were lost (ENOBUFS)\n");
			else
				fprintf(stderr, "sbd-vmtool: recv: %m\n");
			return 1;
		}
		if (src.nl_pid != 0) /* only the kernel's own messages */
			continue;
		buf[n] = '\0';
		/* "ACTION@DEVPATH\0KEY=VALUE\0KEY=VALUE\0..." */
		vars = memchr(buf, '\0', (size_t)n);
		if (!vars || !strchr(buf, '@'))
			continue;
		vars++;
		if (!event_matches(vars, (size_t)(buf + n - vars), matches, nmatches))
			continue;
		for (const char *p = vars, *sep = ""; p < buf + n; p += strlen(p) + 1, sep = " ") {
			if (*p)
				printf("%s%s", sep, p);
		}
		printf("\n");
		seen++;
	}
	close(fd);
	if (count > 0 && seen < count) {
		fprintf(stderr, "sbd-vmtool: time-out after %ld of %ld uevents\n", seen, count);
		return EXIT_TIMEOUT;
	}
	return 0;
}

static int cmd_fill_interleaved(int argc, char **argv)
{
	int fds[MAX_FILL_DEVS], ndevs = argc - 2, i, ret = 1;
	long mib, m;
	void *zeros;

	if (argc < 3 || ndevs > MAX_FILL_DEVS || !parse_uint(argv[1], &mib))
		return usage();
	/* O_DIRECT wants an aligned buffer: an anonymous mapping is zeroed and page-aligned. */
	zeros = mmap(NULL, MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (zeros == MAP_FAILED) {
		fprintf(stderr, "sbd-vmtool: mmap: %m\n");
		return 1;
	}
	for (i = 0; i < ndevs; i++) {
		fds[i] = open(argv[2 + i], O_WRONLY | O_DIRECT | O_CLOEXEC);
		if (fds[i] < 0) {
			fprintf(stderr, "sbd-vmtool: open %s: %m\n", argv[2 + i]);
			ndevs = i;
			goto out;
		}
	}
	for (m = 0; m < mib; m++)
		for (i = 0; i < ndevs; i++) {
			ssize_t n = pwrite(fds[i], zeros, MIB, (off_t)m * MIB);

			if (n != MIB) {
				fprintf(stderr, "sbd-vmtool: write of MiB %ld of %s: %s\n", m, argv[2 + i],
					n < 0 ? strerror(errno) : "short write");
				goto out;
			}
		}
	ret = 0;
out:
	for (i = 0; i < ndevs; i++)
		close(fds[i]);
	munmap(zeros, MIB);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "write"))
		return cmd_write(argc - 1, argv + 1);
	if (!strcmp(argv[1], "wait-notify"))
		return cmd_wait_notify(argc - 1, argv + 1);
	if (!strcmp(argv[1], "uevents"))
		return cmd_uevents(argc - 1, argv + 1);
	if (!strcmp(argv[1], "fill-interleaved"))
		return cmd_fill_interleaved(argc - 1, argv + 1);
	return usage();
}
