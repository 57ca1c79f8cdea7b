#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures on the paths an operator or a program drives: rail
# creation (loading mrc), peer add (netlink) and sends (/dev/mrc).  Needs a
# kernel with fault injection (CONFIG_FAULT_INJECTION, FAILSLAB,
# FAIL_PAGE_ALLOC: the debug-kernel lane, scripts/debug-kernel); skipped
# elsewhere.  faults.py fails each allocation of one system call in turn
# (the task's fail-nth) and checks that the call's result and the state
# agree; this script then checks that all of it left nothing behind:
# traffic both ways, buffers at 0, mrc unloads, kmemleak and dmesg clean
# (lib.sh).  MRC_FAULTS_POINTS (default 120) is how many of a module
# load's allocations are failed, an even sample of all of them; peer add
# and sends fail every one.  Titled cases (lib.sh).
# kmemleak: besides lib.sh's known rdma_rxe leak, one of 6.1's SLUB: when
# kobject_init_and_add() fails in sysfs_slab_add() (a failed
# kmem_cache_create() of mrc's init), the kobject is never put and its
# name stays allocated.  The kernel's, not mrc's.
MRC_KMEMLEAK_KNOWN=${MRC_KMEMLEAK_KNOWN:-rxe_get_dma_mr|sysfs_slab_add}
source "$(dirname "$0")/lib.sh"
# Before any VM boots: a guest kernel without fault injection (Debian's;
# the lane's config sits next to its bzImage) cannot run this.
if [ -z "${MRC_NODE:-}" ] &&
   ! grep -qs '^CONFIG_FAULT_INJECTION=y' "$(dirname "${MRC_KERNEL:-/nonexistent/x}")/config"; then
	echo 'TAP version 13'
	echo '1..0 # SKIP the guest kernel has no fault injection (scripts/debug-kernel test faults.sh)'
	exit "$KSFT_SKIP"
fi
NODES=2
TIMEOUT=${MRC_FAULTS_TIMEOUT:-2400}

PORT=7500
DBG=/sys/kernel/debug
POINTS=${MRC_FAULTS_POINTS:-120}
FPY=$(dirname "$0")/faults.py

# The injection itself: only the task that arms fail-nth, only at the
# allocation it names; every slab allocation counts (failslab's default
# skips those that may sleep, i.e. nearly all of mrc's), page allocations
# that may sleep too (fail_page_alloc), without the stack dumps.
faults_setup() {
	echo N > $DBG/failslab/ignore-gfp-wait &&
	echo 0 > $DBG/failslab/verbose &&
	echo N > $DBG/fail_page_alloc/ignore-gfp-wait &&
	echo 0 > $DBG/fail_page_alloc/min-order &&
	echo 0 > $DBG/fail_page_alloc/verbose
}

