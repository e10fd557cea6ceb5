#!/bin/bash
# The harness itself, without the sbd module: the guest runs the kernel we
# asked for, sees the host's programs and build tree, and a real block
# device (the kernel's own brd) keeps what is written to it.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

step "the guest runs the requested kernel"
assert_eq "$SBD_KREL" "$(uname -r)" "uname -r"
assert_exists "/lib/modules/$SBD_KREL/modules.dep"

step "the host's programs and the build tree are visible"
for prog in bash dd cmp modprobe busctl dbus-daemon udevadm; do
	assert_ok command -v "$prog"
done
assert_exists "$SBD_SOURCE_DIR/tests/vm/lib.sh"
assert_exists "$SBD_VM_TOOL"
assert_match '^overlay ' "$(grep ' / ' /proc/mounts)" "root mount"

step "the root is writable (tmpfs overlay) and the results share too"
assert_ok touch /etc/sbd-vm-write-test
echo saved >"$SBD_VM_RESULTS/smoke.txt"
assert_file_content "$SBD_VM_RESULTS/smoke.txt" saved

step "brd: a RAM disk keeps random data"
assert_ok modprobe brd rd_size=65536 rd_nr=1
assert_block_device /dev/ram0
assert_file_content /sys/block/ram0/size $((65536 * 2))
random_file "$SBD_TMP/data" 8192
assert_ok dd if="$SBD_TMP/data" of=/dev/ram0 bs=1M oflag=direct status=none
echo 3 >/proc/sys/vm/drop_caches
same_data "$SBD_TMP/data" /dev/ram0
assert_ok modprobe -r brd
assert_not_exists /dev/ram0

step "sbd-vmtool reports a failed write's errno by name"
expect_write_errno /sys/kernel/mm/transparent_hugepage/enabled bogus EINVAL
expect_write_errno /proc/sys/kernel/osrelease x EACCES EPERM
