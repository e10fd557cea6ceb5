#!/bin/bash
# The benchmark's VM scenario (performance.md), run by tests/bench/run-bench
# through tests/vm/run-vm: the real sbd.ko, a real dbus-daemon --system with
# the project's policy, sbdd from the build tree and the benchmark's floor
# server, all on the guest's CPU 0 unless --no-pin; sbd-bench measures rows
# 1-7 and 9, fio measures row 8 against the kernel's brd (and null_blk). With --udisks (a
# --systemd guest) it measures the peer, udisks2, instead.
#
# Results go to $SBD_VM_RESULTS: results.tsv (sbd-bench --table prints it)
# and run.txt (how the guest ran). The scenario fails only when the
# benchmark could not run; missed goals are the table's business.
#
#   bench-vm.sh [--quick] [--udisks] [--no-pin] [--no-idle] [--no-fio]
#               [--sizes N,N,...] [--iterations N] [--warmup N]
#               [--startup-devices N] [--fio-seconds S] [--fio-rounds N]
#               [--rows LIST] [--perf]
# --perf records the whole guest with `perf record -a -g` while sbd-bench
# runs and leaves perf reports in $SBD_VM_RESULTS (perf-*.txt).
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

BENCH=$SBD_BUILD_DIR/tests/bench/sbd-bench
FLOOR=$SBD_BUILD_DIR/tests/bench/sbd-bench-floor
RESULTS=$SBD_VM_RESULTS/results.tsv
RUN_INFO=$SBD_VM_RESULTS/run.txt

quick=0 udisks=0 pin=1 idle=1 fio_rows=1 perf=0 rows=
sizes=1,100,1000,10000 iterations=2000 warmup=200 startup_devices=1000
fio_seconds=2 fio_rounds=9 fio_mib=128 fio_warm_min=60 fio_warm_max=150
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--udisks) udisks=1 ;;
	--no-pin) pin=0 ;;
	--no-idle) idle=0 ;;
	--no-fio) fio_rows=0 ;;
	--perf) perf=1 ;;
	--rows) rows=$2; shift ;;
	--sizes) sizes=$2; shift ;;
	--iterations) iterations=$2; shift ;;
	--warmup) warmup=$2; shift ;;
	--startup-devices) startup_devices=$2; shift ;;
	--fio-seconds) fio_seconds=$2; shift ;;
	--fio-rounds) fio_rounds=$2; shift ;;
	*) die "bench-vm.sh: unknown argument $1" ;;
	esac
	shift
done
if ((quick)); then
	sizes=1,100 iterations=200 warmup=20 startup_devices=100 idle=0
	fio_seconds=1 fio_rounds=1 fio_mib=32 fio_warm_max=0
fi

# pin PID: every thread of PID on CPU 0 (performance.md: pinning moves
# latency about 3x, so a run is either all pinned or not at all)
pin() {
	((pin)) || return 0
	taskset -a -p -c 0 "$1" >/dev/null || die "taskset -p $1 failed"
}
pinned=() fio_pinned=()
((pin)) && pinned=(taskset -c 0) fio_pinned=(taskset -c 1)

step "the guest"
for f in "$BENCH" "$FLOOR" "$SBDD"; do [[ -x $f ]] || die "$f is not built"; done
{
	echo "kernel=$(uname -r)"
	echo "vcpus=$(nproc)"
	echo "memory_mib=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024))"
	echo "mode=$SBD_VM_MODE"
	echo "clocksource=$(</sys/devices/system/clocksource/clocksource0/current_clocksource)$(grep -qw tsc=reliable /proc/cmdline && echo ' (tsc=reliable)')"
	if ((pin)); then
		echo "pinned=dbus-daemon, sbdd, the floor and sbd-bench on the guest's CPU 0, fio on its CPU 1 (taskset); the guest's CPU n on the host's CPU n"
	else
		echo "pinned=no"
	fi
	echo "dbus=$(dbus-daemon --version | head -1)"
	echo "libsystemd=$(dpkg-query -W -f '${Version}' libsystemd0 2>/dev/null)"
	echo "sizes=$sizes iterations=$iterations warmup=$warmup startup_devices=$startup_devices"
} >"$RUN_INFO"
sed 's/^/    /' "$RUN_INFO"
: >"$RESULTS"

