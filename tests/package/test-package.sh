#!/bin/bash
# test-package.sh SOURCE_DIR DEBS_DIR: meson test 'package-debs' (suite
# package). Builds the Debian packages (build-debs.sh: dpkg-buildpackage
# -us -uc -b in a clean copy, skipped when they are up to date) and checks
# what a distribution would: lintian gives no error and no warning (the
# overrides in debian/*.lintian-overrides say why), each package holds its
# files and only those, the dependencies and maintainer scripts are the
# ones debian/ asks for. Installing them is the systemd VM scenario's job.
set -euo pipefail

src=${1:?usage: test-package.sh SOURCE_DIR DEBS_DIR} out=${2:?usage: test-package.sh SOURCE_DIR DEBS_DIR}
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
"$here/build-debs.sh" "$src" "$out"
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
tmp=$(mktemp -d /tmp/sbd-package-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

failed=0
ok() { printf 'ok   %s\n' "$*"; }
bad() {
	printf 'FAIL %s\n' "$*"
	failed=$((failed + 1))
}
deb() { # deb PACKAGE: its .deb
	local f
	f=$(compgen -G "$out/${1}_${version}_*.deb" | head -n 1 || true)
	[[ -n $f ]] || { bad "no $1 package in $out"; return 1; }
	echo "$f"
}

echo "# lintian (build: $(cat "$out/build-seconds" 2>/dev/null || echo '?')s)"
command -v lintian >/dev/null || { echo "FAIL lintian is not installed (package lintian)"; exit 1; }
changes=$(compgen -G "$out/*.changes" | head -n 1 || true)
[[ -n $changes ]] || { echo "FAIL no .changes in $out"; exit 1; }
if lintian --fail-on error,warning --display-info --pedantic --tag-display-limit 0 "$changes" \
	>"$tmp/lintian" 2>&1; then
	ok "lintian: no error, no warning"
else
	bad "lintian:"
fi
grep -v '^running with root privileges' "$tmp/lintian" | sed 's/^/     /' || true

# files PACKAGE FILE...: the package holds exactly these (besides doc/)
files() {
	local pkg=$1 d
	shift
	d=$(deb "$pkg") || return 0
	dpkg-deb -c "$d" | awk '{print $6}' | grep -v '/$' | sed 's#^\./##' |
		grep -Ev "^usr/share/doc/$pkg/(changelog\.gz|copyright)$" | LC_ALL=C sort >"$tmp/$pkg.files"
	printf '%s\n' "$@" | LC_ALL=C sort >"$tmp/$pkg.expected"
	if diff -u "$tmp/$pkg.expected" "$tmp/$pkg.files" >"$tmp/diff"; then
		ok "$pkg holds its $# files"
	else
		bad "$pkg's files differ (- expected, + packaged):"
		cat "$tmp/diff"
	fi
}
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd)
files sbdd etc/sbd/sbdd.conf "${unitdir#/}/sbdd.service" usr/sbin/sbdd usr/lib/systemd/catalog/sbdd.catalog \
	usr/share/dbus-1/interfaces/org.sbd.Sbd1.xml usr/share/dbus-1/system-services/org.sbd.Sbd1.service \
	usr/share/dbus-1/system.d/org.sbd.Sbd1.conf usr/share/doc/sbdd/org.sbd.Sbd1.rst usr/share/man/man8/sbdd.8.gz \
	usr/share/polkit-1/actions/org.sbd.sbd1.policy
files sbdctl usr/bin/sbdctl usr/share/bash-completion/completions/sbdctl usr/share/man/man1/sbdctl.1.gz
files sbd-manager usr/bin/sbd-manager usr/share/applications/org.sbd.Manager.desktop usr/share/metainfo/org.sbd.Manager.metainfo.xml \
	usr/share/man/man1/sbd-manager.1.gz usr/share/locale/de/LC_MESSAGES/sbd-manager.mo
files cockpit-sbd usr/share/metainfo/org.sbd.cockpit.metainfo.xml usr/share/lintian/overrides/cockpit-sbd \
	usr/share/cockpit/sbd/{manifest.json,index.html,sbd.css,sbd.js,disks.js,ui.js,units.js}
