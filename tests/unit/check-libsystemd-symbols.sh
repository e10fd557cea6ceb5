#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-libsystemd-symbols.sh BINARY MIN: BINARY needs no libsystemd symbol
# newer than version MIN, the minimum its meson.build asks for (otherwise
# it builds against an older libsystemd and fails to start).
set -eu
bin=$1 min=$2
command -v objdump >/dev/null || { echo "objdump (binutils) is missing" >&2; exit 1; }
versions=$(objdump -T "$bin" | grep -o 'LIBSYSTEMD_[0-9]*' | sed 's/LIBSYSTEMD_//' | sort -n | uniq)
[ -n "$versions" ] || { echo "$bin uses no libsystemd symbol: wrong binary?" >&2; exit 1; }
newest=$(echo "$versions" | tail -n 1)
if [ "$newest" -gt "$min" ]; then
	echo "$bin uses symbols of libsystemd $newest but asks for >= $min:" >&2
	objdump -T "$bin" | grep "LIBSYSTEMD_$newest" >&2
	exit 1
fi
echo "newest libsystemd symbol version: $newest (minimum asked: $min)"
