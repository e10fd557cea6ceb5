#!/bin/bash
# The memory budget: max_total caps the data pages of all disks together,
# mem_used and mem_max show it, a write beyond it fails with ENOSPC at once,
# sizes that could never fit are refused, and freeing data gives pages back;
# each disk's mem_used counts its own pages exactly.
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

step "each disk's mem_used, exact through a random mix of operations"
# Three 1 MiB disks; a model of the pages each holds (a page is held once
# any byte of it was written, freed when a discard or an unmapping
# write-zeroes covers it whole, when the disk shrinks below it, or when the
# disk goes); after every operation each disk's mem_used must be its
# model's and their sum the driver's mem_used.
sbd_module_load ndevices=3 size=1M
seed=${SBD_MIX_SEED:-$((($(date +%s%N) / 1000) % 32768))}
RANDOM=$seed
log "seed $seed"
declare -A held=()
mix_bad=0
count=(0 0 0)
# hold D FIRST END: the model's pages FIRST..END-1 of disk D are held
hold() {
	local p
	for ((p = $2; p < $3; p++)); do
		[[ -n ${held[$1:$p]:-} ]] || count[$1]=$((count[$1] + 1))
		held[$1:$p]=1
	done
}
# drop D FIRST END: the model's pages FIRST..END-1 of disk D are gone
drop() {
	local p
	for ((p = $2; p < $3; p++)); do
		[[ -z ${held[$1:$p]:-} ]] || count[$1]=$((count[$1] - 1))
		unset "held[$1:$p]"
	done
}
# driver_settles SUM WHAT: the driver's mem_used is SUM (the disks' sum)
# plus the pages discarded that wait for their RCU grace period: never less
# than SUM, never over mem_max, and SUM within 5 s (a grace period is
# milliseconds). Counts the checks that had to wait in $settle_waits.
settle_waits=0
driver_settles() {
	local got max i
	read_attr_to got "$SBD_DRV/mem_used"
	read_attr_to max "$SBD_DRV/mem_max"
	((got <= $1)) || settle_waits=$((settle_waits + 1))
	((got <= max)) || { fail "after $2: driver mem_used $got over mem_max $max"; mix_bad=1; }
	for ((i = 0; i < 500 && got > $1; i++)); do
		nap 0.01
		read_attr_to got "$SBD_DRV/mem_used"
	done
	if ((got != $1)); then
		fail "after $2: driver mem_used $got, the disks' sum $1"
		mix_bad=1
	fi
}
# mix_check WHAT: every disk's mem_used is its model's, the sum the driver's
mix_check() {
	local d n sum=0 got
	for d in 0 1 2; do
		n=${count[d]}
		got=$(read_attr "$SBD_DEVICES/sbd$d/mem_used")
		sum=$((sum + got))
		if ((got != n * 4096)); then
			fail "after $1: sbd$d mem_used $got, expected $((n * 4096))"
			mix_bad=1
		fi
	done
	driver_settles "$sum" "$1"
}
assert_mode "$SBD_DEVICES/sbd0/mem_used" 444
assert_file_content "$SBD_DEVICES/sbd0/mem_used" 0
for ((i = 0; i < 24; i++)); do
	d=$((RANDOM % 3))
	o=$((RANDOM % 2048))                   # sector
	l=$((1 + RANDOM % (2048 - o < 256 ? 2048 - o : 256)))
	first=$((o * 512 / 4096))
	end=$((((o + l) * 512 + 4095) / 4096)) # pages touched: first..end-1
	in_first=$(((o * 512 + 4095) / 4096))  # pages covered whole
	in_end=$(((o + l) * 512 / 4096))
	case $((RANDOM % 7)) in
	0 | 1 | 2)
		what="write of $l sectors at $o on sbd$d"
		dd if=/dev/urandom of="/dev/sbd$d" bs=512 seek=$o count=$l oflag=direct conv=notrunc status=none
		hold "$d" "$first" "$end"
		;;
	3)
		what="discard of $l sectors at $o on sbd$d"
		blkdiscard -o $((o * 512)) -l $((l * 512)) "/dev/sbd$d"
		drop "$d" "$in_first" "$in_end"
		;;
	4)
		what="punch-hole (write-zeroes) of $l sectors at $o on sbd$d"
		fallocate --punch-hole --keep-size -o $((o * 512)) -l $((l * 512)) "/dev/sbd$d"
		drop "$d" "$in_first" "$in_end"
		;;
	5)
		what="zero-range (write-zeroes, no unmap) of $l sectors at $o on sbd$d"
		fallocate --zero-range --keep-size -o $((o * 512)) -l $((l * 512)) "/dev/sbd$d"
		;;
	6)
		if ((RANDOM % 2)); then
			what="shrinking sbd$d to $o sectors and back"
			"$SBD_VM_TOOL" write "$SBD_DEVICES/sbd$d/size" $((o * 512 + 512)) >/dev/null
			drop "$d" $(((o * 512 + 512 + 4095) / 4096)) 256
			"$SBD_VM_TOOL" write "$SBD_DEVICES/sbd$d/size" 1048576 >/dev/null
		else
			what="deleting sbd$d"
			"$SBD_VM_TOOL" write "$SBD_DRV/delete_device" "sbd$d" >/dev/null
			drop "$d" 0 256
			sum=0
			for e in 0 1 2; do
				((e == d)) || sum=$((sum + $(read_attr "$SBD_DEVICES/sbd$e/mem_used")))
			done
			driver_settles "$sum" "deleting sbd$d (the other disks' sum)"
			"$SBD_VM_TOOL" write "$SBD_DRV/new_device" "1M $d" >/dev/null
			wait_for "/dev/sbd$d" || die "/dev/sbd$d did not come back"
		fi
		;;
	esac
	log "$what"
	mix_check "$what"
