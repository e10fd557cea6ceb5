# shellcheck shell=bash
# Assertion library of the VM scenarios. A scenario starts with
#
#   #!/bin/bash
#   . "${SBD_VM_LIB:?run me with tests/vm/run-vm}"
#
# and then names its steps with `step`, checks with the assert_* functions,
# and ends (any way it likes): an EXIT trap prints the summary and makes the
# scenario's exit status non-zero when a check failed or a command aborted
# the script (set -e). Checks are soft: a failed check is reported with its
# step and the scenario goes on, so that one run shows every broken step.
# Use `die` for a condition that makes the rest meaningless.
#
# Environment (set by run-vm's guest side): SBD_SOURCE_DIR, SBD_BUILD_DIR,
# SBD_KREL, SBD_VM_MODE (plain|systemd), SBD_VM_RESULTS (files saved there
# come back to the host), SBD_VM_TOOL (the sbd-vmtool helper), SBD_MODULE
# (optional: the sbd.ko to load instead of the build tree's).

set -euo pipefail

SBD_VM_TOOL=${SBD_VM_TOOL:-${SBD_BUILD_DIR:-}/tests/vm/sbd-vmtool}
SBD_TMP=$(mktemp -d /tmp/sbd-scenario.XXXXXX)

_sbd_step="(setup)"
_sbd_checks=0
_sbd_failed=0
_sbd_failures=()
declare -A _sbd_bg_pid=()
_sbd_ready_n=0

# ---------------------------------------------------------------- reporting

# step TEXT: a new step, headed with the scenario's seconds so far (where
# a slow guest spends its time shows in every log).
step() {
	_sbd_step=$*
	printf '\n--- %s [%ds]\n' "$*" "$SECONDS"
}

# tstep TEXT: a step headed with the guest's uptime too (the systemd
# scenarios: their boot, before the scenario started, shows)
tstep() {
	local up _
	read -r up _ </proc/uptime
	step "$* (at ${up}s)"
}

log() { printf '    %s\n' "$*"; }

pass() {
	_sbd_checks=$((_sbd_checks + 1))
	printf '  ok   %s\n' "$*"
}

fail() {
	_sbd_checks=$((_sbd_checks + 1))
	_sbd_failed=$((_sbd_failed + 1))
	_sbd_failures+=("[$_sbd_step] $*")
	printf '  FAIL [%s] %s\n' "$_sbd_step" "$*"
}

die() {
	fail "FATAL: $*"
	exit 1
}

# expect_alloc_failures: this scenario injects allocation failures, so the
# kernel's own report of each (warn_alloc: "page allocation failure" or
# "vmalloc error", then a stack dump) is expected; run-vm drops those
# reports, and only those, from the kernel log it judges.
expect_alloc_failures() {
	: >"${SBD_VM_RESULTS:?}/.expect-alloc-failures"
}

# Abort when an earlier check of this scenario failed (the next steps build on it).
stop_if_failed() {
	((_sbd_failed == 0)) || die "stopping: ${_sbd_failed} earlier check(s) failed${1:+ ($1)}"
}

_sbd_on_err() {
	_sbd_err="command '$1' exited with status $2 at line $3"
}

_sbd_on_exit() {
	local rc=$? pid
	set +e
	for pid in "${_sbd_bg_pid[@]}"; do kill "$pid" 2>/dev/null; done
	if ((rc != 0)) && [[ -n ${_sbd_err:-} ]]; then
		_sbd_failed=$((_sbd_failed + 1))
		_sbd_failures+=("[$_sbd_step] ABORTED: $_sbd_err")
		printf '  FAIL [%s] ABORTED: %s\n' "$_sbd_step" "$_sbd_err"
	elif ((rc != 0 && _sbd_failed == 0)); then
		_sbd_failed=1
		_sbd_failures+=("[$_sbd_step] exited with status $rc")
	elif ((_sbd_checks == 0)); then
		# A scenario that checked nothing proved nothing.
		_sbd_failed=1
		_sbd_failures+=("[$_sbd_step] no checks ran")
	fi
	printf '\n=== %s: %d checks, %d failed\n' "$(basename "$0")" "$_sbd_checks" "$_sbd_failed"
	local f
	for f in "${_sbd_failures[@]}"; do printf '    FAILED %s\n' "$f"; done
	_sbd_save_daemon_logs
	rm -rf "$SBD_TMP"
	((_sbd_failed == 0)) || exit 1
	exit 0
}
trap '_sbd_on_err "$BASH_COMMAND" "$?" "$LINENO"' ERR
trap _sbd_on_exit EXIT

