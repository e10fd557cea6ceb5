#!/bin/bash
# Signals, whoever makes the change: busctl monitor sees exactly one
# PropertiesChanged per change made directly in sysfs (label, read_only,
# size, online), none for a value written again; InterfacesAdded/Removed
# and the lists for new_device/delete_device written directly, nothing
# else about a device that goes away; AddDevice/RemoveDevice over D-Bus
# (the object exists when AddDevice returns and is gone when RemoveDevice
# returns) and their errors.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
DEV0=$(sbd_dev_path sbd0)
E=org.sbd.Sbd1.Error
MGR=(-o "$SBD_OBJ" -m)

# change ATTR VALUE PROPERTY TYPE JSON_VALUE: write VALUE to sbd0's ATTR directly,
# wait for the PropertiesChanged that carries PROPERTY = JSON_VALUE
change() {
	local want
	want=$(printf '"%s":{"type":"%s","data":%s}' "$3" "$4" "$5")
	attr_write "$SBD_DEVICES/sbd0/$1" "$2"
	if monitor_wait 10 "$(pc_of "$DEV0")" "$want"; then
		pass "PropertiesChanged $want"
	else
		fail "no PropertiesChanged $want after writing $1"
	fi
	changes+=("$want")
}

step "bus, daemon, monitor"
sbd_bus_start
sbdd_start -p ndevices=2 -p size=16M -p max_size=64M
sbd_monitor_start

step "changes made directly in sysfs are signalled"
changes=()
change label sig-one Label s '"sig-one"'
attr_write "$SBD_DEVICES/sbd0/label" sig-one # the same value: no event, no signal
change label sig-two Label s '"sig-two"'
change read_only 1 ReadOnly b true
change read_only 0 ReadOnly b false
change size $((32 * M)) Size t $((32 * M))
change size $((16 * M)) Size t $((16 * M))
change online 0 Online b false
change online 1 Online b true
attr_write "$SBD_DEVICES/sbd0/read_only" 0 # unchanged again
expect_write_errno "$SBD_DEVICES/sbd0/size" 0 EINVAL # refused: nothing changes

step "exactly once per change, and nothing for unchanged values"
sleep 2 # anything late would arrive now
for c in "${changes[@]}"; do
	assert_eq 1 "$(monitor_count "$(pc_of "$DEV0")" "$c")" "signals carrying $c"
done
assert_eq "${#changes[@]}" "$(monitor_count "$(pc_of "$DEV0")")" "PropertiesChanged on sbd0 in all"
assert_eq 0 "$(monitor_count "$(pc_of "$(sbd_dev_path sbd1)")")" "PropertiesChanged on sbd1 (untouched)"
assert_eq 's "sig-two"' "$(dbus_get "$DEV0" org.sbd.Sbd1.Device Label)" "Label now"

step "new_device and delete_device written directly"
attr_write "$SBD_DRV/new_device" "8M 5"
if monitor_wait 10 '"member":"InterfacesAdded"' '"/org/sbd/Sbd1/devices/sbd5"'; then
	pass "InterfacesAdded for sbd5"
else
	fail "no InterfacesAdded for sbd5"
fi
assert_eq 1 "$(monitor_count '"member":"InterfacesAdded"' '"data":["/org/sbd/Sbd1/devices/sbd5",' '"Size":{"type":"t","data":8388608}' '"Label":{"type":"s","data":"sbd5"}')" "InterfacesAdded of sbd5 with its Size and Label"
monitor_wait 10 "$(pc_of "$SBD_OBJ")" '"Devices":{"type":"ao","data":["/org/sbd/Sbd1/devices/sbd0","/org/sbd/Sbd1/devices/sbd1","/org/sbd/Sbd1/devices/sbd5"]}' ||
	fail "no Manager.Devices with sbd5"
monitor_wait 10 "$(pc_of "$SBD_OBJ/drivers/sbd")" '"Ndevices":{"type":"u","data":3}' || fail "no Driver.Ndevices 3"
assert_eq 's "/dev/sbd5"' "$(dbus_get "$(sbd_dev_path sbd5)" org.sbd.Sbd1.Device BlockDevice)" "sbd5's BlockDevice"
attr_write "$SBD_DRV/delete_device" sbd5
if monitor_wait 10 '"member":"InterfacesRemoved"' '"data":["/org/sbd/Sbd1/devices/sbd5",'; then
	pass "InterfacesRemoved for sbd5"
else
	fail "no InterfacesRemoved for sbd5"
