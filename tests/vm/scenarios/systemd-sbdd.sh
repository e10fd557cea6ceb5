#!/bin/bash
# sbdd as a system service, with systemd as PID 1 (run-vm --systemd) and
# the system bus SBD_VM_BUS names (dbus-daemon, or dbus-broker as
# dbus.service): SBD is installed into the guest from its Debian packages
# (tests/package: dpkg -i of sbdd, sbdctl, sbd-manager and sbd-dkms, whose
# postinst runs `dkms install`; nothing starts, the bus learns the name
# through its dpkg trigger), then D-Bus activation by an unprivileged
# caller, the unit's state, the
# journal, a clean stop that keeps the disks' data, a restart after
# SIGKILL with an identical tree, polkit refusing an unprivileged writer,
# the hardening in effect, uevents under PrivateNetwork=yes and the
# watchdog; at the end removal stops sbdd and purging sbd-dkms removes the
# module DKMS installed.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm --systemd}"

DEBS=$SBD_BUILD_DIR/tests/package/debs
BUS=${SBD_VM_BUS:-dbus-daemon}
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
NAME=org.sbd.Sbd1
ROOT=/org/sbd/Sbd1
DEV0=/org/sbd/Sbd1/devices/sbd0
D0=$SBD_DEVICES/sbd0

# main_pid: the service's main PID (0 when not running)
main_pid() { systemctl show -P MainPID sbdd.service; }
# name_owned: is org.sbd.Sbd1 owned on the system bus right now
name_owned() {
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		NameHasOwner s "$NAME"
}
# tree_snapshot FILE: GetManagedObjects (as root), normalised: sorted keys,
# one line per object and interface
tree_snapshot() {
	busctl --system --json=short call "$NAME" "$ROOT" org.freedesktop.DBus.ObjectManager \
		GetManagedObjects | jq -S -c '.data[0] | to_entries[] | {(.key): .value}' | sort >"$1"
}
# wait_until SECONDS CMD...: until CMD succeeds (every 0.2 s)
wait_until() {
	local n=$(($1 * 5))
	shift
	while ((n-- > 0)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}
# dbus_error CMD...: the D-Bus error name of a dbus-send call that must fail
dbus_error() {
	local out
	if out=$("$@" 2>&1); then
		echo "(no error: $out)"
	else
		out=${out#Error }
		echo "${out%%:*}"
	fi
}
# label_is VALUE: the daemon's Label of sbd0
label_is() {
	[[ $(busctl --system get-property "$NAME" "$DEV0" org.sbd.Sbd1.Device Label) == "s \"$1\"" ]]
}

tstep "the guest boots with systemd on $BUS"
assert_eq systemd "$(cat /proc/1/comm)" "PID 1"
state=$(timeout 120 systemctl is-system-running --wait 2>&1 || true)
assert_match '^(running|degraded)$' "$state" "systemctl is-system-running"
case $BUS in
dbus-daemon) bus_unit=dbus.service bus_exe=/usr/bin/dbus-daemon ;;
dbus-broker) bus_unit=dbus-broker.service bus_exe=/usr/bin/dbus-broker-launch ;;
*) die "SBD_VM_BUS=$BUS: dbus-daemon or dbus-broker" ;;
esac
assert_eq "$bus_unit" "$(systemctl show -P Id dbus.service)" "the unit behind dbus.service"
# dbus.socket starts the bus on its first client.
assert_ok busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId
assert_eq active "$(systemctl is-active dbus.service)" "the system bus"
assert_eq "$bus_exe" "$(readlink "/proc/$(systemctl show -P MainPID dbus.service)/exe")" "the system bus's program"

# The dbus-daemon run installs sbd-dkms too: DKMS builds sbd.ko in the
# guest (minutes under TCG); the dbus-broker run, about the bus, takes the
# build tree's sbd.ko.
packages=(sbdd sbdctl sbd-manager)
[[ $BUS == dbus-daemon ]] && packages+=(sbd-dkms)
tstep "dpkg -i: ${packages[*]}"
debs=()
for p in "${packages[@]}"; do
	f=$(compgen -G "$DEBS/${p}_*.deb" | head -n 1) || die "no $p package in $DEBS (meson test -C build package-debs)"
	debs+=("$f")
