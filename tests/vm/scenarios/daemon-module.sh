#!/bin/bash
# The module comes and goes while sbdd runs: Module.Unload and Module.Load
# (with parameters) over D-Bus, rmmod and modprobe behind the daemon's
# back. The objects are removed and restored with their signals,
# Module.State and Parameters follow, Unload while a disk is open is Busy,
# and the tree equals sysfs after every step. Last, --unload-on-exit.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

MOD=$SBD_OBJ/module
E=org.sbd.Sbd1.Error
M=$((1024 * 1024))

state() { dbus_get "$MOD" org.sbd.Sbd1.Module State; }
devices() { dbus_get "$SBD_OBJ" org.sbd.Sbd1.Manager Devices; }

# wait_state STATE: until Module.State is STATE (uevents are asynchronous)
wait_state() {
	local i
	for ((i = 0; i < 40; i++)); do
		[[ $(state) == "s \"$1\"" ]] && break
		sleep 0.25
	done
	assert_eq "s \"$1\"" "$(state)" "Module.State"
}

# wait_devices EXPECTED: until Manager.Devices is EXPECTED
wait_devices() {
	local i
	for ((i = 0; i < 40; i++)); do
		[[ $(devices) == "$1" ]] && break
		sleep 0.25
	done
	assert_eq "$1" "$(devices)" "Manager.Devices"
}

# state_signals STATE: PropertiesChanged announcing State = STATE so far
state_signals() {
	monitor_count "$(pc_of "$MOD")" "\"State\":{\"type\":\"s\",\"data\":\"$1\"}"
}

removed() { monitor_count '"member":"InterfacesRemoved"' "\"data\":[\"$1\","; }
added() { monitor_count '"member":"InterfacesAdded"' "\"data\":[\"$1\","; }

step "sbdd loads the module with two disks"
sbd_bus_start
sbdd_start -p ndevices=2 -p size=16M
sbd_monitor_start
assert_eq 's "live"' "$(state)" "Module.State"
assert_eq 'ao 2 "/org/sbd/Sbd1/devices/sbd0" "/org/sbd/Sbd1/devices/sbd1"' "$(devices)" "Manager.Devices"

step "Module.Unload while a disk is open: Busy, nothing changes"
exec 3</dev/sbd1
expect_dbus_error "$E.Busy" -o "$MOD" -m org.sbd.Sbd1.Module.Unload
assert_file_content /sys/module/sbd/initstate live
assert_eq 's "live"' "$(state)" "Module.State"
assert_match '^u [1-9]' "$(dbus_get "$MOD" org.sbd.Sbd1.Module RefCount)" "RefCount while sbd1 is open"
exec 3<&-
assert_eq 'u 0' "$(dbus_get "$MOD" org.sbd.Sbd1.Module RefCount)" "RefCount once closed"

step "Module.Unload: the objects go, State says unloaded"
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" -o "$MOD" -m org.sbd.Sbd1.Module.Unload 2>&1)" "Unload"
assert_not_exists /sys/module/sbd
assert_eq 's "unloaded"' "$(state)" "Module.State right after Unload"
assert_eq 'ao 0' "$(devices)" "Manager.Devices right after Unload"
assert_eq 'ao 0' "$(dbus_get "$SBD_OBJ" org.sbd.Sbd1.Manager Drivers)" "Manager.Drivers"
for p in "$SBD_OBJ/devices/sbd0" "$SBD_OBJ/devices/sbd1" "$SBD_OBJ/drivers/sbd"; do
	monitor_wait 10 '"member":"InterfacesRemoved"' "\"data\":[\"$p\"," || true
	assert_eq 1 "$(removed "$p")" "InterfacesRemoved for $p"
done
monitor_wait 10 "$(pc_of "$MOD")" '"State":{"type":"s","data":"unloaded"}' || true
assert_eq 1 "$(state_signals unloaded)" "State unloaded signalled"
sbd_check_tree
expect_dbus_error "$E.ModuleNotLoaded" -o "$MOD" -m org.sbd.Sbd1.Module.Unload
expect_dbus_error "$E.ModuleNotLoaded" -o "$SBD_OBJ" -m org.sbd.Sbd1.Manager.AddDevice $((8 * M)) '@a{sv} {}'

