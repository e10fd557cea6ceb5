#!/bin/bash
# build-debs.sh SOURCE_DIR OUT_DIR: the Debian packages of SOURCE_DIR, the
# way a packager builds them (`dpkg-buildpackage -us -uc -b` in a clean
# copy of the tree), into OUT_DIR: sbdd_*.deb, sbdctl_*.deb,
# sbd-manager_*.deb, sbd-dkms_*.deb, the .changes and the build log.
# Skipped when OUT_DIR/debs.stamp is newer than every source file, so the
# package test and the systemd VM scenarios share one build; a lock keeps
# two callers from building at once. The time the build took is printed
# and kept in OUT_DIR/build-seconds.
set -euo pipefail

src=$(realpath "${1:?usage: build-debs.sh SOURCE_DIR OUT_DIR}")
out=$(realpath -m "${2:?usage: build-debs.sh SOURCE_DIR OUT_DIR}")
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9

# source_files [FIND-TESTS...]: every file of the tree but build
# directories and VCS data (.gitignore's /build*/), what the package is
# built from (that also passes the tests).
source_files() {
	(cd "$src" && find . \( -path './build*' -o -name .git -o -name __pycache__ \) -prune -o \
		\( -type f -o -type l \) "$@" -print)
}
stamp=$out/debs.stamp
if [[ -f $stamp && -z $(source_files -newer "$stamp" | head -n 1) ]]; then
	echo "build-debs: $out is up to date ($(ls "$out"/*.deb | wc -l) packages)"
	exit 0
fi

command -v dpkg-buildpackage >/dev/null || { echo "build-debs: no dpkg-buildpackage (package dpkg-dev)" >&2; exit 1; }
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
name=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Source)
work=$out/work
rm -rf "$work" "$stamp" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$work/$name-$version"
(cd "$src" && source_files | tar -cf - --no-recursion -T -) | tar -C "$work/$name-$version" -xf -

echo "build-debs: dpkg-buildpackage -us -uc -b ($name $version, log $out/build.log)"
t0=$SECONDS
# parallel=2: the machines this runs on have two cores, shared.
if ! (cd "$work/$name-$version" && DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 25 "$out/build.log" >&2
	echo "build-debs: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
	exit 1
fi
echo $((SECONDS - t0)) >"$out/build-seconds"
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out/"
rm -rf "$work"
touch "$stamp"
echo "build-debs: built in $(cat "$out/build-seconds")s:"
(cd "$out" && ls -1 ./*.deb)
