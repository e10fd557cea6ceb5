/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "terminal.h"
#include "util.h"
#include "values.h"

bool sbd_colors_wanted(void) {
        const char *e = getenv("SYSTEMD_COLORS"), *term = getenv("TERM");

        /* as systemd's tools: a boolean, or a colour mode (which means yes) */
        if (e && sbd_parse_bool(e) >= 0)
                return sbd_parse_bool(e) > 0;
        if (e && (streq(e, "16") || streq(e, "256") || streq(e, "24bit")))
                return true;
        if (getenv("NO_COLOR"))
                return false;
        if (!term || streq(term, "dumb"))
                return false;
        return isatty(STDOUT_FILENO);
}

static void copy_through(void) {
        char buf[4096];
        ssize_t n;

        while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
                if (write(STDOUT_FILENO, buf, (size_t) n) != n)
                        break;
}

/* $SYSTEMD_PAGER, else $PAGER; NULL when neither is set. */
static const char *pager_wanted(void) {
        const char *pager = getenv("SYSTEMD_PAGER");

        return pager ?: getenv("PAGER");
}

/* Runs in the child: becomes the pager, reading what the parent writes. */
_Noreturn static void run_pager(int fd, const char *pager) {
        const char *less = getenv("SYSTEMD_LESS");

        if (dup2(fd, STDIN_FILENO) < 0)
                _exit(EXIT_FAILURE);
        close(fd);
        /* as systemd's tools: $SYSTEMD_LESS, else FRSXMK, replaces $LESS */
        setenv("LESS", less ?: "FRSXMK", 1);
        setenv("LESSCHARSET", "utf-8", 0);

        if (pager)
                execl("/bin/sh", "sh", "-c", pager, (char *) NULL);
        execlp("pager", "pager", (char *) NULL);
        execlp("less", "less", (char *) NULL);
        execlp("more", "more", (char *) NULL);
        copy_through();
        _exit(EXIT_SUCCESS);
}

pid_t sbd_fork_with_pipe(int fds[2]) {
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(fds[0]);
                close(fds[1]);
                return r;
        }
        return pid;
}

pid_t sbd_pager_open(void) {
        const char *pager = pager_wanted();
        int fds[2];
        pid_t pid;

        if (!isatty(STDOUT_FILENO))
                return 0;
        /* an empty pager, or "cat", turns paging off */
        if (pager && (!*pager || streq(pager, "cat")))
                return 0;
        pid = sbd_fork_with_pipe(fds);
        if (pid < 0)
                return pid;
        if (pid == 0) {
                close(fds[1]);
                run_pager(fds[0], pager);
        }

        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0) {
                int r = -errno;
                close(fds[1]);
                return r;
        }
        close(fds[1]);
        /* When the user quits the pager early, stop quietly instead of dying of SIGPIPE. */
        signal(SIGPIPE, SIG_IGN);
        return pid;
}

void sbd_pager_close(pid_t pid) {
        if (pid <= 0)
                return;
        fflush(stdout);
        close(STDOUT_FILENO);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}
