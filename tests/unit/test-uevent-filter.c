/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The kernel-uevent socket filter (daemon/uevent-filter.c), run by the
 * kernel on an AF_UNIX datagram socket: socket filters work there as on
 * the netlink socket, and a datagram the filter drops is tossed without
 * an error to the sender. Messages are built as kobject_uevent_env()
 * builds them: "ACTION@DEVPATH\0" and KEY=VALUE\0 pairs. */

#include <errno.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "uevent-filter.h"

/* Build a message from its header and properties into buf: each string
 * with its NUL. Returns the length. */
static size_t message(char *buf, size_t size, const char *header, ...) {
        size_t len = 0;
        va_list ap;

        va_start(ap, header);
        for (const char *s = header; s; s = va_arg(ap, const char *)) {
                size_t n = strlen(s) + 1;

                if (len + n > size)
                        break;
                memcpy(buf + len, s, n);
                len += n;
        }
        va_end(ap);
        return len;
}

/* Whether a datagram of len bytes sent to fds[0] arrives at fds[1] whole. */
static int delivered(int fds[2], const char *buf, size_t len) {
        char got[4096];
        ssize_t n;

        if (send(fds[0], buf, len, 0) != (ssize_t) len)
                return -1;
        n = recv(fds[1], got, sizeof(got), MSG_DONTWAIT);
        if (n < 0)
                return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        return (size_t) n == len && memcmp(got, buf, len) == 0;
}

