#!/bin/bash
# Nothing past the end: after a partitioned disk shrinks, its partitions are
# read again (a partition that no longer fits is cut to the disk or goes), a
# write beyond the capacity fails, and growing again shows zeros there, never
# what a stale partition let through.
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
wait_for /dev/sbd0p1 5 || die "/dev/sbd0p1 did not appear"
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

step "unload"
sbd_module_unload