done
# DKMS builds for the running kernel and for the newest one whose
# /boot/config-* it finds (Debian 12: 6.12 beside 6.1). That second build
# (the module suite's job on the host) would add minutes of compiling
# under TCG: the guest sees only its own kernel's config.
for c in /boot/config-*; do
	[[ $c == "/boot/config-$(uname -r)" ]] || rm -f "$c"
done
# The host this guest shares its root with may be a container whose
# policy-rc.d forbids starting services: a real host has none, and the
# maintainer scripts' own decisions are what is tested here.
rm -f /usr/sbin/policy-rc.d
# man-db's trigger re-indexes every man page (minutes over 9p under TCG);
# it is no part of SBD's install.
rm -f /var/lib/man-db/auto-update
# Live, with the guest's uptime: DKMS's compile and depmod take minutes.
if ! DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}" 2>&1 | while IFS= read -r line; do
	read -r up _ </proc/uptime
	log "[${up}s] $line"
done; then
	die "dpkg -i failed"
fi
for p in "${packages[@]}"; do
	assert_eq "install ok installed" "$(dpkg-query -W -f '${Status}' "$p")" "dpkg status of $p"
done
if [[ $BUS == dbus-daemon ]]; then
	dkms_status=$(dkms status -m sbd)
	assert_match "^sbd/[^,]+, $(uname -r), x86_64: installed" "$dkms_status" "dkms status"
	assert_eq "/lib/modules/$(uname -r)/updates/dkms/sbd.ko" "$(modinfo -n sbd)" "the module modprobe finds"
	assert_match "^$(uname -r) " "$(modinfo -F vermagic sbd)" "vermagic of the DKMS-built sbd.ko"
else
	sbd_module_install
fi
# Installing started nothing and enabled nothing: D-Bus activation does.
assert_eq disabled "$(systemctl is-enabled sbdd.service || true)" "sbdd.service after install"
assert_eq loaded "$(systemctl show -P LoadState sbdd.service)" "systemd knows the unit (postinst's daemon-reload)"
assert_match '^/(usr/)?lib/systemd/system/sbdd\.service$' "$(systemctl show -P FragmentPath sbdd.service)" "the unit's file"
assert_not_exists /sys/module/sbd
# No ReloadConfig here: the bus's dpkg trigger reloaded it (dbus-broker,
# unlike dbus-daemon, does not watch the directories itself).
activatable=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
	ListActivatableNames)
assert_match "\"$NAME\"" "$activatable" "$NAME is activatable after dpkg -i"
assert_match '"org.freedesktop.PolicyKit1"' "$activatable" "polkit is activatable"
# Module parameters come from the configuration, not from the unit.
printf '[Parameters]\nndevices=2\nsize=16M\n' >/etc/sbd/sbdd.conf

tstep "nothing runs yet"
assert_eq inactive "$(systemctl is-active sbdd.service || true)" "sbdd.service"
assert_eq "b false" "$(name_owned)" "NameHasOwner $NAME"
assert_not_exists /sys/module/sbd

tstep "an unprivileged caller starts sbdd through D-Bus activation"
out=$("${NOBODY[@]}" busctl --system call "$NAME" "$ROOT" org.freedesktop.DBus.ObjectManager \
	GetManagedObjects 2>&1) || fail "GetManagedObjects as uid 65534: $out"
assert_match '"/org/sbd/Sbd1/devices/sbd0"' "$out" "the reply holds sbd0"
assert_match '"/org/sbd/Sbd1/devices/sbd1"' "$out" "the reply holds sbd1 (ndevices=2 from sbdd.conf)"
out=$("${NOBODY[@]}" sbdctl list 2>&1) || fail "sbdctl list as uid 65534: $out"
log "${out//$'\n'/$'\n'    }"
assert_match $'\nsbd0 +16\\.0M .*/dev/sbd0\nsbd1 +16\\.0M .*/dev/sbd1' "$out" "sbdctl list as uid 65534"
assert_eq "b true" "$(name_owned)" "NameHasOwner $NAME"

