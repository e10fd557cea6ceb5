#!/bin/bash
# Discard and write-zeroes: blkdiscard, fallocate --punch-hole and fstrim
# on a mounted ext4 give pages back (mem_used drops, the driver's once
# they are freed after their RCU grace period); BLKZEROOUT
# (blkdiscard -z) and fallocate --zero-range, which say REQ_NOUNMAP, zero
# the pages and keep them; either way the range reads as zeros. The queue
# limits say a page of granularity, and a discard larger than
# discard_max_bytes reaches the store cut to it.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
Q=/sys/block/sbd0/queue
# used: the driver's mem_used once it equals sbd0's, the disk's only, which
# is at once after a write and once the pages a discard gave back have been
# freed (an RCU grace period after it: until then the driver counts them
# against the budget). Gives up after 5 s with what it read.
nap 0 # (makes nap's FIFO here, not in each $(used)'s subshell)
used() {
	local drv dev i
	for ((i = 0; i < 500; i++)); do
		read_attr_to drv "$SBD_DRV/mem_used"
		read_attr_to dev "$SBD_DEVICES/sbd0/mem_used"
		((drv != dev)) || break
		nap 0.01
	done
	printf '%s' "$drv"
}

# zeros_at OFFSET LEN: the disk reads as zeros there
zeros_at() {
	dd if=/dev/sbd0 of="$SBD_TMP/z" bs=512 skip=$(($1 / 512)) count=$(($2 / 512)) iflag=direct status=none
	if cmp -n "$2" "$SBD_TMP/z" /dev/zero >/dev/null 2>&1; then
		pass "$2 bytes at $1 read as zeros"
	else
		fail "$2 bytes at $1 do not read as zeros"
	fi
}
# same_at OFFSET LEN: the disk holds the random file's bytes there
same_at() {
	if cmp -n "$2" -i "$1:$1" "$SBD_TMP/r" /dev/sbd0 >/dev/null 2>&1; then
		pass "$2 bytes at $1 kept"
	else
		fail "$2 bytes at $1 changed"
	fi
}

step "a 64 MiB disk, 16 MiB of random data"
sbd_module_load ndevices=1 size=64M
assert_file_content "$Q/discard_granularity" 4096
assert_match '^[1-9][0-9]*$' "$(read_attr "$Q/discard_max_bytes")" "discard_max_bytes"
assert_match '^[1-9][0-9]*$' "$(read_attr "$Q/write_zeroes_max_bytes")" "write_zeroes_max_bytes"
random_file "$SBD_TMP/r" $((16 * 1024))
assert_ok dd if="$SBD_TMP/r" of=/dev/sbd0 bs=1M oflag=direct status=none
assert_eq $((16 * M)) "$(used)" "mem_used after writing 16 MiB"

step "blkdiscard of 8 MiB gives 8 MiB back and reads as zeros"
assert_ok blkdiscard -o $((4 * M)) -l $((8 * M)) /dev/sbd0
assert_eq $((8 * M)) "$(used)" "mem_used after the discard"
zeros_at $((4 * M)) $((8 * M))
same_at 0 $((4 * M))
same_at $((12 * M)) $((4 * M))

step "a discard of part of a page zeroes that part only"
assert_ok blkdiscard -o $((1 * M + 512)) -l 1024 /dev/sbd0
zeros_at $((1 * M + 512)) 1024
same_at $((1 * M)) 512
same_at $((1 * M + 1536)) $((4096 - 1536))
assert_eq $((8 * M)) "$(used)" "mem_used (no whole page discarded)"

step "BLKZEROOUT (blkdiscard -z, REQ_NOUNMAP) zeroes and keeps the pages"
assert_ok blkdiscard -z -o $((12 * M)) -l $((4 * M)) /dev/sbd0
assert_eq $((8 * M)) "$(used)" "mem_used after zeroing 4 MiB (kept: the caller asked not to unmap)"
zeros_at $((12 * M)) $((4 * M))
same_at 0 $((1 * M))
same_at $((1 * M + 4096)) $((3 * M - 4096))

