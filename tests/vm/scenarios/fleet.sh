#!/bin/bash
# SBD on many hosts, on one real host: the Ansible collection sbd.sbd and
# the Prometheus metrics against sbdd as installed (the package layout of
# systemd/stage-usr), started by D-Bus activation under systemd as PID 1,
# with the real module. The controller is on the host (tests/vm/fleet-
# host.py, started with the key directory it made as this scenario's
# argument), as a fleet's is: it reaches this guest's sshd through run-vm
# --forward and runs each playbook this scenario asks for (play below).
# The shipped example playbook applies (module loaded, three labelled
# disks), applies again with changed=0, --check --diff reports and changes
# nothing, values refused by sbdd and by the kernel (EBUSY on an open disk)
# fail with the D-Bus error's name, and the removal deletes the disks and
# unloads the module. sbd-prometheus.service writes sbd.prom (promtool
# check metrics, values equal sysfs), from its system user; with sbdd
# stopped it writes sbd_up 0 and does not start sbdd. The example polkit
# rule (docs/50-sbd-operators.rules) lets a member of sbd-operators relabel
# a disk, and not another user.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/fleet-host.py}"

[[ ${SBD_VM_MODE:-} == systemd ]] || die "fleet.sh needs run-vm --systemd (tests/vm/fleet-host.py)"
KEYDIR=${1:?usage: fleet.sh KEYDIR (tests/vm/fleet-host.py)}
COLLECTION=$SBD_SOURCE_DIR/clients/ansible
PLAYBOOKS=$SBD_SOURCE_DIR/tests/vm/scenarios
FLEET=/run/sbd-fleet
TEXTFILE_DIR=/var/lib/prometheus/node-exporter
PROM=$TEXTFILE_DIR/sbd.prom
for tool in promtool jq; do
	command -v "$tool" >/dev/null || die "$tool is not installed (.ci/install-deps)"
done

# play NAME PLAYBOOK [ARGS...]: ask the controller on the host to run
# ansible-playbook PLAYBOOK ARGS against this guest and wait for its reply:
# the results callback's JSON document (tests/ansible/sbd_results.py) in
# $SBD_TMP/NAME.json, its stderr in NAME.err; returns its exit status.
# The controller pipelines (the module on python3's stdin: no temporary
# directory, no chmod, no rm) and does not become (its account is root
# already; the integration test covers become). The time of each run goes
# to the results (fleet-times.txt).
play() {
	local name=$1 book=$2 reply=$FLEET/$1.reply rc
	shift 2
	# (after --, an argument such as --check is not jq's own)
	jq -cn --arg name "$name" --arg playbook "$book" '{$name, $playbook, args: $ARGS.positional}' \
		--args -- "$@" >&"$requests_fd" || die "could not ask the controller for $name"
	wait_for "$reply" 600 || die "the controller on the host did not answer the request $name"
	jq -r .json "$reply" >"$SBD_TMP/$name.json"
	jq -r .stderr "$reply" >"$SBD_TMP/$name.err"
	read -r rc < <(jq -r '"\(.status) \(.seconds)"' "$reply")
	echo "ansible-playbook $name: status ${rc% *}, ${rc#* } s on the host" >>"$SBD_VM_RESULTS/fleet-times.txt"
	[[ -s $SBD_TMP/$name.err ]] && sed 's/^/    | /' "$SBD_TMP/$name.err" | tail -n 20
	return "${rc% *}"
}
# recap NAME KEY: PLAY RECAP's KEY (ok, changed, failures, ignored) of run NAME
recap() { jq -r ".stats.guest.$2" "$SBD_TMP/$1.json"; }
# result NAME TASK JQ: JQ of the TASK-th task's (0-based) result of run NAME
result() { jq -r ".plays[0].tasks[$2].hosts.guest$3" "$SBD_TMP/$1.json"; }
disks() {
	local d
	for d in /sys/bus/sbd/devices/*; do
		[[ -e $d ]] || continue
		printf '%s %s %s %s\n' "${d##*/}" "$(cat "$d/size")" "$(cat "$d/label")" "$(cat "$d/read_only")"
	done
}

tstep "the controller's way in: sshd on $SBD_GUEST_ADDR:22, its key authorized"
sbd_guest_network
# The controller's account is root (uid 0) under a name of its own, whose
# home is the test's: sshd runs the account's shell for every command, and
# root's own home is the host's (a .bashrc that starts pyenv costs 7 s a
# command under TCG). Its key and this sshd's host key are the run's own.
# Its password is '*', none and not locked: sshd without PAM refuses every
# key of a locked account ('!', what useradd gives).
mkdir -p "$FLEET/home/.ssh" /run/sshd
chmod 0700 "$FLEET/home" "$FLEET/home/.ssh"
useradd -o -u 0 -g 0 -M -d "$FLEET/home" -s /bin/sh -p "*" sbd-fleet
install -m 0600 "$KEYDIR/id_ed25519.pub" "$FLEET/home/.ssh/authorized_keys"
install -m 0600 "$KEYDIR/ssh_host_ed25519_key" "$FLEET/ssh_host_ed25519_key"
# the requests to the controller, one JSON line each (fleet-host.py
# reads them over ssh; opened read-write, so that no write waits for it)
mkfifo "$FLEET/requests"
exec {requests_fd}<>"$FLEET/requests"
bg_start sshd /usr/sbin/sshd -D -e -f /dev/null -o ListenAddress="$SBD_GUEST_ADDR" -o Port=22 \
	-o HostKey="$FLEET/ssh_host_ed25519_key" -o PidFile="$FLEET/sshd.pid" -o UsePAM=no \
	-o PermitRootLogin=prohibit-password -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no
