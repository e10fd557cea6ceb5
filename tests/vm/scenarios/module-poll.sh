#!/bin/bash
# Polled I/O: with queue_mode=mq poll_queues=N the disks have poll queues (io_poll 1, a
# hardware queue of type "poll"), and fio's --hipri through io_uring
# (IORING_SETUP_IOPOLL) works, verified, through it; pvsync2 (RWF_HIPRI)
# works.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

DBG=/sys/kernel/debug/block/sbd0

# fio_ok NAME ARGS...: a verified fio job on /dev/sbd0 that must succeed
fio_ok() {
	local name=$1 out
	shift
	if out=$(fio --name="$name" --filename=/dev/sbd0 --direct=1 --bs=4k --size=8M \
		--verify=crc32c --verify_fatal=1 "$@" 2>&1); then
		pass "fio $name $*"
	else
		fail "fio $name $* failed: ${out: -600}"
	fi
}
runs() { read_attr "$DBG/$1/run"; }

step "poll_queues over the CPU count, or without queue_mode=mq, is refused"
sbd_module_install
expect_load_refused "queue_mode=mq poll_queues=$(($(nproc) + 1))" "poll_queues=1" "queue_mode=rq"

step "queue_mode=mq poll_queues=1: a poll queue beside the default one"
sbd_module_load queue_mode=mq poll_queues=1 ndevices=1 size=32M
assert_file_content /sys/module/sbd/parameters/queue_mode mq
assert_file_content /sys/module/sbd/parameters/poll_queues 1
assert_file_content /sys/block/sbd0/queue/io_poll 1
assert_file_content "$DBG/hctx0/type" default
assert_file_content "$DBG/hctx1/type" poll
# Without a scheduler a request is issued directly and no queue "runs":
# with mq-deadline every request is dispatched by a run of its own queue,
# which debugfs counts.
attr_write /sys/block/sbd0/queue/scheduler mq-deadline
assert_match '\[mq-deadline\]' "$(read_attr /sys/block/sbd0/queue/scheduler)" "scheduler"

step "ordinary direct I/O does not touch the poll queue"
before=$(runs hctx1) before0=$(runs hctx0)
fio_ok plain --ioengine=psync --rw=randwrite
assert_eq "$before" "$(runs hctx1)" "runs of the poll queue"
if (($(runs hctx0) > before0)); then
	pass "the default queue ran"
else
	fail "the default queue did not run: the count shows nothing"
fi

step "io_uring with IOPOLL (--hipri) goes through the poll queue"
before=$(runs hctx1)
fio_ok iopoll-write --ioengine=io_uring --hipri --rw=randwrite --iodepth=8
fio_ok iopoll-read --ioengine=io_uring --hipri --rw=randread --iodepth=8 --verify_only
after=$(runs hctx1)
if ((after > before)); then
	pass "the poll queue ran $((after - before)) times"
else
	fail "the poll queue did not run (runs $before -> $after)"
fi

# A synchronous RWF_HIPRI is accepted but not polled by the kernel (since
# 5.16 only asynchronous I/O polls): it must work, through either queue.
step "pvsync2 with RWF_HIPRI works"
fio_ok hipri-sync --ioengine=pvsync2 --hipri --rw=randwrite

step "queue_mode=mq alone: no poll queue"
sbd_module_unload
sbd_module_load queue_mode=mq ndevices=1 size=32M
assert_file_content /sys/module/sbd/parameters/poll_queues 0
assert_file_content /sys/block/sbd0/queue/io_poll 0
assert_not_exists "$DBG/hctx1"
sbd_module_unload