# --------------------------------------------------------------- assertions

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	local want got
	shown_to want "$1"
	if [[ $2 == "$1" ]]; then
		pass "${3:-value} = $want"
	else
		shown_to got "$2"
		fail "${3:-value}: expected $want, got $got"
	fi
}

# assert_ne UNEXPECTED ACTUAL [WHAT]
assert_ne() {
	if [[ $2 != "$1" ]]; then
		pass "${3:-value} != '$1' ('$2')"
	else
		fail "${3:-value}: expected anything but '$1'"
	fi
}

# assert_match EXTENDED_REGEX ACTUAL [WHAT]
assert_match() {
	if [[ $2 =~ $1 ]]; then
		pass "${3:-value} '$2' matches /$1/"
	else
		fail "${3:-value}: '$2' does not match /$1/"
	fi
}

# read_attr PATH: print a (sysfs) file's content without its trailing
# newline; no fork, each exec costs 0.1 s under TCG. Fails if unreadable.
read_attr() {
	local _v=
	{ IFS= read -r -d '' _v || true; } <"$1" || return 1
	printf '%s' "${_v%$'\n'}"
}

# read_attr_to VAR PATH: the same into VAR, without the fork of $(...).
read_attr_to() {
	local _v=
	{ IFS= read -r -d '' _v || true; } <"$2" || return 1
	printf -v "$1" '%s' "${_v%$'\n'}"
}

# assert_file_content PATH EXPECTED: the file's content (trailing newline cut)
assert_file_content() {
	local got=
	if ! { IFS= read -r -d '' got || true; } <"$1" 2>/dev/null; then
		fail "$1 cannot be read"
		return 0
	fi
	assert_eq "$2" "${got%$'\n'}" "$1"
}

assert_exists() {
	if [[ -e $1 || -L $1 ]]; then pass "$1 exists"; else fail "$1 does not exist"; fi
}

assert_not_exists() {
	if [[ -e $1 || -L $1 ]]; then fail "$1 exists"; else pass "$1 does not exist"; fi
}

assert_dir() {
	if [[ -d $1 && ! -L $1 ]]; then pass "$1 is a directory"; else fail "$1 is not a directory"; fi
}

assert_block_device() {
	if [[ -b $1 ]]; then pass "$1 is a block device"; else fail "$1 is not a block device"; fi
}

# assert_link PATH TARGET: PATH is a symlink that resolves to TARGET
assert_link() {
	local got
	if [[ ! -L $1 ]]; then
		fail "$1 is not a symlink"
		return 0
	fi
	got=$(readlink -f "$1")
	assert_eq "$(readlink -f "$2")" "$got" "link $1"
}

# assert_mode PATH OCTAL: file permission bits as stat prints them (e.g. 644)
assert_mode() {
	local got
	got=$(stat -c %a "$1" 2>/dev/null || echo missing)
	assert_eq "$2" "$got" "mode of $1"
}

# assert_ok CMD...: the command succeeds
assert_ok() {
	local out
	if out=$("$@" 2>&1); then
		pass "$*"
	else
		fail "$* failed (status $?): ${out:0:300}"
	fi
}

# assert_fails CMD...: the command fails
# A command that is missing or not executable (126, 127) is no failure of
# what it was meant to try, and fails the check.
assert_fails() {
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	if ((rc == 0)); then
		fail "$* succeeded, expected a failure"
	elif ((rc == 126 || rc == 127)); then
		fail "$* could not run (status $rc): ${out:0:200}"
	else
		pass "$* fails (status $rc)"
	fi
}

# shown VALUE: VALUE as a message shows it (escaped when not printable)
shown() {
	local v
	shown_to v "$1"
	printf '%s' "$v"
}

# shown_to VAR VALUE: the same into VAR. No fork: the helpers run for every
# check, and a fork costs about 0.1 s on the debug kernel under TCG.
shown_to() {
	if [[ $2 == *[![:print:]]* || -z $2 ]]; then
		printf -v "$1" '%q' "$2"
	else
		printf -v "$1" "'%s'" "$2"
	fi
}

# attr_write PATH VALUE: one write(2) of VALUE that must succeed
attr_write() {
	local out v
	shown_to v "$2"
	if out=$("$SBD_VM_TOOL" write "$1" "$2" 2>&1); then
		pass "write $v > $1"
	else
		fail "write $v > $1 failed: ${out//$'\n'/ }"
	fi
}

