// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An LD_PRELOAD shim for the integration tests: plays a module load or
 * unload that takes as long as the test wants (init_module() of sbd with
 * 10,000 disks takes tens of seconds), which a umockdev test bed cannot
 * (it cannot insert modules at all).
 *
 * SBDTEST_KMOD_GATE=PATH: libkmod's insert and remove calls create
 * PATH.entered, then wait until PATH exists (at most 60 s) and succeed.
 * The test plays the kernel's sysfs and uevents meanwhile.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int gate(void) {
        const char *path = getenv("SBDTEST_KMOD_GATE");
        char entered[4096];
        int fd;

        if (!path)
                return -38; /* -ENOSYS: the shim is there, not its gate */
        snprintf(entered, sizeof(entered), "%s.entered", path);
        fd = open(entered, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
                close(fd);
        for (int i = 0; i < 6000 && access(path, F_OK) < 0; i++) {
                struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
                nanosleep(&ts, NULL);
        }
        return 0;
}

int kmod_module_insert_module(struct kmod_module *mod, unsigned int flags, const char *options) {
        return gate();
}

int kmod_module_probe_insert_module(struct kmod_module *mod, unsigned int flags, const char *extra_options,
                                    int (*run_install)(struct kmod_module *m, const char *cmdline, void *data),
                                    const void *data,
                                    void (*print_action)(struct kmod_module *m, bool install, const char *options)) {
        return gate();
}

int kmod_module_remove_module(struct kmod_module *mod, unsigned int flags) {
        return gate();
}
