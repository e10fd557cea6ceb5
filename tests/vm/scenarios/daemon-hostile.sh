#!/bin/bash
# Hostile and careless callers against sbdd as installed and run by its
# unit (run-vm --systemd; the package layout of systemd/stage-usr, the
# real polkitd, the real module): each attack of issue 10 and a few more,
# made by an unprivileged user (uid 65534) unless it needs root. After
# each: another client's Pings were answered within 10x the idle latency
# (at least 5 s; behind the stalled readers' 300 calls, what 300 cost at
# idle) throughout, beyond what the bus itself cost them (a bound on
# starvation: generous, see below), sysfs is as it was, the tree equals
# sysfs, and sbdd's RSS is within 1 MiB of where it started. Then the unit's own settings: libkmod sees the kernel command
# line (run-vm appends sbd.max_size=2147483648), a start timeout, the
# uevent buffer warning, and GetManagedObjects beyond the bus's message
# size. Helper: daemon-hostile.py (attacks, Ping probe).
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm --systemd}"

HELPER=$SBD_SOURCE_DIR/tests/vm/scenarios/daemon-hostile.py
PY=/usr/bin/python3
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
PROBE=$SBD_TMP/probe.txt
# --kernel-paths (the debug kernel's run, vm-debug): only the steps whose
# effects reach the module (the unit's module load with the kernel command
# line, racing creation and deletion of one id, forged uevents, a tree of
# many disks); the attacks refused inside sbdd, the bus or polkit are the
# Debian-kernel run's, and cost the debug kernel minutes for nothing.
KERNEL_PATHS=0
case ${1:-} in
--kernel-paths) KERNEL_PATHS=1 ;;
'') ;;
*) die "daemon-hostile.sh: unknown argument $1" ;;
esac

