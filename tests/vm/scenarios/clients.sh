#!/bin/bash
# VM scenario (tests/vm/run-vm, plain mode): sbdctl and sbd-manager against the
# real sbdd, which loads the real sbd.ko through libkmod, on a real system bus
# (dbus-daemon with the project's policy), with the kernel's own uevents and
# sysfs_notify, a real block device and the kernel's real errors.
#
#   tests/vm/run-vm --timeout 400 tests/vm/scenarios/clients.sh
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

SBDCTL=$SBD_BUILD_DIR/clients/sbdctl/sbdctl
MANAGER=$SBD_BUILD_DIR/clients/sbd-manager/sbd-manager
SBDD=$SBD_BUILD_DIR/daemon/sbdd
D0=$SBD_DEVICES/sbd0

# sbdctl_ok NAME ARGS...: runs sbdctl, expects success; output in $SBD_TMP/NAME.out
sbdctl_ok() {
	local name=$1
	shift
	if "$SBDCTL" "$@" >"$SBD_TMP/$name.out" 2>"$SBD_TMP/$name.err"; then
		pass "sbdctl $*"
	else
		fail "sbdctl $* failed: $(cat "$SBD_TMP/$name.err")"
	fi
}

# sbdctl_fails PATTERN ARGS...: expects exit status 1 and PATTERN on stderr
sbdctl_fails() {
	local pattern=$1 rc=0
	shift
	"$SBDCTL" "$@" >"$SBD_TMP/fails.out" 2>"$SBD_TMP/fails.err" || rc=$?
	assert_eq 1 "$rc" "exit status of sbdctl $*"
	assert_match "$pattern" "$(cat "$SBD_TMP/fails.err")" "stderr of sbdctl $*"
}

step "a system bus with the project's policy, and sbdd loading sbd.ko with libkmod"
for f in "$SBDCTL" "$SBDD"; do [[ -x $f ]] || die "$f is not built"; done
sbd_module_install
assert_fails grep -q '^sbd ' /proc/modules
dbus-daemon --config-file="$SBD_SOURCE_DIR/tests/integration/system-bus.conf" \
	--print-address=3 --print-pid=4 --fork 3>"$SBD_TMP/bus.address" 4>"$SBD_TMP/bus.pid" ||
	die "dbus-daemon did not start"
DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$SBD_TMP/bus.address")
export DBUS_SYSTEM_BUS_ADDRESS
bg_start sbdd "$SBDD" --uevent-source=kernel -p ndevices=1 -p size=16M
for _ in $(seq 100); do
	"$SBDCTL" list >/dev/null 2>&1 && break
	sleep 0.1
done
sbdctl_ok list list
assert_match '^sbd0 +16\.0M +no +yes +sbd0 +/dev/sbd0$' "$(sed -n 2p "$SBD_TMP/list.out")" "sbdctl list"
assert_ok grep -q '^sbd ' /proc/modules
sbdctl_ok module --json module
assert_match '"state":"live"' "$(cat "$SBD_TMP/module.out")" "module state"
assert_match "\"version\":\"$(cat "$SBD_DRV/version")\"" "$(cat "$SBD_TMP/module.out")" "module version"

step "sbdctl set reaches the kernel"
sbdctl_ok set set sbd0 size 64M
assert_file_content "$D0/size" 67108864
assert_eq 67108864 "$(blockdev --getsize64 /dev/sbd0)" "the block device's size"
sbdctl_ok set set sbd0 label vm-disk
assert_file_content "$D0/label" vm-disk
sbdctl_ok get get sbd0 Label
assert_eq vm-disk "$(cat "$SBD_TMP/get.out")" "sbdctl get"
random_file "$SBD_TMP/data" 1024
sbdctl_ok set set sbd0 read_only yes
assert_file_content "$D0/read_only" 1
assert_fails dd if="$SBD_TMP/data" of=/dev/sbd0 bs=1M oflag=direct status=none
sbdctl_ok set set sbd0 read_only no
assert_ok dd if="$SBD_TMP/data" of=/dev/sbd0 bs=1M oflag=direct status=none
same_data "$SBD_TMP/data" /dev/sbd0

step "the kernel's refusals come back as the daemon's errors"
sbdctl_fails 'Failed to set Size of sbd0 to .1000.: .*\(org\.sbd\.Sbd1\.Error\.InvalidValue\)$' set sbd0 size 1000
sbdctl_fails '\(org\.sbd\.Sbd1\.Error\.InvalidValue\)$' set sbd0 label "$(printf 'x%.0s' {1..40})"
sbdctl_fails "Failed to set Size of sbd0 to '12x': Property Size takes a value of type 't', not 's'\\. \\(org\\.sbd\\.Sbd1\\.Error\\.InvalidValue\\)" set sbd0 size 12x
sbdctl_fails 'PropertyReadOnly' set sbd0 name other
assert_file_content "$D0/size" 67108864
exec 5</dev/sbd0
sbdctl_fails '\(org\.sbd\.Sbd1\.Error\.Busy\)$' set sbd0 size 32M
sbdctl_fails '\(org\.sbd\.Sbd1\.Error\.Busy\)$' remove sbd0
exec 5<&-
assert_file_content "$D0/size" 67108864