# A failed allocation may print a report (warn_alloc: "page allocation
# failure" or "vmalloc error", a stack dump, the memory state; a failed
# kmem_cache_create() its own): the module loader's vmalloc does, for
# one.  That is what the injection
# asked for, not a fault, so after each phase such reports are counted
# and taken out; anything else lib.sh's dmesg check looks for fails here,
# and the log is cleared so that the final check sees what comes after.
ALLOC_REPORT='page allocation failure|vmalloc error|kmem_cache_create.* failed with error'
dmesg_phase() {	# dmesg_phase PHASE
	local all rest bad n

	all=$(dmesg)
	n=$(grep -cE "$ALLOC_REPORT" <<<"$all")
	rest=$(awk -v re="$ALLOC_REPORT" '$0 ~ re { skip = 1 }
		    skip && /<\/TASK>/ { skip = 0; next }
		    !skip' <<<"$all")
	bad=$(grep -E "$_MRC_DMESG_BAD" <<<"$rest")
	ok "dmesg after $1: $n allocation-failure report(s), nothing else" \
		test -z "$bad"
	[ -n "$bad" ] && head -n 60 <<<"$bad" | _diag_stream
	dmesg -C
}

# fpy OUT MODE ARGS...: faults.py, its summary into OUT, the rest OUT.err
fpy() { local o=$1; shift; python3 "$FPY" "$@" > "$o" 2> "$o.err"; }

# summary FILE KEY: a value of faults.py's JSON summary line
summary() { tail -n 1 "$1" | jq -r ".$2"; }

# show NAME OUT: faults.py's summary, and what else it wrote (a traceback)
show() {
	diag "$1: $(tail -n 1 "$2")"
	cat "$2.err" 2>/dev/null | grep -v '^violation: ' | tail -n 20 | _diag_stream
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) out ko

	if [ ! -e /proc/self/fail-nth ] || [ ! -d $DBG/failslab ] ||
	   [ ! -d $DBG/fail_page_alloc ]; then
		skip_all 'no fault injection in this kernel (the debug-kernel lane has it)'
		return
	fi
	faults_setup || { ok 'fault injection set up' false; return; }
	is_node 1 && head -c 32 /dev/urandom > "$MRC_SHARED/key" && sync

	case_title 'loading mrc: each of a sample of its allocations fails once'
	ok 'modprobe mrc (its dependencies)' modprobe mrc
	ok 'rmmod mrc' rmmod mrc
	ko=$(modinfo -n mrc)
	out=/tmp/faults.modload
	ok "finit_module: load and state agree at $POINTS points" \
		fpy $out modload "$ko" "$POINTS"
	show 'modload' $out
	sed -n 's/^violation: //p' $out.err | head -n 20 | _diag_stream
	ok "some loads failed, some succeeded ($(summary $out errors))" \
		test "$(summary $out loaded)" -gt 0 -a \
		"$(summary $out loaded)" -lt "$(summary $out points)"
	# A load's allocation count varies a little (per-CPU caches, RCU,
	# work that runs meanwhile), so the last points may not be reached.
	ok "failures injected at most points ($(summary $out injected) of $(summary $out points))" \
		test $(($(summary $out injected) * 10)) -ge $(($(summary $out points) * 9))
	dmesg_phase 'the loads'
	ok 'modprobe mrc node_id (no faults)' modprobe mrc node_id="$n"
	chk_rail rxe0:1 qps 8
	chk_rail rxe1:1 qps 8
	barrier loaded 600

	case_title 'peer add: each of its allocations fails once'
	if is_node 1; then
		out=/tmp/faults.peeradd
		ok 'PEER_ADD: acknowledgment and peer agree at every point' \
			fpy $out peeradd "$o" "$MRC_SHARED/key" \
			"$(node_ip "$o" 0)" "$(node_ip "$o" 1)"
		show 'peeradd' $out
		sed -n 's/^violation: //p' $out.err | head -n 20 | _diag_stream
		ok "some adds failed ($(summary $out errors))" \
			test "$(summary $out added)" -lt "$(summary $out points)"
		ok_eq 'no peer left by the failed adds' \
			'[]' "$(mrcctl -j peer show | jq -c .)"
		dmesg_phase 'the peer adds'
	fi
	barrier peeradd-done 1200
	ok "add peer node$o with the key (no faults)" \
		mrcctl peer add "$o" addr "$(node_ip "$o" 0),$(node_ip "$o" 1)" \
		key "$MRC_SHARED/key"
	chk_paths_active "$o" 16 120
	barrier up 600

	case_title '/dev/mrc sends: each allocation of a send fails once'
	if is_node 2; then
		python3 "$FPY" recv $PORT /tmp/faults.ids.rx \
			> /tmp/faults.recv 2> /tmp/faults.recv.err &
		wait_for 'receiver bound' 60 grep -q bound /tmp/faults.recv.err
		put receiver 1
		wait_for 'receiver got END' 900 test -s /tmp/faults.ids.rx
		wait $!
		ok_eq 'receiver: every message intact' 0 "$?"
		show 'recv' /tmp/faults.recv
		cp /tmp/faults.ids.rx "$MRC_SHARED/ids.rx"
		sync
		put received 1
	else
		get receiver 300 > /dev/null
		out=/tmp/faults.send
		ok 'writes: whole or failed, every accepted one done' \
			fpy $out send "$o" $PORT /tmp/faults.ids.tx
		show 'send' $out
		sed -n 's/^violation: //p' $out.err | head -n 20 | _diag_stream
		ok "some sends failed ($(summary $out errors))" \
			test "$(summary $out accepted)" -lt "$(summary $out sent)"
		dmesg_phase 'the sends'
		get received 900 > /dev/null
		ok_eq 'node 2 received exactly the accepted messages, in order' \
			"$(cat /tmp/faults.ids.tx)" "$(cat "$MRC_SHARED/ids.rx")"
	fi
	barrier sent 1200

	case_title 'afterwards: traffic both ways, nothing held, mrc unloads'
	if is_node 2; then
		get bound2 300 > /dev/null
		ok 'node 2 -> node 1: 20 messages' python3 -c "$(<"$(dirname "$0")/devmrc_abi.py")
fd = dev(); bind(fd, 0)
for i in range(20): send(fd, 1, $((PORT + 1)), bytes([i]) * 4096)
t0 = time.monotonic()
while stats(fd)['tx_outstanding'] and time.monotonic() - t0 < 60: time.sleep(0.1)
st = stats(fd)
expect('tx_done', 20, st['tx_done'])"
	else
		ok 'node 1 <- node 2: 20 messages, whole, in order' \
			timeout 120 python3 -c "$(<"$(dirname "$0")/devmrc_abi.py")
fd = dev(); bind(fd, $((PORT + 1)))
open('/tmp/faults.bound', 'w').close()
for i in range(20):
    _, _, p = recv(fd)
    expect('message %d' % i, bytes([i]) * 4096, p)" &
		local pid=$!
		wait_for 'bound' 30 test -e /tmp/faults.bound
		put bound2 1
		wait $pid
		ok_eq 'node 1 received them' 0 "$?"
	fi
	barrier traffic 600
	wait_for 'no message buffer held (rx/tx_buffer_bytes 0)' 30 \
		buffers_free
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