tstep "systemctl status: active, the module loaded, the daemon's lines in the journal"
assert_eq active "$(systemctl is-active sbdd.service)" "sbdd.service"
out=$(systemctl status --no-pager --lines=0 sbdd.service 2>&1 || true)
log "${out//$'\n'/$'\n'    }"
assert_match 'Active: active \(running\)' "$out" "systemctl status"
assert_match 'Status: "Mirroring 2 sbd device\(s\), module live\."' "$out" "STATUS="
assert_eq live "$(read_attr /sys/module/sbd/initstate)" "/sys/module/sbd/initstate"
assert_eq 2 "$(read_attr /sys/module/sbd/parameters/ndevices)" "module parameter ndevices"
journal=$(journalctl -b -u sbdd.service --no-pager -o cat)
assert_match 'Mirroring 2 device\(s\) as org\.sbd\.Sbd1' "$journal" "the journal has sbdd's start-up line"
assert_match 'Module sbd is live' "$journal" "the journal has the module's state"
pid1=$(main_pid)
assert_ne 0 "$pid1" "MainPID"

tstep "the hardening is in effect"
props=(CapabilityBoundingSet=cap_sys_module NoNewPrivileges=yes PrivateNetwork=yes
	ProtectSystem=strict ProtectKernelTunables=yes ProtectKernelModules=no PrivateDevices=yes
	RestrictNamespaces=yes MemoryDenyWriteExecute=yes WatchdogUSec=3min LimitNOFILE=524288
	'ReadWritePaths=/sys/devices/system /sys/bus' 'RestrictAddressFamilies=AF_NETLINK AF_UNIX'
	MemoryMax=1073741824)
names=("${props[@]%%=*}")
mapfile -t shown < <(systemctl show sbdd.service "${names[@]/#/--property=}")
for p in "${props[@]}"; do
	got=
	for l in "${shown[@]}"; do [[ $l == "${p%%=*}="* ]] && got=$l; done
	assert_eq "$p" "$got" "systemctl show"
done
status=$(cat "/proc/$pid1/status")
assert_match $'\nCapEff:\t0000000000010000\n' "$status" "effective capabilities: CAP_SYS_MODULE only"
assert_match $'\nCapBnd:\t0000000000010000\n' "$status" "bounding set: CAP_SYS_MODULE only"
assert_match $'\nNoNewPrivs:\t1\n' "$status" "no_new_privs"
assert_match $'\nSeccomp:\t2\n' "$status" "seccomp filter"
assert_ne "$(readlink /proc/1/ns/net)" "$(readlink "/proc/$pid1/ns/net")" "network namespace"
assert_ne "$(readlink /proc/1/ns/mnt)" "$(readlink "/proc/$pid1/ns/mnt")" "mount namespace"
mounts=$(cat "/proc/$pid1/mountinfo")
assert_match ' /sys ro,' "$mounts" "/sys read-only for sbdd"
assert_match ' /sys/devices/system rw,' "$mounts" "/sys/devices/system writable for sbdd"
assert_match ' /sys/bus rw,' "$mounts" "/sys/bus writable for sbdd"
assert_match ' / ro,' "$mounts" "/ read-only for sbdd"
# Every mount sbdd sees read-write: the two sysfs trees, its private /tmp,
# /var/tmp, /proc (pid subset) and mqueue (PrivateIPC=), and /dev/pts (no
# device may be opened: DevicePolicy=closed). Not /run (ReadOnlyPaths=).
rw_mounts() { # rw_mounts PID: the read-write mount points, sorted
	local mp opts
	while read -r _ _ _ _ mp opts _; do
		[[ $opts == rw* ]] && echo "$mp"
	done <"/proc/$1/mountinfo" | sort | tr '\n' ' '
}
assert_eq "/dev/mqueue /dev/pts /proc /sys/bus /sys/devices/system /tmp /var/tmp " "$(rw_mounts "$pid1")" \
	"read-write mounts of sbdd"
