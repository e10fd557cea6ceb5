#!/bin/bash
# Properties.Set through sbdd reaches the module's store callbacks (label,
# read_only, size, online) and the disk behaves accordingly; the kernel's
# refusals arrive as the contract's named errors; bad input (wrong types,
# a page or more, read-only properties, unknown objects) and unprivileged
# callers are refused and leave sysfs unchanged. Last, with the real
# polkitd activated on the bus, a rule decides for an unprivileged caller.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
DEV0=$(sbd_dev_path sbd0)
DEV1=$(sbd_dev_path sbd1)
E=org.sbd.Sbd1.Error
SET=(-m org.freedesktop.DBus.Properties.Set)

# set_error PATH PROPERTY GVARIANT: the error name of a Set (or "ok")
set_error() {
	dbus_error -o "$1" "${SET[@]}" org.sbd.Sbd1.Device "$2" "$3"
}

# expect_refused ERROR PROPERTY GVARIANT ATTR: Set on sbd0 fails with ERROR
# and the attribute file keeps its value
expect_refused() {
	local want=$1 prop=$2 value=$3 file=$SBD_DEVICES/sbd0/$4 before
	before=$(read_attr "$file")
	assert_eq "$want" "$(set_error "$DEV0" "$prop" "$value")" "Set $prop ${value:0:40}"
	assert_eq "$before" "$(read_attr "$file")" "$4 after the refusal"
}


step "bus and daemon"
sbd_bus_start
sbdd_start -p ndevices=2 -p size=16M -p max_size=64M
bus_client_start

step "Label: busctl set-property reaches the store callback"
assert_ok busctl --system set-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device Label s from-the-bus
assert_file_content "$SBD_DEVICES/sbd0/label" from-the-bus
assert_eq 's "from-the-bus"' "$(dbus_get "$DEV0" org.sbd.Sbd1.Device Label)" "Label read back"
assert_eq ok "$(set_error "$DEV0" Label "<'from-the-bus'>")" "Set of the same label again"
assert_ok busctl --system set-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device Label s "$(printf 'x%.0s' {1..31})"
assert_file_content "$SBD_DEVICES/sbd0/label" "$(printf 'x%.0s' {1..31})"

step "ReadOnly: writes to /dev/sbd0 fail, the data stays"
random_file "$SBD_TMP/a" 1024
random_file "$SBD_TMP/b" 1024
assert_ok dd if="$SBD_TMP/a" of=/dev/sbd0 bs=1M oflag=direct status=none
assert_ok busctl --system set-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device ReadOnly b true
assert_file_content "$SBD_DEVICES/sbd0/read_only" 1
assert_eq "b true" "$(dbus_get "$DEV0" org.sbd.Sbd1.Device ReadOnly)" "ReadOnly read back"
assert_eq 1 "$(blockdev --getro /dev/sbd0)" "blockdev --getro"
assert_fails dd if="$SBD_TMP/b" of=/dev/sbd0 bs=1M oflag=direct status=none
same_data "$SBD_TMP/a" /dev/sbd0
assert_ok busctl --system set-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device ReadOnly b false
assert_file_content "$SBD_DEVICES/sbd0/read_only" 0
assert_eq 0 "$(blockdev --getro /dev/sbd0)" "blockdev --getro"

step "Size: the capacity follows, growing keeps the data"
assert_ok busctl --system set-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device Size t $((48 * M))
assert_file_content "$SBD_DEVICES/sbd0/size" $((48 * M))
assert_eq $((48 * M)) "$(blockdev --getsize64 /dev/sbd0)" "blockdev --getsize64"
assert_eq "t $((48 * M))" "$(dbus_get "$DEV0" org.sbd.Sbd1.Device Size)" "Size read back"
same_data "$SBD_TMP/a" /dev/sbd0
assert_ok dd if="$SBD_TMP/b" of=/dev/sbd0 bs=1M seek=47 oflag=direct status=none
same_data "$SBD_TMP/b" /dev/sbd0 $((47 * M))

step "Online: an offline disk fails I/O"
assert_ok busctl --system set-property "$SBD_NAME" "$DEV1" org.sbd.Sbd1.Device Online b false
assert_file_content "$SBD_DEVICES/sbd1/online" 0
assert_fails dd if=/dev/sbd1 of=/dev/null bs=4k count=1 iflag=direct status=none
assert_ok busctl --system set-property "$SBD_NAME" "$DEV1" org.sbd.Sbd1.Device Online b true
assert_file_content "$SBD_DEVICES/sbd1/online" 1
assert_ok dd if=/dev/sbd1 of=/dev/null bs=4k count=1 iflag=direct status=none

step "the kernel's refusals as named errors"
expect_refused "$E.InvalidValue" Size '<uint64 0>' size
expect_refused "$E.InvalidValue" Size '<uint64 513>' size
expect_refused "$E.InvalidValue" Size "<uint64 $((128 * M))>" size
expect_refused "$E.InvalidValue" Label "<'$(printf 'y%.0s' {1..32})'>" label
expect_refused "$E.InvalidValue" Label "<'tab\\there'>" label
exec 3</dev/sbd0
expect_refused "$E.Busy" Size "<uint64 $((16 * M))>" size
exec 3<&-
assert_ok busctl --system set-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device Size t $((16 * M))
assert_file_content "$SBD_DEVICES/sbd0/size" $((16 * M))

