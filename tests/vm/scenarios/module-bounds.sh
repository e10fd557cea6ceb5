#!/bin/bash
# Nothing past the end: after a partitioned disk shrinks, its partitions are
# read again (a partition that no longer fits is cut to the disk or goes), a
# write beyond the capacity fails, and growing again shows zeros there, never
# what a stale partition let through; an offline disk keeps its partitions
# through a resize or a rebind, and shows them again once online. Every store parses exactly the bytes
# written (one trailing newline allowed), and sizes end where the kernel's
# types do: at MAX_LFS_FILESIZE rounded down to a page, 2^63 - 4096.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
dev=$SBD_DEVICES/sbd0

# part_end NAME: the end of partition NAME of sbd0 in bytes, or "gone"
part_end() {
	local p=/sys/block/sbd0/$1
	if [[ -e $p ]]; then
		echo $((($(read_attr "$p/start") + $(read_attr "$p/size")) * 512))
	else
		echo gone
	fi
}

# write_p1 OFFSET_MB FILE: a direct write through /dev/sbd0p1
write_p1() {
	dd if="$2" of=/dev/sbd0p1 bs=1M seek="$1" oflag=direct conv=notrunc status=none
}

step "a 64 MiB disk with one partition from 1 MiB to its end"
sbd_module_load ndevices=1 size=64M
echo 'start=2048, type=83' | sfdisk -q /dev/sbd0 || die "sfdisk failed"
wait_for /dev/sbd0p1 30 || die "/dev/sbd0p1 did not appear"
assert_eq $((64 * M)) "$(part_end sbd0p1)" "end of sbd0p1"
random_file "$SBD_TMP/r" 1024
assert_ok write_p1 61 "$SBD_TMP/r"
same_data "$SBD_TMP/r" /dev/sbd0 $((62 * M))

step "shrink to 8 MiB: the partitions are read again"
attr_write "$dev/size" $((8 * M))
assert_eq $((8 * M)) "$(blockdev --getsize64 /dev/sbd0)" "blockdev --getsize64 /dev/sbd0"
end=$(part_end sbd0p1)
if [[ $end == gone ]] || ((end <= 8 * M)); then
	pass "sbd0p1 ends within the disk ($end)"
else
	fail "sbd0p1 still ends at $end, beyond the 8 MiB disk"
fi

step "a direct write through the partition beyond 8 MiB fails"
assert_fails write_p1 61 "$SBD_TMP/r"
assert_fails dd if="$SBD_TMP/r" of=/dev/sbd0 bs=1M seek=62 oflag=direct conv=notrunc status=none

step "grow to 64 MiB again: zeros where the stale partition wrote, the partition back"
attr_write "$dev/size" $((64 * M))
dd if=/dev/sbd0 of="$SBD_TMP/back" bs=1M skip=62 count=1 iflag=direct status=none
assert_ok cmp -n "$M" "$SBD_TMP/back" /dev/zero
assert_eq $((64 * M)) "$(part_end sbd0p1)" "end of sbd0p1 after growing"

step "offline, growing and rebinding keep the partitions; online shows the ones the disk holds"
# An offline disk fails all I/O, the reading of its partition table too:
# nothing may be read again (and so dropped) until it comes back online.
assert_ok write_p1 2 "$SBD_TMP/r"
attr_write "$dev/online" 0
attr_write "$dev/size" $((128 * M))
assert_eq $((64 * M)) "$(part_end sbd0p1)" "end of sbd0p1 after growing while offline"
attr_write "$dev/online" 1
assert_eq $((64 * M)) "$(part_end sbd0p1)" "end of sbd0p1 once online"
same_data "$SBD_TMP/r" /dev/sbd0p1 $((2 * M))
attr_write "$dev/online" 0
attr_write "$SBD_DRV/unbind" sbd0
attr_write "$SBD_DRV/bind" sbd0
attr_write "$dev/online" 1
assert_eq $((64 * M)) "$(part_end sbd0p1)" "end of sbd0p1 after rebinding while offline, once online"
wait_for /dev/sbd0p1 5 || fail "/dev/sbd0p1 did not come back"
same_data "$SBD_TMP/r" /dev/sbd0p1 $((2 * M))
attr_write "$dev/size" $((64 * M))