# The two parents are writable, what in them could harm the host is not:
# from inside sbdd's mount namespace (nsenter: the same mounts, as root
# with every capability), rewriting the memory hotplug policy or the PCI
# bus's autoprobe with its own value fails, and an sbd attribute can
# still be written.
for f in /sys/devices/system/memory/auto_online_blocks /sys/bus/pci/drivers_autoprobe; do
	was=
	read_attr_to was "$f"
	# shellcheck disable=SC2016 # sh expands them, with the arguments after
	if out=$(nsenter -t "$pid1" -m -- sh -c 'printf "%s\n" "$1" >"$2"' sh "$was" "$f" 2>&1); then
		fail "$f written from sbdd's mount namespace"
	else
		assert_match 'Read-only file system' "$out" "$f read-only for sbdd"
	fi
done
assert_ok nsenter -t "$pid1" -m -- sh -c "printf ns-write >$SBD_DEVICES/sbd1/label"
assert_eq ns-write "$(read_attr "$SBD_DEVICES/sbd1/label")" "an sbd attribute written from sbdd's mount namespace"
attr_write "$SBD_DEVICES/sbd1/label" sbd1
log "sbdd's cgroup: memory.peak $(cat /sys/fs/cgroup/system.slice/sbdd.service/memory.peak) of MemoryMax 1G"
# For comparison (not a check): systemd's own hostnamed, ProtectSystem=strict.
busctl --system get-property org.freedesktop.hostname1 /org/freedesktop/hostname1 org.freedesktop.hostname1 \
	Hostname >/dev/null 2>&1 || true
hpid=$(systemctl show -P MainPID systemd-hostnamed.service)
[[ $hpid != 0 ]] && log "systemd-hostnamed's read-write mounts: $(rw_mounts "$hpid")"
systemd-analyze security --no-pager sbdd.service >"$SBD_VM_RESULTS/security-online.txt" 2>&1 || true
security=$(tail -n 1 "$SBD_VM_RESULTS/security-online.txt")
log "$security"
assert_match 'Overall exposure level for sbdd\.service: (0\.[0-9]|1\.[0-9]|2\.0) ' "$security" \
	"systemd-analyze security (goal: 2.0 or lower)"

tstep "uevents reach sbdd in its private network namespace"
# online has no sysfs_notify: only the kernel's uevent tells the daemon.
bg_start monitor busctl --system monitor --match "type='signal',interface='org.freedesktop.DBus.Properties'"
sleep 1
attr_write "$SBD_DEVICES/sbd1/online" 0
wait_until 10 test "$(busctl --system get-property "$NAME" /org/sbd/Sbd1/devices/sbd1 org.sbd.Sbd1.Device Online)" = "b false" &&
	pass "Online of sbd1 follows an offline uevent" || fail "Online of sbd1 still true after writing 0 to sysfs"
attr_write "$SBD_DEVICES/sbd1/online" 1
attr_write "$D0/label" from-sysfs
wait_until 10 label_is from-sysfs && pass "Label follows a write straight to sysfs" || fail "Label did not follow sysfs"
# A disk created behind the daemon's back: only its add uevent announces it.
attr_write "$SBD_DRV/new_device" "8M 7"
wait_until 10 busctl --system get-property "$NAME" /org/sbd/Sbd1/devices/sbd7 org.sbd.Sbd1.Device Size &&
	pass "sbd7, added through sysfs, appears on the bus" || fail "sbd7 did not appear"
attr_write "$SBD_DRV/delete_device" sbd7
sleep 1
bg_stop monitor
signals=$(bg_output monitor)
assert_match 'STRING "from-sysfs"' "$signals" "PropertiesChanged carried the new Label"
assert_match 'STRING "Online";[[:space:]]+VARIANT "b" \{[[:space:]]+BOOLEAN false' "$signals" \
	"PropertiesChanged carried Online=false"

