#!/bin/bash
# test-dkms.sh STAGE_DIR: meson test 'install-dkms' (suite install).
#
# The module sources `meson install` put in STAGE_DIR/usr/src/sbd-VERSION
# are what an administrator hands to DKMS: `dkms add` and `dkms build` them
# for the kernel release the project builds against, and check the result
# is an sbd.ko of that release and version. Runs as root in a private mount
# namespace with a tmpfs over /var/lib/dkms, so neither the host's DKMS
# tree nor its module signing key (dkms makes one on first build) is
# touched; `dkms install` (which writes /lib/modules and runs depmod) is
# tested in the systemd VM scenario, where sbd-dkms's postinst runs it.
# dkms.conf's BUILD_EXCLUSIVE_KERNEL must take every kernel whose headers
# are installed (the module suite builds against each) and refuse others.
#
# Environment: SBD_VERSION, SBD_KREL.
set -euo pipefail

stage=${1:?usage: test-dkms.sh STAGE_DIR}
: "${SBD_VERSION:?}"
krel=${SBD_KREL:-}
src=$stage/usr/src/sbd-$SBD_VERSION

fail() {
	echo "FAIL $*"
	exit 1
}
((EUID == 0)) || fail "dkms needs root (this test runs as uid $EUID)"
command -v dkms >/dev/null || fail "dkms is not installed (Debian package dkms)"
[[ -n $krel ]] || fail "no kernel release: no linux-headers-*-amd64 installed"
[[ -d /usr/src/linux-headers-$krel ]] || fail "no headers for $krel"
[[ -f $src/dkms.conf ]] || fail "no $src/dkms.conf"

if [[ -z ${SBD_DKMS_NS:-} ]]; then
	exec env SBD_DKMS_NS=1 unshare --mount --propagation private "$0" "$@"
fi

mount -t tmpfs -o mode=0755 sbd-dkms-test /var/lib/dkms
tree=/var/lib/dkms
# --sourcetree: dkms finds sbd-VERSION in the staged /usr/src.
dk() { dkms "$@" --sourcetree "$stage/usr/src" --dkmstree "$tree" -k "$krel"; }

echo "# dkms add sbd/$SBD_VERSION"
dkms add -m sbd -v "$SBD_VERSION" --sourcetree "$stage/usr/src" --dkmstree "$tree" ||
	fail "dkms add"
echo "# dkms build sbd/$SBD_VERSION -k $krel"
if ! dk build -m sbd -v "$SBD_VERSION"; then
	cat "$tree/sbd/$SBD_VERSION/build/make.log" 2>/dev/null || true
	fail "dkms build"
fi
status=$(dkms status -m sbd -v "$SBD_VERSION" --dkmstree "$tree" -k "$krel")
echo "dkms status: $status"
[[ $status == *"sbd/$SBD_VERSION, $krel, "*": built"* ]] || fail "dkms status does not say built: $status"

# The declared kernels: every installed headers release is among them,
# and DKMS refuses one outside (exit 77, its "BUILD_EXCLUSIVE" message).
exclusive=$(set +u && . "$src/dkms.conf" && echo "$BUILD_EXCLUSIVE_KERNEL")
[[ -n $exclusive ]] || fail "dkms.conf declares no BUILD_EXCLUSIVE_KERNEL"
for h in /usr/src/linux-headers-*-amd64; do
	rel=${h#/usr/src/linux-headers-}
	[[ $rel =~ $exclusive ]] || fail "dkms.conf's BUILD_EXCLUSIVE_KERNEL $exclusive refuses the installed $rel"
	echo "ok   $rel is a declared kernel"
done
for rel in 5.10.0-99-amd64 6.15.0-1-amd64; do
	rc=0
	out=$(dkms build -m sbd -v "$SBD_VERSION" --sourcetree "$stage/usr/src" --dkmstree "$tree" -k "$rel" 2>&1) || rc=$?
	[[ $rc == 77 && $out == *"BUILD_EXCLUSIVE directive which does not match"* ]] ||
		fail "dkms build for $rel (outside the declared kernels): status $rc: $out"
	echo "ok   dkms refuses $rel (BUILD_EXCLUSIVE_KERNEL)"
done

ko=$(find "$tree/sbd/$SBD_VERSION/$krel" -name 'sbd.ko*' | head -n 1)
[[ -n $ko ]] || fail "no sbd.ko in the dkms tree"
case $ko in
*.xz) xz -dc "$ko" >"$tree/sbd.ko" ;;
*.zst) zstd -qdc "$ko" >"$tree/sbd.ko" ;;
*.gz) gzip -dc "$ko" >"$tree/sbd.ko" ;;
*) cp "$ko" "$tree/sbd.ko" ;;
esac
vermagic=$(modinfo -F vermagic "$tree/sbd.ko")
version=$(modinfo -F version "$tree/sbd.ko")
[[ $vermagic == "$krel "* ]] || fail "vermagic '$vermagic', expected $krel"
[[ $version == "$SBD_VERSION" ]] || fail "module version '$version', expected $SBD_VERSION"
echo "ok   $ko: vermagic $krel, version $version"