step "size takes exactly the bytes written: junk, signs, spaces, overflow are EINVAL"
# (Echo's one newline is allowed; a second one is junk.)
for bad in 16777216junk 16M1 16777216$'\n\n' 16M$'\n\n' 16777216$'\n'x ' 16777216' '16777216 ' \
	16777216$'\t' +16777216 -16777216 +16M 0x1000000 18446744073709551616 16777216T 99999999999999999999999; do
	expect_write_errno "$dev/size" "$bad" EINVAL
done
assert_file_content "$dev/size" $((64 * M))
attr_write "$dev/size" 16M$'\n'
assert_file_content "$dev/size" $((16 * M))

step "read_only takes a whole word (0 1 y n yes no on off), not a valid prefix"
for bad in 1junk 0junk 10 01 yesno nope onx offf 1$'\n\n' ' 1' '1 ' +1 -0 true; do
	expect_write_errno "$dev/read_only" "$bad" EINVAL
done
assert_file_content "$dev/read_only" 0
for good in 1 0 Y N yes no ON off 1$'\n' 0$'\n'; do
	attr_write "$dev/read_only" "$good"
done
assert_file_content "$dev/read_only" 0

step "new_device takes SIZE or SIZE ID, one space between, nothing else"
for bad in "4M junk" "4M 5junk" 4Mjunk "4M 5 " " 4M 5" "4M  5" $'4M\t5' "4M 5"$'\n\n' 4M$'\n\n' \
	$'4M\n5' +4M "4M +5" "4M -5" "4M 5 6" "4M 99999999999999999999999" 18446744073709551616; do
	expect_write_errno "$SBD_DRV/new_device" "$bad" EINVAL
done
assert_file_content "$SBD_DRV/ndevices" 1
assert_not_exists "$SBD_DEVICES/sbd5"
attr_write "$SBD_DRV/new_device" "4M 5"$'\n'
assert_dir "$SBD_DEVICES/sbd5"

step "delete_device takes sbdN or N, nothing else"
for bad in 5junk sbd5junk "sbd5 " " sbd5" "sbd 5" sbd+5 +5 sbd-5 5$'\n\n' sbd5$'\n\n' sbd99999999999999999999; do
	expect_write_errno "$SBD_DRV/delete_device" "$bad" EINVAL
done
assert_dir "$SBD_DEVICES/sbd5"
attr_write "$SBD_DRV/delete_device" sbd5$'\n'
assert_not_exists "$SBD_DEVICES/sbd5"

step "unload"
sbd_module_unload

step "module parameters take exactly the value: junk, signs, overflow are refused"
expect_load_errno "Invalid argument" max_size=18446744073709551616 size=+16M max_size=1G1 \
	ndevices=+1 poll_queues=+0 ndevices=1x ndevices=-1 queue_mode=bio2
expect_load_errno "Numerical result out of range" ndevices=4294967296 poll_queues=99999999999999999999

step "sizes at load are at most 2^63 - 4096: more is refused with EINVAL"
# 2^63 and 8388608T make the disk's size in bytes (a loff_t) negative;
# 2^64 - 4096 overflows the page count of a disk that size.
expect_load_errno "Invalid argument" max_size=9223372036854775808 max_size=8388608T \
	max_size=18446744073709547520 max_total=9223372036854775808 max_total=18446744073709547520 \
	"size=9223372036854775808 max_size=9223372036854775808 max_total=9223372036854775808"

step "at the cap: a disk of 2^63 - 4096 bytes keeps its data, one byte more is refused"
cap=9223372036854771712
sbd_module_load ndevices=1 size=16M max_size=$cap max_total=$cap
assert_file_content /sys/module/sbd/parameters/max_size $cap
assert_file_content "$SBD_DRV/mem_max" $cap
random_file "$SBD_TMP/c" 1024
assert_ok dd if="$SBD_TMP/c" of=/dev/sbd0 bs=1M oflag=direct conv=notrunc status=none
attr_write "$dev/size" $cap
assert_eq $cap "$(blockdev --getsize64 /dev/sbd0)" "blockdev --getsize64 /dev/sbd0"
same_data "$SBD_TMP/c" /dev/sbd0
for bad in 9223372036854775808 18446744073709547520 18446744073709551104 8388608T; do
	expect_write_errno "$dev/size" "$bad" EINVAL
	expect_write_errno "$SBD_DRV/new_device" "$bad" EINVAL
done
assert_file_content "$dev/size" $cap
assert_file_content "$SBD_DRV/ndevices" 1
same_data "$SBD_TMP/c" /dev/sbd0

step "unload"
sbd_module_unload
