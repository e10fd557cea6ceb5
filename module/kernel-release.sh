#!/bin/sh
# Print the kernel release SBD builds sbd.ko for and boots in the VM:
# Debian's default kernel, the one the linux-headers-amd64 metapackage
# points to, when its headers and image are installed; else the newest
# generic release with both.  Other releases (Debian 12 also carries 6.12,
# and rt and cloud flavours) are built and booted as extra checks.
# With --all, print every release that has headers, oldest first.
set -eu

releases=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null |
	sed 's|.*/linux-headers-||' | sort -V)
if [ "${1:-}" = --all ]; then
	echo "$releases"
	exit 0
fi
default=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
if [ -n "$default" ] && [ -d "/usr/src/linux-headers-$default" ] &&
   [ -e "/boot/vmlinuz-$default" ]; then
	echo "$default"
	exit 0
fi
# The generic flavour: the rt and cloud ones (installed for the compile
# checks and the vm-rt layer) sort after it and are never the default.
for release in $releases; do
	case $release in *-rt-amd64 | *-cloud-amd64) continue ;; esac
	[ -e "/boot/vmlinuz-$release" ] && best=$release
done
if [ -z "${best:-}" ]; then
	echo "kernel-release: no linux-headers-*-amd64 with a matching /boot/vmlinuz-*" >&2
	exit 1
fi
echo "$best"
