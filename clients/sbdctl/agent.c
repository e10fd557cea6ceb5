/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "terminal.h"

/* Runs in the child: the agent on our terminal, told to close notify_fd once
 * it is registered; --fallback lets a desktop's own agent win. */
_Noreturn static void exec_agent(int notify_fd) {
        char fd[16];

        /* keep notify_fd across exec */
        if (fcntl(notify_fd, F_SETFD, 0) < 0)
                _exit(EXIT_FAILURE);
        snprintf(fd, sizeof(fd), "%d", notify_fd);
        execl(POLKIT_AGENT_PATH, POLKIT_AGENT_PATH, "--notify-fd", fd, "--fallback", (char *) NULL);
        _exit(EXIT_FAILURE); /* no agent: the call goes on without one */
}

pid_t sbd_agent_open(bool local_bus) {
        struct pollfd p = { .events = POLLIN };
        int fds[2];
        pid_t pid;

        /* Root needs no password; a remote or container bus has its own
         * polkit, which an agent here could not answer; without a terminal
         * nobody could type one. */
        if (!local_bus || geteuid() == 0 || !isatty(STDIN_FILENO))
                return 0;
        pid = sbd_fork_with_pipe(fds);
        if (pid < 0)
                return pid;
        if (pid == 0) {
                close(fds[0]);
                exec_agent(fds[1]);
        }
        close(fds[1]);
        /* The agent closes its end once registered, or exits: either way EOF. */
        p.fd = fds[0];
        while (poll(&p, 1, -1) < 0 && errno == EINTR)
                ;
        close(fds[0]);
        return pid;
}

void sbd_agent_close(pid_t pid) {
        if (pid <= 0)
                return;
        kill(pid, SIGTERM);
        kill(pid, SIGCONT);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}