done
((mix_bad)) || pass "24 operations (seed $seed): every disk's mem_used exact, their sum the driver's ($settle_waits times once the discarded pages were freed)"
sbd_module_unload

step "discarded pages count against the budget until they are freed"
# A discarded page is freed after an RCU grace period (I/O may still be
# reading it); until then the module holds it, and the budget must count
# it: otherwise a write right after a discard allocates against units whose
# pages are not yet freed, and pages held plus pages waiting exceed
# max_total. One process at SCHED_FIFO, which no SCHED_OTHER task (the
# RCU grace-period kthread among them) preempts on the one vCPU, fills a
# 1 MiB budget, discards it all with BLKDISCARD and at once writes a page
# and reads both mem_used: the grace period cannot end meanwhile, so the
# driver's mem_used must still count the 1 MiB waiting (the disk's is 0)
# and the write must fail with ENOSPC (before the fix the budget was given
# back at the discard: mem_used read 0 and the write succeeded). Then,
# scheduled normally, the pages are freed within moments: the driver's
# mem_used comes down to the disk's, 0, and the same write succeeds.
# (With more than one vCPU the grace period may end on another CPU inside
# the window: only the invariant, driver >= disk and driver <= mem_max, is
# checked then.)
sbd_module_load ndevices=1 size=1M max_total=1M
if out=$(/usr/bin/python3 - /dev/sbd0 "$SBD_DRV/mem_used" "$SBD_DEVICES/sbd0/mem_used" $((1 * M)) "$(nproc)" 2>&1 <<'PY'
import errno, fcntl, mmap, os, struct, sys, time

BLKDISCARD = 0x1277
dev, drv_path, dev_path, size, cpus = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
drv = os.open(drv_path, os.O_RDONLY)
disk = os.open(dev_path, os.O_RDONLY)
full = mmap.mmap(-1, size)  # page-aligned, as O_DIRECT wants
full.write(b"\1" * size)
page = mmap.mmap(-1, 4096)
page.write(b"\2" * 4096)


def used():
    return int(os.pread(drv, 64, 0)), int(os.pread(disk, 64, 0))


def write_page():
    try:
        os.pwrite(fd, page, 0)
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]


os.pwrite(fd, full, 0)
assert used() == (size, size), "after filling: %s" % (used(),)
bad = []
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
fcntl.ioctl(fd, BLKDISCARD, struct.pack("QQ", 0, size))
after_discard = used()
write = write_page()
after_write = used()
os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
print("at SCHED_FIFO: mem_used (driver, disk) %s after the discard, write %s, %s after it"
      % (after_discard, write, after_write))
for d, k in (after_discard, after_write):
    if d > size or d < k:
        bad.append("invariant broken: driver %d, disk %d, mem_max %d" % (d, k, size))
if cpus == 1:
    if after_discard != (size, 0):
        bad.append("right after the discard mem_used was %s, not (%d, 0): the pages waiting for "
                   "their grace period are not counted" % (after_discard, size))
    if write != "ENOSPC":
        bad.append("a write right after discarding the whole budget: %s, not ENOSPC" % write)
t0 = time.monotonic()
while used()[0] != used()[1] and time.monotonic() - t0 < 5:
    time.sleep(0.001)
print("mem_used %s after %.0f ms" % (used(), 1000 * (time.monotonic() - t0)))
if used()[0] != used()[1]:
    bad.append("the discarded pages were not freed within 5 s: %s" % (used(),))
write = write_page()
if write != "ok" or used() != (4096, 4096):
    bad.append("the write once they were freed: %s, mem_used %s" % (write, used()))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
); then
	pass "pages waiting for their grace period counted: ${out//$'\n'/; }"
else
	fail "discarded pages and the budget: ${out//$'\n'/; }"
fi
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
