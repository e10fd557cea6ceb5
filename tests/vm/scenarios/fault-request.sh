#!/bin/bash
# Failing block requests (debug kernel: run-vm --kernel debug):
# fail_make_request aimed at one disk (its make-it-fail in sysfs) fails every
# bio before it reaches sbd: direct and buffered I/O fail with EIO,
# `blockdev --rereadpt` reports the error, the other disk and every sysfs
# attribute keep working, and sbdd keeps serving. Once it stops, the data
# written before is intact, I/O works again and `rmmod` succeeds.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

FMR=/sys/kernel/debug/fail_make_request

step "module, daemon, data"
[[ -d $FMR ]] || die "no fail_make_request in debugfs: this kernel lacks CONFIG_FAIL_MAKE_REQUEST (use run-vm --kernel debug)"
sbd_bus_start
sbdd_start -p ndevices=2 -p size=8M
random_file "$SBD_TMP/before" 1024
dd if="$SBD_TMP/before" of=/dev/sbd0 bs=64K oflag=direct status=none
same_data "$SBD_TMP/before" /dev/sbd0
assert_exists /sys/block/sbd0/make-it-fail

step "every request of sbd0 fails"
echo 0 >"$FMR/verbose" # a stack dump per failure would read as a kernel problem
echo 1 >"$FMR/interval"
echo -1 >"$FMR/times"
echo 100 >"$FMR/probability"
# Empty the page cache: a partition table read from it (same_data above read
# the disk buffered) would need no request at all.
blockdev --flushbufs /dev/sbd0
echo 1 >/sys/block/sbd0/make-it-fail
out=$(dd if=/dev/sbd0 of=/dev/null bs=4K count=1 iflag=direct 2>&1) && fail "a direct read succeeded" ||
	assert_match 'Input/output error' "$out" "direct read"
out=$(dd if=/dev/zero of=/dev/sbd0 bs=4K count=1 seek=1500 oflag=direct 2>&1) && fail "a direct write succeeded" ||
	assert_match 'Input/output error' "$out" "direct write"
out=$(dd if=/dev/zero of=/dev/sbd0 bs=4K count=4 seek=1000 conv=fsync 2>&1) && fail "a buffered write with fsync succeeded" ||
	assert_match 'Input/output error' "$out" "buffered write + fsync"
# 6.1's BLKRRPART returns 0 when the table cannot be read (seen: "sbd0:
# unable to read partition table" and status 0): the log must say it then.
if out=$(blockdev --rereadpt /dev/sbd0 2>&1); then
	assert_match 'sbd0: unable to read partition table' "$(dmesg | tail -n 20)" "BLKRRPART succeeded; the kernel log"
else
	pass "blockdev --rereadpt fails: $out"
fi

step "the rest keeps working meanwhile"
dd if=/dev/zero of=/dev/sbd1 bs=64K count=4 oflag=direct status=none && pass "sbd1 takes writes" || fail "sbd1 refused a write"
attr_write "$(sbd_attr sbd0 label)" failing
assert_file_content "$(sbd_attr sbd0 label)" failing
attr_write "$(sbd_attr sbd0 read_only)" 1
attr_write "$(sbd_attr sbd0 read_only)" 0
attr_write "$SBD_DRV/new_device" "1M 4"
attr_write "$SBD_DRV/delete_device" 4
assert_eq "s \"failing\"" "$(dbus_get "$(sbd_dev_path sbd0)" org.sbd.Sbd1.Device Label)" "Label through sbdd"
assert_eq ok "$(dbus_error -o "$(sbd_dev_path sbd0)" -m org.freedesktop.DBus.Properties.Set \
	org.sbd.Sbd1.Device Label "<'via-sbdd'>")" "Set Label through sbdd"
sbdd_alive

step "stopped: the data written before is intact, I/O works"
echo 0 >/sys/block/sbd0/make-it-fail
echo 0 >"$FMR/probability"
blockdev --flushbufs /dev/sbd0 # read the disk, not the page cache
same_data "$SBD_TMP/before" /dev/sbd0
random_file "$SBD_TMP/after" 512
dd if="$SBD_TMP/after" of=/dev/sbd0 bs=64K seek=32 oflag=direct status=none
same_data "$SBD_TMP/after" /dev/sbd0 $((32 * 65536))
assert_ok blockdev --rereadpt /dev/sbd0
sbd_check_tree --timeout 60
sbdd_stop
sbd_module_unload
assert_not_exists "$SBD_BUS"
