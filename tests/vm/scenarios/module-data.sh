#!/bin/bash
# (b) Data: random bytes written to /dev/sbd0 read back identical, across a
# resize and while read-only (writes fail, data unchanged).
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
dev=$SBD_DEVICES/sbd0

# read_back OFFSET_MB COUNT_MB FILE: read the disk with O_DIRECT into FILE
read_back() {
	dd if=/dev/sbd0 of="$3" bs=1M skip="$1" count="$2" iflag=direct status=none
}
# write_at OFFSET_MB FILE: write FILE to the disk with O_DIRECT
write_at() {
	dd if="$2" of=/dev/sbd0 bs=1M seek="$1" oflag=direct conv=notrunc status=none
}
# check_same NAME OFFSET_MB COUNT_MB: the disk holds NAME's data there
check_same() {
	local out
	read_back "$2" "$3" "$SBD_TMP/back"
	if out=$(cmp "$SBD_TMP/$1" "$SBD_TMP/back" 2>&1); then
		pass "$3 MiB at $2 MiB read back identical to $1"
	else
		fail "$3 MiB at $2 MiB differ from $1: $out"
	fi
}

step "load one 16 MiB disk"
sbd_module_load ndevices=1 size=16M
assert_block_device /dev/sbd0
assert_file_content "$dev/size" $((16 * M))

step "an untouched disk reads as zeros"
read_back 0 16 "$SBD_TMP/zero-read"
assert_ok cmp -n $((16 * M)) "$SBD_TMP/zero-read" /dev/zero

step "random data written and read back (direct and buffered)"
random_file "$SBD_TMP/a" $((8 * 1024))
random_file "$SBD_TMP/b" $((1024))
assert_ok write_at 0 "$SBD_TMP/a"
assert_ok write_at 15 "$SBD_TMP/b"
check_same a 0 8
check_same b 15 1
assert_ok dd if="$SBD_TMP/b" of=/dev/sbd0 bs=1M seek=10 conv=notrunc,fsync status=none
assert_ok blockdev --flushbufs /dev/sbd0
check_same b 10 1
assert_fails dd if="$SBD_TMP/b" of=/dev/sbd0 bs=1M seek=16 oflag=direct conv=notrunc status=none

step "grow to 32 MiB: old data kept, new space usable"
attr_write "$dev/size" $((32 * M))
assert_file_content "$dev/size" $((32 * M))
assert_file_content /sys/block/sbd0/size $((32 * M / 512))
assert_eq $((32 * M)) "$(blockdev --getsize64 /dev/sbd0)" "blockdev --getsize64"
check_same a 0 8
check_same b 15 1
random_file "$SBD_TMP/c" $((8 * 1024))
assert_ok write_at 20 "$SBD_TMP/c"
check_same c 20 8
read_back 16 4 "$SBD_TMP/gap"
assert_ok cmp -n $((4 * M)) "$SBD_TMP/gap" /dev/zero

step "read_only 1: writes fail, data unchanged"
attr_write "$dev/read_only" 1
assert_file_content "$dev/read_only" 1
assert_file_content /sys/block/sbd0/ro 1
assert_eq 1 "$(blockdev --getro /dev/sbd0)" "blockdev --getro"
random_file "$SBD_TMP/x" 1024
if out=$(dd if="$SBD_TMP/x" of=/dev/sbd0 bs=1M seek=0 oflag=direct conv=notrunc status=none 2>&1); then
	fail "a write to the read-only disk succeeded"
else
	assert_match 'Operation not permitted|Input/output error|Permission denied|Read-only' "$out" "dd's error on the read-only disk"
fi
check_same a 0 8
check_same c 20 8

step "read_only 0: writes work again"
attr_write "$dev/read_only" 0
assert_file_content "$dev/read_only" 0
assert_file_content /sys/block/sbd0/ro 0
assert_ok write_at 0 "$SBD_TMP/x"
check_same x 0 1

step "shrink to 8 MiB: the kept part is intact"
attr_write "$dev/size" $((8 * M))
assert_eq $((8 * M)) "$(blockdev --getsize64 /dev/sbd0)" "blockdev --getsize64"
check_same x 0 1
dd if="$SBD_TMP/a" of="$SBD_TMP/a-rest" bs=1M skip=1 count=7 status=none
check_same a-rest 1 7

step "unload"
sbd_module_unload