tstep "polkit refuses an unprivileged writer, root may write"
# dbus-send and gdbus print the error's name; neither allows interactive
# authorization (busctl does, and prints only the message), so polkit's
# "authentication needed" comes back as the bus's own
# InteractiveAuthorizationRequired, not as NotAuthorized.
assert_eq org.freedesktop.DBus.Error.InteractiveAuthorizationRequired "$(dbus_error "${NOBODY[@]}" dbus-send --system --print-reply \
	--dest="$NAME" "$DEV0" org.freedesktop.DBus.Properties.Set \
	string:org.sbd.Sbd1.Device string:Label variant:string:intruder)" "Set Label as uid 65534"
out=$("${NOBODY[@]}" gdbus call --system --dest "$NAME" --object-path "$ROOT" \
	--method org.sbd.Sbd1.Manager.AddDevice 8388608 '@a{sv} {}' 2>&1) && fail "uid 65534 could add a disk: $out" ||
	assert_match 'GDBus\.Error:org\.freedesktop\.DBus\.Error\.InteractiveAuthorizationRequired:' "$out" "AddDevice as uid 65534 (gdbus)"
assert_not_exists "$SBD_DEVICES/sbd2"
out=$("${NOBODY[@]}" sbdctl set sbd0 label intruder 2>&1) && fail "sbdctl set as uid 65534 succeeded" ||
	assert_match 'needs authentication' "$out" "sbdctl set as uid 65534"
assert_eq from-sysfs "$(read_attr "$D0/label")" "label unchanged in sysfs"
assert_eq active "$(systemctl is-active polkit.service)" "polkitd was activated and answered"
assert_ok busctl --system set-property "$NAME" "$DEV0" org.sbd.Sbd1.Device Label s by-root
assert_eq by-root "$(read_attr "$D0/label")" "label written by root"
assert_ok sbdctl set sbd1 label by-sbdctl
assert_eq by-sbdctl "$(read_attr "$SBD_DEVICES/sbd1/label")" "label written by root's sbdctl"

tstep "sbdctl on a terminal: polkit's text agent asks for the password, polkitd checks it"
# An administrator (group sudo, Debian's polkit admin rule) logged in on a
# terminal: su --login opens a logind session through pam_systemd, as a
# console or ssh login does (polkit hands a fallback agent's challenges
# only to processes in a session), and --pty gives the command a terminal
# of its own (su -c alone detaches it from ours). sbdctl starts pkttyagent,
# the real polkitd sends it the challenge with sbdd's details in the
# message, and polkit-agent-helper-1 checks the typed password through
# PAM; on-terminal.py types it.

# as_admin PASSWORD COMMAND: COMMAND in sbdadmin's login on a new terminal,
# PASSWORD typed at a prompt (an empty one: none, Ctrl-D)
as_admin() {
	local pw=()
	[[ -z $1 ]] || pw=(--password "$1")
	"$SBD_SOURCE_DIR/tests/vm/scenarios/on-terminal.py" --user root --timeout 120 "${pw[@]}" -- \
		su --login --pty sbdadmin --command "$2"
}
assert_ok useradd --create-home --groups sudo sbdadmin
echo 'sbdadmin:typed-at-the-prompt' | chpasswd || fail "chpasswd"
agent_since=$(date +%s)
out=$(as_admin typed-at-the-prompt "sbdctl set sbd0 label typed" 2>&1) && rc=0 || rc=$?
log "${out//$'\n'/$'\n'    }"
assert_eq 0 "$rc" "sbdctl set with the right password"
((rc == 0)) || log "$(journalctl --no-pager -o cat --since "@$agent_since" -u polkit.service -u sbdd.service 2>&1 | tail -n 30)"
assert_match 'prompts=1$' "$out" "one password prompt"
assert_match 'set label of the simple block device sbd0 to "typed"' "$out" "the agent showed what will change"
assert_eq typed "$(read_attr "$D0/label")" "label written after the password"
out=$(as_admin wrong-password "sbdctl set sbd0 label mistyped" 2>&1) && rc=0 || rc=$?
log "${out//$'\n'/$'\n'    }"
assert_ne 0 "$rc" "sbdctl set with a wrong password fails"
assert_match 'AUTHENTICATION FAILED' "$out" "the agent said the password was wrong"
assert_eq typed "$(read_attr "$D0/label")" "label unchanged after a wrong password"
out=$(as_admin "" "sbdctl --no-ask-password set sbd0 label unasked" 2>&1) && rc=0 || rc=$?
log "${out//$'\n'/$'\n'    }"
assert_ne 0 "$rc" "sbdctl --no-ask-password fails"
assert_match 'prompts=0$' "$out" "--no-ask-password: no prompt"
assert_match 'needs authentication' "$out" "--no-ask-password: the error says why"
assert_eq typed "$(read_attr "$D0/label")" "label unchanged without a password"

