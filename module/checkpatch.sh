#!/bin/bash
# Run the kernel's checkpatch.pl on the module's sources, failing on any
# ERROR, WARNING or CHECK.  The script is not in the headers packages, so
# take it from Debian's linux-source tarball.
#   checkpatch.sh WORKDIR SOURCE...
set -euo pipefail

work=$1
shift
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
if [ -z "$tarball" ]; then
	echo "checkpatch: no /usr/src/linux-source-*.tar.xz (install linux-source-6.1)" >&2
	exit 1
fi
top=$(basename "$tarball" .tar.xz)
script=$work/$top/scripts/checkpatch.pl
if [ ! -x "$script" ]; then
	mkdir -p "$work"
	tar -xJf "$tarball" -C "$work" "$top/scripts/checkpatch.pl" \
		"$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch"
fi
"$script" --no-tree --strict --show-types -f "$@" | tee "$work/checkpatch.log"
# checkpatch exits 0 on CHECK-only findings: count them ourselves.
! grep -qE '^(ERROR|WARNING|CHECK):' "$work/checkpatch.log"