# expect_write_errno PATH VALUE ERRNO_NAME [OTHER_ACCEPTED_NAME...]:
# one write(2) of VALUE to PATH fails with that errno (EINVAL, EBUSY, ...).
expect_write_errno() {
	local path=$1 value=$2 got rc=0 want v
	shift 2
	shown_to v "$value"
	got=$("$SBD_VM_TOOL" write "$path" "$value" 2>/dev/null) || rc=$?
	if ((rc == 0)); then
		fail "write $v > $path succeeded, expected $*"
		return 0
	fi
	for want in "$@"; do
		if [[ $got == "$want" ]]; then
			pass "write $v > $path fails with $got"
			return 0
		fi
	done
	fail "write $v > $path: expected $*, got ${got:-status $rc}"
}

# ------------------------------------------------------------------ helpers

# nap SECONDS: sleep without an exec (`sleep` costs 0.4 s of the debug
# guest's CPU: a polling loop's step would be ten times its nap). read -t
# on a FIFO nobody writes to; opened read-write, it never sees an end.
_sbd_nap_fd=
nap() {
	if [[ -z $_sbd_nap_fd ]]; then
		mkfifo "$SBD_TMP/.nap"
		exec {_sbd_nap_fd}<>"$SBD_TMP/.nap"
	fi
	read -rt "$1" -u "$_sbd_nap_fd" || true
}

# wait_for PATH [TIMEOUT_S]: until PATH exists
wait_for() {
	local i n=$((${2:-10} * 20))
	for ((i = 0; i < n; i++)); do
		[[ -e $1 ]] && return 0
		nap 0.05
	done
	return 1
}

# random_file PATH KIB: a file of KIB KiB of random data
random_file() {
	dd if=/dev/urandom of="$1" bs=1K count="$2" status=none
}

# same_data FILE DEVICE [OFFSET_BYTES]: the device holds FILE's bytes
same_data() {
	local size out
	size=$(stat -c %s "$1")
	if out=$(cmp -n "$size" "$1" "$2" ${3:+-i "0:$3"} 2>&1); then
		pass "$2${3:+ at $3} holds the $size bytes of $(basename "$1")"
	else
		fail "$2 differs from $(basename "$1"): $out"
	fi
}

# bg_start NAME CMD...: run CMD in the background, output to $SBD_TMP/NAME.out
bg_start() {
	local name=$1
	shift
	"$@" >"$SBD_TMP/$name.out" 2>"$SBD_TMP/$name.err" &
	_sbd_bg_pid[$name]=$!
}

# bg_wait NAME: wait for it; returns its exit status; output in bg_output NAME
bg_wait() {
	local rc=0
	wait "${_sbd_bg_pid[$1]}" || rc=$?
	unset "_sbd_bg_pid[$1]"
	return "$rc"
}

bg_output() { # (no cat: an exec)
	local _o=
	{ IFS= read -r -d '' _o || true; } <"$SBD_TMP/$1.out"
	printf '%s' "$_o"
}

# bg_stop NAME: end it (for listeners that run until stopped)
bg_stop() {
	kill "${_sbd_bg_pid[$1]}" 2>/dev/null || true
	bg_wait "$1" || true
}

# uevents_start NAME COUNT [TIMEOUT_MS] [--match KEY=GLOB]...: listen for
# COUNT kernel uevents (matching all patterns) before changing anything.
uevents_start() {
	local name=$1 count=$2 timeout=5000
	shift 2
	if [[ ${1:-} =~ ^[0-9]+$ ]]; then
		timeout=$1
		shift
	fi
	local ready=$SBD_TMP/$name.ready.$((++_sbd_ready_n)) # a new name: no rm
	bg_start "$name" "$SBD_VM_TOOL" uevents --ready "$ready" "$@" "$timeout" "$count"
	wait_for "$ready" 30 || die "uevent listener $name did not start"
}

# uevents_collect NAME: wait for the listener; its events are in bg_output NAME.
# Returns non-zero when fewer events than expected came.
uevents_collect() {
	bg_wait "$1"
}

# notify_start NAME PATH [TIMEOUT_MS]: wait in the background for sysfs_notify on PATH
notify_start() {
	local ready=$SBD_TMP/$1.ready.$((++_sbd_ready_n))
	bg_start "$1" "$SBD_VM_TOOL" wait-notify --ready "$ready" "$2" "${3:-5000}"
	wait_for "$ready" 30 || die "notify waiter $1 did not start"
}

# notify_collect NAME: 0 when woken (the new value in bg_output NAME), 2 on time-out
notify_collect() {
	bg_wait "$1"
}

# ---------------------------------------- the network card (run-vm --forward)

SBD_GUEST_ADDR=10.0.2.15