tstep "the journal's audit records: who changed a label, and journalctl -x explains it"
# One record per Set (daemon/audit.c), found by its MESSAGE_ID: root's
# busctl (polkit not asked), sbdadmin's sbdctl through polkit, uid 65534
# refused, and the direct sysfs write seen from its uevent. The caller's
# fields are sbdd's own (SBD_CALLER_*); journald's OBJECT_* from the
# OBJECT_PID= sbdd names are not checked: journald reads them from /proc
# when it files the entry, and sbdctl may have exited by then (seen:
# OBJECT_UID without OBJECT_COMM on dbus-broker).
SET_ID=d5335123e8434d6e94ffa9cd24e12892 REFUSED_ID=9a076503942c44a9a3710a3c3417426f
# audit_has ID FIELD=VALUE...: a record of sbdd's with that MESSAGE_ID and those fields
audit_has() {
	journalctl --no-pager -o json -u sbdd.service "MESSAGE_ID=$1" | python3 -c '
import json, sys
want = dict(a.split("=", 1) for a in sys.argv[1:])
sys.exit(0 if any(all(e.get(k) == v for k, v in want.items()) for e in map(json.loads, sys.stdin)) else 1)
' "${@:2}"
}
admin_uid=$(id -u sbdadmin)
for rec in "$SET_ID SBD_NEW_VALUE=by-root SBD_CALLER_UID=0 SBD_POLKIT=not-asked SBD_ORIGIN=sbdd" \
	"$SET_ID SBD_NEW_VALUE=typed SBD_OLD_VALUE=by-root SBD_CALLER_UID=$admin_uid SBD_POLKIT=allowed SBD_ORIGIN=sbdd" \
	"$SET_ID SBD_NEW_VALUE=from-sysfs SBD_ORIGIN=kernel SBD_OPERATION=uevent" \
	"$REFUSED_ID SBD_NEW_VALUE=intruder SBD_CALLER_UID=65534 SBD_RESULT=org.freedesktop.DBus.Error.InteractiveAuthorizationRequired" \
	"$REFUSED_ID SBD_NEW_VALUE=mistyped SBD_CALLER_UID=$admin_uid SBD_POLKIT=denied"; do
	# shellcheck disable=SC2086 # the words are the fields
	audit_has $rec && pass "audit record: $rec" || fail "no audit record $rec"
done
log "$(journalctl --no-pager -o json -u sbdd.service MESSAGE_ID=$SET_ID SBD_NEW_VALUE=typed |
	python3 -c 'import json, sys; [print({k: v for k, v in json.loads(l).items() if k.startswith(("SBD_", "OBJECT_"))}) for l in sys.stdin]')"
# the catalog, indexed by systemd's dpkg trigger when the package was installed
out=$(journalctl --no-pager -x -u sbdd.service MESSAGE_ID=$SET_ID SBD_NEW_VALUE=typed 2>&1)
assert_match 'Subject: sbd: the attribute label of /org/sbd/Sbd1/devices/sbd0 was set' "$out" "journalctl -x shows the catalog's subject"
assert_match '"by-root" to "typed"\.' "$out" "journalctl -x fills in the fields"

