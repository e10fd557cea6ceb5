#!/bin/bash
# Failing allocations (debug kernel: run-vm --kernel debug). fail-nth sweeps
# fail every slab and page allocation, one at a time, of creating a disk,
# deleting it, shrinking and growing it, writing label, read_only and online,
# and of the first write of a page: each must end in a clean errno with the
# state unchanged. Then a lottery (failslab and fail_page_alloc at 10% for a
# busybox shell that creates, resizes, toggles, writes and deletes disks)
# while sbdd mirrors it, fail-nth sweeps over sbdd's own allocations while
# it serves a Set and while it re-reads everything (no signal may say a
# value changed). Afterwards the module works, sbdd's tree equals
# sysfs, `rmmod` succeeds; a last sweep fails every 13th allocation of
# loading the module (its init making two disks); the run's kmemleak scan
# is clean (run-vm); in queue_mode=mq a write whose pages cannot be had
# without sleeping still succeeds (a worker allocates them).
# The injected tasks run static binaries from a tmpfs (a failed 9p read
# could take the guest's root with it).
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

ROUNDS=${1:-30}
DBG=/sys/kernel/debug
BIN=/run/sbd-fault
FT=$BIN/sbd-faulttool
BB=$BIN/busybox
ENOMEM_TEXT='Cannot allocate memory'

# fi_set KNOB VALUE: the same debugfs knob of failslab and fail_page_alloc
fi_set() {
	echo "$2" >"$DBG/failslab/$1"
	echo "$2" >"$DBG/fail_page_alloc/$1"
}

# sbdd_took_uevent NTH_FILE: wait (10 s at most) until sbdd has taken the
# uevent just sent (a "uevent change bus" line in its log, read on
# through $log_fd without a fork, or fail-nth spent before it could log)
# and sleeps again in epoll_wait (232, epoll_pwait 281, epoll_pwait2
# 441): the handler ran to its end, so what it read and sent is done.
# Counts in $kept the log's "... for now, ..." lines: reads that failed
# for want of memory and were kept (or will be made again).
sbdd_took_uevent() {
	local i line left sc got=0
	for ((i = 0; i < 500; i++)); do
		while IFS= read -r line <&"$log_fd"; do
			line=$log_carry$line log_carry=
			[[ $line != *"uevent change bus "* ]] || got=1
			[[ $line != *" for now"* ]] || kept=$((kept + 1))
		done
		log_carry+=$line # a line sbdd has not ended yet
		read_attr_to left "$1" 2>/dev/null || left=1
		if ((got || left == 0)); then
			read_attr_to sc "/proc/$SBDD_PID/task/$SBDD_PID/syscall" 2>/dev/null || sc=
			[[ ${sc%% *} != @(232|281|441) ]] || return 0
		fi
		nap 0.02
	done
	return 1
}

step "fault injection knobs"
[[ -d $DBG/failslab && -d $DBG/fail_page_alloc ]] ||
	die "no failslab/fail_page_alloc in debugfs: this kernel lacks CONFIG_FAILSLAB/FAIL_PAGE_ALLOC (use run-vm --kernel debug)"
# Quiet (verbose 0: a stack dump per failure would read as a kernel
# problem), and every allocation eligible: sleeping ones, order 0, highmem.
fi_set verbose 0
expect_alloc_failures
fi_set probability 0
fi_set interval 1
fi_set times -1
fi_set space 0
fi_set task-filter Y
fi_set ignore-gfp-wait N
echo N >"$DBG/fail_page_alloc/ignore-gfp-highmem"
echo 0 >"$DBG/fail_page_alloc/min-order"
mkdir -p "$BIN"
cp "$SBD_BUILD_DIR/tests/vm/sbd-faulttool" /bin/busybox "$BIN/"
assert_file_content "$DBG/fail_page_alloc/min-order" 0

step "module and daemon"
sbd_bus_start
sbdd_start -p ndevices=1 -p size=16M
DRV=$SBD_DRV
SIZE0=$(sbd_attr sbd0 size)