step "Module.Load with parameters: the objects are there when it returns"
expect_dbus_error "$E.InvalidValue" -o "$MOD" -m org.sbd.Sbd1.Module.Load "{'colour': 'red'}"
expect_dbus_error "$E.InvalidValue" -o "$MOD" -m org.sbd.Sbd1.Module.Load "{'size': '513'}"
assert_not_exists /sys/module/sbd
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" -o "$MOD" -m org.sbd.Sbd1.Module.Load "{'ndevices': '3', 'size': '8M'}" 2>&1)" "Load ndevices=3 size=8M"
assert_eq 's "live"' "$(state)" "Module.State right after Load"
assert_eq 'ao 3 "/org/sbd/Sbd1/devices/sbd0" "/org/sbd/Sbd1/devices/sbd1" "/org/sbd/Sbd1/devices/sbd2"' "$(devices)" "Manager.Devices right after Load"
assert_eq "t $((8 * M))" "$(dbus_get "$(sbd_dev_path sbd2)" org.sbd.Sbd1.Device Size)" "sbd2's Size"
params=$(dbus_get "$MOD" org.sbd.Sbd1.Module Parameters)
assert_match '"ndevices" "3"' "$params" "Module.Parameters"
assert_match "\"size\" \"$((8 * M))\"" "$params" "Module.Parameters"
monitor_wait 10 "$(pc_of "$MOD")" '"State":{"type":"s","data":"live"}' || true
assert_eq 1 "$(state_signals live)" "State live signalled"
assert_eq 1 "$(added "$SBD_OBJ/devices/sbd2")" "InterfacesAdded for sbd2"
assert_eq 1 "$(added "$SBD_OBJ/drivers/sbd")" "InterfacesAdded for the driver"
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" -o "$MOD" -m org.sbd.Sbd1.Module.Load '@a{ss} {}' 2>&1)" "Load while live (nothing to do)"
sbd_check_tree

step "rmmod behind the daemon's back"
assert_ok rmmod sbd
wait_state unloaded
wait_devices 'ao 0'
assert_eq 2 "$(state_signals unloaded)" "State unloaded signalled again"
assert_eq 2 "$(removed "$SBD_OBJ/drivers/sbd")" "InterfacesRemoved for the driver again"
sbd_check_tree

step "modprobe behind the daemon's back"
assert_ok modprobe sbd ndevices=2 size=4M
wait_state live
wait_devices 'ao 2 "/org/sbd/Sbd1/devices/sbd0" "/org/sbd/Sbd1/devices/sbd1"'
assert_eq "t $((4 * M))" "$(dbus_get "$(sbd_dev_path sbd1)" org.sbd.Sbd1.Device Size)" "sbd1's Size"
assert_match '"size" "4194304"' "$(dbus_get "$MOD" org.sbd.Sbd1.Module Parameters)" "Module.Parameters"
assert_eq 2 "$(state_signals live)" "State live signalled again"
sbd_check_tree
sbdd_alive

step "Module.Load of no parameters: the configured ones (-p ndevices=2 -p size=16M)"
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" -o "$MOD" -m org.sbd.Sbd1.Module.Unload 2>&1)" "Unload"
wait_state unloaded
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" -o "$MOD" -m org.sbd.Sbd1.Module.Load '@a{ss} {}' 2>&1)" "Load {}"
assert_eq 's "live"' "$(state)" "Module.State right after Load {}"
assert_eq 'ao 2 "/org/sbd/Sbd1/devices/sbd0" "/org/sbd/Sbd1/devices/sbd1"' "$(devices)" "Manager.Devices right after Load {}"
assert_eq "t $((16 * M))" "$(dbus_get "$(sbd_dev_path sbd1)" org.sbd.Sbd1.Device Size)" "sbd1's Size"
sbd_check_tree

step "SIGTERM keeps the module; --unload-on-exit does not"
sbdd_stop
assert_file_content /sys/module/sbd/initstate live
sbdd_start --unload-on-exit
assert_eq 's "live"' "$(state)" "Module.State"
sbdd_stop
assert_not_exists /sys/module/sbd
assert_log 'Unloaded module sbd'