# sbd_guest_network: give the card run-vm --forward added the address that
# user-mode networking forwards to ($SBD_GUEST_ADDR/24). udev renames the
# card (eth0 -> ens2) when it gets to it: settle first, and take whatever
# name it has when the address is set.
sbd_guest_network() {
	local nic='' _
	modprobe virtio_net 2>/dev/null || true
	udevadm settle -t 30 || true
	for _ in $(seq 50); do
		nic=$(ip -o link show | awk -F': ' '$2 != "lo" {print $2; exit}')
		if [[ -n $nic ]] && ip addr add "$SBD_GUEST_ADDR/24" dev "$nic" 2>/dev/null; then
			ip link set "$nic" up
			log "network card $nic"
			return 0
		fi
		nap 0.2
	done
	die "no network card to give $SBD_GUEST_ADDR (run-vm --forward; last seen: '$nic')"
}

# sbd_wait_port PORT: until something listens on $SBD_GUEST_ADDR:PORT (30 s)
sbd_wait_port() {
	local _
	for _ in $(seq 150); do
		(exec 3<>"/dev/tcp/$SBD_GUEST_ADDR/$1") 2>/dev/null && return 0
		nap 0.2
	done
	return 1
}

# ------------------------------------------------------------ the sbd module

# sbd_module_install: put sbd.ko into /lib/modules/$(uname -r)/extra of the
# guest's overlay with a module index that knows it, so that modprobe (and
# libkmod) find it by name. run-vm prepared the index on the host
# (SBD_VM_MODINDEX, see mkmodindex): depmod in the guest takes 90 s.
sbd_module_install() {
	local krel dir
	krel=$(uname -r)
	dir=/lib/modules/$krel
	[[ -f $dir/extra/sbd.ko ]] && return 0
	if [[ -n ${SBD_VM_MODINDEX:-} ]]; then
		[[ -f $SBD_VM_MODINDEX/sbd.ko ]] || die "no sbd.ko in $SBD_VM_MODINDEX"
		mkdir -p "$dir/extra"
		cp "$SBD_VM_MODINDEX/sbd.ko" "$dir/extra/sbd.ko"
		cp "$SBD_VM_MODINDEX"/modules.* "$dir/"
	else
		local ko=${SBD_MODULE:-$SBD_BUILD_DIR/module/sbd.ko}
		[[ -f $ko ]] || die "sbd.ko not found at $ko (build the module, or set SBD_MODULE)"
		log "no module index from the host: running depmod in the guest (slow)"
		mkdir -p "$dir/extra"
		cp "$ko" "$dir/extra/sbd.ko"
		depmod -a "$krel" || die "depmod failed"
	fi
	local vermagic
	vermagic=$(modinfo -F vermagic sbd 2>/dev/null || true)
	[[ $vermagic == "$krel "* ]] || die "sbd.ko was built for '${vermagic%% *}', the guest runs $krel"
}

# sbd_module_load [PARAM=VALUE...]: install and modprobe sbd with parameters
sbd_module_load() {
	local out
	sbd_module_install
	if out=$(modprobe sbd "$@" 2>&1); then
		pass "modprobe sbd $*"
	else
		die "modprobe sbd $* failed: $out"
	fi
}

# sbd_module_unload: remove it; fails the check if the kernel refuses
# expect_load_refused "PARAMS" ...: each parameter set (one string, words
# split) must make modprobe fail; one that loads is a failure, and unloaded.
expect_load_refused() {
	local bad out
	for bad in "$@"; do
		# shellcheck disable=SC2086 # one word per parameter
		if out=$(modprobe sbd $bad 2>&1); then
			fail "modprobe sbd $bad succeeded"
			sbd_module_unload
		else
			pass "modprobe sbd $bad refused: ${out##*: }"
		fi
	done
}

# expect_load_errno MESSAGE "PARAMS" ...: as expect_load_refused, and
# modprobe's error ends with MESSAGE (strerror's text: "Invalid argument",
# "Numerical result out of range"), so that each refusal names its errno.
expect_load_errno() {
	local want=$1 bad out
	shift
	for bad in "$@"; do
		# shellcheck disable=SC2086 # one word per parameter
		if out=$(modprobe sbd $bad 2>&1); then
			fail "modprobe sbd $bad succeeded, expected $want"
			sbd_module_unload
		elif [[ $out == *": $want" ]]; then
			pass "modprobe sbd $bad refused: $want"
		else
			fail "modprobe sbd $bad: expected $want, got ${out##*: }"
		fi
	done
}

sbd_module_unload() {
	local out
	if out=$(modprobe -r sbd 2>&1); then
		pass "modprobe -r sbd"
	else
		fail "modprobe -r sbd failed: $out"
	fi
}

