# shellcheck shell=bash
# Shared helpers of ./run-demo, ./run-tests, .ci/install-deps and tests/vm/run-vm.
# Source it; it defines functions and sets nothing but SBD_SOURCE_DIR (if unset).

: "${SBD_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

sbd_say() { printf '==> %s\n' "$*"; }
sbd_warn() { printf '!!! %s\n' "$*" >&2; }
sbd_die() { printf '!!! %s\n' "$*" >&2; exit 1; }

# The kernel release everything is built for and booted: $SBD_KREL if set,
# else what module/kernel-release.sh says (the one rule of the project: the
# release Debian's linux-headers-amd64 metapackage pulls in, 6.1 on Debian 12,
# else the newest installed headers with a /boot/vmlinuz of the same
# version). Extra headers (6.12, for compile checks only) do not move it.
sbd_kernel_release() {
	if [[ -n ${SBD_KREL:-} ]]; then
		printf '%s\n' "$SBD_KREL"
		return 0
	fi
	"$SBD_SOURCE_DIR/module/kernel-release.sh" ||
		sbd_die "no kernel headers with a matching /boot/vmlinuz: run .ci/install-deps"
}

# The kernel series the module must build for (a compile check each, run-tests)
# and the VM layers boot: Debian 12's default and its newer one.
sbd_kernel_series() { echo 6.1 6.12; }

# sbd_build BUILD_DIR [MESON_SETUP_ARGS...]: configure once, then compile.
# The developer's build: the test suites and their tooling (-Dtests=true)
# and sbd.ko (-Dmodule=enabled), which a plain `meson setup` leaves out or
# builds only when it can. With --werror among the arguments, sbd.ko is
# built with W=1 -Werror too, and an existing build dir is switched to it.
sbd_build() {
	local builddir=$1 krel arg
	shift
	krel=$(sbd_kernel_release)
	local opts=(-Dkernel_release="$krel" -Dtests=true -Dmodule=enabled) werror=()
	for arg in "$@"; do
		[[ $arg == --werror ]] && opts+=(-Dmodule_werror=true) && werror=(-Dwerror=true)
	done
	if [[ ! -f $builddir/build.ninja ]]; then
		sbd_say "meson setup $builddir (kernel $krel) $*"
		meson setup "$builddir" "$SBD_SOURCE_DIR" "${opts[@]}" "$@"
	else
		meson configure "$builddir" "${opts[@]}" "${werror[@]}" >/dev/null
	fi
	sbd_say "meson compile -C $builddir"
	meson compile -C "$builddir"
}