mapfile -t module_files < <(cd "$src/module" && printf "usr/src/sbd-$version/%s\n" Kbuild Makefile dkms.conf \
	sbd*.[ch])
files sbd-dkms "${module_files[@]}"
files sbd-prometheus "${unitdir#/}/sbd-prometheus.service" "${unitdir#/}/sbd-prometheus.timer" \
	usr/libexec/sbd-prometheus usr/lib/sysusers.d/sbd-prometheus.conf usr/share/man/man8/sbd-prometheus.8.gz usr/share/doc/sbd-prometheus/examples/sbd-alerts.yml \
	usr/share/doc/sbd-prometheus/examples/sbd-alerts.test.yml

# field PACKAGE FIELD ERE: a control field matches
field() {
	local d v
	d=$(deb "$1") || return 0
	v=$(dpkg-deb -f "$d" "$2")
	[[ $v =~ $3 ]] && ok "$1 $2: $v" || bad "$1 $2 is '$v', expected /$3/"
}
field sbdd Depends '(^|, )libsystemd0 \(>= 252\)'
field sbdd Depends '(^|, )libkmod2 '
field sbdd Depends '(^|, )default-dbus-system-bus \| dbus-system-bus($|,)'
field sbdd Recommends 'sbd-dkms'
field sbdctl Depends '(^|, )libsystemd0 '
field sbd-manager Depends '(^|, )libgtk-4-1 '
# dh_dkms asks for a DKMS that knows BUILD_EXCLUSIVE_CONFIG (dkms.conf).
field sbd-dkms Depends '^dkms \(>= 3\.0\.3-4~\)$'
field sbd-dkms Architecture '^all$'
field sbd-prometheus Architecture '^all$'
field sbd-prometheus Depends '(^|, )python3-gi($|,)'
field cockpit-sbd Architecture '^all$'
field cockpit-sbd Depends '(^|, )cockpit-bridge, sbdd($|,)'

# script PACKAGE SCRIPT ERE: a maintainer script (or control file) has a line
script() {
	local d
	d=$(deb "$1") || return 0
	rm -rf "$tmp/ctl" && dpkg-deb -e "$d" "$tmp/ctl"
	grep -Eq -- "$3" "$tmp/ctl/$2" 2>/dev/null && ok "$1 $2 has /$3/" || bad "$1 $2 lacks /$3/"
}
# The unit is enabled again on upgrade only if it was (dh_installsystemd
# --no-enable: D-Bus activation starts it; the VM scenario checks that a
# fresh install leaves it disabled) ...
script sbdd postinst "if deb-systemd-helper --quiet was-enabled 'sbdd.service'; then"
# ... started on install, restarted on upgrade, through deb-systemd-invoke,
# which leaves a disabled unit alone unless it runs (the VM scenario shows
# that installing starts nothing); stopped on removal, forgotten on purge.
script sbdd postinst "deb-systemd-invoke \\\$_dh_action 'sbdd.service'"
script sbdd postinst '_dh_action=restart'
script sbdd prerm "deb-systemd-invoke stop 'sbdd.service'"
script sbdd postrm "deb-systemd-helper purge 'sbdd.service'"
script sbdd conffiles '^/etc/sbd/sbdd\.conf$'
# DKMS: add, build and install on configure, remove on removal.
script sbd-dkms postinst '/usr/lib/dkms/common\.postinst'
script sbd-dkms postinst '^DKMS_NAME=sbd$'
script sbd-dkms postinst "^DKMS_VERSION=$version\$"
script sbd-dkms prerm 'dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all'
# sbd-prometheus: its system user made, the timer enabled and started on install.
script sbd-prometheus postinst 'systemd-sysusers .*sbd-prometheus\.conf'
script sbd-prometheus postinst "deb-systemd-helper enable 'sbd-prometheus.timer'"
script sbd-prometheus postinst "deb-systemd-invoke \\\$_dh_action 'sbd-prometheus.timer'"

echo "# $failed failure(s)"
((failed == 0))