step "fallocate --zero-range (REQ_NOUNMAP) keeps them too; --punch-hole gives them back"
assert_ok fallocate --zero-range -o $((13 * M)) -l $((1 * M)) /dev/sbd0
assert_eq $((8 * M)) "$(used)" "mem_used after a zero-range"
zeros_at $((13 * M)) $((1 * M))
assert_ok fallocate --punch-hole --keep-size -o $((12 * M)) -l $((4 * M)) /dev/sbd0
assert_eq $((4 * M)) "$(used)" "mem_used after punching 4 MiB"
zeros_at $((12 * M)) $((4 * M))
same_at 0 $((1 * M))

step "read_only: discard and zeroing fail, nothing freed"
attr_write "$SBD_DEVICES/sbd0/read_only" 1
assert_fails blkdiscard -o 0 -l $((1 * M)) /dev/sbd0
assert_fails blkdiscard -z -o 0 -l $((1 * M)) /dev/sbd0
assert_eq $((4 * M)) "$(used)" "mem_used"
same_at 0 $((1 * M))
attr_write "$SBD_DEVICES/sbd0/read_only" 0

step "fstrim on a mounted ext4 gives a deleted file's pages back"
modprobe ext4 || die "modprobe ext4 failed"
assert_ok mkfs.ext4 -q -F /dev/sbd0
mkdir -p "$SBD_TMP/mnt"
mount -t ext4 /dev/sbd0 "$SBD_TMP/mnt" || die "mount failed"
dd if=/dev/urandom of="$SBD_TMP/mnt/f" bs=1M count=24 conv=fsync status=none
full=$(used)
rm "$SBD_TMP/mnt/f"
sync
out=$(fstrim -v "$SBD_TMP/mnt" 2>&1) || fail "fstrim failed: $out"
after=$(used)
if ((full - after >= 20 * M)); then
	pass "fstrim gave back $(((full - after) / M)) MiB ($out)"
else
	fail "mem_used $full before fstrim, $after after: less than 20 MiB back ($out)"
fi
umount "$SBD_TMP/mnt"

step "unload"
sbd_module_unload

step "a discard of a whole 1 GiB disk reaches the store cut to discard_max_bytes"
# blkdev_issue_discard() sizes its bios by the granularity alone (up to
# 4 GiB); the disk's I/O statistics count each bio that reached sbd, so a
# 1 GiB discard must arrive as 1 GiB / discard_max_bytes discards.
sbd_module_load ndevices=1 size=1G max_total=1G
max=$(read_attr "$Q/discard_max_bytes")
assert_eq $((128 * M)) "$max" "discard_max_bytes"
for at in 0 $((1024 * M - 2 * M)); do
	dd if=/dev/urandom of=/dev/sbd0 bs=1M count=2 seek=$((at / M)) oflag=direct status=none
done
assert_eq $((4 * M)) "$(used)" "mem_used after writing 2 MiB at each end"
# discards: /sys/block/sbd0/stat's fields 12 (I/Os) and 14 (sectors)
discards() { awk '{ print $12, $14 }' /sys/block/sbd0/stat; }
assert_ok blkdiscard /dev/sbd0
assert_eq "8 $((1024 * M / 512))" "$(discards)" "discard I/Os and sectors after blkdiscard of 1 GiB"
assert_eq 0 "$(used)" "mem_used after discarding the whole disk"
zeros_at $((1024 * M - 2 * M)) $((2 * M))
assert_ok blkdiscard -o 0 -l $((128 * M)) /dev/sbd0
assert_eq "9 $((1152 * M / 512))" "$(discards)" "after a discard of exactly 128 MiB: one more"
assert_ok blkdiscard -o 0 -l $((128 * M + 4096)) /dev/sbd0
assert_eq "11 $((1280 * M / 512 + 8))" "$(discards)" "after a discard of 128 MiB and a page: two more"
sbd_module_unload
