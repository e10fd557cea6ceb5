#!/bin/bash
# (c) Every writable attribute: good writes take effect, bad ones fail with
# the errno contract.md names and change nothing.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
dev=$SBD_DEVICES/sbd0

step "load one 16 MiB disk, at most 64 MiB"
sbd_module_load ndevices=1 size=16M max_size=64M

step "size: good writes"
attr_write "$dev/size" $((32 * M))
assert_file_content "$dev/size" $((32 * M))
attr_write "$dev/size" $((64 * M))
assert_file_content "$dev/size" $((64 * M))
attr_write "$dev/size" 512
assert_file_content "$dev/size" 512
assert_file_content /sys/block/sbd0/size 1
echo $((16 * M)) >"$dev/size"
assert_file_content "$dev/size" $((16 * M))

step "size: bad writes fail with EINVAL and change nothing"
# (An empty write(2) never reaches a store(): sysfs answers 0 itself. A
# lone newline does reach it.)
for bad in 0 513 1000 $((64 * M + 512)) $((1024 * M)) abc -512 $'\n' 16M1 99999999999999999999999; do
	expect_write_errno "$dev/size" "$bad" EINVAL
done
assert_file_content "$dev/size" $((16 * M))

step "size: EBUSY while the disk is open"
exec 3</dev/sbd0
expect_write_errno "$dev/size" $((32 * M)) EBUSY
exec 3<&-
exec 3>/dev/sbd0
expect_write_errno "$dev/size" $((8 * M)) EBUSY
exec 3>&-
assert_file_content "$dev/size" $((16 * M))
attr_write "$dev/size" $((8 * M))
assert_file_content "$dev/size" $((8 * M))

step "read_only: good and bad writes"
attr_write "$dev/read_only" 1
assert_file_content "$dev/read_only" 1
echo 0 >"$dev/read_only"
assert_file_content "$dev/read_only" 0
# A whole word or nothing ("10" and "1junk": module-bounds).
for bad in garbage 2 -1 $'\n' x; do
	expect_write_errno "$dev/read_only" "$bad" EINVAL
done
assert_file_content "$dev/read_only" 0
attr_write "$dev/read_only" y
assert_file_content "$dev/read_only" 1
attr_write "$dev/read_only" n
assert_file_content "$dev/read_only" 0

step "label: good writes"
attr_write "$dev/label" data-disk
assert_file_content "$dev/label" data-disk
echo "with newline" >"$dev/label"
assert_file_content "$dev/label" "with newline"
l31=abcdefghijklmnopqrstuvwxyz01234
attr_write "$dev/label" "$l31"
assert_file_content "$dev/label" "$l31"
attr_write "$dev/label" x
assert_file_content "$dev/label" x

step "label: bad writes fail with EINVAL and change nothing"
# \xff: not a character in UTF-8 (D-Bus strings must be UTF-8), though the
# kernel's Latin-1 isprint() calls it printable.
for bad in $'\n' "${l31}5" "$(printf 'a%.0s' {1..200})" $'a\x01b' $'tab\there' $'\x7f' $'\x80' $'a\xffb'; do
	expect_write_errno "$dev/label" "$bad" EINVAL
done
assert_file_content "$dev/label" x

step "online: 0 makes I/O fail, 1 restores it"
random_file "$SBD_TMP/d" 1024
assert_ok dd if="$SBD_TMP/d" of=/dev/sbd0 bs=1M oflag=direct conv=notrunc status=none
attr_write "$dev/online" 0
assert_file_content "$dev/online" 0
assert_fails dd if=/dev/sbd0 of=/dev/null bs=4K count=1 iflag=direct status=none
assert_fails dd if="$SBD_TMP/d" of=/dev/sbd0 bs=1M oflag=direct conv=notrunc status=none
for bad in garbage 2 $'\n'; do
	expect_write_errno "$dev/online" "$bad" EINVAL
done
assert_file_content "$dev/online" 0
attr_write "$dev/online" 1
assert_file_content "$dev/online" 1
assert_ok dd if=/dev/sbd0 of="$SBD_TMP/back" bs=1M count=1 iflag=direct status=none
assert_ok cmp "$SBD_TMP/d" "$SBD_TMP/back"

step "online=0 returns once the I/O in flight has ended"
# dd writes 4 MiB bios to pages never written; the moment a few are done,
# the disk goes offline (a write from bash itself: no process to start).
# Once offline has answered no bio may still be at work, so the disk's
# mem_used stays where it was. Three times: before offline waited, one
# try in three still passed.
for try in 1 2 3; do
	echo $((8 * M)) >"$dev/size"
	echo $((64 * M)) >"$dev/size"
	dd if=/dev/zero of=/dev/sbd0 bs=4M count=16 oflag=direct status=none 2>/dev/null &
	dd_pid=$!
	used=0
	while ((used <= 8 * M)) && kill -0 "$dd_pid" 2>/dev/null; do used=$(read_attr "$dev/mem_used"); done
	echo 0 >"$dev/online"
	held=$(read_attr "$dev/mem_used")
	wait "$dd_pid" || true
	sleep 0.2
	assert_eq "$held" "$(read_attr "$dev/mem_used")" "try $try: mem_used once offline had answered ($((held / M)) MiB), and after dd ended"
	echo 1 >"$dev/online"
done

step "attributes of the driver: write-only files refuse bad input too"
expect_write_errno "$SBD_DRV/new_device" $'\n' EINVAL
expect_write_errno "$SBD_DRV/delete_device" $'\n' ENODEV EINVAL
assert_file_content "$SBD_DRV/ndevices" 1

step "unload"
sbd_module_unload