# sweep NAME ALLOWED_ERRNOS_ERE EXPECT_AFTER_FAILURE SWEEP_ARGS...: a fail-nth
# sweep (sbd-faulttool sweep ... --show F): every step OK or an allowed errno,
# and after every failed step F still holds EXPECT_AFTER_FAILURE.
sweep() {
	local name=$1 allowed=$2 keep=$3 out rc=0 bad points
	shift 3
	out=$("$FT" sweep "$@" 2>&1) || rc=$?
	printf '%s\n' "$out" >"$SBD_VM_RESULTS/sweep-$name.txt"
	if ((rc != 0)); then
		fail "$name: the sweep stopped (status $rc): $(tail -n 3 <<<"$out" | tr '\n' ' ')"
		return 0
	fi
	points=$(sed -n 's/^end //p' <<<"$out")
	bad=$(grep -Ev "^[0-9]+ OK |^[0-9]+ ($allowed) $keep\$|^end [0-9]+\$" <<<"$out" || true)
	((points > 1)) || bad="no injection point met: a sweep that proves nothing"
	if [[ -z $bad ]]; then
		pass "$name: $((points - 1)) injection points, each failed once: $(awk '$1 != "end" {print $2}' <<<"$out" | sort | uniq -c | tr -s ' \n' ' ')"
	else
		fail "$name: steps outside the contract (errno, or the state a failure left): $(head -n 5 <<<"$bad" | tr '\n' ';')"
	fi
}

step "fail-nth: creating a disk (new_device)"
sweep create ENOMEM 1 --show "$DRV/ndevices" --undo "$DRV/delete_device" 5 "$DRV/new_device" "1M 5"
assert_file_content "$DRV/ndevices" 1
assert_not_exists "$SBD_DEVICES/sbd5"
assert_not_exists /sys/block/sbd5

step "fail-nth: deleting a disk (delete_device)"
attr_write "$DRV/new_device" "1M 6"
sweep delete ENOMEM 2 --show "$DRV/ndevices" --undo "$DRV/new_device" "1M 6" "$DRV/delete_device" 6
assert_file_content "$DRV/ndevices" 2
attr_write "$DRV/delete_device" 6

step "fail-nth: shrinking and growing (size)"
sweep shrink ENOMEM 16777216 --show "$SIZE0" --undo "$SIZE0" 16M "$SIZE0" 8M
sweep grow ENOMEM 16777216 --show "$SIZE0" --undo "$SIZE0" 16M "$SIZE0" 32M
assert_file_content "$SIZE0" 16777216

step "fail-nth: label, read_only, online"
attr_write "$(sbd_attr sbd0 label)" before
sweep label ENOMEM before --show "$(sbd_attr sbd0 label)" --undo "$(sbd_attr sbd0 label)" before "$(sbd_attr sbd0 label)" after
sweep read-only ENOMEM 0 --show "$(sbd_attr sbd0 read_only)" --undo "$(sbd_attr sbd0 read_only)" 0 "$(sbd_attr sbd0 read_only)" 1
sweep offline ENOMEM 1 --show "$(sbd_attr sbd0 online)" --undo "$(sbd_attr sbd0 online)" 1 "$(sbd_attr sbd0 online)" 0
assert_file_content "$(sbd_attr sbd0 online)" 1
assert_file_content "$(sbd_attr sbd0 read_only)" 0

step "fail-nth: the first write of a page (O_DIRECT, fresh pages of sbd0)"
# Without an I/O scheduler blk-mq issues the request in the writing task,
# so the page's allocation is among the task's injection points (with
# mq-deadline a kworker dispatches it, and the sweep would see none).
if [[ -w /sys/block/sbd0/queue/scheduler ]]; then
	echo none >/sys/block/sbd0/queue/scheduler
fi
rc=0
out=$("$FT" sweep-io /dev/sbd0 2>&1) || rc=$?
printf '%s\n' "$out" >"$SBD_VM_RESULTS/sweep-first-write.txt"
bad=$(grep -Ev '^[0-9]+ (OK|ENOMEM|EIO|ENOSPC|EAGAIN)$|^end [0-9]+$' <<<"$out" || true)
# A sweep that met no injection point proved nothing.
[[ $out != *$'\nend 1' && $out != 'end 1'* ]] || bad="no injection point in the first write: ${out//$'\n'/;}"
if ((rc == 0)) && [[ -z $bad ]]; then
	pass "first write: $(($(sed -n 's/^end //p' <<<"$out") - 1)) injection points: $(awk '$1 != "end" {print $2}' <<<"$out" | sort | uniq -c | tr -s ' \n' ' ')"
