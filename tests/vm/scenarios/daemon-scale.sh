#!/bin/bash
# performance.md's scale targets against the real module: sbdd starts with
# 10,000 disks (about 40,000 descriptors, far above the guest's hard limit
# of 4096, which it raises), mirrors all of them exactly, takes 100 more
# and lets them go, serves 100 clients subscribed to its signals at once,
# keeps answering through a storm of uevents that overruns its buffer,
# and exits cleanly. Timings and memory are logged (they never decide).
# Needs run-vm --mem 3072: a disk costs the guest about 110 KiB.
# ARGS: [DISKS] (default 10000)
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm --mem 3072}"

N=${1:-10000}
CHECK=$SBD_SOURCE_DIR/tests/vm/scenarios/daemon-check.py


step "$N disks"
# A bus that drops connections not authenticated within 5 s (Debian's
# default is 30 s): sbdd must finish its handshake before the long
# enumeration, not after it (it did not, and lost the bus under load).
cat >/etc/dbus-1/system.d/zz-sbd-vm-auth-timeout.conf <<'CONF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <limit name="auth_timeout">5000</limit>
</busconfig>
CONF
sbd_bus_start
sbd_module_install
mem0=$(mem_kib)
t0=$(now)
sbd_module_load ndevices="$N" size=1M
log "modprobe sbd ndevices=$N took $(since "$t0") s"
assert_eq "$N" "$(read_attr "$SBD_DRV/ndevices")" "ndevices"
mem1=$(mem_kib)
log "guest memory: $(((mem0 - mem1) / N)) KiB per disk ($(((mem0 - mem1) / 1024)) MiB for $N), $((mem1 / 1024)) MiB left"

step "sbdd starts with $N disks although the hard limit is $(ulimit -Hn)"
((N * 4 > $(ulimit -Hn))) && log "($N disks need some $((N * 4)) descriptors)"
t0=$(now)
SBDD_START_TIMEOUT=600 sbdd_start
log "start-up to owning the name: $(since "$t0") s"
assert_log "Mirroring $N device\\(s\\)"
fds=$(find "/proc/$SBDD_PID/fd" -mindepth 1 | wc -l)
log "sbdd holds $fds descriptors, RSS $(rss_kib) KiB ($(($(rss_kib) * 1024 / N)) bytes per disk)"
if ((fds >= 4 * N)); then pass "$fds descriptors: 4 per disk"; else fail "only $fds descriptors for $N disks"; fi
assert_eq 0 "$(grep -c 'Cannot mirror\|Too many open files' "$SBDD_LOG")" "devices left out"

step "the tree equals sysfs"
sbd_check_tree --timeout 600
t0=$(now)
out=$(busctl --system get-property "$SBD_NAME" "$SBD_OBJ" org.sbd.Sbd1.Manager Devices)
log "busctl get-property Manager.Devices: $(since "$t0") s"
assert_eq "ao $N" "${out%% \"*}" "Manager.Devices count"

step "100 more disks while $N are mirrored, and away again"
t0=$(now)
for ((i = N; i < N + 100; i++)); do echo "1M $i" >"$SBD_DRV/new_device"; done
log "100 adds written in $(since "$t0") s"
sbd_wait_device_count $((N + 100)) || fail "Manager.Devices did not reach $((N + 100))"
log "Manager.Devices lists all $((N + 100)) $(since "$t0") s after the first add"
assert_eq "t 1048576" "$(dbus_get "$(sbd_dev_path "sbd$((N + 99))")" org.sbd.Sbd1.Device Size)" "Size of the last one"
assert_eq "u $((N + 100))" "$(dbus_get "$SBD_OBJ/drivers/sbd" org.sbd.Sbd1.Driver Ndevices)" "Ndevices"
t0=$(now)
for ((i = N; i < N + 100; i++)); do echo "sbd$i" >"$SBD_DRV/delete_device"; done
log "100 removes written in $(since "$t0") s"
sbd_wait_device_count "$N" || fail "Manager.Devices did not come back to $N"
log "Manager.Devices back to $N $(since "$t0") s after the first remove"
assert_eq org.freedesktop.DBus.Error.UnknownObject \
	"$(dbus_error -o "$(sbd_dev_path "sbd$((N + 99))")" -m org.freedesktop.DBus.Properties.Get org.sbd.Sbd1.Device Size)" "the last one is gone"