sbd_wait_port 22 || die "sshd did not listen: $(tail -n 5 "$SBD_TMP/sshd.err")"
pass "sshd listens on $SBD_GUEST_ADDR:22"

tstep "SBD installed as a package would be"
[[ -f $SBD_BUILD_DIR/systemd/stage-usr/usr/sbin/sbdd ]] || die "no staged install (ninja -C build systemd/stage-usr.stamp)"
timeout 120 systemctl is-system-running --wait >/dev/null 2>&1 || true
tar -C "$SBD_BUILD_DIR/systemd/stage-usr" -cf - . | tar -C / -xf - --keep-directory-symlink --no-same-owner
sbd_module_install
# what the package's postinst does (dh_installsysusers)
assert_ok systemd-sysusers sbd-prometheus.conf
systemctl daemon-reload
assert_ok systemctl start sbdd.service
assert_ok systemd-analyze verify /lib/systemd/system/sbd-prometheus.service /lib/systemd/system/sbd-prometheus.timer
log "$(systemd-analyze security sbd-prometheus.service 2>/dev/null | tail -1)"
# sbdd starts by D-Bus activation and loads the module with its
# configuration; unloaded here, so that the playbook's sbd_module loads it
assert_ok /usr/bin/sbdctl module unload
assert_eq unloaded "$(/usr/bin/sbdctl --json module | jq -r .state)" "module state before the playbook"

tstep "apply: the example playbook (three_disks.yml), module loaded, three labelled disks"
assert_ok play apply "$COLLECTION/playbooks/three_disks.yml"
assert_eq 0 "$(recap apply failures)" "failed tasks"
assert_eq 2 "$(recap apply changed)" "changed tasks (the module load, the disks' loop)"
assert_eq live "$(cat /sys/module/sbd/initstate)" "module loaded"
assert_eq 0 "$(cat /sys/module/sbd/parameters/ndevices)" "ndevices from the playbook's parameters"
assert_eq "sbd1 67108864 scratch 0
sbd2 33554432 cache 0
sbd3 16777216 spool 0" "$(disks)" "disks in sysfs"
for n in 1 2 3; do assert_block_device "/dev/sbd$n"; done
assert_eq "scratch cache spool" "$(jq -r '[.plays[0].tasks[2].hosts.guest.ansible_facts.sbd.devices[] | .label] | join(" ")' "$SBD_TMP/apply.json")" \
	"sbd_info's facts"
assert_eq "$(cat /sys/bus/sbd/drivers/sbd/mem_max)" "$(result apply 2 .ansible_facts.sbd.budget.max_bytes)" "the budget in the facts"

tstep "metrics: sbd-prometheus.service writes sbd.prom"
mkdir -p "$TEXTFILE_DIR"
assert_ok systemctl start sbd-prometheus.service
if [[ -f $PROM ]]; then
	pass "$PROM written"
	assert_ok promtool check metrics <"$PROM"
	assert_eq 0644 "$(stat -c %a "$PROM" | xargs printf '%04d')" "mode of sbd.prom"
	for n in 1 2 3; do
		d=/sys/bus/sbd/devices/sbd$n
		assert_match "^sbd_device_size_bytes\\{device=\"sbd$n\",label=\"$(cat "$d/label")\"\\} $(cat "$d/size")\$" \
			"$(grep "^sbd_device_size_bytes{device=\"sbd$n\"" "$PROM")" "sbd$n's size"
	done
	assert_eq "sbd_up 1" "$(grep '^sbd_up ' "$PROM")" "sbd_up"
	if ! grep -q '^sbd_up 1$' "$PROM"; then
		log "$(journalctl -u sbd-prometheus.service -o cat | tail -5)"
		# which of the unit's settings keeps it from sbdd (a diagnosis, no check)
		for props in "" "-p PrivateUsers=yes" "-p InaccessiblePaths=/sys" "-p ProcSubset=pid" \
			"-p ProtectProc=invisible" "-p PrivateNetwork=yes" "-p SystemCallFilter=@system-service" \
			"-p RestrictAddressFamilies=AF_UNIX" "-p IPAddressDeny=any" "-p PrivateDevices=yes"; do
			# shellcheck disable=SC2086
			log "User=sbd-prometheus $props: $(systemd-run --wait --pipe --quiet -p User=sbd-prometheus $props \
				/usr/libexec/sbd-prometheus 2>&1 | grep -E '^sbd_up |sbd-prometheus:' | tr '\n' ' ')"
		done
	fi
	assert_eq "sbd_budget_max_bytes $(cat /sys/bus/sbd/drivers/sbd/mem_max)" "$(grep '^sbd_budget_max_bytes ' "$PROM")" "budget max"
	assert_eq 'sbd_module_state{state="live"} 1' "$(grep '^sbd_module_state{state="live"}' "$PROM")" "module state"
	assert_eq "" "$(find "$TEXTFILE_DIR" -mindepth 1 ! -name sbd.prom)" "no temporary file left"
