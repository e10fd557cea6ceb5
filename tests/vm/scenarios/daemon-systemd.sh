#!/bin/bash
# sbdd as it runs on a real host (run-vm --systemd): the project's unit
# (hardened, Type=dbus, watchdog) and D-Bus activation file installed,
# the first call to org.sbd.Sbd1 starts it through systemd; it loads sbd by
# name, serves reads and writes under the unit's sandbox, raises its
# descriptor limit, survives past the watchdog interval without a restart,
# logs to the journal with priorities, and stops cleanly.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm --systemd}"

DEV0=$(sbd_dev_path sbd0)
unit=/etc/systemd/system/sbdd.service

prop() { systemctl show -P "$1" sbdd.service; }

step "systemd runs, the unit and the activation file are installed"
[[ $SBD_VM_MODE == systemd ]] || die "run me with tests/vm/run-vm --systemd"
state=$(timeout 120 systemctl is-system-running --wait 2>&1 || true)
assert_match '^(running|degraded)$' "$state" "systemctl is-system-running"
sbd_module_install
[[ -f $SBD_BUILD_DIR/systemd/sbdd.service && -f $SBD_BUILD_DIR/dbus/org.sbd.Sbd1.service ]] ||
	die "the unit or the activation file is not built"
# The build's files, with the installed sbdd's path replaced by the tree's.
installed=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$SBD_BUILD_DIR/systemd/sbdd.service")
sed "s|$installed|$SBDD|" "$SBD_BUILD_DIR/systemd/sbdd.service" >"$unit"
sed "s|$installed|$SBDD|" "$SBD_BUILD_DIR/dbus/org.sbd.Sbd1.service" \
	>/usr/share/dbus-1/system-services/org.sbd.Sbd1.service
log "$(grep -E '^(ExecStart|Type|BusName|WatchdogSec)=' "$unit" | tr '\n' ' ')"
assert_ok systemctl daemon-reload
sbd_bus_start # installs the policy and makes the running bus reload it
assert_eq inactive "$(systemctl is-active sbdd.service || true)" "sbdd before the first call"
assert_not_exists /sys/module/sbd

step "the first call activates sbdd through systemd"
t0=$SECONDS
tree=$(busctl --system --timeout=120 tree "$SBD_NAME" 2>&1)
log "activated in about $((SECONDS - t0)) s"
assert_eq 1 "$(grep -c '/org/sbd/Sbd1/devices/sbd0$' <<<"$tree")" "sbd0 in busctl tree"
assert_eq active "$(systemctl is-active sbdd.service)" "sbdd.service"
assert_file_content /sys/module/sbd/initstate live
pid=$(prop MainPID)
assert_match '^[1-9][0-9]*$' "$pid" "MainPID"
assert_match "^Max open files +([0-9]+) +\\1 " "$(grep 'Max open files' "/proc/$pid/limits")" "soft = hard descriptor limit"
log "$(grep 'Max open files' "/proc/$pid/limits")"
log "security exposure: $(systemd-analyze security --no-pager sbdd.service 2>/dev/null | tail -n 1)"

step "reads and writes under the unit's sandbox"
assert_eq 's "live"' "$(dbus_get "$SBD_OBJ/module" org.sbd.Sbd1.Module State)" "Module.State"
assert_ok busctl --system set-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device Label s from-the-unit
assert_file_content "$SBD_DEVICES/sbd0/label" from-the-unit
assert_eq org.sbd.Sbd1.Error.InvalidValue "$(dbus_error -o "$DEV0" -m org.freedesktop.DBus.Properties.Set org.sbd.Sbd1.Device Size '<uint64 513>')" "Size 513"
out=$(gdbus call --system -d "$SBD_NAME" -o "$SBD_OBJ" -m org.sbd.Sbd1.Manager.AddDevice 8388608 "{'id': <uint32 3>}" 2>&1 || true)
assert_eq "(objectpath '/org/sbd/Sbd1/devices/sbd3',)" "$out" "AddDevice"
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" -o "$SBD_OBJ" -m org.sbd.Sbd1.Manager.RemoveDevice "$(sbd_dev_path sbd3)" '@a{sv} {}' 2>&1)" "RemoveDevice"
attr_write "$SBD_DEVICES/sbd0/read_only" 1
for _ in {1..40}; do
	[[ $(dbus_get "$DEV0" org.sbd.Sbd1.Device ReadOnly) == "b true" ]] && break
	sleep 0.25
done
assert_eq "b true" "$(dbus_get "$DEV0" org.sbd.Sbd1.Device ReadOnly)" "ReadOnly after a direct write"
sbd_check_tree

step "past the watchdog interval, the same process still serves"
wd=$(prop WatchdogUSec)
log "WatchdogUSec=$wd"
while ((SECONDS - t0 < 75)); do sleep 5; done
assert_eq "$pid" "$(prop MainPID)" "MainPID 75 s after the start"
assert_eq 0 "$(prop NRestarts)" "NRestarts"
assert_eq 0 "$(journalctl -b -u sbdd.service --no-pager | grep -c -i 'watchdog timeout' || true)" "watchdog time-outs in the journal"
assert_ok busctl --system call "$SBD_NAME" "$SBD_OBJ" org.freedesktop.DBus.Peer Ping

step "the journal has sbdd's messages with their priorities"
journal=$(journalctl -b -u sbdd.service -o cat --no-pager 2>&1)
assert_match '^Mirroring [0-9]+ device' "$(grep -m 1 '^Mirroring' <<<"$journal")" "the journal"
assert_eq "" "$(journalctl -b -u sbdd.service -o cat --no-pager -p warning 2>&1 | grep -v '^-- ' || true)" "warnings or errors in the journal"
if grep -q '^<[0-7]>' <<<"$journal"; then fail "raw <N> prefixes in the journal"; else pass "no raw <N> prefixes"; fi

step "systemctl stop: a clean exit, the module stays"
assert_ok systemctl stop sbdd.service
assert_eq success "$(prop Result)" "Result"
assert_eq 0 "$(prop ExecMainStatus)" "ExecMainStatus"
assert_file_content /sys/module/sbd/initstate live
