#!/bin/bash
# The Cockpit page against the real module, guest side (run-vm --systemd
# --forward HOST:9191, started by tests/vm/cockpit-host.py, which drives
# headless Chromium on the host through the forwarded port): SBD and
# cockpit-sbd installed from their Debian packages, the build tree's sbd.ko,
# cockpit-ws serving one session (--local-session, root's bridge) on the
# guest's network card. The browser does the rest (load, add, edit, remove,
# a direct sysfs write seen live); it ends this scenario by creating
# /run/sbd-cockpit-done through the page's bridge, with its verdict in it.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/cockpit-host.py}"

DEBS=$SBD_BUILD_DIR/tests/package/debs
DONE=/run/sbd-cockpit-done
WAIT=${SBD_COCKPIT_WAIT:-600}

tstep "the guest boots with systemd"
assert_eq systemd "$(cat /proc/1/comm)" "PID 1"
state=$(timeout 120 systemctl is-system-running --wait 2>&1 || true)
assert_match '^(running|degraded)$' "$state" "systemctl is-system-running"

tstep "dpkg -i: sbdd cockpit-sbd"
debs=()
for p in sbdd cockpit-sbd; do
	f=$(compgen -G "$DEBS/${p}_*.deb" | head -n 1) || die "no $p package in $DEBS (meson test -C build package-debs)"
	debs+=("$f")
done
rm -f /usr/sbin/policy-rc.d /var/lib/man-db/auto-update
DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}" >/tmp/dpkg.log 2>&1 || {
	cat /tmp/dpkg.log
	die "dpkg -i failed"
}
assert_exists /usr/share/cockpit/sbd/manifest.json
assert_exists /usr/share/metainfo/org.sbd.cockpit.metainfo.xml
sbd_module_install

tstep "the guest's network card (user-mode networking: $SBD_GUEST_ADDR/24)"
sbd_guest_network

tstep "cockpit-ws on port 9191 (one session, root's bridge)"
# Not Cockpit's own cockpit.socket (the host's package enabled it; it
# listens on 9090 and asks for a login): a cockpit-ws of the test's.
systemctl stop cockpit.socket cockpit.service 2>/dev/null || true
# The browser comes from outside the guest (10.0.2.2, the forward): plain
# http from there is redirected to https unless allowed (there is no TLS
# here: a private, forwarded test port).
mkdir -p /etc/cockpit
printf '[WebService]\nAllowUnencrypted = true\n' >/etc/cockpit/cockpit.conf
systemd-run --unit=sbd-cockpit-ws --quiet /usr/lib/cockpit/cockpit-ws \
	--local-session=/usr/bin/cockpit-bridge --address="$SBD_GUEST_ADDR" --port=9191
assert_ok sbd_wait_port 9191
assert_eq active "$(systemctl is-active sbd-cockpit-ws.service)" "the test's cockpit-ws"
log "cockpit-ws listens; the browser on the host takes over"

tstep "the browser drives the page (waiting up to ${WAIT}s for it)"
wait_for "$DONE" "$WAIT" || die "the browser did not finish within ${WAIT}s"
verdict=$(cat "$DONE")
log "the browser says: $verdict"
assert_eq ok "$verdict" "the browser's verdict"

tstep "what the page did is in the kernel"
assert_eq sbd-cockpit "$(cat /sys/devices/system/sbd/sbd0/label)" "sbd0's label, set in the page"
assert_not_exists /sys/devices/system/sbd/sbd5
assert_eq "2" "$(cat /sys/bus/sbd/drivers/sbd/ndevices)" "disks after the page's load, add and remove"
journalctl -u sbdd --no-pager -q | tail -n 20 | sed 's/^/    /'
systemctl stop sbd-cockpit-ws.service
