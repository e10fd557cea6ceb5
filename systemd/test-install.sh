#!/bin/bash
# test-install.sh STAGE_DIR: meson test 'install-files' (suite install).
#
# STAGE_DIR holds `meson install --destdir` of a build configured with
# --prefix=/usr --sysconfdir=/etc (stage-install.sh): the layout of a
# package. Checked: the exact file list, modes, the paths inside the unit
# and the activation file, `systemd-analyze verify` of the installed unit
# (in a --root holding the stage and the host's own units, so that
# ExecStart= and Documentation= must resolve inside the installed tree),
# the XML files parse, the sample configuration is accepted by the
# installed sbdd. Then the build tree itself (its own --prefix, by default
# /usr/local) is installed into a DESTDIR: it must hold the same files,
# each below that prefix, exactly where `meson introspect` says.
#
# Environment: SBD_SOURCE_DIR, SBD_BUILD_DIR, SBD_PREFIX, SBD_VERSION,
# SBD_GUI (1 when sbd-manager is built).
set -euo pipefail

stage=${1:?usage: test-install.sh STAGE_DIR}
: "${SBD_BUILD_DIR:?}" "${SBD_PREFIX:?}" "${SBD_VERSION:?}" "${SBD_GUI:?}"
py=/usr/bin/python3
tmp=$(mktemp -d /tmp/sbd-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

failed=0
ok() { printf 'ok   %s\n' "$*"; }
bad() {
	printf 'FAIL %s\n' "$*"
	failed=$((failed + 1))
}
check() { # check WHAT CMD...
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$what"; else bad "$what: ${out:-status $?}"; fi
}

# systemd's unit directory for prefix /usr, as systemd.pc says (Debian 12:
# /lib/systemd/system, where debhelper looks), relative to /.
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd)
unitdir=${unitdir#/}
# The files a package holds, relative to / (prefix /usr, sysconfdir /etc).
expected_files() {
	local src=usr/src/sbd-$SBD_VERSION f
	printf '%s\n' \
		etc/sbd/sbdd.conf \
		usr/bin/sbdctl \
		"$unitdir/sbdd.service" \
		usr/sbin/sbdd \
		usr/share/bash-completion/completions/sbdctl \
		usr/share/dbus-1/interfaces/org.sbd.Sbd1.xml \
		usr/share/dbus-1/system-services/org.sbd.Sbd1.service \
		usr/lib/systemd/catalog/sbdd.catalog \
		usr/share/dbus-1/system.d/org.sbd.Sbd1.conf \
		usr/share/doc/sbdd/org.sbd.Sbd1.rst \
		usr/share/man/man1/sbdctl.1 \
		usr/share/man/man8/sbdd.8 \
		usr/share/polkit-1/actions/org.sbd.sbd1.policy \
		"$unitdir/sbd-prometheus.service" \
		"$unitdir/sbd-prometheus.timer" \
		usr/libexec/sbd-prometheus \
		usr/lib/sysusers.d/sbd-prometheus.conf \
		usr/share/man/man8/sbd-prometheus.8 \
		usr/share/doc/sbd-prometheus/examples/sbd-alerts.yml \
		usr/share/doc/sbd-prometheus/examples/sbd-alerts.test.yml \
		usr/share/metainfo/org.sbd.cockpit.metainfo.xml
	# the Cockpit page (meson option cockpit, on by default)
	for f in manifest.json index.html sbd.css sbd.js disks.js ui.js units.js; do
		echo "usr/share/cockpit/sbd/$f"
	done
	for f in Kbuild Makefile dkms.conf sbd.h sbd_compat.h sbd_disk.c sbd_io.c sbd_main.c \
		sbd_mq.c sbd_registry.c sbd_store.c sbd_sysfs.c; do
		echo "$src/$f"
	done
	if [[ $SBD_GUI == 1 ]]; then
		printf '%s\n' usr/bin/sbd-manager usr/share/applications/org.sbd.Manager.desktop \
			usr/share/man/man1/sbd-manager.1 usr/share/metainfo/org.sbd.Manager.metainfo.xml \
			usr/share/locale/de/LC_MESSAGES/sbd-manager.mo
	fi
}

file_list() { (cd "$1" && find . \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort); }

echo "# the packaged layout ($stage)"
[[ -d $stage ]] || { echo "FAIL no stage directory $stage"; exit 1; }
expected_files | LC_ALL=C sort >"$tmp/expected"
file_list "$stage" >"$tmp/staged"
if diff -u "$tmp/expected" "$tmp/staged" >"$tmp/diff"; then
	ok "file list ($(wc -l <"$tmp/staged") files)"
else
	bad "file list differs (- expected, + installed):"
	cat "$tmp/diff"
fi

mode_is() { # mode_is OCTAL FILE...
	local m=$1 f got
	shift
	for f in "$@"; do
		[[ -e $stage/$f ]] || continue
		got=$(stat -c %a "$stage/$f")
		[[ $got == "$m" ]] && ok "mode $m $f" || bad "mode of $f is $got, expected $m"
	done
}
mode_is 755 usr/sbin/sbdd usr/bin/sbdctl usr/libexec/sbd-prometheus
mode_is 644 etc/sbd/sbdd.conf "$unitdir/sbdd.service" usr/lib/systemd/catalog/sbdd.catalog \
	usr/share/dbus-1/system.d/org.sbd.Sbd1.conf \
	usr/share/dbus-1/system-services/org.sbd.Sbd1.service \
	usr/share/polkit-1/actions/org.sbd.sbd1.policy "usr/src/sbd-$SBD_VERSION/dkms.conf"

unit=$stage/$unitdir/sbdd.service
activation=$stage/usr/share/dbus-1/system-services/org.sbd.Sbd1.service
has_line() { # has_line FILE LINE
	grep -qxF -- "$2" "$1" && ok "$(basename "$1"): $2" || bad "$(basename "$1") lacks the line '$2'"
}
has_line "$unit" "Type=dbus"
has_line "$unit" "BusName=org.sbd.Sbd1"
has_line "$unit" "ExecStart=/usr/sbin/sbdd --uevent-source=kernel"
has_line "$activation" "Name=org.sbd.Sbd1"
has_line "$activation" "Exec=/usr/sbin/sbdd"
has_line "$activation" "User=root"
has_line "$activation" "SystemdService=sbdd.service"
has_line "$stage/usr/src/sbd-$SBD_VERSION/dkms.conf" "PACKAGE_VERSION=\"$SBD_VERSION\""
if grep -n '@[a-z_]*@' "$unit" "$activation" "$stage/usr/share/man/man8/sbdd.8" >"$tmp/unsubst"; then
	bad "unsubstituted @variables@: $(cat "$tmp/unsubst")"
else
	ok "no @variable@ left unsubstituted"
fi

# systemd-analyze verify inside a root made of the stage plus the host's
# units (sysinit.target, dbus.socket, ...): the binary and the man pages
# must be found in the installed tree, not on the host.
root=$tmp/root
cp -a "$stage" "$root"
cp -an "/$unitdir/." "$root/$unitdir/"
check "systemd-analyze verify (root = the stage)" \
	env MANPATH="$stage/usr/share/man" systemd-analyze verify --root="$root" \
	"/$unitdir/sbdd.service"
# ... and it would fail without the binary: the check above is real.
mv "$root/usr/sbin/sbdd" "$root/usr/sbin/sbdd.moved"
if env MANPATH="$stage/usr/share/man" systemd-analyze verify --root="$root" \
	"/$unitdir/sbdd.service" >/dev/null 2>&1; then
	bad "systemd-analyze verify passes even without /usr/sbin/sbdd in the root"
else
	ok "systemd-analyze verify fails when /usr/sbin/sbdd is missing"
fi

for x in usr/share/dbus-1/interfaces/org.sbd.Sbd1.xml usr/share/dbus-1/system.d/org.sbd.Sbd1.conf \
	usr/share/polkit-1/actions/org.sbd.sbd1.policy; do
	check "$x is well-formed XML" "$py" -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$stage/$x"
done
actions=$("$py" -c 'import sys, xml.dom.minidom as m
print(" ".join(sorted(a.getAttribute("id") for a in m.parse(sys.argv[1]).getElementsByTagName("action"))))' \
	"$stage/usr/share/polkit-1/actions/org.sbd.sbd1.policy")
[[ $actions == "org.sbd.sbd1.manage-devices org.sbd.sbd1.manage-module org.sbd.sbd1.set-attribute" ]] &&
	ok "polkit actions: $actions" || bad "polkit actions: $actions"

check "installed sbdd --version" sh -c '"$1" --version | grep -qx "sbdd $2"' sh "$stage/usr/sbin/sbdd" "$SBD_VERSION"
# The sample configuration parses: sbdd gets past it and fails only at
# connecting to a bus that does not exist.
out=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus "$stage/usr/sbin/sbdd" --no-load \
	--config="$stage/etc/sbd/sbdd.conf" 2>&1 || true)
[[ $out == *"Cannot connect to the system bus"* && $out != *"$stage/etc"* ]] &&
	ok "the sample sbdd.conf is accepted" || bad "the sample sbdd.conf: $out"

echo "# the build tree's own install (prefix $SBD_PREFIX)"
dest=$tmp/destdir
if meson install -C "$SBD_BUILD_DIR" --no-rebuild --destdir "$dest" >"$tmp/install.log" 2>&1; then
	ok "meson install --destdir"
else
	bad "meson install --destdir failed: $(tail -5 "$tmp/install.log")"
fi
file_list "$dest" >"$tmp/installed"
# Where meson says each file goes (data, targets and configured files).
"$py" -c 'import json, sys
for v in json.load(sys.stdin).values(): print(v.lstrip("/"))' \
	< <(meson introspect "$SBD_BUILD_DIR" --installed) | LC_ALL=C sort -u >"$tmp/introspected"
if diff -u "$tmp/introspected" "$tmp/installed" >"$tmp/diff"; then
	ok "DESTDIR holds exactly what meson introspect --installed lists"
else
	bad "DESTDIR differs from meson introspect --installed:"
	cat "$tmp/diff"
fi
outside=$(grep -v "^${SBD_PREFIX#/}/" "$tmp/installed" | grep -v '^etc/' || true)
[[ -z $outside ]] && ok "every file below DESTDIR$SBD_PREFIX (or etc/)" || bad "files outside the prefix: $outside"
if [[ $SBD_PREFIX != /usr ]]; then
	# The same layout as the package's, moved under the prefix.
	sysconf=$(meson introspect "$SBD_BUILD_DIR" --buildoptions |
		"$py" -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "sysconfdir"][0])')
	[[ $sysconf == /* ]] || sysconf=$SBD_PREFIX/$sysconf
	sed -e "s#^usr/#${SBD_PREFIX#/}/#" -e "s#^etc/#${sysconf#/}/#" \
		-e "s#^$unitdir/#${SBD_PREFIX#/}/lib/systemd/system/#" "$tmp/expected" | LC_ALL=C sort >"$tmp/expected-prefix"
	if diff -u "$tmp/expected-prefix" "$tmp/installed" >"$tmp/diff"; then
		ok "the package's layout, moved to $SBD_PREFIX (sysconfdir $sysconf)"
	else
		bad "layout under $SBD_PREFIX differs (- expected, + installed):"
		cat "$tmp/diff"
	fi
	has_line "$dest$SBD_PREFIX/lib/systemd/system/sbdd.service" "ExecStart=$SBD_PREFIX/sbin/sbdd --uevent-source=kernel"
	has_line "$dest$SBD_PREFIX/share/dbus-1/system-services/org.sbd.Sbd1.service" "Exec=$SBD_PREFIX/sbin/sbdd"
fi

echo "# $failed failure(s)"
((failed == 0))
