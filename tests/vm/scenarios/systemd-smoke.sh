#!/bin/bash
# --systemd mode: systemd is PID 1 of the guest, the scenario runs from
# sbd-vm-scenario.service, the system bus answers, udevd runs.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm --systemd}"

step "systemd is PID 1 and the boot finishes"
assert_eq systemd "$(cat /proc/1/comm)" "PID 1"
assert_eq systemd "$SBD_VM_MODE" "SBD_VM_MODE"
state=$(timeout 120 systemctl is-system-running --wait 2>&1 || true)
assert_match '^(running|degraded)$' "$state" "systemctl is-system-running"
if [[ $state == degraded ]]; then
	log "failed units: $(systemctl --failed --no-legend --plain | awk '{print $1}' | tr '\n' ' ')"
fi
assert_eq active "$(systemctl is-active sbd-vm-scenario.service)" "the scenario's own unit"

step "the system bus answers"
assert_ok busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId
assert_match '^as [0-9]+ ' "$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ListNames)" "ListNames"
assert_match '^s "sbd-vm"$' "$(busctl --system get-property org.freedesktop.hostname1 /org/freedesktop/hostname1 org.freedesktop.hostname1 Hostname 2>&1)" "hostnamed (D-Bus activated) Hostname"

step "udevd runs and sees block devices"
assert_eq active "$(systemctl is-active systemd-udevd.service)" "systemd-udevd"
assert_ok modprobe brd rd_size=4096 rd_nr=1
assert_ok udevadm settle --timeout=30
assert_match 'DEVNAME=/dev/ram0' "$(udevadm info --query=property --name=/dev/ram0 2>&1)" "udev database for ram0"
assert_ok modprobe -r brd