tstep "sbd-manager (the package's) under Xvfb: its edit reaches sysfs through $BUS"
if command -v Xvfb >/dev/null; then
	xvfb_start || fail "Xvfb did not start"
	out=$(env "${SBD_GUI_ENV[@]}" \
		timeout 120 /usr/bin/sbd-manager --dump-model --set sbd0:Label=from-gui 2>&1) || true
	log "${out//$'\n'/$'\n'    }"
	assert_ok grep -q '^{"action":"set sbd0:Label=from-gui","error":null}$' <<<"$out"
	assert_eq from-gui "$(read_attr "$D0/label")" "label written by sbd-manager"
	bg_stop xvfb
else
	fail "Xvfb missing (package xvfb)"
fi

tstep "systemctl stop: a clean stop, the module and the disks' data stay"
random_file "$SBD_TMP/data" 2048
dd if="$SBD_TMP/data" of=/dev/sbd0 bs=1M oflag=direct status=none
tree_snapshot "$SBD_TMP/tree-before-stop"
assert_ok systemctl stop sbdd.service
assert_eq inactive "$(systemctl is-active sbdd.service || true)" "sbdd.service after stop"
assert_eq success "$(systemctl show -P Result sbdd.service)" "Result (no kill, no failure)"
assert_eq 0 "$(systemctl show -P ExecMainStatus sbdd.service)" "exit status"
assert_eq "b false" "$(name_owned)" "NameHasOwner after stop"
assert_eq live "$(read_attr /sys/module/sbd/initstate)" "the module stays loaded"
same_data "$SBD_TMP/data" /dev/sbd0
assert_ok systemctl start sbdd.service
assert_eq active "$(systemctl is-active sbdd.service)" "sbdd.service started again"
same_data "$SBD_TMP/data" /dev/sbd0
tree_snapshot "$SBD_TMP/tree-after-start"
assert_ok cmp "$SBD_TMP/tree-before-stop" "$SBD_TMP/tree-after-start"

