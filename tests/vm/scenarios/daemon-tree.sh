#!/bin/bash
# sbdd on a real system bus against the real module: it loads sbd by name
# through libkmod (with parameters), listens to kernel uevents (also when
# left to choose), and mirrors the driver and the devices: busctl tree,
# get-property of every attribute equal to its sysfs file with the
# contract's type, GetManagedObjects equal to sysfs; SIGTERM ends it with
# status 0 and leaves the module loaded. Run with SBDD_VALGRIND=1 (see
# daemon-valgrind.sh) the daemon runs under valgrind.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

DEV0=$(sbd_dev_path sbd0)
DRV=$SBD_OBJ/drivers/sbd

# prop_of VAR FILE: into VAR, the contract's property name (read_only -> ReadOnly)
prop_of() {
	local out='' part parts
	IFS='_/' read -ra parts <<<"$2"
	for part in "${parts[@]}"; do out+=${part^}; done
	printf -v "$1" '%s' "$out"
}

# busctl_value VAR KIND PROPERTY TEXT: into VAR, what busctl get-property
# prints for TEXT
busctl_value() {
	local t=s v=$4
	case "$2:$3" in
	device:Size) t=t ;;
	device:ReadOnly | device:Online) t=b ;;
	driver:Ndevices) t=u ;;
	esac
	case $t in
	b) [[ $v == 1 ]] && v=true || v=false ;;
	s)
		v=${v//\\/\\\\}
		v=${v//\"/\\\"}
		v=${v//$'\n'/\\n}
		v=${v//$'\t'/\\t}
		v="\"$v\""
		;;
	esac
	printf -v "$1" '%s %s' "$t" "$v"
}

# check_attributes KIND SYSFS_DIR OBJECT_PATH INTERFACE: every readable
# attribute file (and those of its attribute groups) read through
# get-property equals the file. power/* values are read live and may move
# between two reads: the bus's answer must equal the file read just before
# or just after (or lie between them, for the time counters). All files are
# read, then every property in one busctl call, then the files again: one
# exec instead of two per attribute (0.4 to 1.2 s each on the debug kernel).
check_attributes() {
	local kind=$1 dir=$2 path=$3 iface=$4 rel i n mode name got want_b want_a files out
	local -a rels=() props=() before=() after=() answers=() dirs=("$dir")
	[[ ! -d $dir/power ]] || dirs+=("$dir/power")
	files=$(find "${dirs[@]}" -maxdepth 1 -type f -readable -printf '%M %p\n')
	while read -r mode name; do
		[[ $mode == -r* ]] || continue # write-only: no property
		rels+=("${name#"$dir"/}")
	done <<<"$files"
	n=${#rels[@]}
	((n >= 2)) || fail "no attributes found in $dir"
	for ((i = 0; i < n; i++)); do
		prop_of "props[i]" "${rels[i]}"
		read_attr_to "before[i]" "$dir/${rels[i]}"
	done
	out=$(busctl --system get-property "$SBD_NAME" "$path" "$iface" "${props[@]}" 2>&1)
	mapfile -t answers <<<"$out"
	for ((i = 0; i < n; i++)); do read_attr_to "after[i]" "$dir/${rels[i]}"; done
	if ((${#answers[@]} != n)); then
		fail "get-property of ${props[*]}: ${#answers[@]} answers for $n properties: ${answers[*]}"
		return 0
	fi
	for ((i = 0; i < n; i++)); do
		rel=${rels[i]} got=${answers[i]}
		busctl_value want_b "$kind" "${props[i]}" "${before[i]}"
		busctl_value want_a "$kind" "${props[i]}" "${after[i]}"
		if [[ $got == "$want_b" || $got == "$want_a" ]]; then
			pass "${props[i]} = $got ($rel)"
		elif [[ $rel == power/runtime_*_time && $got =~ ^s\ \"([0-9]+)\"$ ]] &&
			((before[i] <= BASH_REMATCH[1] && BASH_REMATCH[1] <= after[i])); then
			pass "${props[i]} = $got (live, between ${before[i]} and ${after[i]})"
		else
			fail "${props[i]}: bus says $got, $rel holds $(shown "${before[i]}")"
		fi
	done
}

step "a system bus with the project's policy"
sbd_bus_start
assert_exists /etc/dbus-1/system.d/org.sbd.Sbd1.conf
assert_eq "" "$(busctl --system status "$SBD_NAME" 2>/dev/null)" "no owner of $SBD_NAME yet"

step "sbdd loads sbd by name through libkmod, with parameters"
sbd_module_install
assert_not_exists /sys/module/sbd
assert_eq "/lib/modules/$(uname -r)/extra/sbd.ko" "$(modinfo -n sbd)" "modinfo -n sbd"
sbdd_start -p ndevices=2 -p size=32M
assert_exists /sys/module/sbd
assert_file_content /sys/module/sbd/initstate live
assert_file_content /sys/module/sbd/parameters/ndevices 2
assert_log 'Loaded module sbd with ndevices=2 size=32M'
assert_log 'Listening to kernel uevents'
assert_eq 's "live"' "$(dbus_get "$SBD_OBJ/module" org.sbd.Sbd1.Module State)" "Module.State"
assert_eq 's "sbd"' "$(dbus_get "$SBD_OBJ/module" org.sbd.Sbd1.Module Name)" "Module.Name"
params=$(dbus_get "$SBD_OBJ/module" org.sbd.Sbd1.Module Parameters)
assert_match '"ndevices" "2"' "$params" "Module.Parameters"
assert_match '"size" "33554432"' "$params" "Module.Parameters"
assert_eq "u $(read_attr /sys/module/sbd/refcnt)" "$(dbus_get "$SBD_OBJ/module" org.sbd.Sbd1.Module RefCount)" "Module.RefCount"

step "busctl tree shows the manager, the module, the driver and both devices"
tree=$(busctl --system tree "$SBD_NAME" 2>&1)
printf '%s\n' "$tree" | sed 's/^/    /'
for p in "$SBD_OBJ" "$SBD_OBJ/module" "$DRV" "$DEV0" "$(sbd_dev_path sbd1)"; do
	assert_match "(^|[^/[:alnum:]])$p\$" "$(grep -E -- "$p\$" <<<"$tree" | head -n 1)" "tree entry"
done
assert_eq 2 "$(grep -c -- "$SBD_OBJ/devices/sbd" <<<"$tree")" "device entries in the tree"
assert_eq 'ao 1 "/org/sbd/Sbd1/drivers/sbd"' "$(dbus_get "$SBD_OBJ" org.sbd.Sbd1.Manager Drivers)" "Manager.Drivers"
assert_eq 'ao 2 "/org/sbd/Sbd1/devices/sbd0" "/org/sbd/Sbd1/devices/sbd1"' \
	"$(dbus_get "$SBD_OBJ" org.sbd.Sbd1.Manager Devices)" "Manager.Devices"

step "every attribute of sbd0 through get-property equals its sysfs file"
check_attributes device "$SBD_DEVICES/sbd0" "$DEV0" org.sbd.Sbd1.Device
assert_eq 's "sbd0"' "$(dbus_get "$DEV0" org.sbd.Sbd1.Device SysName)" SysName
assert_eq 's "/sys/devices/system/sbd/sbd0"' "$(dbus_get "$DEV0" org.sbd.Sbd1.Device SysPath)" SysPath
assert_eq 'o "/org/sbd/Sbd1/drivers/sbd"' "$(dbus_get "$DEV0" org.sbd.Sbd1.Device Driver)" Driver
assert_eq 's "/dev/sbd0"' "$(dbus_get "$DEV0" org.sbd.Sbd1.Device BlockDevice)" BlockDevice
assert_eq 't 33554432' "$(dbus_get "$DEV0" org.sbd.Sbd1.Device Size)" "Size (the -p size=32M)"

step "every attribute of the driver through get-property equals its sysfs file"
check_attributes driver "$SBD_DRV" "$DRV" org.sbd.Sbd1.Driver
assert_eq 'u 2' "$(dbus_get "$DRV" org.sbd.Sbd1.Driver Ndevices)" Ndevices
assert_eq 'ao 2 "/org/sbd/Sbd1/devices/sbd0" "/org/sbd/Sbd1/devices/sbd1"' \
	"$(dbus_get "$DRV" org.sbd.Sbd1.Driver Devices)" "Driver.Devices"

step "write-only attributes are not properties"
for p in NewDevice DeleteDevice Bind Unbind Uevent; do
	expect_dbus_error org.freedesktop.DBus.Error.UnknownProperty -o "$DRV" \
		-m org.freedesktop.DBus.Properties.Get org.sbd.Sbd1.Driver "$p"
done

step "GetManagedObjects equals sysfs"
sbd_check_tree

step "the daemon's descriptors and limits"
assert_match "^Max open files +([0-9]+) +\\1 " "$(grep 'Max open files' "/proc/$SBDD_PID/limits")" "soft = hard limit"
nofile=$(awk '/Max open files/ {print $4}' "/proc/$SBDD_PID/limits")
if ((nofile >= 65536)); then pass "RLIMIT_NOFILE raised to $nofile"; else fail "RLIMIT_NOFILE is only $nofile"; fi
targets=$(find "/proc/$SBDD_PID/fd" -mindepth 1 -printf '%l\n')
# (mem_used, the driver's and each device's, is live as power/ is.)
per_dev=$(grep -v '/mem_used$' <<<"$targets" | grep -c '^/sys/devices/system/sbd/sbd0\(/[^/]*\)\?$' || true)
live=$(grep -c '^/sys/.*/power/\|^/sys/.*/mem_used$' <<<"$targets" || true)
log "sbdd holds $(wc -l <<<"$targets") descriptors with 2 devices, $per_dev of them for sbd0, $live on live attributes (power/, mem_used):"
grep '^/sys/devices/system/sbd/sbd0' <<<"$targets" | sed 's/^/      /'
assert_eq 4 "$per_dev" "descriptors per device (directory + size, read_only, label watches)"
# Every live attribute of sbd0 and of the driver was just read: their fds
# stay open for the next Get, never more than 64 in all (livefds.c).
if ((live >= 1 && live <= 64)); then
	pass "$live fds kept on live attributes (1 to 64)"
else
	fail "$live fds kept on live attributes, not 1 to 64"
fi

step "a live attribute is read from the device there now, also through a kept fd"
DEV1=$(sbd_dev_path sbd1)
assert_eq "s \"$(read_attr "$SBD_DEVICES/sbd1/power/control")\"" "$(dbus_get "$DEV1" org.sbd.Sbd1.Device PowerControl)" "PowerControl of sbd1"
attr_write "$SBD_DEVICES/sbd1/power/control" on
assert_eq 's "on"' "$(dbus_get "$DEV1" org.sbd.Sbd1.Device PowerControl)" "PowerControl after a direct write"
attr_write "$SBD_DRV/delete_device" sbd1
attr_write "$SBD_DRV/new_device" "16M 1"
for _ in {1..40}; do
	[[ $(dbus_get "$DEV1" org.sbd.Sbd1.Device Size) == "t 16777216" ]] && break
	sleep 0.25
done
assert_eq "t 16777216" "$(dbus_get "$DEV1" org.sbd.Sbd1.Device Size)" "Size of the new sbd1"
assert_eq "s \"$(read_attr "$SBD_DEVICES/sbd1/power/control")\"" "$(dbus_get "$DEV1" org.sbd.Sbd1.Device PowerControl)" "PowerControl of the new sbd1"
attr_write "$SBD_DRV/delete_device" sbd1
attr_write "$SBD_DRV/new_device" "32M 1"

step "SIGTERM: exit status 0, the module and its disks stay"
sbdd_stop
assert_file_content /sys/module/sbd/initstate live
assert_exists "$SBD_DEVICES/sbd1"

step "restarted with --uevent-source=auto: no udevd here, so kernel uevents"
assert_not_exists /run/udev/control
sbdd_start --uevent-source=auto
assert_log 'Module sbd is live, not loading it' "the live module is not loaded again"
assert_log 'Listening to kernel uevents' "uevent source"
assert_eq 0 "$(grep -c 'Listening to udev' "$SBDD_LOG")" "runs that listened to udev"
# Online changes only through the driver core's offline/online uevents.
attr_write "$SBD_DEVICES/sbd1/online" 0
for _ in {1..40}; do
	[[ $(dbus_get "$(sbd_dev_path sbd1)" org.sbd.Sbd1.Device Online) == "b false" ]] && break
	sleep 0.25
done
assert_eq "b false" "$(dbus_get "$(sbd_dev_path sbd1)" org.sbd.Sbd1.Device Online)" "Online after the offline uevent"
attr_write "$SBD_DEVICES/sbd1/online" 1
sbd_check_tree
sbdd_stop
