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

# ---------------------------------------------------------------- reporting

step() {
	_sbd_step=$*
	printf '\n--- %s\n' "$*"
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
	fi
	printf '\n=== %s: %d checks, %d failed\n' "$(basename "$0")" "$_sbd_checks" "$_sbd_failed"
	local f
	for f in "${_sbd_failures[@]}"; do printf '    FAILED %s\n' "$f"; done
	rm -rf "$SBD_TMP"
	((_sbd_failed == 0)) || exit 1
	exit 0
}
trap '_sbd_on_err "$BASH_COMMAND" "$?" "$LINENO"' ERR
trap _sbd_on_exit EXIT

# --------------------------------------------------------------- assertions

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	if [[ $2 == "$1" ]]; then
		pass "${3:-value} = $(shown "$1")"
	else
		fail "${3:-value}: expected $(shown "$1"), got $(shown "$2")"
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
assert_fails() {
	local out
	if out=$("$@" 2>&1); then
		fail "$* succeeded, expected a failure"
	else
		pass "$* fails (status $?)"
	fi
}

# shown VALUE: VALUE as a message shows it (escaped when not printable)
shown() {
	if [[ $1 == *[![:print:]]* || -z $1 ]]; then printf '%q' "$1"; else printf "'%s'" "$1"; fi
}

# attr_write PATH VALUE: one write(2) of VALUE that must succeed
attr_write() {
	local out
	if out=$("$SBD_VM_TOOL" write "$1" "$2" 2>&1); then
		pass "write $(shown "$2") > $1"
	else
		fail "write $(shown "$2") > $1 failed: ${out//$'\n'/ }"
	fi
}

# expect_write_errno PATH VALUE ERRNO_NAME [OTHER_ACCEPTED_NAME...]:
# one write(2) of VALUE to PATH fails with that errno (EINVAL, EBUSY, ...).
expect_write_errno() {
	local path=$1 value=$2 got rc=0 want
	shift 2
	got=$("$SBD_VM_TOOL" write "$path" "$value" 2>/dev/null) || rc=$?
	if ((rc == 0)); then
		fail "write $(shown "$value") > $path succeeded, expected $*"
		return 0
	fi
	for want in "$@"; do
		if [[ $got == "$want" ]]; then
			pass "write $(shown "$value") > $path fails with $got"
			return 0
		fi
	done
	fail "write $(shown "$value") > $path: expected $*, got ${got:-status $rc}"
}

# ------------------------------------------------------------------ helpers

# wait_for PATH [TIMEOUT_S]: until PATH exists
wait_for() {
	local i n=$((${2:-10} * 20))
	for ((i = 0; i < n; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.05
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

bg_output() { cat "$SBD_TMP/$1.out"; }

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
	rm -f "$SBD_TMP/$name.ready"
	bg_start "$name" "$SBD_VM_TOOL" uevents --ready "$SBD_TMP/$name.ready" "$@" "$timeout" "$count"
	wait_for "$SBD_TMP/$name.ready" || die "uevent listener $name did not start"
}

# uevents_collect NAME: wait for the listener; its events are in bg_output NAME.
# Returns non-zero when fewer events than expected came.
uevents_collect() {
	bg_wait "$1"
}

# notify_start NAME PATH [TIMEOUT_MS]: wait in the background for sysfs_notify on PATH
notify_start() {
	rm -f "$SBD_TMP/$1.ready"
	bg_start "$1" "$SBD_VM_TOOL" wait-notify --ready "$SBD_TMP/$1.ready" "$2" "${3:-5000}"
	wait_for "$SBD_TMP/$1.ready" || die "notify waiter $1 did not start"
}

# notify_collect NAME: 0 when woken (the new value in bg_output NAME), 2 on time-out
notify_collect() {
	bg_wait "$1"
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