step "a system bus with the project's policy and the floor's, sbdd loading sbd.ko"
install -m 0644 "$SBD_SOURCE_DIR/tests/bench/org.sbd.Floor.conf" /etc/dbus-1/system.d/
# shellcheck disable=SC2119 # no polkit: the benchmark calls as root
sbd_bus_start
if [[ -n ${_sbd_bg_pid[dbus-daemon]:-} ]]; then
	pin "${_sbd_bg_pid[dbus-daemon]}"
else
	pin "$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		GetConnectionUnixProcessID s org.freedesktop.DBus | cut -d' ' -f2)"
fi
sbdd_start -p ndevices=1 -p size=16M --log-level=notice
pin "$SBDD_PID"
D0=$SBD_DEVICES/sbd0
floor_files=(--file "label=$D0/label" --file "runtime_status=$D0/power/runtime_status")
((udisks)) && floor_files+=(--file "block_size=/sys/block/sbd0/size")
bg_start floor "${pinned[@]}" "$FLOOR" "${floor_files[@]}"
timeout 60 gdbus wait --system --timeout 60 org.sbd.Floor || die "the floor did not start: $(cat "$SBD_TMP/floor.err")"
FLOOR_PID=${_sbd_bg_pid[floor]}
pass "the floor owns org.sbd.Floor (pid $FLOOR_PID)"

bench_args=(--daemon-pid "$SBDD_PID" --floor-pid "$FLOOR_PID" --results "$RESULTS"
	--iterations "$iterations" --warmup "$warmup" --sizes "$sizes")
if ((udisks)); then
	step "udisks2 beside sbdd"
	bench_args+=(--rows udisks)
else
	step "sbd-bench: rows 1-7 and 9"
	if [[ -z $rows ]]; then
		rows=get,set,change,pipelined,tree,startup
		((idle)) && rows+=,idle
	fi
	bench_args+=(--rows "$rows" --startup-devices "$startup_devices"
		--startup "$SBDD --uevent-source=kernel --no-load --log-level=notice"
		--daemon-pid-file "$SBD_TMP/sbdd.pid")
fi
if ((perf)); then
	bg_start perf perf record -a -g -e cpu-clock -F 999 -o "$SBD_TMP/perf.data"
	sleep 2
fi
# Its progress (stderr) goes to the console as it comes, and to bench.err.
rc=0
"${pinned[@]}" "$BENCH" "${bench_args[@]}" 2>&1 >"$SBD_TMP/bench.out" |
	tee "$SBD_TMP/bench.err" | sed -u 's/^/    /' || rc=$?
if ((rc == 0)); then
	pass "sbd-bench ran"
else
	fail "sbd-bench failed (status $rc): $(tail -n 3 "$SBD_TMP/bench.err")"
fi
# Row 5 restarts sbdd: the one running now is the benchmark's child.
if [[ -s $SBD_TMP/sbdd.pid ]]; then
	pid=$(<"$SBD_TMP/sbdd.pid")
	if [[ $pid != "$SBDD_PID" ]]; then
		kill "$pid" 2>/dev/null || true
		unset "_sbd_bg_pid[sbdd]"
		SBDD_PID=
	fi
fi
cp "$SBD_TMP/bench.out" "$SBD_VM_RESULTS/bench.out"
[[ -f /run/sbd-bench-sbdd.log ]] && cp /run/sbd-bench-sbdd.log "$SBD_VM_RESULTS/sbdd-startup.log"
if ((perf)); then
	kill -INT "${_sbd_bg_pid[perf]}"
	bg_wait perf || true
	for sort in comm,dso comm,dso,sym; do
		perf report -i "$SBD_TMP/perf.data" --no-children --sort "$sort" --stdio \
			>"$SBD_VM_RESULTS/perf-${sort//,/-}.txt" 2>/dev/null || fail "perf report failed"
	done
	perf report -i "$SBD_TMP/perf.data" --children --sort comm,sym --stdio -g none \
		>"$SBD_VM_RESULTS/perf-children.txt" 2>/dev/null || true
