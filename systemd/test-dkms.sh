#!/bin/bash
# test-dkms.sh STAGE_DIR: meson test 'install-dkms' (suite install).
#
# The module sources `meson install` put in STAGE_DIR/usr/src/sbd-VERSION
# are what an administrator hands to DKMS: `dkms add` and `dkms build` them
# for every kernel release whose headers are installed (the project's, 6.12,
# the PREEMPT_RT and cloud flavours), and check each result is an sbd.ko of
# that release and version. Runs as root in a private mount
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

# Every kernel whose headers are installed: the project's ($SBD_KREL) and
# the other series and flavours .ci/install-deps puts there (6.12; the
# PREEMPT_RT kernels of both series and 6.1's cloud flavour, issue 20
# point 9): DKMS must build sbd.ko for each a user may run.
releases=()
for h in /usr/src/linux-headers-*-amd64; do
	[[ -d $h ]] && releases+=("${h#/usr/src/linux-headers-}")
done
[[ " ${releases[*]} " == *" $krel "* ]] || fail "the project's kernel $krel is not among the installed headers: ${releases[*]}"
for flavour in rt cloud; do
	[[ " ${releases[*]} " == *"-$flavour-amd64 "* ]] ||
		fail "no linux-headers-*-$flavour-amd64 installed (run .ci/install-deps): DKMS on the $flavour kernels untested"
done

echo "# dkms add sbd/$SBD_VERSION"
dkms add -m sbd -v "$SBD_VERSION" --sourcetree "$stage/usr/src" --dkmstree "$tree" ||
	fail "dkms add"

# dkms_built REL: dkms build for REL, and the sbd.ko it made is one of REL
# and of this version.
dkms_built() {
	local rel=$1 status ko vermagic version t0=$SECONDS
	echo "# dkms build sbd/$SBD_VERSION -k $rel"
	if ! dkms build -m sbd -v "$SBD_VERSION" --sourcetree "$stage/usr/src" --dkmstree "$tree" -k "$rel"; then
		cat "$tree/sbd/$SBD_VERSION/build/make.log" 2>/dev/null || true
		fail "dkms build for $rel"
	fi
	status=$(dkms status -m sbd -v "$SBD_VERSION" --dkmstree "$tree" -k "$rel")
	echo "dkms status: $status"
	[[ $status == *"sbd/$SBD_VERSION, $rel, "*": built"* ]] || fail "dkms status does not say built for $rel: $status"
	ko=$(find "$tree/sbd/$SBD_VERSION/$rel" -name 'sbd.ko*' | head -n 1)
	[[ -n $ko ]] || fail "no sbd.ko for $rel in the dkms tree"
	case $ko in
	*.xz) xz -dc "$ko" >"$tree/sbd.ko" ;;
	*.zst) zstd -qdc "$ko" >"$tree/sbd.ko" ;;
	*.gz) gzip -dc "$ko" >"$tree/sbd.ko" ;;
	*) cp "$ko" "$tree/sbd.ko" ;;
	esac
	vermagic=$(modinfo -F vermagic "$tree/sbd.ko")
	version=$(modinfo -F version "$tree/sbd.ko")
	[[ $vermagic == "$rel "* ]] || fail "vermagic '$vermagic', expected $rel"
	[[ $version == "$SBD_VERSION" ]] || fail "module version '$version', expected $SBD_VERSION"
	# Where the kernel's own modules are installed (the booted kernels),
	# sbd.ko's vermagic must be theirs, preemption model included (6.1-rt
	# says preempt_rt, 6.12-rt preempt, as its generic sibling does).
	# The cloud flavour has only its headers here: its release is checked.
	local own
	own=$(modinfo -k "$rel" -F vermagic 9p 2>/dev/null || true)
	if [[ -n $own ]]; then
		[[ $vermagic == "$own" ]] || fail "vermagic '$vermagic', the kernel's own modules have '$own'"
	elif [[ -d /lib/modules/$rel/kernel ]]; then
		fail "no 9p module of $rel to compare sbd.ko's vermagic with"
	fi
	echo "ok   $ko: vermagic $vermagic, version $version ($((SECONDS - t0)) s)"
}
for rel in "${releases[@]}"; do
	dkms_built "$rel"
done

# The declared kernels: every installed headers release is among them,
# and DKMS refuses one outside (exit 77, its "BUILD_EXCLUSIVE" message).
exclusive=$(set +u && . "$src/dkms.conf" && echo "$BUILD_EXCLUSIVE_KERNEL")
[[ -n $exclusive ]] || fail "dkms.conf declares no BUILD_EXCLUSIVE_KERNEL"
for rel in "${releases[@]}"; do
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
