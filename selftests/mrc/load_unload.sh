#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload mrc 20 times with two rails present: every load finds both
# rails, every unload leaves nothing behind (module gone, ib_core refcount,
# RDMA resources and slab object counts back to baseline), no WARN/BUG.
source "$(dirname "$0")/lib.sh"
NODES=1
TIMEOUT=600

CYCLES=20

# Active objects of every kmalloc cache, "name count" per line.
slab_snapshot() {
	awk '/^kmalloc-/ { print $1, $2 }' /proc/slabinfo | sort
}

run_guest() {
	local i n bad=0 refs0 refs1 res0 res1

	ok 'mrc.ko installed for modprobe' modinfo mrc
	# Warm up caches (first load allocates lazily in other subsystems).
	for i in 1 2; do modprobe mrc && modprobe -r mrc; done
	refs0=$(cat /sys/module/ib_core/refcnt)
	res0=$(rdma res show | sort)
	slab_snapshot > /tmp/slab0

	for ((i = 1; i <= CYCLES; i++)); do
		if ! modprobe mrc; then
			diag "cycle $i: modprobe failed"; bad=1; break
		fi
		n=$(ls /sys/kernel/mrc/rails | wc -l)
		if [ "$n" != 2 ]; then
			diag "cycle $i: $n rails, want 2"; bad=1
		fi
		if ! modprobe -r mrc; then
			diag "cycle $i: unload failed"; bad=1; break
		fi
	done
	ok_eq "$CYCLES load/unload cycles, 2 rails each time" 0 "$bad"

	ok 'module gone after the last unload' test ! -e /sys/module/mrc
	ok 'no /sys/kernel/mrc left' test ! -e /sys/kernel/mrc
	refs1=$(cat /sys/module/ib_core/refcnt)
	ok_eq 'ib_core refcount back to baseline' "$refs0" "$refs1"
	res1=$(rdma res show | sort)
	ok_eq 'rdma resources back to baseline' "$res0" "$res1"

	# A leak of one object per cycle shows as a growth >= CYCLES in some
	# kmalloc cache; unrelated kernel activity in an idle VM stays below.
	slab_snapshot > /tmp/slab1
	local grown
	grown=$(join /tmp/slab0 /tmp/slab1 |
		awk -v lim="$CYCLES" '$3 - $2 >= lim { print $1": "$2" -> "$3 }')
	ok_eq "no kmalloc cache grew by >= $CYCLES objects" "" "$grown"
}

mrc_test_main "$@"