fi
stop_if_failed "the benchmark did not run"

# fio_round ENGINE RW BS DEV...: the MB/s of one fio job (direct I/O, one
# job, depth 1) on each DEV in turn, into fio_result (one per DEV). One
# fio runs the round: its jobs one after the other (stonewall), each in a
# process of its own as when every disk had its own fio, without a fio's
# start-up per disk (half a second under TCG: row 8 of --quick took 31 s
# against 41).
fio_result=()
fio_round() {
	local engine=$1 rw=$2 bs=$3 dev jobs=() out
	shift 3
	for dev in "$@"; do jobs+=(--name="${dev##*/}" --filename="$dev" --stonewall); done
	out=$("${fio_pinned[@]}" fio --ioengine="$engine" --rw="$rw" --bs="$bs" --direct=1 \
		--iodepth=1 --size="${fio_mib}M" --time_based --runtime="$fio_seconds" --randrepeat=0 \
		--output-format=terse "${jobs[@]}" 2>"$SBD_TMP/fio.err") || die "fio on $* failed: $(cat "$SBD_TMP/fio.err")"
	# terse v3, a line per job in their order: field 7 read KiB/s, field 48 write KiB/s
	mapfile -t fio_result < <(awk -F';' '$1 == 3 { printf "%.1f\n", ($7 + $48) * 1.024 / 1000 }' <<<"$out")
	((${#fio_result[@]} == $#)) || die "fio on $* gave ${#fio_result[@]} results: $out"
}

# median N...: the median of numbers
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# fio_fill_interleaved DEV...: allocate every page of the disks before
# measuring, 1 MiB of each in turn, so that they share the page allocator's
# free memory alike. After rows 1-7 (10,000 disks made and deleted) it is
# scattered in small blocks between pages still in use, and the allocator
# hands out the smallest first. The disk filled first got them, and under
# TCG its 1 MiB reads were 10-20% slower, whichever the driver: filled
# first, sbd0 read 0.82x brd; filled after brd, 1.11x (perf puts the
# difference in the copy itself; docs/performance.md, row 8). Compacting
# first leaves fewer such blocks to share. One process writes them all
# (sbd-vmtool: a dd's write per MiB and disk, without the dd's exec).
fio_fill_interleaved() {
	echo 1 >/proc/sys/vm/compact_memory || die "compacting memory failed"
	"$SBD_VM_TOOL" fill-interleaved "$fio_mib" "$@" || die "filling $* failed"
}

# fio_warm_up: read the three disks in turn for fio_warm_min seconds, then
# until brd's 1 MiB sequential read is steady (two rounds in a row within
# 3% of the one before), at most fio_warm_max seconds. Freshly filled, the
# disks read slowly at first under TCG and speed up over a minute or two,
# and sbd0, then filled first, more slowly than brd meanwhile: in one guest
# the same rounds read 0.87-0.92x brd in the first 90 s and 0.95-0.99x
# after. Row 8's first row used to fall in it.
fio_warm_up() {
	local start=$SECONDS prev=0 now steady=0 rounds=0
	while (((SECONDS - start < fio_warm_min || steady < 2) && SECONDS - start < fio_warm_max)); do
		fio_round libaio read 1M /dev/sbd0 /dev/ram0 /dev/nullb0
		now=${fio_result[1]}
		rounds=$((rounds + 1))
		if awk -v a="$now" -v b="$prev" 'BEGIN { exit !(b > 0 && a > 0.97 * b && a < 1.03 * b) }'; then
			steady=$((steady + 1))
		else
			steady=0
		fi
		prev=$now
	done
	log "warm-up: $rounds rounds in $((SECONDS - start)) s, brd's 1 MiB read at $now MB/s ($( ((steady >= 2)) && echo steady || echo 'not steady: the time ran out'))"
}

# fio_row KIND ENGINE RW BS WHAT: rounds of sbd0, ram0 and nullb0, back to
# back; the ratio is the median of each round's ratio (the host's load
# drifts between rounds, rarely within one), the MB/s columns the medians.
# null_blk (memory_backed=1, blk-mq, completing inline) is the kernel's own
# blk-mq RAM disk: its row beside brd's is what blk-mq itself costs.
fio_row() {
	local kind=$1 engine=$2 rw=$3 bs=$4 what=$5 round s b n sbd=() brd=() nul=() ratios=() nratios=()
	for ((round = 0; round < fio_rounds; round++)); do
		fio_round "$engine" "$rw" "$bs" /dev/sbd0 /dev/ram0 /dev/nullb0
		s=${fio_result[0]} b=${fio_result[1]} n=${fio_result[2]}
		sbd+=("$s") brd+=("$b") nul+=("$n")
		ratios+=("$(awk -v s="$s" -v b="$b" 'BEGIN { printf "%.4f", (b > 0 ? s / b : 0) }')")
		nratios+=("$(awk -v s="$n" -v b="$b" 'BEGIN { printf "%.4f", (b > 0 ? s / b : 0) }')")
	done
	log "$engine $what: sbd0 ${sbd[*]} MB/s, ram0 ${brd[*]} MB/s, nullb0 ${nul[*]} MB/s"
	printf '8\t%s\t0.9\tMB/s\t%s\t-1\t%s\t-1\t%s\tfio %s %s, bs %s, direct, depth 1: sbd0 (queue_mode=%s) / brd ram0 (%d MiB, median of %d rounds of %s s)\n' \
		"$kind" "$(median "${sbd[@]}")" "$(median "${brd[@]}")" "$(median "${ratios[@]}")" \
		"$engine" "$what" "$bs" "$(</sys/module/sbd/parameters/queue_mode)" "$fio_mib" "$fio_rounds" "$fio_seconds" >>"$RESULTS"
	printf '8\tcontext\t-1\tMB/s\t%s\t-1\t%s\t-1\t%s\tfio %s %s, bs %s: null_blk nullb0 (memory_backed, blk-mq) / brd ram0, same rounds\n' \
		"$(median "${nul[@]}")" "$(median "${brd[@]}")" "$(median "${nratios[@]}")" \
		"$engine" "$what" "$bs" >>"$RESULTS"
}

if ((fio_rows && !udisks)); then
	step "row 8: fio on sbd0, on brd's ram0 and on null_blk's nullb0, same size, direct I/O"
	echo "$((fio_mib * 1024 * 1024))" >"$D0/size" || die "cannot resize sbd0"
	modprobe brd rd_nr=1 rd_size=$((fio_mib * 1024)) || die "modprobe brd failed"
	# null_blk's size is in whole GiB; fio uses only the first fio_mib MiB
	modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 queue_mode=2 irqmode=0 \
		submit_queues=1 hw_queue_depth=128 || die "modprobe null_blk failed"
	assert_block_device /dev/ram0
	assert_block_device /dev/nullb0
	fio_fill_interleaved /dev/sbd0 /dev/ram0 /dev/nullb0
	((fio_warm_max == 0)) || fio_warm_up
	# libaio and psync: psync's direct writes wait with their request
	# still in the task's plug, so a blk-mq disk dispatches them from
	# kblockd (6.1), a cost bio-based brd, and sbd's default
	# queue_mode=bio, never pay (docs/performance.md).
	for job in "read 1M sequential read" "write 1M sequential write" \
		"randread 4k 4 KiB random read" "randwrite 4k 4 KiB random write"; do
		read -r rw bs what <<<"$job"
		fio_row at-least libaio "$rw" "$bs" "$what"
	done
	for job in "randread 4k 4 KiB random read" "randwrite 4k 4 KiB random write"; do
		read -r rw bs what <<<"$job"
		fio_row at-least psync "$rw" "$bs" "$what"
	done
	modprobe -r brd || fail "modprobe -r brd failed"
	modprobe -r null_blk || fail "modprobe -r null_blk failed"
	pass "fio ran on the three disks"
fi

step "the table"
"$BENCH" --table "$RESULTS"
if [[ -n $SBDD_PID ]]; then sbdd_stop; fi
bg_stop floor