else
	fail "$PROM not written: $(journalctl -u sbd-prometheus.service -o cat | tail -5)"
fi
assert_eq sbd-prometheus "$(systemctl show -P User sbd-prometheus.service)" "the collector's user"
assert_ok systemctl start sbd-prometheus.timer
assert_eq active "$(systemctl is-active sbd-prometheus.timer)" "the timer"

tstep "apply again: nothing changes"
before=$(disks)
assert_ok play again "$COLLECTION/playbooks/three_disks.yml"
assert_eq 0 "$(recap again changed)" "changed tasks on the second run"
assert_eq 0 "$(recap again failures)" "failed tasks"
assert_eq "$before" "$(disks)" "disks in sysfs"

tstep "check mode with diff, and refused values (by sbdd, by the kernel)"
# sbd2 open: the kernel refuses its resize (EBUSY)
exec 3</dev/sbd2
play check "$PLAYBOOKS/fleet-check.yml" --check --diff || true
exec 3<&-
assert_eq 2 "$(recap check changed)" "changes reported in check mode"
assert_eq 2 "$(recap check ignored)" "refused tasks"
assert_eq "sbd1: label 'renamed' read_only true" \
	"$(result check 0 '.diff | "sbd1: label \(.after.label | @sh) read_only \(.after.read_only)"')" "the diff"
assert_eq absent "$(result check 1 .diff.after.state)" "the removal's diff"
assert_eq "$before" "$(disks)" "disks in sysfs after check mode and refusals"
assert_eq org.sbd.Sbd1.Error.InvalidValue "$(result check 2 .dbus_error)" "a 40-character label"
log "$(result check 2 .msg)"
assert_eq org.sbd.Sbd1.Error.Busy "$(result check 3 .dbus_error)" "resizing an open disk"
log "$(result check 3 .msg)"

tstep "polkit: the example rule lets the group sbd-operators change disks"
install -m 0644 "$SBD_SOURCE_DIR/docs/50-sbd-operators.rules" /etc/polkit-1/rules.d/
groupadd -f sbd-operators
useradd -M -G sbd-operators sbdop
useradd -M sbdother
assert_ok runuser -u sbdop -- /usr/bin/sbdctl --no-ask-password set sbd1 label ops
assert_eq ops "$(cat /sys/bus/sbd/devices/sbd1/label)" "the label an operator set"
out=$(runuser -u sbdother -- /usr/bin/sbdctl --no-ask-password set sbd1 label other 2>&1) || true
# polkit's default for others is an administrator's password, which a
# call without interaction cannot give
assert_match 'org\.freedesktop\.DBus\.Error\.InteractiveAuthorizationRequired|org\.sbd\.Sbd1\.Error\.NotAuthorized' \
	"$out" "another user"
assert_eq ops "$(cat /sys/bus/sbd/devices/sbd1/label)" "the label after the refusal"

tstep "removal: the disks deleted, the module unloaded"
assert_ok play remove "$PLAYBOOKS/fleet-remove.yml"
assert_eq 2 "$(recap remove changed)" "changed tasks"
assert_eq "" "$(disks)" "no disks"
assert_not_exists /sys/module/sbd

tstep "metrics with sbdd stopped: sbd_up 0, sbdd not started"
# The timer's own run may be under way, begun while sbdd still answered: a
# start joins a oneshot's run in progress and returns with its sbd_up 1
# (run 53: the timer's run began at 120.4 s, sbdd stopped at 124.6, the
# start returned at 125.5). So the timer stops first, and a restart ends
# any run in progress and makes one of its own after sbdd has stopped.
assert_ok systemctl stop sbd-prometheus.timer
assert_ok systemctl stop sbdd.service
assert_ok systemctl restart sbd-prometheus.service
assert_ok promtool check metrics <"$PROM"
assert_eq "sbd_up 0" "$(grep -v '^#' "$PROM")" "the samples"
assert_eq inactive "$(systemctl is-active sbdd.service)" "sbdd after the metrics run"

tstep "the requests end: the controller's work is done"
exec {requests_fd}>&-
bg_stop sshd
