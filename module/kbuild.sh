#!/bin/bash
# Build sbd.ko out of the source tree: Kbuild of a 6.1 kernel writes its
# objects next to the sources, so copy them into a directory of the build
# tree and build there.
#   kbuild.sh KDIR OUTPUT_KO SOURCE...
set -euo pipefail

kdir=$1 output=$2
shift 2
work=$(realpath -m "$(dirname "$output")/kbuild-$(basename "$kdir")")
mkdir -p "$work"
for src in "$@"; do
	cmp -s "$src" "$work/$(basename "$src")" || cp "$src" "$work/"
done
# W=1: the extra warnings; any warning fails the build.
status=0
make -s -C "$kdir" M="$work" W=1 KCFLAGS=-Werror modules >"$work/build.log" 2>&1 || status=$?
grep -v 'Skipping BTF generation' "$work/build.log" >&2 || true
if [ "$status" -ne 0 ]; then
	echo "kbuild: building sbd.ko against $kdir failed" >&2
	exit "$status"
fi
cp "$work/sbd.ko" "$output"