tstep "SIGKILL: systemd restarts sbdd and the tree comes back identical"
tree_snapshot "$SBD_TMP/tree-before-kill"
busctl --system tree "$NAME" >"$SBD_TMP/busctl-tree-before" 2>&1
pid1=$(main_pid)
restarts=$(systemctl show -P NRestarts sbdd.service)
kill -KILL "$pid1"
wait_until 20 sh -c "[ \"\$(systemctl show -P MainPID sbdd.service)\" != 0 ] &&
	[ \"\$(systemctl show -P MainPID sbdd.service)\" != $pid1 ] &&
	[ \"\$(systemctl is-active sbdd.service)\" = active ]" ||
	fail "sbdd.service did not come back after SIGKILL"
pid2=$(main_pid)
assert_ne "$pid1" "$pid2" "MainPID after the restart"
assert_eq $((restarts + 1)) "$(systemctl show -P NRestarts sbdd.service)" "NRestarts"
tree_snapshot "$SBD_TMP/tree-after-kill"
busctl --system tree "$NAME" >"$SBD_TMP/busctl-tree-after" 2>&1
if cmp -s "$SBD_TMP/tree-before-kill" "$SBD_TMP/tree-after-kill"; then
	pass "GetManagedObjects identical ($(wc -l <"$SBD_TMP/tree-after-kill") interfaces)"
else
	fail "GetManagedObjects differs after the restart: $(diff "$SBD_TMP/tree-before-kill" "$SBD_TMP/tree-after-kill" | head -c 600)"
fi
assert_ok cmp "$SBD_TMP/busctl-tree-before" "$SBD_TMP/busctl-tree-after"
same_data "$SBD_TMP/data" /dev/sbd0
journal=$(journalctl -b -u sbdd.service --no-pager -o cat)
assert_match 'Main process exited, code=killed, status=9/KILL' "$journal" "the journal records the kill"

tstep "Module.Unload and Module.Load work inside the sandbox (root, sbdctl)"
assert_ok sbdctl module unload
assert_not_exists /sys/module/sbd
assert_eq "ao 0" "$(busctl --system get-property "$NAME" "$ROOT" org.sbd.Sbd1.Manager Devices)" "Devices after Unload"
# Load() takes its parameters from the caller (the configured ones apply
# only when sbdd itself loads the module at start).
assert_ok sbdctl module load ndevices=2 size=16M
assert_eq live "$(read_attr /sys/module/sbd/initstate)" "the module after Load"
assert_eq 2 "$(read_attr /sys/module/sbd/parameters/ndevices)" "ndevices after Load"
wait_until 10 label_is sbd0 && pass "sbd0 is back, with its default label" || fail "sbd0 did not come back"
assert_ok busctl --system set-property "$NAME" "$DEV0" org.sbd.Sbd1.Device Label s after-reload
assert_eq after-reload "$(read_attr "$D0/label")" "a write to the new sbd0 reaches sysfs"

tstep "the watchdog is pinged; udevd's uevents would not reach sbdd"
# One drop-in, one restart, two facts. WatchdogSec=2s: without WATCHDOG=1
# pings systemd would kill sbdd after 2 s. --uevent-source=udev: udevd's
# netlink group stays in the host's network namespace, so under
# PrivateNetwork=yes sbdd would miss every event (why the unit says kernel).
mkdir -p /run/systemd/system/sbdd.service.d
printf '[Service]\nWatchdogSec=2s\nExecStart=\nExecStart=/usr/sbin/sbdd --uevent-source=udev\n' \
	>/run/systemd/system/sbdd.service.d/test.conf
systemctl daemon-reload
assert_ok systemctl restart sbdd.service
pid3=$(main_pid)
assert_eq active "$(systemctl is-active systemd-udevd.service)" "udevd runs"
attr_write "$SBD_DEVICES/sbd1/online" 0
sleep 4
assert_eq "b true" "$(busctl --system get-property "$NAME" /org/sbd/Sbd1/devices/sbd1 org.sbd.Sbd1.Device Online)" \
	"Online of sbd1 with udev's uevents, 4 s after going offline (none arrived)"
attr_write "$SBD_DEVICES/sbd1/online" 1
assert_eq "$pid3" "$(main_pid)" "MainPID 4 s later (WatchdogSec=2s)"
assert_eq active "$(systemctl is-active sbdd.service)" "sbdd.service 4 s later"
assert_eq 0 "$(systemctl show -P NRestarts sbdd.service)" "NRestarts after the watchdog test"

tstep "stop, and nothing is left running"
assert_ok systemctl stop sbdd.service
assert_eq "b false" "$(name_owned)" "NameHasOwner"
assert_eq 0 "$(main_pid)" "MainPID"
assert_eq live "$(read_attr /sys/module/sbd/initstate)" "the module stays loaded"

tstep "removal: dpkg -r sbdd stops a running sbdd, purging removes its configuration (and sbd-dkms the module)"
rm -rf /run/systemd/system/sbdd.service.d
systemctl daemon-reload
assert_ok systemctl start sbdd.service
assert_ok dpkg -r sbd-manager sbdctl sbdd
assert_eq inactive "$(systemctl is-active sbdd.service || true)" "sbdd.service after dpkg -r sbdd"
assert_eq "b false" "$(name_owned)" "NameHasOwner after dpkg -r sbdd"
assert_not_exists /usr/sbin/sbdd
assert_exists /etc/sbd/sbdd.conf
assert_ok dpkg -P sbdd
assert_not_exists /etc/sbd/sbdd.conf
if [[ $BUS == dbus-daemon ]]; then
	assert_ok dpkg -P sbd-dkms
	assert_eq "" "$(dkms status -m sbd)" "dkms status after purging sbd-dkms"
	assert_not_exists "/lib/modules/$(uname -r)/updates/dkms/sbd.ko"
	assert_eq "" "$(compgen -G '/usr/src/sbd-*' || true)" "module sources left in /usr/src"
fi
