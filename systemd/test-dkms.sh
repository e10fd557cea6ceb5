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
# left to the administrator (docs/install.md).
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
