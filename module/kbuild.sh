#!/bin/bash
# Build sbd.ko out of the source tree: Kbuild of a 6.1 kernel writes its
# objects next to the sources, so copy them into a directory of the build
# tree and build there.
#   kbuild.sh [--werror] KDIR OUTPUT_KO SOURCE...
# --werror: W=1 (the extra warnings) and any warning fails the build; the
# module suite and CI ask for it, a packager's build does not.
set -euo pipefail

flags=()
if [ "${1:-}" = --werror ]; then
	flags=(W=1 KCFLAGS=-Werror)
	shift
fi
kdir=$1 output=$2
shift 2
work=$(realpath -m "$(dirname "$output")/kbuild-$(basename "$kdir")")
mkdir -p "$work"
for src in "$@"; do
	cmp -s "$src" "$work/$(basename "$src")" || cp "$src" "$work/"
done
status=0
make -s -C "$kdir" M="$work" "${flags[@]}" modules >"$work/build.log" 2>&1 || status=$?
grep -v 'Skipping BTF generation' "$work/build.log" >&2 || true
if [ "$status" -ne 0 ]; then
	echo "kbuild: building sbd.ko against $kdir failed" >&2
	exit "$status"
fi
cp "$work/sbd.ko" "$output"
