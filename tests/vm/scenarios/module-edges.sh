#!/bin/bash
# Small edges: ndevices already counts a disk when its add uevent goes out;
# a disk bound while read_only is read-only from its add (no DISK_RO change
# after it); a store value with a NUL inside is refused, not cut short.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
PY=/usr/bin/python3

# on_add_read DEVPATH_SUFFIX FILE: wait (10 s) for the kernel's add uevent
# of a device whose DEVPATH ends with DEVPATH_SUFFIX and print FILE's
# content read the moment it came; prints "ready" first, once listening
on_add_read() {
	"$PY" - "$@" <<'PY'
import socket, sys
suffix, path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.bind((0, 1))
s.settimeout(10)
print("ready", flush=True)
while True:
    msg = s.recv(65536).split(b"\0")
    if msg[0].startswith(b"add@") and msg[0].endswith(suffix.encode()):
        print(open(path).read().strip(), flush=True)
        break
PY
}

# write_raw PATH BYTES_AS_PYTHON_LITERAL: one write(2); prints ok or the errno's name
write_raw() {
	"$PY" - "$1" "$2" <<'PY'
import ast, errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, ast.literal_eval(sys.argv[2]))
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])
PY
}

step "load"
sbd_module_load ndevices=1 size=8M

step "ndevices counts the new disk when its add uevent arrives"
for id in 1 2 3; do
	seen=$SBD_TMP/seen-$id
	on_add_read "/sbd/sbd$id" "$SBD_DRV/ndevices" >"$seen" &
	pid=$!
	for _ in {1..200}; do [[ -s $seen ]] && break; sleep 0.05; done
	attr_write "$SBD_DRV/new_device" "4M $id"
	wait "$pid" || fail "no add uevent for sbd$id"
	assert_eq "ready $((id + 1))" "$(tr '\n' ' ' <"$seen" | sed 's/ $//')" "ndevices read at sbd$id's add uevent"
done

step "a disk bound while read_only is read-only from its add"
echo sbd1 >"$SBD_DRV/unbind"
attr_write "$SBD_DEVICES/sbd1/read_only" 1
uevents_start ro 1 2000 --match DISK_RO=1
echo sbd1 >"$SBD_DRV/bind"
assert_block_device /dev/sbd1
assert_file_content /sys/block/sbd1/ro 1
if uevents_collect ro; then
	fail "a DISK_RO=1 change followed the add: $(bg_output ro)"
else
	pass "no DISK_RO change after the add"
fi
assert_fails dd if=/dev/zero of=/dev/sbd1 bs=4k count=1 oflag=direct status=none

step "a NUL inside a store's value is refused with EINVAL, nothing changed"
assert_eq EINVAL "$(write_raw "$SBD_DEVICES/sbd0/size" "b'16777216\\0junk'")" "size 16777216\\0junk"
assert_file_content "$SBD_DEVICES/sbd0/size" $((8 * M))
assert_eq EINVAL "$(write_raw "$SBD_DRV/new_device" "b'4M 9\\0junk'")" "new_device 4M 9\\0junk"
assert_not_exists "$SBD_DEVICES/sbd9"
assert_eq EINVAL "$(write_raw "$SBD_DRV/delete_device" "b'sbd3\\0junk'")" "delete_device sbd3\\0junk"
assert_dir "$SBD_DEVICES/sbd3"
assert_eq EINVAL "$(write_raw "$SBD_DEVICES/sbd0/label" "b'ab\\0cd'")" "label ab\\0cd"
assert_eq EINVAL "$(write_raw "$SBD_DEVICES/sbd0/read_only" "b'1\\0junk'")" "read_only 1\\0junk"
assert_file_content "$SBD_DEVICES/sbd0/read_only" 0
assert_eq ok "$(write_raw "$SBD_DEVICES/sbd0/size" "b'16777216'")" "size 16777216 (no NUL)"
assert_file_content "$SBD_DEVICES/sbd0/size" $((16 * M))

step "unload"
sbd_module_unload