else
	fail "first write (status $rc): $(head -n 5 <<<"${bad:-$out}" | tr '\n' ';')"
fi

step "lottery: $ROUNDS rounds of a busybox shell at 10% failslab and fail_page_alloc"
# The shell marks itself (make-it-fail is inherited by what it forks); its
# errors go to err.txt. A disk it failed to create is skipped; one it
# failed to delete is deleted again, unarmed if need be, afterwards.
cat >"$BIN/lottery.sh" <<'SH'
echo 1 >/proc/self/make-it-fail
bb=$2
drv=/sys/bus/sbd/drivers/sbd
d=/sys/devices/system/sbd/sbd7
i=0
while [ "$i" -lt "$1" ]; do
	i=$((i + 1))
	echo "1M 7" >"$drv/new_device" || continue
	echo 2M >"$d/size"
	echo "l$i" >"$d/label"
	echo 1 >"$d/read_only"
	echo 0 >"$d/read_only"
	echo 0 >"$d/online"
	echo 1 >"$d/online"
	"$bb" dd if=/dev/zero of=/dev/sbd7 bs=4k count=16 oflag=direct 2>&1 | "$bb" grep -v records
	"$bb" dd if=/dev/sbd7 of=/dev/null bs=4k count=16 iflag=direct 2>&1 | "$bb" grep -v records
	echo 512K >"$d/size"
	j=0
	while [ -e "$d" ] && [ "$j" -lt 20 ]; do
		echo 7 >"$drv/delete_device"
		j=$((j + 1))
	done
done
SH
fi_set probability 10
rc=0
timeout 600 "$BB" sh "$BIN/lottery.sh" "$ROUNDS" "$BB" >"$SBD_TMP/lottery.out" 2>&1 || rc=$?
fi_set probability 0
cp "$SBD_TMP/lottery.out" "$SBD_VM_RESULTS/lottery.txt"
((rc != 124)) || fail "the lottery did not end in 600 s (a hung writer?)"
# Every complaint must be an allocation failure, a failed I/O, a file that a
# failed creation did not make, or a write refused because a failed toggle
# left the disk read-only.
bad=$(grep -Ev "$ENOMEM_TEXT|No space left on device|I/O error|Input/output error|No such file or directory|Operation not permitted" \
	"$SBD_TMP/lottery.out" || true)
if [[ -z $bad ]]; then
	pass "lottery: $(grep -c . "$SBD_TMP/lottery.out" || true) refusals, all ENOMEM/ENOSPC/EIO or a missing disk"
else
	fail "lottery: unexpected errors: $(head -n 5 <<<"$bad" | tr '\n' ';')"
fi
[[ ! -e $SBD_DEVICES/sbd7 ]] || attr_write "$DRV/delete_device" 7
assert_file_content "$DRV/ndevices" 1
sbdd_alive

step "fail-nth on sbdd: every allocation of its Set path fails once"
# Step N arms sbdd's fail-nth with N and sets a new Label: the N-th kernel
# allocation sbdd makes (reading the call, writing sysfs, reading back,
# sending the reply and the signal) fails. sbdd answers with the value set,
# or a named error with the label unchanged; or, when the failed
# allocation was its bus socket's, the reply is lost (the caller times
# out; sd-bus cannot send it and has no retry) or sd-bus counts the
# connection as lost: sbdd then exits non-zero saying so, as the unit's
# Restart=on-failure expects, and is started again here as the unit would.
# The sweep ends at the first N that the Set no longer reaches.
# A reply sbdd could not send is waited for 10 s, not gdbus's 25: a Set
# answers in under 2 s here (the debug kernel; debug-fault runs the plain
# sbdd, not the ASan build: tests/vm/meson.build). The files
# are read without a fork (an exec costs 0.2-0.4 s on this kernel): the
# sweep took 239 s of debug-fault's 533 (run 15).

