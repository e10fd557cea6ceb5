#!/bin/bash
# queue_mode: bio (the default) and mq both keep the queue directory and
# the I/O statistics and hold data; mq can switch I/O schedulers.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

Q=/sys/block/sbd0/queue

# stat_field N: field N of /sys/block/sbd0/stat (1 reads, 5 writes)
stat_field() { awk -v n="$1" '{ print $n }' /sys/block/sbd0/stat; }

# mode_checks MODE: what both modes must keep
mode_checks() {
	assert_file_content /sys/module/sbd/parameters/queue_mode "$1"
	assert_dir "$Q"
	assert_file_content "$Q/iostats" 1
	assert_file_content "$Q/logical_block_size" 512
	assert_file_content "$Q/rotational" 0
	local r w
	r=$(stat_field 1) w=$(stat_field 5)
	random_file "$SBD_TMP/r" 1024
	assert_ok dd if="$SBD_TMP/r" of=/dev/sbd0 bs=4k oflag=direct status=none
	assert_ok dd if=/dev/sbd0 of=/dev/null bs=4k count=256 iflag=direct status=none
	same_data "$SBD_TMP/r" /dev/sbd0
	if (($(stat_field 1) >= r + 256 && $(stat_field 5) >= w + 256)); then
		pass "stat counts the I/O ($r -> $(stat_field 1) reads, $w -> $(stat_field 5) writes)"
	else
		fail "stat does not count the I/O ($r -> $(stat_field 1) reads, $w -> $(stat_field 5) writes)"
	fi
}

step "queue_mode=bio is the default"
sbd_module_load ndevices=1 size=16M
mode_checks bio
assert_file_content "$Q/scheduler" none
sbd_module_unload

step "queue_mode=mq: blk-mq, no scheduler by default, any can be chosen"
sbd_module_load queue_mode=mq ndevices=1 size=16M
mode_checks mq
assert_match '^\[none\] .*mq-deadline' "$(read_attr "$Q/scheduler")" "scheduler"
attr_write "$Q/scheduler" mq-deadline
assert_match '\[mq-deadline\]' "$(read_attr "$Q/scheduler")" "scheduler"
same_data "$SBD_TMP/r" /dev/sbd0
attr_write "$Q/scheduler" none
sbd_module_unload