#define EVENT(action, devpath, subsystem, ...)                                                         \
        message(buf, sizeof(buf), action "@" devpath, "ACTION=" action, "DEVPATH=" devpath,           \
                "SUBSYSTEM=" subsystem, ##__VA_ARGS__, "SEQNUM=4242", (const char *) NULL)

#define PASSES(len) CHECK(delivered(fds, buf, (len)) == 1)
#define DROPPED(len) CHECK(delivered(fds, buf, (len)) == 0)

static void check_passed(int fds[2]) {
        char buf[1024];

        /* sbd's devices, each action the kernel has */
        PASSES(EVENT("add", "/devices/system/sbd/sbd0", "sbd", "MODALIAS=sbd:sbd0"));
        PASSES(EVENT("bind", "/devices/system/sbd/sbd0", "sbd", "DRIVER=sbd"));
        PASSES(EVENT("change", "/devices/system/sbd/sbd0", "sbd", "SBD_CHANGED=label"));
        PASSES(EVENT("change", "/devices/system/sbd/sbd12345", "sbd", "SYNTH_UUID=0"));
        PASSES(EVENT("online", "/devices/system/sbd/sbd3", "sbd"));
        PASSES(EVENT("offline", "/devices/system/sbd/sbd3", "sbd"));
        PASSES(EVENT("move", "/devices/system/sbd/sbd3", "sbd", "DEVPATH_OLD=/devices/system/sbd/sbd2"));
        PASSES(EVENT("unbind", "/devices/system/sbd/sbd0", "sbd"));
        PASSES(EVENT("remove", "/devices/system/sbd/sbd0", "sbd"));
        /* their disks and partitions */
        PASSES(EVENT("add", "/devices/system/sbd/sbd0/block/sbd0", "block", "DEVNAME=sbd0", "DEVTYPE=disk"));
        PASSES(EVENT("change", "/devices/system/sbd/sbd7/block/sbd7", "block", "DISK_RO=1"));
        PASSES(EVENT("change", "/devices/system/sbd/sbd7/block/sbd7", "block", "RESIZE=1"));
        PASSES(EVENT("add", "/devices/system/sbd/sbd7/block/sbd7/sbd7p1", "block", "DEVTYPE=partition"));
        PASSES(EVENT("remove", "/devices/system/sbd/sbd0/block/sbd0", "block"));
        /* the bus, its driver, the module */
        PASSES(EVENT("add", "/bus/sbd", "bus"));
        PASSES(EVENT("remove", "/bus/sbd", "bus"));
        PASSES(EVENT("add", "/bus/sbd/drivers/sbd", "drivers"));
        PASSES(EVENT("remove", "/bus/sbd/drivers/sbd", "drivers"));
        PASSES(EVENT("add", "/module/sbd", "module"));
        PASSES(EVENT("change", "/module/sbd", "module", "SYNTH_UUID=0"));
        PASSES(EVENT("remove", "/module/sbd", "module"));
        /* a header alone is enough */
        PASSES(message(buf, sizeof(buf), "add@/module/sbd", (const char *) NULL));
        /* an action of a length the kernel does not have yet */
        PASSES(EVENT("rebind", "/devices/system/sbd/sbd0", "sbd"));
        PASSES(EVENT("x", "/module/sbd", "module"));
}

static void check_dropped(int fds[2]) {
        char buf[1024];
        size_t len;

        /* what an unprivileged user makes in bulk */
        DROPPED(EVENT("add", "/devices/virtual/bdi/0:52", "bdi"));
        DROPPED(EVENT("remove", "/devices/virtual/bdi/0:52", "bdi"));
        DROPPED(EVENT("add", "/devices/virtual/misc/fuse", "misc"));
        DROPPED(EVENT("change", "/devices/virtual/net/lo", "net"));
        /* other disks, modules, buses, drivers */
        DROPPED(EVENT("add", "/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda",
                      "block", "DEVNAME=sda"));
        DROPPED(EVENT("add", "/devices/virtual/block/loop0", "block"));
        DROPPED(EVENT("add", "/devices/virtual/block/sbd0", "block"));
        DROPPED(EVENT("add", "/devices/virtual/bdi/252:0", "bdi"));
        DROPPED(EVENT("add", "/module/fuse", "module"));
        DROPPED(EVENT("add", "/bus/usb/drivers/usbfs", "drivers"));
        DROPPED(EVENT("bind", "/devices/system/cpu/cpu1", "cpu"));
        DROPPED(EVENT("offline", "/devices/system/memory/memory32", "memory"));
        /* names that only begin like sbd's */
        DROPPED(EVENT("add", "/devices/system/sbdfoo/sbdfoo0", "sbdfoo"));
        DROPPED(EVENT("add", "/devices/system/sbd", "sbd"));
        DROPPED(EVENT("add", "/module/sbdfoo", "module"));
        DROPPED(EVENT("add", "/module/sbd/holders", "module"));
        DROPPED(EVENT("add", "/bus/sbdfoo", "bus"));
        DROPPED(EVENT("add", "/bus/sbd-x/drivers/sbd", "drivers"));
        DROPPED(EVENT("add", "/bus/sbd/devices", "bus"));
        DROPPED(EVENT("add", "/bus/sbd/driversx/sbd", "drivers"));
        /* not "ACTION@/..." : no '@' within the first 15 bytes, a path
         * not starting at the '@', a first '@' too far */
        DROPPED(message(buf, sizeof(buf), "ACTION=add", "DEVPATH=/module/sbd", (const char *) NULL));
        DROPPED(message(buf, sizeof(buf), "add@module/sbd", (const char *) NULL));
        DROPPED(message(buf, sizeof(buf), "@/module/sbd", (const char *) NULL));
        DROPPED(message(buf, sizeof(buf), "averyveryverylongaction@/module/sbd", (const char *) NULL));
        DROPPED(message(buf, sizeof(buf), "add/module/sbd@/x", (const char *) NULL));
        /* libudev's format (udevd's messages: never on this socket) */
        len = message(buf, sizeof(buf), "libudev", "\xfe\xed\xca\xfe", (const char *) NULL);
        DROPPED(len);
        /* truncated: the header cut before its path is complete, or
         * before the NUL that makes /module/sbd and /bus/sbd exact */
        EVENT("add", "/devices/system/sbd/sbd0", "sbd");
        DROPPED(strlen("add@/devices/system/sb"));
        DROPPED(strlen("add@/devices/system/sbd"));
        DROPPED(3);
        DROPPED(1);
        EVENT("add", "/module/sbd", "module");
        DROPPED(strlen("add@/module/sbd"));
        EVENT("remove", "/bus/sbd", "bus");
        DROPPED(strlen("remove@/bus/sbd"));
        /* empty */
        DROPPED(0);
}

int main(void) {
        int fds[2];
        char buf[256];

        CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds) == 0);
        /* Without the filter the harness sees foreign events arrive:
         * the "dropped" checks below fail unless the filter drops them. */
        CHECK(delivered(fds, buf, EVENT("add", "/devices/virtual/bdi/0:52", "bdi")) == 1);
        CHECK(delivered(fds, buf, 0) == 1);

        CHECK(uevent_filter_attach(fds[1]) == 0);
        check_passed(fds);
        check_dropped(fds);

        close(fds[0]);
        close(fds[1]);
        return check_finish("test-uevent-filter");
}