# sbdd_restart_after_loss STEP: sbdd lost the bus and ends. Wait for its
# end: its socket closes first, and the bus answers the caller at once
# (NoReply); the rest of its exit (its clean-up, this kernel's teardown
# of its memory) can outlast the few reads before the check, and the next
# step then armed a fail-nth file that vanished under it (run 41). It must
# have said why and exited non-zero; then it is started again, as the
# unit's Restart=on-failure would.
sbdd_restart_after_loss() {
	local rc=0 i
	for ((i = 0; i < 600; i++)); do
		kill -0 "$SBDD_PID" 2>/dev/null || break
		nap 0.1
	done
	if kill -0 "$SBDD_PID" 2>/dev/null; then
		fail "step $1: sbdd lost the bus and still ran 60 s later: $(tail -n 3 "$SBDD_LOG" | tr '\n' ' ')"
		kill -KILL "$SBDD_PID" 2>/dev/null || true
	fi
	wait "$SBDD_PID" || rc=$?
	unset "_sbd_bg_pid[sbdd]"
	((rc != 0)) || fail "step $1: sbdd ended with status 0: $(tail -n 3 "$SBDD_LOG" | tr '\n' ' ')"
	assert_log 'Lost the connection to the system bus' "step $1: why sbdd ended"
	SBDD_PID=
	sbdd_start -p ndevices=1 -p size=16M >/dev/null
}

# sbdd_lost_bus ANSWER: sbdd has ended or is ending: gone, the bus
# answered for it (NoReply: it disconnected with the call unanswered), or
# it said so in the lines it logged since the last look (read from
# $log_fd, without an exec: they cost 0.2-0.4 s each here).
sbdd_lost_bus() {
	local line lost=0
	while IFS= read -r line <&"$log_fd"; do
		[[ $line != *'Lost the connection to the system bus'* ]] || lost=1
	done
	((lost)) || [[ $1 == *NoReply* ]] || ! kill -0 "$SBDD_PID" 2>/dev/null
}

