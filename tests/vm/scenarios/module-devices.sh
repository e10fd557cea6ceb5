#!/bin/bash
# (d) new_device and delete_device: several disks, ids, errors, EBUSY while
# open, and ndevices following every step.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))

# devices: the sorted list of sbd device names on the bus
devices() { ls "$SBD_BUS/devices" | sort -V | tr '\n' ' ' | sed 's/ $//'; }

# exists_fully NAME SIZE: every sign of a device is there
exists_fully() {
	assert_dir "$SBD_DEVICES/$1"
	assert_link "$SBD_BUS/devices/$1" "$SBD_DEVICES/$1"
	assert_link "$SBD_DRV/$1" "$SBD_DEVICES/$1"
	assert_dir "$SBD_DEVICES/$1/block/$1"
	assert_block_device "/dev/$1"
	assert_file_content "$SBD_DEVICES/$1/size" "$2"
}

# gone_fully NAME: no sign of it is left
gone_fully() {
	assert_not_exists "$SBD_DEVICES/$1"
	assert_not_exists "$SBD_BUS/devices/$1"
	assert_not_exists "$SBD_DRV/$1"
	assert_not_exists "/sys/block/$1"
	assert_not_exists "/dev/$1"
}

step "load with one disk"
sbd_module_load ndevices=1 size=16M max_size=256M
assert_eq sbd0 "$(devices)" "devices"
assert_file_content "$SBD_DRV/ndevices" 1

step "new_device 32M: a second disk with the next free id"
attr_write "$SBD_DRV/new_device" 32M
assert_eq "sbd0 sbd1" "$(devices)" "devices"
assert_file_content "$SBD_DRV/ndevices" 2
exists_fully sbd1 $((32 * M))

step "new_device '4M 7': a disk with the id asked for"
attr_write "$SBD_DRV/new_device" "4M 7"
assert_eq "sbd0 sbd1 sbd7" "$(devices)" "devices"
assert_file_content "$SBD_DRV/ndevices" 3
exists_fully sbd7 $((4 * M))

step "other size spellings"
attr_write "$SBD_DRV/new_device" "$((3 * M)) 3"
exists_fully sbd3 $((3 * M))
echo "1024K 4" >"$SBD_DRV/new_device"
exists_fully sbd4 $((1 * M))
assert_file_content "$SBD_DRV/ndevices" 5

step "new_device errors: EEXIST for a taken id, EINVAL for a bad size, nothing created"
expect_write_errno "$SBD_DRV/new_device" "4M 7" EEXIST
expect_write_errno "$SBD_DRV/new_device" "8M 0" EEXIST
for bad in 0 513 1000 512M 1G abc $'\n' "4M x" "4M -1" "-4M" "4Q"; do
	expect_write_errno "$SBD_DRV/new_device" "$bad" EINVAL
done
assert_eq "sbd0 sbd1 sbd3 sbd4 sbd7" "$(devices)" "devices"
assert_file_content "$SBD_DRV/ndevices" 5

step "each disk keeps its own data"
random_file "$SBD_TMP/d1" 1024
random_file "$SBD_TMP/d7" 1024
assert_ok dd if="$SBD_TMP/d1" of=/dev/sbd1 bs=1M oflag=direct status=none
assert_ok dd if="$SBD_TMP/d7" of=/dev/sbd7 bs=1M oflag=direct status=none
same_data "$SBD_TMP/d1" /dev/sbd1
same_data "$SBD_TMP/d7" /dev/sbd7
assert_ok cmp -n $M /dev/sbd0 /dev/zero

step "delete_device sbd7 and 3, by name and by number"
attr_write "$SBD_DRV/delete_device" sbd7
gone_fully sbd7
attr_write "$SBD_DRV/delete_device" 3
gone_fully sbd3
echo sbd4 >"$SBD_DRV/delete_device"
gone_fully sbd4
assert_eq "sbd0 sbd1" "$(devices)" "devices"
assert_file_content "$SBD_DRV/ndevices" 2

step "an id is free again once deleted"
attr_write "$SBD_DRV/new_device" "4M 7"
exists_fully sbd7 $((4 * M))
assert_ok cmp -n $M /dev/sbd7 /dev/zero
attr_write "$SBD_DRV/delete_device" 7
gone_fully sbd7

step "delete_device errors: ENODEV for unknown disks"
for bad in sbd7 7 sbd42 42; do
	expect_write_errno "$SBD_DRV/delete_device" "$bad" ENODEV
done
for bad in sbd garbage -1 $'\n'; do
	expect_write_errno "$SBD_DRV/delete_device" "$bad" ENODEV EINVAL
done
assert_file_content "$SBD_DRV/ndevices" 2

step "EBUSY while a disk is open, deletable once closed"
exec 3</dev/sbd1
expect_write_errno "$SBD_DRV/delete_device" sbd1 EBUSY
exists_fully sbd1 $((32 * M))
same_data "$SBD_TMP/d1" /dev/sbd1
exec 3<&-
attr_write "$SBD_DRV/delete_device" sbd1
gone_fully sbd1
assert_file_content "$SBD_DRV/ndevices" 1

step "delete the last disk, then create again"
attr_write "$SBD_DRV/delete_device" sbd0
gone_fully sbd0
assert_file_content "$SBD_DRV/ndevices" 0
assert_eq "" "$(devices)" "devices"
for _ in 1 2 3 4 5 6; do
	attr_write "$SBD_DRV/new_device" 8M
done
assert_file_content "$SBD_DRV/ndevices" 6
assert_eq "sbd0 sbd1 sbd2 sbd3 sbd4 sbd5" "$(devices)" "devices"

step "unload with six disks"
sbd_module_unload
assert_not_exists "$SBD_BUS"
assert_eq "" "$(find /dev -maxdepth 1 -name 'sbd*')" "/dev/sbd*"