step "values of a page or more are refused before anything is written"
long=$(printf 'z%.0s' {1..4096})
expect_refused "$E.InvalidValue" Label "<'$long'>" label
expect_refused "$E.InvalidValue" Label "<'${long}${long}'>" label
if grep -q "Writing 'zzzz" "$SBDD_LOG"; then fail "sbdd wrote a value of a page or more"; else pass "nothing of 4096+ bytes was written"; fi
# 4095 bytes are not refused for their length: a label of them by sbdd's
# own rule (1 to 31 characters, before polkit), and an attribute sbdd has
# no rules for passes them on to the kernel, which refuses them itself.
expect_refused "$E.InvalidValue" Label "<'${long:1}'>" label
expect_refused "$E.InvalidValue" PowerControl "<'${long:1}'>" power/control
assert_log "Writing 'z{4095}' to /sys/devices/system/sbd/sbd0/power/control failed: Invalid argument" "4095 bytes went to the kernel"

step "wrong variant types"
expect_refused "$E.InvalidValue" Size "<'abc'>" size
expect_refused "$E.InvalidValue" Size '<uint32 4096>' size
expect_refused "$E.InvalidValue" ReadOnly '<uint32 1>' read_only
expect_refused "$E.InvalidValue" ReadOnly "<'1'>" read_only
expect_refused "$E.InvalidValue" Label '<42>' label
expect_refused "$E.InvalidValue" Online '<@as []>' online

step "read-only and unknown properties, unknown objects"
expect_refused org.freedesktop.DBus.Error.PropertyReadOnly Name "<'other'>" name
expect_refused org.freedesktop.DBus.Error.PropertyReadOnly Device "<'0800'>" device
expect_refused org.freedesktop.DBus.Error.PropertyReadOnly SysName "<'sbd7'>" label
expect_refused org.freedesktop.DBus.Error.PropertyReadOnly BlockDevice "<'/dev/sda'>" label
expect_refused org.freedesktop.DBus.Error.UnknownProperty NoSuchThing "<'x'>" label
assert_eq org.freedesktop.DBus.Error.PropertyReadOnly \
	"$(dbus_error -o "$SBD_OBJ/drivers/sbd" "${SET[@]}" org.sbd.Sbd1.Driver Version "<'9'>")" "Set Driver.Version"
assert_eq org.freedesktop.DBus.Error.PropertyReadOnly \
	"$(dbus_error -o "$SBD_OBJ/module" "${SET[@]}" org.sbd.Sbd1.Module State "<'going'>")" "Set Module.State"
assert_eq org.freedesktop.DBus.Error.UnknownObject "$(set_error "$(sbd_dev_path sbd99)" Label "<'x'>")" "Set on sbd99"

step "an unprivileged caller may read but not write (no polkit on this bus)"
assert_eq "s \"$(read_attr "$SBD_DEVICES/sbd0/label")\"" \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups -- busctl --system get-property "$SBD_NAME" "$DEV0" org.sbd.Sbd1.Device Label 2>&1)" "Label read by nobody"
before=$(read_attr "$SBD_DEVICES/sbd0/label")
assert_eq "$E.NotAuthorized" "$(dbus_error --as-nobody -o "$DEV0" "${SET[@]}" org.sbd.Sbd1.Device Label "<'by-nobody'>")" "Set Label by nobody"
assert_eq "$before" "$(read_attr "$SBD_DEVICES/sbd0/label")" "label after nobody's Set"
assert_eq "$E.NotAuthorized" "$(dbus_error --as-nobody -o "$SBD_OBJ" -m org.sbd.Sbd1.Manager.AddDevice $((16 * M)) '@a{sv} {}')" "AddDevice by nobody"
assert_eq "$E.NotAuthorized" "$(dbus_error --as-nobody -o "$SBD_OBJ/module" -m org.sbd.Sbd1.Module.Unload)" "Module.Unload by nobody"
assert_file_content "$SBD_DRV/ndevices" 2
assert_file_content /sys/module/sbd/initstate live
# Bad input is judged before authorization: no prompt for a wrong type.
assert_eq "$E.InvalidValue" "$(dbus_error --as-nobody -o "$DEV0" "${SET[@]}" org.sbd.Sbd1.Device Size "<'big'>")" "wrong type by nobody"

step "with the real polkitd: a rule allows nobody to set attributes, nothing else"
install -m 0644 "$SBD_SOURCE_DIR/dbus/org.sbd.sbd1.policy" /usr/share/polkit-1/actions/
mkdir -p /etc/polkit-1/rules.d
cat >/etc/polkit-1/rules.d/10-sbd-vm.rules <<'RULES'
polkit.addRule(function(action, subject) {
	if (action.id == "org.sbd.sbd1.set-attribute" && subject.user == "nobody")
		return polkit.Result.YES;
});
RULES
sbd_bus_polkit
assert_eq ok "$(dbus_error --as-nobody -o "$DEV0" "${SET[@]}" org.sbd.Sbd1.Device Label "<'by-nobody'>")" "Set Label by nobody, polkit says yes"
assert_file_content "$SBD_DEVICES/sbd0/label" by-nobody
# polkit would ask for a password (auth_admin), which the caller did not allow
assert_eq org.freedesktop.DBus.Error.InteractiveAuthorizationRequired \
	"$(dbus_error --as-nobody -o "$SBD_OBJ" -m org.sbd.Sbd1.Manager.AddDevice $((16 * M)) '@a{sv} {}')" "AddDevice by nobody, polkit wants a password"
assert_file_content "$SBD_DRV/ndevices" 2
assert_exists /usr/lib/polkit-1/polkitd
assert_match '^[0-9]+' "$(pgrep -x polkitd || echo none)" "polkitd was activated"

step "the daemon survived all of it"
sbdd_alive
sbd_check_tree
sbdd_stop