step "monitor sees a change made in sysfs behind the daemon's back"
bg_start monitor "$SBDCTL" --json monitor
for _ in $(seq 100); do grep -q Monitoring "$SBD_TMP/monitor.err" && break; sleep 0.05; done
echo outside >"$D0/label"
for _ in $(seq 100); do grep -q '"Label":"outside"' "$SBD_TMP/monitor.out" && break; sleep 0.05; done
assert_ok grep -q '^{"event":"changed","path":"/org/sbd/Sbd1/devices/sbd0","name":"sbd0","interface":"org.sbd.Sbd1.Device","changed":{"Label":"outside"},"invalidated":\[\]}$' \
	"$SBD_TMP/monitor.out"

step "add and remove"
sbdctl_ok add add 8M --id 3
assert_eq "Created sbd3 (/org/sbd/Sbd1/devices/sbd3)." "$(cat "$SBD_TMP/add.out")" "sbdctl add"
assert_block_device /dev/sbd3
assert_eq 8388608 "$(blockdev --getsize64 /dev/sbd3)" "sbd3's size"
sbdctl_fails '\(org\.sbd\.Sbd1\.Error\.Exists\)$' add 8M --id 3
sbdctl_ok remove remove sbd3
assert_not_exists /dev/sbd3
for _ in $(seq 100); do grep -q '"event":"removed","path":"/org/sbd/Sbd1/devices/sbd3"' "$SBD_TMP/monitor.out" && break; sleep 0.05; done
assert_ok grep -q '"event":"added","path":"/org/sbd/Sbd1/devices/sbd3"' "$SBD_TMP/monitor.out"
assert_ok grep -q '"event":"removed","path":"/org/sbd/Sbd1/devices/sbd3"' "$SBD_TMP/monitor.out"
bg_stop monitor

step "sbd-manager under Xvfb shows the kernel's state and its edits reach sysfs"
if [[ -x $MANAGER ]] && command -v Xvfb >/dev/null; then
	xvfb_start || true # (sbd-manager says it if there is no display)
	echo 1 >"$D0/read_only"
	# (a generous timeout: TCG, on a shared host)
	rc=0
	out=$(env "${SBD_GUI_ENV[@]}" timeout 400 "$MANAGER" --dump-model \
		--expand sbd0 --set sbd0:Label=from-gui --set sbd0:Size=1000 --screenshot "$SBD_VM_RESULTS/sbd-manager.png" 2>&1) || rc=$?
	log "exit status $rc: $out"
	assert_eq 1 "$rc" "sbd-manager's exit status (1: an action was refused)"
	assert_ok grep -q '^{"action":"set sbd0:Label=from-gui","error":null}$' <<<"$out"
	assert_ok grep -q '^{"action":"set sbd0:Size=1000","error":"Could not set Size of sbd0 to .1000.: the value is not valid (.*multiple of 512.*)."}$' <<<"$out"
	assert_ok grep -q '"devices":\[{"name":"sbd0","label":"from-gui","size":"64M","read_only":true,"online":true}\]' <<<"$out"
	assert_file_content "$D0/label" from-gui
	assert_file_content "$D0/size" 67108864
	assert_exists "$SBD_VM_RESULTS/sbd-manager.png"
	bg_stop xvfb
else
	fail "sbd-manager or Xvfb missing"
fi