uptime_s() { awk '{print $1}' /proc/uptime; }
main_pid() { systemctl show -P MainPID sbdd.service; }
# wait_until_grep SECONDS FILE ERE: until FILE has a line matching ERE
wait_until_grep() {
	local i
	for ((i = 0; i < $1 * 5; i++)); do
		grep -Eq -- "$3" "$2" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
rss_of() { awk '/^VmRSS:/ {print $2}' "/proc/$(main_pid)/status"; }

# sysfs_state: everything an attack must not change (the bus's devices,
# each one's attributes, the module's parameters). Read with bash's own
# read, not cat, ls and grep: it runs before and after every attack, and
# on the debug kernel an exec costs about a second (tests/README.md).
sysfs_state() {
	local d f attr line v
	for d in /sys/bus/sbd/devices/*; do
		[[ -e $d ]] || continue
		printf '%s\n' "${d##*/}"
	done
	for d in "$SBD_DEVICES"/sbd*; do
		line=${d##*/}
		for attr in label size read_only online; do
			read_attr_to v "$d/$attr" 2>/dev/null || v='(unreadable)'
			line+=" $v"
		done
		printf '%s\n' "$line"
	done
	for f in /sys/module/sbd/parameters/*; do
		read_attr_to v "$f" 2>/dev/null || v='(unreadable)'
		printf '%s:%s\n' "$f" "$v"
	done
}

# attack WHO NAME: run daemon-hostile.py attack NAME as WHO (nobody|root),
# then the four checks
attack() {
	local who=$1 name=$2 t0 t1 out rc=0
	local run=("$PY" "$HELPER" attack "$name")
	[[ $who == nobody ]] && run=("${NOBODY[@]}" "${run[@]}")
	tstep "$name (as $who)"
	t0=$(uptime_s)
	out=$("${run[@]}" 2>&1) || rc=$?
	t1=$(uptime_s)
	log "${out//$'\n'/$'\n'    }"
	assert_eq 0 "$rc" "every answer to $name was the expected one"
	after_attack "$name" "$t0" "$t1"
}

# after_attack NAME T0 T1 [BOUND]: the checks after an attack made between
# T0 and T1; BOUND, when given, replaces $BOUND for the Pings
after_attack() {
	local lat bus n rss bound=${4:-$BOUND}
	read -r lat bus n < <("$PY" "$HELPER" window "$PROBE" "$2" "$3")
	# sbdd may add at most the bound to what the bus itself cost meanwhile
	if awk -v l="$lat" -v b="$bound" -v u="$bus" 'BEGIN { exit !(l >= 0 && l <= b + u) }'; then
		pass "$n Pings during $1 answered, the slowest in ${lat}s (the bus's own GetId: ${bus}s; bound ${bound}s more)"
	else
		fail "a Ping during $1 took ${lat}s (the bus's own GetId: ${bus}s; bound ${bound}s more, $n Pings)"
	fi
	assert_eq "$SYSFS_BEFORE" "$(sysfs_state)" "sysfs after $1"
	sbd_check_tree --timeout 20
	# memory sd-bus and glibc freed may take a moment to be returned
	for _ in 1 2 3 4 5; do
		rss=$(rss_of)
		((rss - RSS_START <= 1024)) && break
		sleep 1
	done
	((rss - RSS_START <= 1024)) && pass "RSS ${rss} KiB (started at ${RSS_START} KiB)" ||
		fail "RSS ${rss} KiB after $1, started at ${RSS_START} KiB"
	assert_eq active "$(systemctl is-active sbdd.service)" "sbdd.service after $1"
	assert_eq "$PID_START" "$(main_pid)" "MainPID after $1 (no crash, no restart)"
}

tstep "SBD installed as a package would be, sbdd started by its unit"
[[ -f $SBD_BUILD_DIR/systemd/stage-usr/usr/sbin/sbdd ]] || die "no staged install (ninja -C build systemd/stage-usr.stamp)"
timeout 120 systemctl is-system-running --wait >/dev/null 2>&1 || true
tar -C "$SBD_BUILD_DIR/systemd/stage-usr" -cf - . | tar -C / -xf - --keep-directory-symlink --no-same-owner
sbd_module_install
printf '[Parameters]\nndevices=2\nsize=16M\n' >/etc/sbd/sbdd.conf
systemctl daemon-reload
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null
assert_ok systemctl start sbdd.service
PID_START=$(main_pid)
assert_ne 0 "$PID_START" "MainPID"
assert_match "sbd.max_size=2147483648" "$(cat /proc/cmdline)" "the kernel command line (run-vm's SBD_VM_APPEND)"

tstep "the unit: libkmod read the kernel command line, a start timeout, the uevent buffer"
# ProcSubset=pid hid /proc/cmdline from libkmod: sbd.max_size= was lost.
assert_eq 2147483648 "$(read_attr /sys/module/sbd/parameters/max_size)" "max_size from sbd.max_size= on the command line"
assert_eq 2 "$(read_attr /sys/module/sbd/parameters/ndevices)" "ndevices from sbdd.conf"
assert_eq 5min "$(systemctl show -P TimeoutStartUSec sbdd.service)" "TimeoutStartSec"
journal=$(journalctl -b -u sbdd.service --no-pager -o cat)
assert_match 'The uevent receive buffer is [0-9]+ KiB, not the 128 MiB wanted' "$journal" \
	"a too small uevent buffer is a warning"
assert_eq 4 "$(journalctl -b -u sbdd.service --no-pager -o json | jq -r 'select(.MESSAGE | test("uevent receive buffer")) | .PRIORITY' | head -n 1)" \
	"its priority (warning)"
assert_eq "" "$(busctl --system introspect --xml-interface org.sbd.Sbd1 /org/sbd/Sbd1/devices/sbd0 |
	grep -o 'org.freedesktop.systemd1.Privileged' || true)" "no writable property is marked Privileged"

tstep "idle latency and the Ping probe"
sbd_check_tree --timeout 20
# (the GetManagedObjects only where the stalled readers' step runs)
read -r p50 p99 gmo50 < <("$PY" "$HELPER" latency 200 $((KERNEL_PATHS ? 0 : 50)))
# 10x the idle p99, and never less than 5 s. This is a bound on
# starvation, not a measure of speed (the benchmark measures that): the
# starved daemon of issue 10 (the 40,000-parameter Load) did not answer
# for minutes. sbdd answers in order, so a Ping waits for the calls queued
# before it, and this guest has one vCPU for the attacker, the bus,
# polkitd, journald and sbdd: auth_flood's 200 Sets (13 polkit checks, 187
# refusals and their audit records) cost them 1.5-2.5 s of CPU, and the
# slowest Ping behind them took 0.3-1.4 s on a quiet host and 2.1 s in CI
# beside a debug guest on the same two cores (3.2 s under perf).
BOUND=$(awk -v p="$p99" 'BEGIN { b = 10 * p / 1e6; if (b < 5) b = 5; printf "%.3f", b }')
# The stalled readers queue 300 GetManagedObjects (100 each, pipelined)
# before they stop, and a Ping sent behind them waits for all 300: their
# bound is what 300 cost one after the other at idle, when that is more
# than BOUND. Measured in a guest beside a kernel build (three rounds):
# the slowest Pings 1.9-2.5 s, all while sbdd answered the 300, none
# above 0.5 s during the label writes that follow (0.4-1.2 s for the
# writes without readers), and 300 idle GetManagedObjects 9.1 s. On the
# slowest day yet (run 40, the host at 0.45 of its speed) a Ping in this
# step took 6.26 s against the fixed 5 s.
STALL_BOUND=$(awk -v g="$gmo50" -v b="$BOUND" 'BEGIN { s = 300 * g / 1e6; if (s < b) s = b; printf "%.3f", s }')
if ((KERNEL_PATHS)); then
	log "idle Ping: p50 ${p50} us, p99 ${p99} us; bound during attacks ${BOUND} s"
else
	log "idle Ping: p50 ${p50} us, p99 ${p99} us; GetManagedObjects p50 ${gmo50} us;" \
		"bound during attacks ${BOUND} s, ${STALL_BOUND} s behind the stalled readers' 300 calls"
fi
bg_start probe "$PY" "$HELPER" probe "$PROBE"
sleep 2
busctl --system call org.sbd.Sbd1 /org/sbd/Sbd1 org.freedesktop.DBus.ObjectManager GetManagedObjects >/dev/null
SYSFS_BEFORE=$(sysfs_state)
RSS_START=$(rss_of)
log "sbdd RSS at the start: $RSS_START KiB"

if ((!KERNEL_PATHS)); then
	attack nobody load_flood
	attack nobody set_smuggle
	attack nobody set_bad
	attack nobody same_value
	attack nobody auth_flood
	attack nobody call_flood
fi
attack root race_same_id

tstep "forged remove uevents (root writes the uevent file)"
t0=$(uptime_s)
echo remove >"$SBD_DEVICES/sbd0/uevent"
echo remove >/sys/bus/sbd/drivers/sbd/uevent
sleep 2
assert_eq 's "live"' "$(busctl --system get-property org.sbd.Sbd1 /org/sbd/Sbd1/module org.sbd.Sbd1.Module State)" \
	"Module.State"
assert_match '"/org/sbd/Sbd1/devices/sbd0"' "$(busctl --system get-property org.sbd.Sbd1 /org/sbd/Sbd1 \
	org.sbd.Sbd1.Manager Devices)" "sbd0 still in Devices"
assert_match 'Ignoring a synthetic remove uevent for /sys/devices/system/sbd/sbd0' \
	"$(journalctl -b -u sbdd.service --no-pager -o cat)" "sbdd says why"
after_attack forged_remove "$t0" "$(uptime_s)"

if ((!KERNEL_PATHS)); then
	tstep "stalled readers: subscribed to everything, never reading"
	t0=$(uptime_s)
	stalled=()
	for i in 1 2 3; do
		"${NOBODY[@]}" "$PY" "$HELPER" attack stalled_reader >"$SBD_TMP/stalled$i.out" 2>&1 &
		stalled+=($!)
	done
	for i in 1 2 3; do wait_until_grep 60 "$SBD_TMP/stalled$i.out" 'stalled:' || fail "stalled reader $i did not start"; done
	# Signals keep coming for them while they sleep: 300 label changes.
	for i in $(seq 1 300); do echo "burst$((i % 2))" >"$SBD_DEVICES/sbd1/label"; done
	echo sbd1 >"$SBD_DEVICES/sbd1/label"
	sleep 2
	kill -KILL "${stalled[@]}" 2>/dev/null || true
	wait "${stalled[@]}" 2>/dev/null || true
	after_attack stalled_readers "$t0" "$(uptime_s)" "$STALL_BOUND"
fi

tstep "GetManagedObjects beyond the bus's message size"
# The bus and sbdd agree on a small limit (both read it from their
# configuration), and 42 disks need more (some 600 bytes each).
printf '<busconfig><limit name="max_message_size">16384</limit></busconfig>\n' >/etc/dbus-1/system.d/zz-small.conf
printf '[Daemon]\nMaxMessageSize=16384\n[Parameters]\nndevices=2\nsize=16M\n' >/etc/sbd/sbdd.conf
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null
assert_ok systemctl restart sbdd.service
for i in $(seq 10 49); do
	echo "1M $i" >"$SBD_DRV/new_device"
done
sbd_wait_device_count 42 30 || fail "sbdd does not show 42 devices"
out=$("${NOBODY[@]}" "$PY" "$HELPER" attack big_tree 2>&1) && pass "$out" || fail "$out"
assert_eq "b true" "$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
	NameHasOwner s org.sbd.Sbd1)" "sbdd still owns its name"
assert_ok busctl --system call org.sbd.Sbd1 /org/sbd/Sbd1 org.freedesktop.DBus.Peer Ping
# udevd probes every new disk (blkid in 60-persistent-storage.rules opens
# it) and the module will not delete an open disk (EBUSY): on a slow day
# the probes of these 40 were still running when the deletes began (CI's
# run of stop 35, the debug kernel). Wait for udev, as a script of an
# administrator's would, before taking them away.
udevadm settle --timeout=120 || fail "udev still busy 120 s after the 40 disks were added"
for i in $(seq 10 49); do echo "sbd$i" >"$SBD_DRV/delete_device"; done
rm /etc/dbus-1/system.d/zz-small.conf
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null

bg_stop probe
cp "$PROBE" "$SBD_VM_RESULTS/" 2>/dev/null || true
