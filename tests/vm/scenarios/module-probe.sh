#!/bin/bash
# Probing is synchronous whatever asks for asynchronous probing: with the
# module loaded as async_probe=1, the load-time disks and new_device work.
# (A failed init keeping the disks it made needs fault injection: see
# fault-alloc.sh under the debug kernel.) With the bus's drivers_autoprobe
# at 0, new_device answers ENODEV and leaves no device behind.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

step "modprobe sbd async_probe=1 ndevices=2"
sbd_module_load async_probe=1 ndevices=2 size=8M
assert_file_content "$SBD_DRV/ndevices" 2
assert_block_device /dev/sbd0
assert_block_device /dev/sbd1

step "new_device and delete_device with async probing asked for"
attr_write "$SBD_DRV/new_device" "4M 5"
assert_file_content "$SBD_DRV/ndevices" 3
assert_block_device /dev/sbd5
assert_dir "$SBD_DEVICES/sbd5/block/sbd5"
random_file "$SBD_TMP/r" 1024
assert_ok dd if="$SBD_TMP/r" of=/dev/sbd5 bs=1M oflag=direct status=none
same_data "$SBD_TMP/r" /dev/sbd5
attr_write "$SBD_DRV/delete_device" sbd5
assert_file_content "$SBD_DRV/ndevices" 2

step "drivers_autoprobe=0: new_device answers ENODEV and leaves nothing behind"
# The driver core then binds no new device: the disk cannot be made, and
# the answer says so (no driver bound), where it used to be ENOMEM. The
# device, its id and its count go again; with autoprobe back, the same id
# and the lowest free one are made.
attr_write "$SBD_BUS/drivers_autoprobe" 0
expect_write_errno "$SBD_DRV/new_device" "4M 5" ENODEV
expect_write_errno "$SBD_DRV/new_device" "4M" ENODEV
assert_file_content "$SBD_DRV/ndevices" 2
assert_eq "sbd0 sbd1" "$(ls "$SBD_BUS/devices" | tr '\n' ' ' | sed 's/ $//')" "$SBD_BUS/devices"
assert_not_exists "$SBD_DEVICES/sbd5"
assert_not_exists "$SBD_DEVICES/sbd2"
assert_not_exists /sys/block/sbd5
attr_write "$SBD_BUS/drivers_autoprobe" 1
attr_write "$SBD_DRV/new_device" "4M 5"
attr_write "$SBD_DRV/new_device" "4M"
assert_file_content "$SBD_DRV/ndevices" 4
assert_block_device /dev/sbd5
assert_block_device /dev/sbd2
assert_dir "$SBD_DEVICES/sbd2/block/sbd2"
attr_write "$SBD_DRV/delete_device" sbd5
attr_write "$SBD_DRV/delete_device" sbd2
assert_file_content "$SBD_DRV/ndevices" 2

step "unload"
sbd_module_unload
