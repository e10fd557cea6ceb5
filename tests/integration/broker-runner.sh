#!/bin/bash
# broker-runner.sh CONFIG MAX_WAIT COMMAND [ARGS...]: run COMMAND against a
# private system bus served by dbus-broker, as dbus-test-runner
# --bus-type=system --dbus-config CONFIG does with dbus-daemon.
#
# dbus-broker-launch (the dbus-daemon-compatible front of dbus-broker,
# what dbus-broker.service runs) parses the same bus configuration, takes
# its listening socket from socket activation (systemd-socket-activate
# here) and logs only to the journal: in a private mount namespace a
# socket of ours stands in for journald's, and its messages end up on
# stderr. The launcher also connects to the bus it serves, found through
# DBUS_SYSTEM_BUS_ADDRESS. Activation is not available (the launcher hands
# it to systemd, which does not run here); the tests start sbdd and the
# polkit mock themselves, and the systemd-sbdd-broker VM scenario covers
# activation on dbus-broker. Exits with COMMAND's status; 124 after
# MAX_WAIT seconds.
set -euo pipefail

if [[ -z ${SBD_BROKER_NS:-} ]]; then
	((EUID == 0)) || { echo "broker-runner: needs root (a private mount namespace)" >&2; exit 1; }
	exec env SBD_BROKER_NS=1 unshare --mount --propagation private "$0" "$@"
fi
config=$(realpath "${1:?usage: broker-runner.sh CONFIG MAX_WAIT COMMAND...}") max=${2:?} 
shift 2
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
for p in dbus-broker-launch systemd-socket-activate busctl; do
	command -v "$p" >/dev/null || { echo "broker-runner: $p not found (packages dbus-broker, systemd)" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/sbd-broker.XXXXXX)
# Unprivileged callers (uid 65534) connect too.
chmod 0755 "$tmp"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p /run/systemd
mount -t tmpfs -o mode=0755 sbd-broker-run /run/systemd
mkdir /run/systemd/journal
/usr/bin/python3 "$here/journal-sink.py" /run/systemd/journal/socket "$tmp/sink-ready" &
pids+=($!)
for _ in $(seq 50); do [[ -e $tmp/sink-ready ]] && break; sleep 0.1; done

export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/system_bus_socket
systemd-socket-activate -E DBUS_SYSTEM_BUS_ADDRESS -l "$tmp/system_bus_socket" \
	dbus-broker-launch --scope system --config-file "$config" >"$tmp/activate.log" 2>&1 &
pids+=($!)
# A socket everybody may connect to, as the system bus's is (it is made 0644).
for _ in $(seq 50); do [[ -S $tmp/system_bus_socket ]] && break; sleep 0.1; done
chmod 0666 "$tmp/system_bus_socket"
# The first connection starts the launcher; it answers once the broker runs.
ready=
for _ in $(seq 100); do
	if busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId >/dev/null 2>&1; then
		ready=1
		break
	fi
	sleep 0.1
done
if [[ -z $ready ]]; then
	echo "broker-runner: dbus-broker did not answer on $DBUS_SYSTEM_BUS_ADDRESS" >&2
	cat "$tmp/activate.log" >&2
	exit 1
fi
# The bus that answers is dbus-broker's: the driver names the launcher
# (dbus-daemon names itself).
bus_pid=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
	GetConnectionUnixProcessID s org.freedesktop.DBus | awk '{print $2}')
bus_exe=$(readlink "/proc/$bus_pid/exe" || true)
[[ $bus_exe == */dbus-broker || $bus_exe == */dbus-broker-launch ]] || { echo "broker-runner: the bus is served by '$bus_exe', not dbus-broker" >&2; exit 1; }
echo "broker-runner: $bus_exe (pid $bus_pid) serves $DBUS_SYSTEM_BUS_ADDRESS ($config)" >&2

rc=0
timeout "$max" "$@" || rc=$?
((rc != 124)) || echo "broker-runner: $* timed out after $max s" >&2
exit "$rc"