bus_client_start
results=() n=0 label_file=$(sbd_attr sbd0 label) dev_path=$(sbd_dev_path sbd0) label='' now='' left=0
read_attr_to label "$label_file"
exec {log_fd}<"$SBDD_LOG"
while IFS= read -r line <&"$log_fd"; do :; done # what was logged before
while ((n < 200)); do
	n=$((n + 1))
	nth=/proc/$SBDD_PID/task/$SBDD_PID/fail-nth
	if ! { echo "$n" >"$nth"; } 2>/dev/null; then
		# sbdd ended after the last step was looked at: that step lost the
		# bus after its answer (sending the signal, say)
		sbdd_restart_after_loss "$((n - 1))"
		((${#results[@]} == 0)) || results[-1]="lost the bus"
		nth=/proc/$SBDD_PID/task/$SBDD_PID/fail-nth
		echo "$n" >"$nth"
	fi
	r=$(dbus_error --timeout 10 -o "$dev_path" -m org.freedesktop.DBus.Properties.Set \
		org.sbd.Sbd1.Device Label "<'nth$n'>")
	read_attr_to left "$nth" 2>/dev/null || left=0
	{ echo 0 >"$nth"; } 2>/dev/null || true
	read_attr_to now "$label_file"
	if sbdd_lost_bus "$r"; then
		sbdd_restart_after_loss "$n"
		r="lost the bus"
	elif [[ $r == *"Timeout was reached"* ]]; then
		# The reply's own socket buffer was refused: sd-bus cannot send it
		# and has no retry, so the caller times out, the write applied or not.
		r="reply lost"
	elif [[ $r == ok && $now != "nth$n" ]]; then
		r="ok but the label is '$now'"
	elif [[ $r != ok && $now != "$label" ]]; then
		r="$r but the label changed to '$now'"
	fi
	label=$now
	results+=("$r")
	# fail-nth counts down to 0 when its point was reached
	((left == 0)) || break
done
exec {log_fd}<&-
bad=$(printf '%s\n' "${results[@]}" | grep -Ev '^ok$|^org\.sbd\.Sbd1\.Error\.[A-Za-z]+$|^org\.freedesktop\.DBus\.Error\.NoMemory$|^lost the bus$|^reply lost$' || true)
((n > 1)) || bad="the first step did not reach an allocation: a sweep that proves nothing"
((n < 200)) || bad="no end after 200 steps"
if [[ -z $bad ]]; then
	pass "sbdd's Set path: $((n - 1)) allocations, each failed once: $(printf '%s\n' "${results[@]}" | sort | uniq -c | tr -s ' \n' ' ')"
else
	fail "sbdd's Set path under fail-nth: $(head -n 3 <<<"$bad" | tr '\n' ';')"
fi
# A PropertiesChanged the kernel refused to carry is announced again
# (sbdd's resend.c), so subscribers do not keep a stale value.
refused=$(grep -c 'Failed to emit PropertiesChanged' "$SBDD_LOG" || true)
resent=$(grep -c 'Resent PropertiesChanged' "$SBDD_LOG" || true)
if ((refused == 0)); then
	log "no PropertiesChanged was refused in this sweep"
elif ((resent > 0)); then
	pass "$refused refused PropertiesChanged, $resent resent"
else
	fail "$refused PropertiesChanged refused and none resent"
fi
sbdd_alive
sbd_check_tree --timeout 60

step "fail-nth on sbdd: every allocation of a full re-read fails once"
# A change uevent of the bus makes sbdd re-read everything: the driver,
# sbd0 (attributes, links, whether its directory is still there) and the
# module (state, parameters). Step N fails the N-th allocation sbdd makes
# handling it. A read that fails for want of memory says nothing about the
# value: sbdd keeps what it has and reads it again shortly (reread.c). So
# no signal may come from sbdd during the sweep (nothing changed), and its
# tree equals sysfs afterwards. Found by CI (d154134's run): a re-read under
# fail-nth emptied the driver's Version, which no later event reads.
sbd_monitor_start
version='' n=0 left=0 bad='' log_carry='' line='' kept=0 ended=0
read_attr_to version "$DRV/version"
exec {log_fd}<"$SBDD_LOG"
while IFS= read -r line <&"$log_fd"; do :; done # what was logged before
while ((n < 400)); do
	n=$((n + 1))
	nth=/proc/$SBDD_PID/task/$SBDD_PID/fail-nth
	echo "$n" >"$nth"
	echo change >/sys/bus/sbd/uevent
	sbdd_took_uevent "$nth" ||
		{ bad="step $n: sbdd did not handle the bus's change uevent in 10 s"; break; }
	read_attr_to left "$nth" 2>/dev/null || left=0
	{ echo 0 >"$nth"; } 2>/dev/null || true
	# fail-nth counts down to 0 when its point was reached
	((left == 0)) || { ended=1; break; }
done
exec {log_fd}<&-
# A last Ping through the monitor: every signal sent before it is in.
pings=$(monitor_count '"member":"Ping"')
busctl --system call "$SBD_NAME" "$SBD_OBJ" org.freedesktop.DBus.Peer Ping >/dev/null
for ((i = 0; i < 300 && $(monitor_count '"member":"Ping"') <= pings; i++)); do nap 0.1; done
signals=$(monitor_count '"type":"signal"' '"path":"/org/sbd/Sbd1')
if [[ -n $bad ]]; then
	fail "re-reading under fail-nth: $bad"
elif ((n <= 1)); then
	fail "the first step did not reach an allocation: a sweep that proves nothing"
elif ((!ended)); then
	fail "no end after $n steps"
elif ((signals > 0)); then
	fail "$signals signal(s) from sbdd while its re-reads failed: $(grep -m 3 '"type":"signal"' "$SBD_TMP/monitor.out" | cut -c 1-300 | tr '\n' ';')"
elif ((kept == 0)); then
	fail "no failed read was kept in $((n - 1)) steps: the sweep missed the reads"
else
	pass "full re-read: $((n - 1)) allocations, each failed once; $kept failed read(s) kept what they had, no signal"
fi
assert_file_content "$DRV/version" "$version"
bg_stop monitor
sbdd_alive
sbd_check_tree --timeout 60

step "afterwards: everything works"
attr_write "$DRV/new_device" "4M 8"
random_file "$SBD_TMP/data" 2048
dd if="$SBD_TMP/data" of=/dev/sbd8 bs=64K oflag=direct status=none
same_data "$SBD_TMP/data" /dev/sbd8
attr_write "$(sbd_attr sbd0 label)" final
assert_file_content "$(sbd_attr sbd0 label)" final
sbd_check_tree --timeout 60
attr_write "$DRV/delete_device" 8
sbdd_stop
sbd_module_unload
assert_not_exists "$SBD_BUS"

step "fail-nth: loading the module (its init, two disks, queue_mode=mq), every 13th point"
# The allocations of a load, the loader's own and sbd_init's, fail one at a
# time: the load fails with ENOMEM and leaves nothing behind, or it loads
# with at least one disk (a failure after the first keeps the disks made,
# so that init never frees the module under a disk somebody opened) and
# unloads. A load passes some 1,500 points, a step costs half a second
# under KASAN: every 13th is failed, which still lands in each stage.
cp "/lib/modules/$(uname -r)/extra/sbd.ko" "$BIN/sbd.ko"
rc=0
out=$("$FT" sweep-load --stride 13 "$BIN/sbd.ko" "ndevices=2 size=1M queue_mode=mq" 2>&1) || rc=$?
printf '%s\n' "$out" >"$SBD_VM_RESULTS/sweep-load.txt"
points=$(sed -n 's/^end //p' <<<"$out")
bad=$(grep -Ev '^[0-9]+ (OK [12]|ENOMEM)$|^end [0-9]+$' <<<"$out" || true)
((${points:-0} > 13)) || bad="no injection point met: ${out//$'\n'/;}"
if ((rc == 0)) && [[ -z $bad ]]; then
	pass "load: $points injection points, every 13th failed: $(awk '$1 != "end" {print $2 ($3 == "" ? "" : "-with-" $3 "-disks")}' <<<"$out" | sort | uniq -c | tr -s ' \n' ' ')"
	grep -q ' OK 1$' <<<"$out" && pass "a load that lost its second disk kept the first" ||
		fail "no step kept the first disk after the second failed"
else
	fail "load (status $rc): $(head -n 5 <<<"${bad:-$out}" | tr '\n' ';')"
fi
assert_not_exists /sys/module/sbd
sbd_module_load ndevices=1 size=4M
dd if="$SBD_TMP/data" of=/dev/sbd0 bs=64K oflag=direct status=none
same_data "$SBD_TMP/data" /dev/sbd0
sbd_module_unload

step "queue_mode=mq: a write whose pages cannot be had without sleeping still succeeds"
# fail_page_alloc fails every page allocation that may not sleep
# (ignore-gfp-wait), in every task: ->queue_rq()'s GFP_NOWAIT pages all
# fail. Such a write is then done by a worker that allocates as the bio
# path does (GFP_NOIO, which may sleep and is not failed): it succeeds.
# (It used to be retried by blk-mq for a second, then failed with EIO.)
sbd_module_load ndevices=1 size=4M queue_mode=mq
cp "$SBD_TMP/data" "$BIN/data"
fpa=$DBG/fail_page_alloc
echo N >"$fpa/task-filter"
echo Y >"$fpa/ignore-gfp-wait"
echo 100 >"$fpa/probability"
rc=0
out=$("$BB" dd if="$BIN/data" of=/dev/sbd0 bs=64K oflag=direct 2>&1) || rc=$?
echo 0 >"$fpa/probability"
echo N >"$fpa/ignore-gfp-wait"
echo Y >"$fpa/task-filter"
if ((rc == 0)); then
	pass "2 MiB written with every non-sleeping page allocation failing"
else
	fail "the write failed (status $rc): ${out//$'\n'/; }"
fi
same_data "$BIN/data" /dev/sbd0
assert_file_content "$SBD_DEVICES/sbd0/mem_used" $((2 * 1024 * 1024))
sbd_module_unload
