#!/bin/bash
# The first scenario of each vm-rt boot: the guest really runs a PREEMPT_RT
# kernel (run-vm --kernel 6.1-rt / 6.12-rt), so that the module and daemon
# scenarios after it meet sleeping spinlocks and threaded interrupts, and
# sbd.ko is a build for that kernel (its vermagic says preempt_rt). What
# the kernel says of sleeping in atomic context is judged by run-vm in the
# kernel log after all of them ("BUG: scheduling while atomic", "BUG:
# sleeping function called from invalid context": its BUG: pattern).
# shellcheck source=tests/vm/lib.sh
. "${SBD_VM_LIB:?run me with tests/vm/run-vm}"

step "the guest runs the requested rt kernel"
assert_eq "$SBD_KREL" "$(uname -r)" "uname -r"
assert_match '-rt-amd64$' "$(uname -r)" "the release is Debian's rt flavour"
assert_match 'PREEMPT_RT' "$(uname -v)" "uname -v"
if [[ -e /sys/kernel/realtime ]]; then
	assert_file_content /sys/kernel/realtime 1
else
	log "no /sys/kernel/realtime on $(uname -r): uname -v is the evidence"
fi

step "interrupts are threads (forced on PREEMPT_RT)"
# (grep finds none on a kernel without forced threading: a count of 0.)
irq_threads=$({ grep -l '^irq/' /proc/[0-9]*/comm 2>/dev/null || true; } | wc -l)
log "$irq_threads irq/N-NAME kernel threads"
if ((irq_threads > 0)); then
	pass "interrupt handlers run in threads ($irq_threads)"
else
	fail "no irq/ threads: interrupts are not threaded on this kernel"
fi

step "sbd.ko is built for this kernel"
sbd_module_install
# The kernel's own modules' vermagic, preemption model included: 6.1-rt's
# says preempt_rt, 6.12-rt's only preempt (as its generic sibling's does).
assert_eq "$(modinfo -F vermagic 9p)" "$(modinfo -F vermagic sbd)" "sbd.ko's vermagic (9p's)"
sbd_module_load ndevices=1 size=16M
assert_block_device /dev/sbd0

step "data written through the rt kernel's block layer reads back"
random_file "$SBD_TMP/data" 4096
assert_ok dd if="$SBD_TMP/data" of=/dev/sbd0 bs=1M oflag=direct status=none
same_data "$SBD_TMP/data" /dev/sbd0
