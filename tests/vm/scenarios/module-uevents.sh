#!/bin/bash
# (e) Every change is announced: a KOBJ_CHANGE uevent with SBD_CHANGED=<attr>
# and a sysfs_notify() (POLLPRI) on the attribute; add/remove uevents for
# new_device/delete_device; offline/online for `online`. Writes that change
# nothing, or fail, announce nothing. The listeners start before each change.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

M=$((1024 * 1024))
QUIET_MS=1500 # how long "no event" is watched for

# expect_change DEV ATTR VALUE EXPECTED_READBACK
expect_change() {
	local d=$1 attr=$2 value=$3 want=$4 path ev
	path=$SBD_DEVICES/$d/$attr
	uevents_start ev 1 --match ACTION=change --match SUBSYSTEM=sbd --match "DEVPATH=/devices/system/sbd/$d"
	notify_start nt "$path"
	attr_write "$path" "$value"
	if uevents_collect ev; then
		ev=$(bg_output ev)
		assert_match "(^| )SBD_CHANGED=$attr( |$)" "$ev" "change uevent of $d"
		log "uevent: $ev"
	else
		fail "no change uevent of $d after writing $attr"
	fi
	if notify_collect nt; then
		assert_eq "$want" "$(bg_output nt)" "$attr read after its POLLPRI wake-up"
	else
		fail "no sysfs_notify (POLLPRI) on $path"
	fi
}

# expect_silence DEV ATTR VALUE [ERRNO]: the write (or its failure) announces nothing
expect_silence() {
	local d=$1 attr=$2 value=$3 path rc
	path=$SBD_DEVICES/$d/$attr
	uevents_start ev 1 "$QUIET_MS" --match SUBSYSTEM=sbd --match "DEVPATH=/devices/system/sbd/$d"
	notify_start nt "$path" "$QUIET_MS"
	if [[ -n ${4:-} ]]; then
		expect_write_errno "$path" "$value" "$4"
	else
		attr_write "$path" "$value"
	fi
	rc=0
	uevents_collect ev || rc=$?
	if ((rc == 2)); then pass "no uevent"; else fail "unexpected uevent: $(bg_output ev)"; fi
	rc=0
	notify_collect nt || rc=$?
	if ((rc == 2)); then pass "no sysfs_notify on $attr"; else fail "unexpected POLLPRI on $path (value $(bg_output nt))"; fi
}

# expect_event WRITE_PATH VALUE MATCH...: the write raises one uevent matching all
expect_event() {
	local path=$1 value=$2 ev
	shift 2
	uevents_start ev 1 "$@"
	attr_write "$path" "$value"
	if uevents_collect ev; then
		pass "uevent $*: $(bg_output ev)"
	else
		fail "no uevent matching $* after writing $(shown "$value") to $path"
	fi
}

step "load two disks"
sbd_module_load ndevices=2 size=16M max_size=64M

step "size: change uevent and POLLPRI"
expect_change sbd0 size $((32 * M)) $((32 * M))
uevents_start blk 1 --match SUBSYSTEM=block --match DEVNAME=sbd0 --match RESIZE=1
attr_write "$SBD_DEVICES/sbd0/size" $((16 * M))
if uevents_collect blk; then log "the block layer's own: $(bg_output blk)"; else log "(no RESIZE=1 uevent from the block layer)"; fi

step "read_only: change uevent and POLLPRI"
expect_change sbd0 read_only 1 1
expect_change sbd0 read_only 0 0

step "label: change uevent and POLLPRI, the same label again is silent"
expect_change sbd0 label first first
expect_change sbd0 label second second
expect_silence sbd0 label second
echo second >"$SBD_DEVICES/sbd0/label"
expect_silence sbd0 label second

step "the other disk has its own events"
expect_change sbd1 label other other
expect_change sbd1 size $((8 * M)) $((8 * M))

step "failed writes announce nothing"
expect_silence sbd0 size 0 EINVAL
expect_silence sbd0 size 513 EINVAL
expect_silence sbd0 read_only garbage EINVAL
expect_silence sbd0 label $'bad\x01' EINVAL
exec 3</dev/sbd0
expect_silence sbd0 size $((32 * M)) EBUSY
exec 3<&-

step "new_device: add uevents for the device and its disk"
uevents_start blk 1 --match ACTION=add --match SUBSYSTEM=block --match DEVNAME=sbd5
expect_event "$SBD_DRV/new_device" "4M 5" --match ACTION=add --match SUBSYSTEM=sbd --match DEVPATH=/devices/system/sbd/sbd5
if uevents_collect blk; then pass "block add uevent: $(bg_output blk)"; else fail "no add uevent for the sbd5 disk"; fi
expect_change sbd5 label five five

step "delete_device: remove uevents for the disk and the device"
uevents_start blk 1 --match ACTION=remove --match SUBSYSTEM=block --match DEVNAME=sbd5
expect_event "$SBD_DRV/delete_device" sbd5 --match ACTION=remove --match SUBSYSTEM=sbd --match DEVPATH=/devices/system/sbd/sbd5
if uevents_collect blk; then pass "block remove uevent: $(bg_output blk)"; else fail "no remove uevent for the sbd5 disk"; fi

step "online: offline and online uevents"
expect_event "$SBD_DEVICES/sbd1/online" 0 --match ACTION=offline --match DEVPATH=/devices/system/sbd/sbd1
assert_file_content "$SBD_DEVICES/sbd1/online" 0
expect_event "$SBD_DEVICES/sbd1/online" 1 --match ACTION=online --match DEVPATH=/devices/system/sbd/sbd1
assert_file_content "$SBD_DEVICES/sbd1/online" 1

step "unload: remove uevents for every disk"
uevents_start rm 2 --match ACTION=remove --match SUBSYSTEM=sbd
sbd_module_unload
if uevents_collect rm; then pass "remove uevents: $(bg_output rm | tr '\n' ';')"; else fail "not every device sent remove: $(bg_output rm | tr '\n' ';')"; fi