fi
monitor_wait 10 "$(pc_of "$SBD_OBJ/drivers/sbd")" '"Ndevices":{"type":"u","data":2}' || fail "no Driver.Ndevices 2"
sleep 1
assert_eq 0 "$(monitor_count "$(pc_of "$(sbd_dev_path sbd5)")")" "PropertiesChanged on sbd5 (it only came and went)"
assert_eq 1 "$(monitor_count "$(pc_of "$SBD_OBJ")" '"Devices":{"type":"ao","data":["/org/sbd/Sbd1/devices/sbd0","/org/sbd/Sbd1/devices/sbd1"]}')" "Manager.Devices back to two, once"
assert_eq 1 "$(monitor_count "$(pc_of "$SBD_OBJ/drivers/sbd")" '"Devices":{"type":"ao","data":["/org/sbd/Sbd1/devices/sbd0","/org/sbd/Sbd1/devices/sbd1"]}')" "Driver.Devices back to two, once"

step "AddDevice: the object exists when the call returns"
out=$(gdbus call --system -d "$SBD_NAME" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice $((16 * M)) '@a{sv} {}' 2>&1)
assert_match "^\\(objectpath '/org/sbd/Sbd1/devices/sbd[0-9]+',\\)$" "$out" "AddDevice without id"
new=${out#*\'}
new=${new%%\'*}
assert_eq "s \"${new##*/}\"" "$(dbus_get "$new" org.sbd.Sbd1.Device SysName)" "SysName of the new object right away"
assert_dir "$SBD_DEVICES/${new##*/}"
out=$(gdbus call --system -d "$SBD_NAME" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice $((8 * M)) "{'id': <uint32 7>}" 2>&1)
assert_eq "(objectpath '/org/sbd/Sbd1/devices/sbd7',)" "$out" "AddDevice with id 7"
assert_eq "t $((8 * M))" "$(dbus_get "$(sbd_dev_path sbd7)" org.sbd.Sbd1.Device Size)" "sbd7's Size right away"
assert_file_content "$SBD_DEVICES/sbd7/size" $((8 * M))
assert_eq 1 "$(monitor_count '"member":"InterfacesAdded"' '"data":["/org/sbd/Sbd1/devices/sbd7",')" "InterfacesAdded for sbd7"

step "AddDevice refusals"
expect_dbus_error "$E.Exists" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice $((8 * M)) "{'id': <uint32 7>}"
expect_dbus_error "$E.InvalidValue" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice 0 '@a{sv} {}'
expect_dbus_error "$E.InvalidValue" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice 513 '@a{sv} {}'
expect_dbus_error "$E.InvalidValue" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice $((128 * M)) '@a{sv} {}'
expect_dbus_error "$E.InvalidValue" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice $((8 * M)) "{'id': <'seven'>}"
expect_dbus_error "$E.InvalidValue" "${MGR[@]}" org.sbd.Sbd1.Manager.AddDevice $((8 * M)) "{'colour': <'red'>}"
assert_file_content "$SBD_DRV/ndevices" 4

step "RemoveDevice: Busy while open, gone when the call returns"
exec 3</dev/sbd7
expect_dbus_error "$E.Busy" "${MGR[@]}" org.sbd.Sbd1.Manager.RemoveDevice "$(sbd_dev_path sbd7)" '@a{sv} {}'
assert_dir "$SBD_DEVICES/sbd7"
assert_eq 's "sbd7"' "$(dbus_get "$(sbd_dev_path sbd7)" org.sbd.Sbd1.Device SysName)" "sbd7 still mirrored"
exec 3<&-
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" "${MGR[@]}" org.sbd.Sbd1.Manager.RemoveDevice "$(sbd_dev_path sbd7)" '@a{sv} {}' 2>&1)" "RemoveDevice sbd7"
assert_eq org.freedesktop.DBus.Error.UnknownObject \
	"$(dbus_error -o "$(sbd_dev_path sbd7)" -m org.freedesktop.DBus.Properties.Get org.sbd.Sbd1.Device SysName)" "Get on sbd7 right after"
assert_not_exists "$SBD_DEVICES/sbd7"
expect_dbus_error "$E.DeviceGone" "${MGR[@]}" org.sbd.Sbd1.Manager.RemoveDevice "$(sbd_dev_path sbd7)" '@a{sv} {}'
expect_dbus_error "$E.DeviceGone" "${MGR[@]}" org.sbd.Sbd1.Manager.RemoveDevice /org/sbd/Sbd1/devices/nothing '@a{sv} {}'
expect_dbus_error "$E.InvalidValue" "${MGR[@]}" org.sbd.Sbd1.Manager.RemoveDevice "$new" "{'force': <true>}"
assert_eq "()" "$(gdbus call --system -d "$SBD_NAME" "${MGR[@]}" org.sbd.Sbd1.Manager.RemoveDevice "$new" '@a{sv} {}' 2>&1)" "RemoveDevice ${new##*/}"
monitor_wait 10 '"member":"InterfacesRemoved"' '"data":["/org/sbd/Sbd1/devices/sbd7",' || fail "no InterfacesRemoved for sbd7"

step "the tree equals sysfs, the daemon answers"
sbd_check_tree
sbdd_alive
sbdd_stop
