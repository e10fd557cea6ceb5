#!/bin/bash
# (f) Unloading: rmmod with several disks present removes every trace; rmmod
# is refused while a disk is open; module parameters shape the first disks.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))

no_trace_left() {
	assert_not_exists /sys/module/sbd
	assert_not_exists "$SBD_BUS"
	assert_not_exists "$SBD_DEVICES"
	assert_eq "" "$(find /dev -maxdepth 1 -name 'sbd*')" "/dev/sbd*"
	assert_eq "" "$(find /sys/block -maxdepth 1 -name 'sbd*')" "/sys/block/sbd*"
	assert_eq "" "$(awk '$2 == "sbd"' /proc/devices)" "sbd in /proc/devices"
}

step "parameters ndevices=3 size=8M give three 8 MiB disks"
sbd_module_load ndevices=3 size=8M
assert_file_content "$SBD_DRV/ndevices" 3
for d in sbd0 sbd1 sbd2; do
	assert_file_content "$SBD_DEVICES/$d/size" $((8 * M))
	assert_block_device "/dev/$d"
done
assert_not_exists "$SBD_DEVICES/sbd3"
for p in ndevices size max_size; do
	if [[ -r /sys/module/sbd/parameters/$p ]]; then
		log "parameter $p = $(read_attr "/sys/module/sbd/parameters/$p")"
	fi
done

step "more disks and data"
attr_write "$SBD_DRV/new_device" "4M 9"
assert_file_content "$SBD_DRV/ndevices" 4
random_file "$SBD_TMP/d" 1024
assert_ok dd if="$SBD_TMP/d" of=/dev/sbd1 bs=1M oflag=direct status=none

step "rmmod is refused while a disk is open"
exec 3</dev/sbd2
refcnt=$(read_attr /sys/module/sbd/refcnt)
assert_match '^[1-9][0-9]*$' "$refcnt" "module refcount while sbd2 is open"
if out=$(rmmod sbd 2>&1); then
	fail "rmmod sbd succeeded while /dev/sbd2 was open"
else
	assert_match 'in use|busy|Resource temporarily unavailable' "$out" "rmmod's refusal"
fi
assert_exists /sys/module/sbd
assert_file_content "$SBD_DRV/ndevices" 4
assert_block_device /dev/sbd2
same_data "$SBD_TMP/d" /dev/sbd1
exec 3<&-
assert_file_content /sys/module/sbd/refcnt 0

step "rmmod with four disks present removes everything"
assert_ok rmmod sbd
no_trace_left

step "load and unload again: nothing was left registered"
sbd_module_load
assert_file_content "$SBD_DRV/ndevices" 1
assert_file_content "$SBD_DEVICES/sbd0/size" $((16 * M))
assert_ok cmp -n $M /dev/sbd0 /dev/zero
sbd_module_unload
no_trace_left

step "max_size bounds new_device and size"
sbd_module_load ndevices=1 size=8M max_size=16M
expect_write_errno "$SBD_DRV/new_device" 32M EINVAL
expect_write_errno "$SBD_DEVICES/sbd0/size" $((32 * M)) EINVAL
attr_write "$SBD_DRV/new_device" 16M
assert_file_content "$SBD_DRV/ndevices" 2
sbd_module_unload
no_trace_left

step "ndevices=0 loads with no disk"
sbd_module_load ndevices=0
assert_file_content "$SBD_DRV/ndevices" 0
assert_dir "$SBD_DRV"
sbd_module_unload
no_trace_left