# shellcheck disable=SC2034 # for the scenarios
SBD_BUS=/sys/bus/sbd
# shellcheck disable=SC2034
SBD_DRV=/sys/bus/sbd/drivers/sbd
SBD_DEVICES=/sys/devices/system/sbd

# sbd_attr DEV ATTR: the path of a device attribute (DEV like sbd0)
sbd_attr() { printf '%s/%s/%s\n' "$SBD_DEVICES" "$1" "$2"; }

# ------------------------------------------------------ the bus and the daemon
# A real system bus (Debian's system.conf, so its deny-by-default policy and
# its limits) with the project's policy installed, and sbdd from the build
# tree, for the daemon-* scenarios. Calls go through busctl (values) and
# gdbus (error names: busctl prints only the message).

SBD_NAME=org.sbd.Sbd1
SBD_OBJ=/org/sbd/Sbd1
SBDD=${SBD_BUILD_DIR:-}/daemon/sbdd
SBDD_ASAN_BIN=${SBD_BUILD_DIR:-}/daemon/sbdd-asan
SBDD_PID=
SBDD_LOG=$SBD_TMP/sbdd.log
_sbdd_runs=0

# sbd_bus_start [--polkit]: install dbus/org.sbd.Sbd1.conf and start the
# system bus (in --systemd mode: make the running one reload its policy).
# Without --polkit, polkitd's activation file is hidden in the overlay: no
# polkit answers, and only root may write (the contract's rule).
sbd_bus_start() {
	install -m 0644 "$SBD_SOURCE_DIR/dbus/org.sbd.Sbd1.conf" /etc/dbus-1/system.d/
	if [[ ${1:-} != --polkit && -f $_sbd_polkit_service ]]; then
		mkdir -p /run/sbd-vm
		mv "$_sbd_polkit_service" /run/sbd-vm/
	fi
	if [[ -S /run/dbus/system_bus_socket ]] &&
		busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId >/dev/null 2>&1; then
		busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig ||
			die "the running system bus did not reload its configuration"
		return 0
	fi
	# A socket nobody answers on: the bus of an earlier scenario in the same
	# boot (run-vm ---), ended with it.
	rm -f /run/dbus/system_bus_socket
	mkdir -p /run/dbus
	bg_start dbus-daemon dbus-daemon --system --nofork --nopidfile --nosyslog
	wait_for /run/dbus/system_bus_socket 30 || die "dbus-daemon --system did not start: $(cat "$SBD_TMP/dbus-daemon.err")"
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId >/dev/null ||
		die "the system bus does not answer"
}

_sbd_polkit_service=/usr/share/dbus-1/system-services/org.freedesktop.PolicyKit1.service