step "sbdctl -H over ssh to the VM's own sshd"
# Debian's sshd on the loopback with a fresh host key and a key for root;
# ssh (found in PATH by sd-bus) gets that key from a wrapper. On the far side
# the session runs the real systemd-stdio-bridge, which in systemd 252 only
# knows /run/dbus/system_bus_socket: a wrapper first in the session's PATH
# points it at this scenario's bus with --bus-path.
if [[ -x /usr/sbin/sshd ]] && command -v ssh >/dev/null; then
	ssh_dir=$SBD_TMP/ssh
	mkdir -p "$ssh_dir/bin" "$ssh_dir/rbin" /run/sshd
	chmod 700 "$ssh_dir"
	ssh-keygen -q -t ed25519 -N '' -f "$ssh_dir/host"
	ssh-keygen -q -t ed25519 -N '' -f "$ssh_dir/user"
	cp "$ssh_dir/user.pub" "$ssh_dir/authorized_keys"
	cat >"$ssh_dir/sshd_config" <<-EOF
		ListenAddress 127.0.0.1:2222
		HostKey $ssh_dir/host
		AuthorizedKeysFile $ssh_dir/authorized_keys
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		StrictModes no
		UsePAM no
		PidFile none
		SetEnv DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS PATH=$ssh_dir/rbin:/usr/bin:/bin
	EOF
	printf '#!/bin/sh\nexec /usr/bin/systemd-stdio-bridge --bus-path="$DBUS_SYSTEM_BUS_ADDRESS" "$@"\n' \
		>"$ssh_dir/rbin/systemd-stdio-bridge"
	printf '#!/bin/sh\nexec %s -i %s/user -o UserKnownHostsFile=%s/known -o StrictHostKeyChecking=accept-new -o BatchMode=yes "$@"\n' \
		"$(command -v ssh)" "$ssh_dir" "$ssh_dir" >"$ssh_dir/bin/ssh"
	chmod 755 "$ssh_dir/rbin/systemd-stdio-bridge" "$ssh_dir/bin/ssh"
	bg_start sshd /usr/sbin/sshd -D -e -f "$ssh_dir/sshd_config"
	for _ in $(seq 100); do
		PATH=$ssh_dir/bin:$PATH "$SBDCTL" -H root@127.0.0.1:2222 list >/dev/null 2>&1 && break
		sleep 0.1
	done
	PATH=$ssh_dir/bin:$PATH sbdctl_ok remote-list -H root@127.0.0.1:2222 --json=pretty list
	assert_match '"name": "sbd0"' "$(cat "$SBD_TMP/remote-list.out")" "sbdctl -H --json=pretty list"
	PATH=$ssh_dir/bin:$PATH sbdctl_ok remote-set -H root@127.0.0.1:2222 set sbd0 label via-ssh
	assert_file_content "$D0/label" via-ssh
	bg_stop sshd
	assert_ok grep -q 'Accepted publickey for root from 127.0.0.1' "$SBD_TMP/sshd.err"
else
	fail "openssh-server or openssh-client missing (.ci/install-deps)"
fi

step "module unload and load through sbdctl"
sbdctl_ok unload module unload
assert_fails grep -q '^sbd ' /proc/modules
sbdctl_ok module2 --json module
assert_match '"state":"unloaded"' "$(cat "$SBD_TMP/module2.out")" "state after unload"
sbdctl_ok list2 --no-legend list
assert_eq "" "$(cat "$SBD_TMP/list2.out")" "no devices"
sbdctl_ok load module load ndevices=2 size=4M
sbdctl_ok list3 --json list
assert_match '^\[\{"name":"sbd0",.*"size":4194304,.*\{"name":"sbd1",' "$(cat "$SBD_TMP/list3.out")" "two devices after load"

step "sbd-manager unloads the module (after asking) and loads it again"
if [[ -x $MANAGER ]] && command -v Xvfb >/dev/null; then
	xvfb_start || true # (sbd-manager says it if there is no display)
	# manager ARGS...: one run of sbd-manager under Xvfb, its JSON lines
	manager() {
		env "${SBD_GUI_ENV[@]}" \
			timeout 400 "$MANAGER" --dump-model "$@" 2>&1 || true
	}
	# wait_model REGEX: until a fresh window shows it
	wait_model() {
		local out
		for _ in $(seq 40); do
			out=$(manager)
			grep -Eq "$1" <<<"$out" && break
			sleep 0.25
		done
		assert_match "$1" "$out" "what the window shows"
	}
	out=$(manager --module unload)
	log "$out"
	assert_ok grep -q '^{"action":"module unload","error":null}$' <<<"$out"
	assert_fails grep -q '^sbd ' /proc/modules
	wait_model '"module_state":"unloaded".*"devices":\[\]'
	out=$(manager --module load)
	log "$out"
	assert_ok grep -q '^{"action":"module load","error":null}$' <<<"$out"
	assert_ok grep -q '^sbd ' /proc/modules
	# no parameters from the window: sbdd's configured ones (-p ndevices=1 -p size=16M)
	assert_file_content /sys/module/sbd/parameters/ndevices 1
	wait_model '"module_state":"live".*"devices":\[\{"name":"sbd0","label":"sbd0","size":"16M"'
	bg_stop xvfb
else
	fail "sbd-manager or Xvfb missing"
fi

step "sbdd stops cleanly"
kill "${_sbd_bg_pid[sbdd]}"
rc=0
bg_wait sbdd || rc=$?
assert_eq 0 "$rc" "sbdd's exit status on SIGTERM"
((rc == 0)) || log "sbdd's log: $(tail -20 "$SBD_TMP/sbdd.err")"
kill "$(cat "$SBD_TMP/bus.pid")"