assert_eq "u $N" "$(dbus_get "$SBD_OBJ/drivers/sbd" org.sbd.Sbd1.Driver Ndevices)" "Ndevices"
sbdd_alive

step "100 clients subscribed to signals at once"
rm -f "$SBD_TMP/subs.ready"
bg_start subs /usr/bin/python3 "$CHECK" subscribers 100 "$(sbd_dev_path sbd7)" hello-100 \
	--ready "$SBD_TMP/subs.ready" --timeout 120
wait_for "$SBD_TMP/subs.ready" 300 || die "the subscribers did not start: $(cat "$SBD_TMP/subs.err")"
log "connections on the bus: $(busctl --system list --no-legend | wc -l)"
t0=$(now)
attr_write "$SBD_DEVICES/sbd7/label" hello-100
if bg_wait subs; then pass "$(bg_output subs)"; else fail "$(bg_output subs) $(cat "$SBD_TMP/subs.err")"; fi
log "all received within $(since "$t0") s"

step "a uevent storm with the receive buffer shrunk: re-reads paced, Pings answered"
# Issue 19's storm. Foreign uevents never reach sbdd (the kernel-side
# socket filter: 0 queued, see daemon-burst); sbd's own do, and with the
# buffer shrunk to 4 KiB from outside a "change" on every disk overruns it
# again and again. Each overrun asks for a full re-read of sysfs (O(disks));
# paced (resync-pace.c) and in steps (resync.c), calls go on being served.
# Logged, never asserted: the worst Ping, the re-reads. So that an overrun
# is certain however fast sbdd keeps up (500 disks on the debug kernel),
# the storm's first 200 events come while sbdd is stopped; the rest, and
# the re-read, while it runs and is pinged.
log "$(/usr/bin/python3 "$CHECK" netlink "$SBDD_PID" --rcvbuf 4096)"
rereads0=$(grep -c 'Re-read sysfs' "$SBDD_LOG" || true)
rm -f "$SBD_TMP/pings.ready" "$SBD_TMP/storm.done"
t0=$(now)
kill -STOP "$SBDD_PID"
for ((i = 0; i < 200 && i < N; i++)); do echo change >"$SBD_DEVICES/sbd$i/uevent"; done
kill -CONT "$SBDD_PID"
bg_start pings /usr/bin/python3 "$CHECK" pings --until "$SBD_TMP/storm.done" --ready "$SBD_TMP/pings.ready"
wait_for "$SBD_TMP/pings.ready" 120 || die "the Ping probe did not start: $(cat "$SBD_TMP/pings.err")"
for ((; i < N; i++)); do echo change >"$SBD_DEVICES/sbd$i/uevent"; done
for ((i = 0; i < 2000; i++)); do echo change >/sys/devices/virtual/mem/null/uevent; done
log "$N sbd and 2000 foreign change uevents written in $(since "$t0") s"
# the Pings go on until the re-read the overruns asked for has ended
rereads_now() { grep -c 'Re-read sysfs' "$SBDD_LOG" || true; }
for ((i = 0; i < 600; i++)); do (($(rereads_now) > rereads0)) && break; sleep 1; done
log "the first re-read ended $(since "$t0") s after the storm began"
sleep 2 # one more, if an overrun came during it, is paced: its start is in the log
touch "$SBD_TMP/storm.done"
if bg_wait pings; then pass "$(bg_output pings)"; else fail "$(bg_output pings) $(cat "$SBD_TMP/pings.err")"; fi
rereads=$(($(rereads_now) - rereads0))
log "re-reads of sysfs during the storm: $rereads; $(grep 'Re-read sysfs' "$SBDD_LOG" | tail -1)"
((rereads > 0)) && pass "the storm overran the buffer ($rereads paced re-reads)" ||
	fail "no overrun: the step proved nothing about pacing"
# The storm changed nothing, so nothing may be lost: every disk still
# listed. (That a re-read ends with the tree equal to sysfs, attribute by
# attribute, is daemon-burst's check; a second full comparison of 10,000
# disks here costs 90 s.)
out=$(busctl --system get-property "$SBD_NAME" "$SBD_OBJ" org.sbd.Sbd1.Manager Devices)
assert_eq "ao $N" "${out%% \"*}" "Manager.Devices count after the storm"
sbdd_alive

step "SIGTERM with $N disks"
t0=$(now)
sbdd_stop
log "sbdd exited in $(since "$t0") s"
assert_file_content /sys/module/sbd/initstate live
