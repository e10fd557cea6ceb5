/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Row 5: sbdd's start-up to READY=1 with many devices, against enumerating
 * and reading every attribute of them directly.  sbdd is started with
 * NOTIFY_SOCKET pointing at a socket of ours, as systemd would.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define STARTUP_ROUNDS 5
/* where the sbdd started here logs */
#define STARTUP_LOG "/run/sbd-bench-sbdd.log"

/* Read every regular file below @dir (one level of subdirectories). */
static unsigned int read_attributes(int dirfd, int depth)
{
	unsigned int n = 0;
	struct dirent *de;
	char buf[4096];
	DIR *d = fdopendir(dirfd);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		if (de->d_type == DT_DIR && depth == 0 && strcmp(de->d_name, "power") == 0) {
			fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0)
				n += read_attributes(fd, depth + 1);
			continue;
		}
		if (de->d_type != DT_REG)
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* write-only attributes */
		if (read(fd, buf, sizeof(buf)) >= 0)
			n++;
		close(fd);
	}
	closedir(d);
	return n;
}

static double enumerate_directly(void)
{
	const char *path = "/sys/bus/sbd/devices";
	struct dirent *de;
	uint64_t t0 = now_ns();
	DIR *d;

	d = opendir(path);
	if (!d)
		bench_die(path, -errno, NULL);
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			read_attributes(fd, 0);
	}
	closedir(d);
	return elapsed_us(t0);
}

/* SIGTERM, and wait until it is gone (it may not be our child). */
static void stop_process(int pid)
{
	kill(pid, SIGTERM);
	for (int i = 0; i < 3000; i++) {
		waitpid(pid, NULL, WNOHANG);
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return;
		usleep(10000);
	}
	fprintf(stderr, "bench: pid %d did not exit on SIGTERM\n", pid);
	exit(1);
}

/* Start @argv with a notify socket, as systemd would; µs until READY=1. */
static double start_until_ready(char **argv, int *pid)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char buf[4096];
	uint64_t t0;
	int fd;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "/run/sbd-bench-notify-%d", getpid());
	unlink(addr.sun_path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		bench_die("notify socket", -errno, NULL);

	t0 = now_ns();
	*pid = fork();
	if (*pid < 0)
		bench_die("fork", -errno, NULL);
	if (*pid == 0) {
		/*
		 * Not our stdout and stderr: they may be a pipe that the
		 * driver script reads to its end, which this sbdd (it outlives
		 * us) would then hold open.
		 */
		int log = open(STARTUP_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (log >= 0) {
			dup2(log, STDOUT_FILENO);
			dup2(log, STDERR_FILENO);
		}
		setenv("NOTIFY_SOCKET", addr.sun_path, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 300000) <= 0) {
			fprintf(stderr, "bench: %s never said READY=1\n", argv[0]);
			exit(1);
		}
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			continue;
		buf[n] = '\0';
		if (strstr(buf, "READY=1"))
			break;
	}
	close(fd);
	unlink(addr.sun_path);
	return elapsed_us(t0);
}

static void write_pid_file(const char *file, int pid)
{
	FILE *f;

	if (!file)
		return;
	f = fopen(file, "we");
	if (!f)
		bench_die(file, -errno, NULL);
	fprintf(f, "%d\n", pid);
	fclose(f);
}

/*
 * Row 5: sbdd stopped and started again STARTUP_ROUNDS times with
 * startup_devices devices present, against reading them directly.  The
 * sbdd started last keeps running (its pid goes to --daemon-pid-file).
 */
void row_startup(struct bench *b)
{
	struct samples start = {}, direct = {};
	int pid = b->daemon_pid;

	set_device_count(b, b->startup_devices);
	for (unsigned int round = 0; round < STARTUP_ROUNDS; round++) {
		stop_process(pid);
		samples_add(&direct, enumerate_directly());
		samples_add(&start, start_until_ready(b->startup_argv, &pid));
		b->daemon_pid = pid;
		write_pid_file(b->daemon_pid_file, pid);
	}
	bench_add_samples(b, "5", GOAL_AT_MOST, 2.0, "us", &start, &direct,
			  "start-up to READY=1 with %u devices / enumerating and reading every "
			  "attribute of them directly", b->startup_devices);
	samples_free(&start);
	samples_free(&direct);
	set_device_count(b, 1);
}
