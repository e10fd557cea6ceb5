#!/bin/bash
# (a) The sysfs layout and links of the article, as contract.md section 2
# fixes them: bus, driver, device, gendisk, the links between them, and the
# article's attributes.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

step "load the module with its defaults"
sbd_module_load
dev=$SBD_DEVICES/sbd0

step "the bus is a system subsystem"
assert_dir "$SBD_BUS"
assert_dir "$SBD_DEVICES"
assert_dir "$dev"
assert_link "$SBD_BUS/devices/sbd0" "$dev"
assert_link "$dev/subsystem" "$SBD_BUS"

step "the driver and its attributes"
assert_dir "$SBD_DRV"
assert_link "$SBD_DRV/sbd0" "$dev"
assert_link "$dev/driver" "$SBD_DRV"
assert_mode "$SBD_DRV/version" 444
assert_mode "$SBD_DRV/ndevices" 444
assert_mode "$SBD_DRV/new_device" 200
assert_mode "$SBD_DRV/delete_device" 200
assert_match '^[[:print:]]+$' "$(cat "$SBD_DRV/version")" "version"
assert_eq "$(modinfo -F version sbd)" "$(cat "$SBD_DRV/version")" "version (as modinfo reads it)"
assert_file_content "$SBD_DRV/ndevices" 1

step "the device's attributes"
for a in name device mem_used; do assert_mode "$dev/$a" 444; done
for a in size read_only label online; do assert_mode "$dev/$a" 644; done
assert_file_content "$dev/name" "Simple block device"
major=$(awk '$2 == "sbd" { print $1 }' /proc/devices)
assert_match '^[0-9]+$' "$major" "major of sbd in /proc/devices"
assert_file_content "$dev/device" "$(printf '%02x00' "$major")"
assert_file_content "$dev/size" $((16 * 1024 * 1024))
assert_file_content "$dev/read_only" 0
assert_file_content "$dev/online" 1
assert_match '^[[:print:]]{1,31}$' "$(cat "$dev/label")" "default label"
assert_dir "$dev/power"
assert_exists "$dev/power/runtime_status"
assert_match '^(active|suspended|suspending|resuming)$' "$(cat "$dev/power/runtime_status")" "runtime_status"
assert_match 'DRIVER=sbd' "$(cat "$dev/uevent")" "the device's uevent file"

step "the gendisk hangs below the device, and links back"
assert_dir "$dev/block/sbd0"
assert_link /sys/block/sbd0 "$dev/block/sbd0"
assert_link /sys/block/sbd0/device "$dev"
assert_file_content /sys/block/sbd0/size $((16 * 1024 * 1024 / 512))
assert_file_content /sys/block/sbd0/ro 0

step "the block device node"
assert_block_device /dev/sbd0
assert_eq "$major:0" "$(( 16#$(stat -c %t /dev/sbd0) )):$(( 16#$(stat -c %T /dev/sbd0) ))" "major:minor of /dev/sbd0"
assert_eq $((16 * 1024 * 1024)) "$(blockdev --getsize64 /dev/sbd0)" "blockdev --getsize64"
assert_file_content /sys/block/sbd0/dev "$major:0"

step "read-only attributes refuse writes, write-only ones refuse reads"
for a in version ndevices; do expect_write_errno "$SBD_DRV/$a" 1 EACCES EPERM; done
for a in name device mem_used; do expect_write_errno "$dev/$a" 1 EACCES EPERM; done
for a in new_device delete_device; do assert_fails cat "$SBD_DRV/$a"; done
assert_file_content "$dev/name" "Simple block device"

step "unload"
sbd_module_unload
assert_not_exists "$SBD_BUS"
assert_not_exists /dev/sbd0
