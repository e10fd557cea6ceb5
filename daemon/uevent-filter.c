/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The kernel's uevent socket (NETLINK_KOBJECT_UEVENT, group 1) carries
 * every uevent of the host, and an unprivileged user can make them in
 * bulk (a FUSE mount in a user namespace adds and removes a bdi device;
 * a write to a world-writable "uevent" file). Each one would take room in
 * sbdd's receive buffer, whose overrun costs a full re-synchronisation,
 * and wake the loop. This filter lets the kernel drop them all except the
 * ones sbdd acts on (uevent.c), before they are queued.
 *
 * A kernel uevent message is "ACTION@DEVPATH\0" followed by KEY=VALUE\0
 * pairs (kobject_uevent_env(), lib/kobject_uevent.c), with no netlink
 * header: the filter sees the message at offset 0. ACTION is one of
 * add, move, bind, change, remove, online, unbind, offline (3 to 7
 * letters, never an '@'), DEVPATH the kobject's path below /sys. Only
 * the kernel can send to this group (and libudev drops what a process
 * sends), so the header says truthfully which object an event is about;
 * SUBSYSTEM follows from the path for the objects below:
 *
 *   /devices/system/sbd/...  sbd's devices (subsystem sbd) and below them
 *                            their disks and partitions (block)
 *   /bus/sbd                 the bus (bus)
 *   /bus/sbd/drivers/...     its drivers (drivers)
 *   /module/sbd              the module (module)
 *
 * The program finds the first '@' among offsets 1 to ACTION_MAX (so an
 * action the kernel might add later is not lost), puts the offset of
 * DEVPATH in X, and compares DEVPATH with each of the paths above using
 * loads relative to X. A prefix that names one object ends with the NUL
 * after DEVPATH, so /module/sbdfoo and /bus/sbd-other do not pass; sbd's
 * own devices directory ends with its '/'. A load beyond the end of the
 * message makes the kernel drop it, so a truncated or empty message never
 * passes.
 *
 * Messages from udevd ("libudev\0" and a binary header, netlink group 2)
 * never reach this socket; the udev source keeps libudev's own filter
 * (uevent.c attaches this one to the kernel source only). */

#include <stdint.h>
#include <sys/socket.h>

#include "uevent-filter.h"
#include "util.h"

/* The longest action this filter looks for; the kernel's is 7 ("offline"). */
#define ACTION_MAX 15

#define PASS 0xffffffffu
#define DROP 0u

struct devpath_prefix {
        const char *bytes;
        size_t len;
};

/* A directory: everything below it. */
#define BELOW(s) { s, sizeof(s) - 1 }
/* One object: the path and the NUL that ends DEVPATH in the header. */
#define EXACTLY(s) { s, sizeof(s) }

static const struct devpath_prefix passed[] = {
        BELOW("/devices/system/sbd/"),
        EXACTLY("/bus/sbd"),
        BELOW("/bus/sbd/drivers/"),
        EXACTLY("/module/sbd"),
};

static void emit(struct uevent_filter *f, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k) {
        /* The program's size depends on nothing but the constants above. */
        if (f->prog.len >= UEVENT_FILTER_MAX_INSNS)
                abort();
        f->insns[f->prog.len++] = (struct sock_filter) BPF_JUMP(code, k, jt, jf);
}

/* The size of the next comparison at offset off of a prefix: a word, a
 * half-word or a byte, and its value as BPF loads it (big-endian). */
static size_t chunk(const struct devpath_prefix *p, size_t off, uint16_t *ret_size, uint32_t *ret_value) {
        size_t n = p->len - off >= 4 ? 4 : p->len - off >= 2 ? 2 : 1;
        uint32_t v = 0;

        for (size_t i = 0; i < n; i++)
                v = v << 8 | (uint8_t) p->bytes[off + i];
        *ret_size = n == 4 ? BPF_W : n == 2 ? BPF_H : BPF_B;
        *ret_value = v;
        return n;
}

static size_t chunks(const struct devpath_prefix *p) {
        size_t n = 0;
        uint16_t size;
        uint32_t value;

        for (size_t off = 0; off < p->len; off += chunk(p, off, &size, &value))
                n++;
        return n;
}

/* One prefix: a load and a compare per chunk, any mismatch jumping to
 * the next prefix (just past this block's final "pass"). */
static void emit_prefix(struct uevent_filter *f, const struct devpath_prefix *p) {
        size_t left = 2 * chunks(p) + 1;
        uint16_t size;
        uint32_t value;

        for (size_t off = 0, n; off < p->len; off += n) {
                n = chunk(p, off, &size, &value);
                emit(f, BPF_LD | size | BPF_IND, 0, 0, (uint32_t) off);
                left -= 2;
                emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, (uint8_t) left, value);
        }
        emit(f, BPF_RET | BPF_K, 0, 0, PASS);
}

void uevent_filter_build(struct uevent_filter *f) {
        /* Where the DEVPATH comparisons start: after the '@' search
         * (four instructions an offset) and its final "drop". */
        const uint32_t match = 4 * ACTION_MAX + 1;

        f->prog.len = 0;
        f->prog.filter = f->insns;
        for (uint32_t k = 1; k <= ACTION_MAX; k++) {
                emit(f, BPF_LD | BPF_B | BPF_ABS, 0, 0, k);
                emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 2, '@');
                emit(f, BPF_LDX | BPF_W | BPF_IMM, 0, 0, k + 1);
                emit(f, BPF_JMP | BPF_JA, 0, 0, match - (f->prog.len + 1u));
        }
        emit(f, BPF_RET | BPF_K, 0, 0, DROP); /* no '@': not a kernel uevent */
        for (size_t i = 0; i < ELEMENTSOF(passed); i++)
                emit_prefix(f, &passed[i]);
        emit(f, BPF_RET | BPF_K, 0, 0, DROP); /* an object sbdd does not follow */
}

int uevent_filter_attach(int fd) {
        struct uevent_filter f;

        uevent_filter_build(&f);
        if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &f.prog, sizeof(f.prog)) < 0)
                return -errno;
        return 0;
}
