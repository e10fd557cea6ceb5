#!/bin/bash
# The newcomer's tour, run by ./run-demo inside the VM: what the sbd module
# makes (the driver model's view in sysfs, the block device), and, once they
# exist, the daemon and the clients. Each part is a function in PARTS; a
# part whose pieces are not built yet says so and is left out.
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm (see ./run-demo)}"

# show CMD...: print the command as typed, then run it
show() {
	printf '\n$ %s\n' "$*"
	{ "$@" 2>&1 || true; } | sed 's/^/  /'
}
# show_sh 'SHELL COMMAND': the same for a command line with redirections
show_sh() {
	printf '\n$ %s\n' "$1"
	{ bash -c "$1" 2>&1 || true; } | sed 's/^/  /'
}
say() { printf '\n# %s\n' "$*"; }

part_module() {
	step "the sbd module: a RAM disk on a bus of its own"
	say "Load the module (it was built against this very kernel, $(uname -r))."
	sbd_module_load ndevices=1 size=16M
	show modinfo -F description sbd
	show lsmod
	say "The bus, as the driver model registers it (a system subsystem):"
	show ls -l /sys/bus/sbd/ /sys/bus/sbd/devices/
	say "The driver, its attributes, and its link to the bound device:"
	show ls -l /sys/bus/sbd/drivers/sbd/
	show grep -H . /sys/bus/sbd/drivers/sbd/version /sys/bus/sbd/drivers/sbd/ndevices
	say "The device sbd0 and its attributes (name and device as the 2003 article had them):"
	show ls -l /sys/devices/system/sbd/sbd0/
	show grep -H . /sys/devices/system/sbd/sbd0/{name,device,size,read_only,label,online}
	say "Its disk hangs below it, and the block layer links back:"
	show ls -l /sys/devices/system/sbd/sbd0/block/ /sys/block/sbd0/device
	show ls -l /dev/sbd0
}

part_block() {
	step "the block device works"
	say "Write 4 MiB of random data, read it back, compare:"
	show dd if=/dev/urandom of=/tmp/data bs=1M count=4 status=none
	show dd if=/tmp/data of=/dev/sbd0 bs=1M oflag=direct
	show cmp -n 4194304 /tmp/data /dev/sbd0
	same_data /tmp/data /dev/sbd0
	say "Grow it to 64 MiB through sysfs; the data stays:"
	show_sh 'echo 67108864 > /sys/devices/system/sbd/sbd0/size'
	show blockdev --getsize64 /dev/sbd0
	same_data /tmp/data /dev/sbd0
	say "Read-only: writes fail."
	show_sh 'echo 1 > /sys/devices/system/sbd/sbd0/read_only'
	show dd if=/tmp/data of=/dev/sbd0 bs=1M count=1 oflag=direct
	show_sh 'echo 0 > /sys/devices/system/sbd/sbd0/read_only'
	say "A label, and the uevent that announces the change:"
	uevents_start ev 1 --match SUBSYSTEM=sbd --match ACTION=change
	show_sh 'echo demo-disk > /sys/devices/system/sbd/sbd0/label'
	uevents_collect ev || true
	show cat "$SBD_TMP/ev.out"
	say "More disks, at run time:"
	show_sh 'echo "32M 3" > /sys/bus/sbd/drivers/sbd/new_device'
	show ls /sys/bus/sbd/devices/ /dev/sbd0 /dev/sbd3
	show cat /sys/bus/sbd/drivers/sbd/ndevices
	show_sh 'echo sbd3 > /sys/bus/sbd/drivers/sbd/delete_device'
	show cat /sys/bus/sbd/drivers/sbd/ndevices
}

part_daemon() {
	local dev=/org/sbd/Sbd1/devices/sbd0
	step "the daemon: sbdd mirrors the driver and the disks on D-Bus"
	if [[ ! -x $SBD_BUILD_DIR/daemon/sbdd ]]; then
		say "sbdd is not built yet: this part of the demo will show it mirroring the disks on D-Bus."
		return 0
	fi
	say "Start the system bus with SBD's policy, then sbdd (no udevd here: it listens to the kernel's uevents):"
	sbd_bus_start
	sbdd_start --uevent-source=auto --log-level=info
	sed -n 's/^sbdd: /  /p' "$SBDD_LOG"
	say "The objects sbdd serves as org.sbd.Sbd1:"
	show busctl --system tree org.sbd.Sbd1
	say "Every sysfs attribute of a disk is a property (power/* are read live):"
	show busctl --system introspect org.sbd.Sbd1 "$dev" org.sbd.Sbd1.Device
	say "Read a property:"
	show busctl --system get-property org.sbd.Sbd1 "$dev" org.sbd.Sbd1.Device Label
	say "Write one: sbdd writes the value to the module's sysfs file (root may; others ask polkit):"
	show busctl --system set-property org.sbd.Sbd1 "$dev" org.sbd.Sbd1.Device Label s written-over-dbus
	show cat /sys/devices/system/sbd/sbd0/label
	assert_file_content /sys/devices/system/sbd/sbd0/label written-over-dbus
	show busctl --system get-property org.sbd.Sbd1 "$dev" org.sbd.Sbd1.Device Label
	say "The kernel's refusal comes back as a D-Bus error (here org.sbd.Sbd1.Error.InvalidValue):"
	show busctl --system set-property org.sbd.Sbd1 "$dev" org.sbd.Sbd1.Device Size t 513
	show cat /sys/devices/system/sbd/sbd0/size
	sbdd_stop
}

PARTS=(part_module part_block part_daemon)
for part in "${PARTS[@]}"; do "$part"; done