# sbd_bus_polkit: from now on the bus activates the real polkitd (hidden by
# sbd_bus_start) on the first CheckAuthorization.
sbd_bus_polkit() {
	[[ -f /run/sbd-vm/${_sbd_polkit_service##*/} ]] && mv "/run/sbd-vm/${_sbd_polkit_service##*/}" "$_sbd_polkit_service"
	[[ -f $_sbd_polkit_service ]] || die "polkitd is not installed ($_sbd_polkit_service)"
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig ||
		die "the system bus did not reload its configuration"
}

# sbdd_start [SBDD_ARGS...]: install sbd.ko for modprobe/libkmod (not
# loading it) and start sbdd in the background (default
# --uevent-source=kernel --log-level=debug; under valgrind when
# SBDD_VALGRIND=1, the ASan/UBSan build when SBDD_ASAN=1) and wait until it
# owns org.sbd.Sbd1. Its output goes to $SBDD_LOG (appended; copied to the
# results share at the end).
sbdd_start() {
	local args=(--log-level=debug) cmd=() a bin=$SBDD checker=
	[[ ${SBDD_ASAN:-0} != 1 || ${SBDD_VALGRIND:-0} != 1 ]] || die "SBDD_ASAN and SBDD_VALGRIND exclude each other"
	if [[ ${SBDD_ASAN:-0} == 1 ]]; then
		bin=$SBDD_ASAN_BIN checker="AddressSanitizer and UBSan"
		# Reports go to files sbdd_stop reads; any error or leak also makes
		# the exit status non-zero.
		cmd=(env "ASAN_OPTIONS=detect_leaks=1:exitcode=98:log_path=$SBD_TMP/asan"
			"UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$SBD_TMP/asan")
	fi
	[[ -x $bin ]] || die "sbdd is not built ($bin)"
	sbd_module_install # so that libkmod finds sbd by name
	[[ " $* " == *" --uevent-source"* ]] || args+=(--uevent-source=kernel)
	if [[ ${SBDD_VALGRIND:-0} == 1 ]]; then
		checker=valgrind
		cmd=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
			--show-leak-kinds=definite --log-file="$SBD_TMP/valgrind.%p")
	fi
	_sbdd_runs=$((_sbdd_runs + 1))
	printf '=== sbdd start %d: %s\n' "$_sbdd_runs" "$*" >>"$SBDD_LOG"
	"${cmd[@]}" "$bin" "${args[@]}" "$@" >>"$SBDD_LOG" 2>&1 &
	SBDD_PID=$!
	_sbd_bg_pid[sbdd]=$SBDD_PID
	if ! sbdd_wait_name "${SBDD_START_TIMEOUT:-60}"; then
		kill -0 "$SBDD_PID" 2>/dev/null || { wait "$SBDD_PID" || a=$?; log "sbdd exited with status ${a:-0}"; }
		tail -n 20 "$SBDD_LOG" | sed 's/^/    | /'
		die "sbdd $* did not take $SBD_NAME"
	fi
	pass "sbdd $* owns $SBD_NAME${checker:+ (under $checker)}"
}

# assert_log ERE [WHAT]: the log of the current sbdd run has a matching line
assert_log() {
	local line
	line=$(sed -n "/^=== sbdd start $_sbdd_runs:/,\$p" "$SBDD_LOG" | grep -E -m 1 -- "$1" || true)
	if [[ -n $line ]]; then
		pass "${2:-sbdd log}: $line"
	else
		fail "${2:-sbdd log} has no line matching /$1/"
	fi
}

# sbdd_wait_name [TIMEOUT_S]: until org.sbd.Sbd1 has an owner; gives up
# early when sbdd ($SBDD_PID) has exited
sbdd_wait_name() {
	local t=${1:-60} w rc=0
	gdbus wait --system --timeout "$t" "$SBD_NAME" >/dev/null 2>&1 &
	w=$!
	while kill -0 "$w" 2>/dev/null; do
		if [[ -n $SBDD_PID ]] && ! kill -0 "$SBDD_PID" 2>/dev/null; then
			kill "$w" 2>/dev/null
			wait "$w" 2>/dev/null || true
			return 1
		fi
		nap 0.2
	done
	wait "$w" || rc=$?
	return "$rc"
}

# sbdd_stop: SIGTERM; the daemon must exit with status 0 (and, under
# valgrind, report no error) and release its name.
sbdd_stop() {
	local rc=0 f
	[[ -n $SBDD_PID ]] || return 0
	kill -TERM "$SBDD_PID" 2>/dev/null || true
	wait "$SBDD_PID" || rc=$?
	unset "_sbd_bg_pid[sbdd]"
	assert_eq 0 "$rc" "sbdd's exit status after SIGTERM"
	if [[ ${SBDD_VALGRIND:-0} == 1 ]]; then
		f=$SBD_TMP/valgrind.$SBDD_PID
		if [[ ! -f $f ]]; then
			fail "sbdd did not run under valgrind (no $f)"
		elif [[ -s $f ]]; then
			fail "valgrind reported on sbdd: $(head -c 3000 "$f")"
		else
			pass "valgrind: no errors, no definite leaks"
		fi
	fi
	sbdd_asan_verdict
	SBDD_PID=
	if busctl --system status "$SBD_NAME" >/dev/null 2>&1; then
		fail "$SBD_NAME still has an owner after sbdd exited"
	else
		pass "$SBD_NAME released"
	fi
}

# sbdd_asan_verdict: with SBDD_ASAN=1, what AddressSanitizer, LeakSanitizer
# and UBSan reported on every sbdd run so far (none, or the scenario fails).
sbdd_asan_verdict() {
	local reports
	[[ ${SBDD_ASAN:-0} == 1 ]] || return 0
	reports=$(compgen -G "$SBD_TMP/asan.*" || true)
	if [[ -n $reports ]]; then
		# shellcheck disable=SC2086 # one report file per line
		cp $reports "$SBD_VM_RESULTS/" 2>/dev/null || true
		# shellcheck disable=SC2086
		fail "AddressSanitizer/UBSan reported on sbdd: $(head -c 3000 $reports)"
	else
		pass "AddressSanitizer, LeakSanitizer and UBSan: nothing reported on sbdd"
	fi
}

# sbdd_alive: the daemon still runs and answers a Ping
sbdd_alive() {
	if [[ -n $SBDD_PID ]] && kill -0 "$SBDD_PID" 2>/dev/null &&
		busctl --system call "$SBD_NAME" "$SBD_OBJ" org.freedesktop.DBus.Peer Ping >/dev/null 2>&1; then
		pass "sbdd runs and answers Ping"
	else
		fail "sbdd does not answer (pid ${SBDD_PID:-none})"
	fi
}

# sbd_wait_device_count COUNT [TIMEOUT_S]: until Manager.Devices has COUNT paths
sbd_wait_device_count() {
	local out i
	for ((i = 0; i < ${2:-600} * 2; i++)); do
		out=$(busctl --system get-property "$SBD_NAME" "$SBD_OBJ" org.sbd.Sbd1.Manager Devices 2>&1)
		[[ ${out%% \"*} == "ao $1" ]] && return 0
		nap 0.5
	done
	return 1
}

# SBD_GUI_ENV: the environment sbd-manager runs in, under Xvfb :7. GTK's
# cairo renderer: GL drawn by llvmpipe under TCG cost 20-40 s a launch
# against 3.6 s, and the scenarios launch it up to ten times. The GL path
# is the integration layer's (natively, the normal build); what the guests
# check is the client against the real daemon and kernel, which no
# renderer changes.
# shellcheck disable=SC2034 # used by the scenarios that source this file
SBD_GUI_ENV=(DISPLAY=:7 GDK_BACKEND=x11 GSK_RENDERER=cairo GDK_DEBUG=gl-disable GTK_A11Y=none
	DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent)

# xvfb_start: Xvfb on SBD_GUI_ENV's display :7 in the background (bg_stop
# xvfb ends it); fails when its socket is not there within 10 s.
xvfb_start() {
	bg_start xvfb Xvfb :7 -noreset -nolisten tcp -screen 0 1024x768x24
	wait_for /tmp/.X11-unix/X7 10
}

# sbd_dev_path NAME: the object path of a device (plain names only)
sbd_dev_path() { printf '%s/devices/%s\n' "$SBD_OBJ" "$1"; }

# dbus_get PATH INTERFACE PROPERTY: busctl get-property's "TYPE VALUE"
dbus_get() {
	busctl --system get-property "$SBD_NAME" "$1" "$2" "$3" 2>&1
}

# dbus_error [--as-nobody] GDBUS_CALL_ARGS...: run `gdbus call --system -d
# org.sbd.Sbd1 ARGS` (as uid/gid 65534 with --as-nobody: a separate,
# unprivileged caller) and print the D-Bus error's name, "ok" when the
# call succeeded, or "unexpected: MESSAGE" (a timeout, an argument that
# does not parse). Once the scenario ran bus_client_start, root's calls go
# through bus-client.py instead of an exec each.
dbus_error() {
	local out pre=()
	if [[ $1 == --as-nobody ]]; then
		pre=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
		shift
	elif [[ -n $_sbd_bus_in ]]; then
		_sbd_bus_client_error "$@"
		return 0
	fi
	if out=$("${pre[@]}" gdbus call --system -d "$SBD_NAME" "$@" 2>&1); then
		echo ok
	elif [[ $out =~ GDBus\.Error:([A-Za-z0-9_.]+) ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		echo "unexpected: ${out:0:200}"
	fi
}

# bus_client_start: from now on, dbus_error's calls as root go through one
# scenarios/bus-client.py, which makes each call as a gdbus process would
# (its header) without the exec: about 2 s a call on the debug kernel, under
# 1 s through it. Its own start costs about 8 s there, so only the
# scenarios that ask many questions start it (tests/vm/README.md).
# Requests and answers go through two FIFOs, opened read-write here so
# that neither side waits for the other's open. Not bg_start: bash gives a
# background command /dev/null for stdin unless its own line redirects it.
# It ends with the scenario, as bg_start's do.
_sbd_bus_in='' _sbd_bus_out=''
bus_client_start() {
	local in=$SBD_TMP/.bus-client.in out=$SBD_TMP/.bus-client.out
	[[ -z $_sbd_bus_in ]] || return 0
	mkfifo "$in" "$out"
	exec {_sbd_bus_in}<>"$in" {_sbd_bus_out}<>"$out"
	/usr/bin/python3 "$SBD_SOURCE_DIR/tests/vm/scenarios/bus-client.py" \
		<"$in" >"$out" 2>"$SBD_TMP/bus-client.err" &
	_sbd_bg_pid[bus-client]=$!
}

# _sbd_bus_client_error GDBUS_CALL_ARGS...: dbus_error's answer from
# bus-client.py. An id per question: an answer that came too late for the
# question before (after a time-out here) is read past, never taken for
# this one's.
_sbd_bus_client_error() {
	local id=$BASHPID.$EPOCHREALTIME reply
	printf '%s\0' "$id" "$#" "$@" >&"$_sbd_bus_in"
	while IFS= read -r -t 120 reply <&"$_sbd_bus_out"; do
		[[ $reply == "$id "* ]] || continue
		printf '%s\n' "${reply#"$id "}"
		return 0
	done
	echo "unexpected: bus-client did not answer in 120 s: $(head -c 500 "$SBD_TMP/bus-client.err")"
}

# expect_dbus_error ERROR_NAME GDBUS_CALL_ARGS...: the call fails with that error
expect_dbus_error() {
	local want=$1 got
	shift
	got=$(dbus_error "$@")
	assert_eq "$want" "$got" "error of ${*: -3}"
}

# dbus_set PATH PROPERTY GVARIANT: Properties.Set of a Device property via gdbus
dbus_set() {
	gdbus call --system -d "$SBD_NAME" -o "$1" -m org.freedesktop.DBus.Properties.Set \
		org.sbd.Sbd1.Device "$2" "$3"
}

# sbd_check_tree [--timeout S] [--quiet]: the daemon's tree (Manager.Devices,
# Drivers, GetManagedObjects) equals sysfs, typed as the contract says; waits
# up to S seconds (default 30) for it to settle.
sbd_check_tree() {
	local out rc=0
	out=$(/usr/bin/python3 "$SBD_SOURCE_DIR/tests/vm/scenarios/daemon-check.py" tree "$@" 2>&1) || rc=$?
	if ((rc == 0)); then
		pass "tree equals sysfs: ${out##*$'\n'}"
	else
		fail "tree differs from sysfs: ${out:0:3000}"
	fi
}

# sbd_monitor_start: `busctl monitor --json=short org.sbd.Sbd1` in the
# background (one message a line in $SBD_TMP/monitor.out), ready once it
# has seen one of our Pings to the daemon.
sbd_monitor_start() {
	local i
	bg_start monitor busctl --system monitor --json=short "$SBD_NAME"
	for ((i = 0; i < 100; i++)); do
		busctl --system call "$SBD_NAME" "$SBD_OBJ" org.freedesktop.DBus.Peer Ping >/dev/null 2>&1 || true
		grep -q '"member":"Ping"' "$SBD_TMP/monitor.out" 2>/dev/null && return 0
		nap 0.1
	done
	die "busctl monitor did not start: $(head -c 500 "$SBD_TMP/monitor.err")"
}

# monitor_count STRING...: how many monitored messages contain every STRING
monitor_count() {
	awk -v n=$# 'BEGIN { for (i = 1; i <= n; i++) want[i] = ARGV[i]; ARGC = 1 }
		{ for (i = 1; i <= n; i++) if (!index($0, want[i])) next; c++ }
		END { print c + 0 }' "$@" <"$SBD_TMP/monitor.out"
}

# monitor_wait TIMEOUT_S STRING...: until a monitored message contains every STRING
monitor_wait() {
	local t=$1 i
	shift
	for ((i = 0; i < t * 10; i++)); do
		(($(monitor_count "$@") > 0)) && return 0
		nap 0.1
	done
	return 1
}

# pc_of PATH: the start of a PropertiesChanged from the daemon on PATH, as
# monitor_count matches it: "path":"PATH","interface":"...Properties","member":"PropertiesChanged"
pc_of() {
	printf '"path":"%s","interface":"org.freedesktop.DBus.Properties","member":"PropertiesChanged"' "$1"
}

_sbd_save_daemon_logs() {
	local me
	[[ -d ${SBD_VM_RESULTS:-} ]] || return 0
	# Named after the scenario: several run in one boot.
	me=$(basename "$0" .sh)
	[[ ! -f $SBDD_LOG ]] || cp "$SBDD_LOG" "$SBD_VM_RESULTS/$me.sbdd.log" 2>/dev/null || true
	[[ ! -f $SBD_TMP/monitor.out ]] || cp "$SBD_TMP/monitor.out" "$SBD_VM_RESULTS/$me.monitor.out" 2>/dev/null || true
}

# Timings and memory for scenarios that log them (they never decide a test).
now() { printf '%s' "${EPOCHREALTIME/./}"; } # microseconds
# since START: seconds since START (from now), one decimal
since() {
	local d=$(($(now) - $1))
	printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10))
}
mem_kib() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
# rss_kib: sbdd's resident memory (sbdd_start sets SBDD_PID)
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$SBDD_PID/status"; }
