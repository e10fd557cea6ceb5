#!/bin/bash
# stage-install.sh SOURCE_DIR BUILD_DIR STAGE_DIR KERNEL_RELEASE GUI STAMP
#
# Installs SBD the way a distribution package would lay it out: a build
# directory of its own configured with --prefix=/usr --sysconfdir=/etc
# (made once, then rebuilt incrementally; set up again when the options
# change), installed into STAGE_DIR with DESTDIR. GUI is enabled or
# disabled, as the calling build found GTK 4. The install tests check that
# tree and the systemd VM scenario copies it into the guest's /.
set -euo pipefail

src=$1 build=$2 stage=$3 krel=$4 gui=$5 stamp=$6

args=(--prefix=/usr --sysconfdir=/etc --localstatedir=/var --buildtype=debugoptimized
	-Dtests=false -Dmodule=disabled -Dgui="$gui")
[[ -n $krel ]] && args+=(-Dkernel_release="$krel")
if [[ ! -f $build/build.ninja || "$(cat "$build.args" 2>/dev/null)" != "${args[*]}" ]]; then
	rm -rf "$build"
	meson setup "$build" "$src" "${args[@]}" >"$build.setup.log" 2>&1 ||
		{ cat "$build.setup.log" >&2; exit 1; }
	echo "${args[*]}" >"$build.args"
fi
meson compile -C "$build" >"$build.compile.log" 2>&1 || { tail -40 "$build.compile.log" >&2; exit 1; }
rm -rf "$stage"
meson install -C "$build" --no-rebuild --destdir "$stage" >"$build.install.log" 2>&1 ||
	{ cat "$build.install.log" >&2; exit 1; }
touch "$stamp"
