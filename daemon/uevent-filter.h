/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A classic BPF socket filter for the kernel's uevent netlink socket that
 * passes only the uevents sbdd acts on, so that the others (any user can
 * make them in bulk) are dropped by the kernel before they take room in
 * the receive buffer or wake the loop (uevent-filter.c says how). */

#include <linux/filter.h>

/* Enough for the program uevent-filter.c builds (checked there). */
#define UEVENT_FILTER_MAX_INSNS 128

struct uevent_filter {
        struct sock_filter insns[UEVENT_FILTER_MAX_INSNS];
        struct sock_fprog prog; /* points into insns */
};

/* Build the program into f (f->prog is ready for SO_ATTACH_FILTER). */
void uevent_filter_build(struct uevent_filter *f);

/* Attach it to fd (a NETLINK_KOBJECT_UEVENT socket of the kernel group,
 * or any datagram socket in tests). Returns 0 or a negative errno. */
int uevent_filter_attach(int fd);
