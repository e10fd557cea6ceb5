#!/bin/bash
# The memory budget: max_total caps the data pages of all disks together,
# mem_used and mem_max show it, a write beyond it fails with ENOSPC at once,
# sizes that could never fit are refused, and freeing data gives pages back.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))

# fill DEV MB: one direct write of MB MiB of ones from the start of DEV;
# prints dd's error, if any
fill() {
	tr '\0' '\1' </dev/zero | head -c $(($2 * M)) >"$SBD_TMP/ones"
	dd if="$SBD_TMP/ones" of="$1" bs=1M oflag=direct conv=notrunc status=none 2>&1 || true
}

step "parameters that can never work are refused"
sbd_module_install
expect_load_refused "max_total=0" "size=16M max_total=8M" "max_total=100"

step "two 8 MiB disks, a 12 MiB budget"
sbd_module_load ndevices=2 size=8M max_total=12M
assert_mode "$SBD_DRV/mem_used" 444
assert_mode "$SBD_DRV/mem_max" 444
assert_file_content "$SBD_DRV/mem_max" $((12 * M))
assert_file_content "$SBD_DRV/mem_used" 0
assert_file_content /sys/module/sbd/parameters/max_total $((12 * M))

step "sizes over the budget are refused with EINVAL, nothing changed"
expect_write_errno "$SBD_DRV/new_device" 16M EINVAL
expect_write_errno "$SBD_DEVICES/sbd0/size" 16M EINVAL
assert_file_content "$SBD_DRV/ndevices" 2
assert_file_content "$SBD_DEVICES/sbd0/size" $((8 * M))

step "writing within the budget counts in mem_used"
assert_eq "" "$(fill /dev/sbd0 8)" "dd of 8 MiB to sbd0"
assert_file_content "$SBD_DRV/mem_used" $((8 * M))
assert_eq "" "$(fill /dev/sbd0 8)" "rewriting the same 8 MiB"
assert_file_content "$SBD_DRV/mem_used" $((8 * M))

step "a write beyond the budget fails with ENOSPC, the rest of the data kept"
out=$(fill /dev/sbd1 8) || true
assert_match 'No space left on device' "$out" "dd of 8 MiB to sbd1"
assert_file_content "$SBD_DRV/mem_used" $((12 * M))
assert_ok cmp -n $((8 * M)) "$SBD_TMP/ones" /dev/sbd0
assert_ok cmp -n $((4 * M)) "$SBD_TMP/ones" /dev/sbd1

step "shrinking gives pages back, and the write then fits"
attr_write "$SBD_DEVICES/sbd0/size" $((4 * M))
assert_file_content "$SBD_DRV/mem_used" $((8 * M))
assert_eq "" "$(fill /dev/sbd1 8)" "dd of 8 MiB to sbd1 again"
assert_file_content "$SBD_DRV/mem_used" $((12 * M))

step "deleting a disk gives its pages back"
attr_write "$SBD_DRV/delete_device" sbd1
assert_file_content "$SBD_DRV/mem_used" $((4 * M))

step "unload"
sbd_module_unload

step "the default budget is half of RAM"
sbd_module_load
ram=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
max=$(read_attr "$SBD_DRV/mem_max")
# MemTotal leaves out what the kernel reserved at boot: allow 10%.
if ((max <= ram / 2 + ram / 10 && max >= ram / 2 - ram / 10)); then
	pass "mem_max $max is about half of MemTotal $ram"
else
	fail "mem_max $max is not about half of MemTotal $ram"
fi
sbd_module_unload
