#!/bin/bash
# Bursts of uevents: 1,000 disks added and then removed through
# new_device/delete_device as fast as a shell loop writes, then adds and
# removes interleaved; after each burst the daemon's tree equals sysfs and
# it still answers. Then lost uevents: sbdd stopped (SIGSTOP) during a
# burst, first with its own 128 MiB receive buffer (how much it holds is
# reported), then with the buffer shrunk from outside (pidfd_getfd) so
# that it overflows: ENOBUFS must lead to a re-synchronisation that ends
# with the tree equal to sysfs.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

N=${1:-1000}
CHECK=$SBD_SOURCE_DIR/tests/vm/scenarios/daemon-check.py

now() { printf '%s' "${EPOCHREALTIME/./}"; } # microseconds
since() {
	local d=$(($(now) - $1))
	printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10))
}
mem_kib() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$SBDD_PID/status"; }
ndevices() { read_attr "$SBD_DRV/ndevices"; }

# add_range FIRST LAST / remove_range FIRST LAST: one write(2) each, no fork
add_range() {
	local i
	for ((i = $1; i <= $2; i++)); do echo "1M $i" >"$SBD_DRV/new_device"; done
}
remove_range() {
	local i
	for ((i = $1; i <= $2; i++)); do echo "sbd$i" >"$SBD_DRV/delete_device"; done
}

# netlink_probe [--rcvbuf BYTES]: the daemon's uevent socket (rmem, drops)
netlink_probe() {
	/usr/bin/python3 "$CHECK" netlink "$SBDD_PID" "$@"
}

step "bus and daemon, one disk"
sbd_bus_start
sbdd_start -p ndevices=1 -p size=1M
mem0=$(mem_kib)
rss0=$(rss_kib)
log "MemAvailable $mem0 KiB, sbdd RSS $rss0 KiB"

step "a burst of $N adds"
t0=$(now)
add_range 1 "$N"
log "$N disks added in $(since "$t0") s"
assert_eq $((N + 1)) "$(ndevices)" "ndevices"
sbd_check_tree --timeout 300
log "tree equal to sysfs $(since "$t0") s after the burst began"
mem1=$(mem_kib)
rss1=$(rss_kib)
log "guest memory per disk: $(((mem0 - mem1) / N)) KiB; sbdd RSS $rss1 KiB, $(((rss1 - rss0) * 1024 / N)) bytes per disk"
fds=$(find "/proc/$SBDD_PID/fd" -mindepth 1 | wc -l)
log "sbdd holds $fds descriptors for $((N + 1)) disks"
if ((fds >= 4 * (N + 1) && fds < 4 * (N + 1) + 50)); then
	pass "4 descriptors per disk ($fds for $((N + 1)))"
else
	fail "$fds descriptors for $((N + 1)) disks, expected 4 per disk"
fi
sbdd_alive

step "a burst of $N removes"
t0=$(now)
remove_range 1 "$N"
log "$N disks removed in $(since "$t0") s"
assert_eq 1 "$(ndevices)" "ndevices"
sbd_check_tree --timeout 300
log "tree equal to sysfs $(since "$t0") s after the burst began"
sbdd_alive
fds=$(find "/proc/$SBDD_PID/fd" -mindepth 1 | wc -l)
log "sbdd holds $fds descriptors for 1 disk, RSS $(rss_kib) KiB"
if ((fds < 4 + 50)); then pass "descriptors released ($fds)"; else fail "$fds descriptors left for 1 disk"; fi

step "adds and removes interleaved"
t0=$(now)
for ((i = 1; i <= N / 4; i++)); do
	echo "1M $((2000 + i))" >"$SBD_DRV/new_device"
	((i % 3 == 0)) || echo "sbd$((2000 + i))" >"$SBD_DRV/delete_device"
done
log "$((N / 4)) adds, $((N / 4 - N / 12)) removes interleaved in $(since "$t0") s"
assert_eq $((1 + N / 12)) "$(ndevices)" "ndevices"
sbd_check_tree --timeout 300
for ((i = 3; i <= N / 4; i += 3)); do echo "sbd$((2000 + i))" >"$SBD_DRV/delete_device"; done
sbd_check_tree --timeout 300

step "sbdd stopped during a burst, with its own 128 MiB receive buffer"
log "before: $(netlink_probe)"
kill -STOP "$SBDD_PID"
t0=$(now)
add_range 1 300
remove_range 1 300
log "300 adds and removes in $(since "$t0") s while sbdd was stopped: $(netlink_probe)"
kill -CONT "$SBDD_PID"
sbd_check_tree --timeout 300
if grep -q 'Uevents were lost' "$SBDD_LOG"; then
	log "the 128 MiB buffer overflowed (re-synchronised)"
else
	log "nothing was lost: the 128 MiB buffer held the whole burst"
fi
sbdd_alive

step "sbdd stopped during a burst, its buffer shrunk from outside: ENOBUFS"
log "$(netlink_probe --rcvbuf 4096)"
kill -STOP "$SBDD_PID"
add_range 1 100
remove_range 1 50
log "while stopped: $(netlink_probe)"
kill -CONT "$SBDD_PID"
sbd_check_tree --timeout 300
assert_log 'Uevents were lost \(receive buffer overrun\), re-reading sysfs' "ENOBUFS handled"
sbdd_alive

step "bursts with the small buffer while sbdd runs"
add_range 101 400
remove_range 51 300
sbd_check_tree --timeout 300
log "after: $(netlink_probe)"
log "$(grep -c 'Uevents were lost' "$SBDD_LOG") re-synchronisation(s) in all"
remove_range 301 400
sbd_check_tree --timeout 300
assert_eq 1 "$(ndevices)" "ndevices at the end"
sbdd_alive
sbdd_stop
