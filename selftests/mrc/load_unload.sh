#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload mrc 20 times with two rails present: every load finds both
# rails, every unload leaves nothing behind (module gone, ib_core refcount,
# RDMA resources and slab objects back to baseline), no WARN/BUG.
#
# Slab objects are tracked per allocation site (the guest boots with
# slub_debug=U, so /sys/kernel/debug/slab/*/alloc_traces lists live objects
# by caller).  One site is known to leak without us: Debian 6.1's rdma_rxe
# keeps the internal DMA MR that ib_alloc_pd() makes for every PD (one
# rxe_alloc object per PD dealloc; rds_rdma shows the same).  That site may
# grow by at most one object per PD we made.  The 9p client's request
# buffers (p9_fcall_init) are the test harness's own file I/O on the 9p
# root, not mrc's: on the debug-kernel lane they come from kmalloc-4k
# (Debian's kernel has a 9p-fcall-cache for them) and grew 13 -> 47 in
# one run while the harness wrote its results; they are not counted.
# Objects freed with kfree_rcu() are still counted until their batch is
# drained (up to 5 s, then a grace period): rdma_destroy_id() frees the
# ib_cm id of each per-device listener mrc's rdma_cm listener made (2 per
# load with 2 rails: kmalloc-512:cm_alloc_id_priv[ib_cm]) that way, and a
# snapshot taken at once after the last rmmod saw 0 -> 40 where nothing
# leaked.  So the final snapshot is taken again, with the slab shrinkers
# run (drop_caches 2 also drains kfree_rcu's batches), until no site
# shows a leak or MRC_LOAD_SETTLE_S (30 s) passed: freed objects go, a
# real leak stays and fails.
# Written as titled cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=1
TIMEOUT=600
export MRC_APPEND="${MRC_APPEND:-} slub_debug=U"

CYCLES=20

# Live objects per (kmalloc cache, allocation site): "cache:site[module] N".
trace_snapshot() {
	local f
	slab_flush_freed
	for f in /sys/kernel/debug/slab/kmalloc-*/alloc_traces; do
		awk -v c="$(basename "$(dirname "$f")")" '
			/^ *[0-9]+ / {
				site = $2; sub(/\+.*/, "", site)
				mod = ($3 ~ /^\[/) ? $3 : ""
				n[c ":" site mod] += $1
			}
			END { for (k in n) print k, n[k] }' "$f"
	done | sort
}

# grown_sites BEFORE AFTER: the sites grown by >= CYCLES objects
grown_sites() {
	join -a 2 -e 0 -o 0,1.2,2.2 "$1" "$2" |
		awk -v lim="$CYCLES" '$3 - $2 >= lim { print $1": "$2" -> "$3 }'
}

# unexplained GROWN: without the known rdma_rxe leak and the harness's 9p
unexplained() {
	grep -vE '^kmalloc-[0-9]+:(rxe_alloc\[rdma_rxe\]|p9_fcall_init): ' <<< "$1"
}

# settle_slab BEFORE AFTER SECONDS: snapshot into AFTER until no site
# grew unexplained (objects freed by RCU are gone) or SECONDS passed.
settle_slab() {
	local t0=$SECONDS first=""

	while :; do
		trace_snapshot > "$2"
		[ -z "$(unexplained "$(grown_sites "$1" "$2")")" ] && break
		[ -z "$first" ] && first=$(unexplained "$(grown_sites "$1" "$2")")
		[ $((SECONDS - t0)) -ge "$3" ] && break
		echo 2 > /proc/sys/vm/drop_caches
		sleep 1
	done
	[ -n "$first" ] &&
		diag "right after the last unload (freed later): $first"
	diag "slab snapshot settled after $((SECONDS - t0)) s"
}

run_guest() {
	local i bad=0 refs0 res0 res1 rails ko

	case_title 'mrc.ko is installed, loads and unloads'
	ok 'mrc.ko installed for modprobe' modinfo mrc
	ok 'modprobe mrc / modprobe -r mrc' sh -c 'modprobe mrc && modprobe -r mrc'

	# The cycles run from tmpfs (a static busybox and a copy of mrc.ko),
	# with shell builtins only: every exec or open over the 9p root
	# leaves 9p fids in kmalloc caches, which would hide or fake a leak.
	case_title "$CYCLES load/unload cycles from tmpfs, 2 rails each time"
	ko=$(modinfo -n mrc)
	cp "$ko" /tmp/mrc.ko
	cp "$(command -v busybox)" /tmp/busybox
	# Warm up caches (first load allocates lazily in other subsystems).
	for i in 1 2; do /tmp/busybox insmod /tmp/mrc.ko && /tmp/busybox rmmod mrc; done
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	refs0=$(cat /sys/module/ib_core/refcnt)
	res0=$(rdma res show | sort)
	trace_snapshot > /dev/null	# debugfs keeps state per file opened
	trace_snapshot > /tmp/slab0

	for ((i = 1; i <= CYCLES; i++)); do
		if ! /tmp/busybox insmod /tmp/mrc.ko; then
			echo "cycle $i: insmod failed"; bad=1; break
		fi
		rails=(/sys/kernel/mrc/rails/*)
		if [ ${#rails[@]} != 2 ]; then
			echo "cycle $i: ${#rails[@]} rails, want 2"; bad=1
		fi
		if ! /tmp/busybox rmmod mrc; then
			echo "cycle $i: rmmod failed"; bad=1; break
		fi
	done
	ok_eq "$CYCLES load/unload cycles, 2 rails each time" 0 "$bad"
	settle_slab /tmp/slab0 /tmp/slab1 "${MRC_LOAD_SETTLE_S:-30}"

	case_title 'after the last unload: module, ib_core refcount, RDMA resources as before'
	chk_unloaded
	ok 'no /sys/kernel/mrc left' test ! -e /sys/kernel/mrc
	chk_refcnt ib_core "$refs0"
	res1=$(rdma res show | sort)
	ok_eq 'rdma resources back to baseline' "$res0" "$res1"

	# A leak of one object per cycle shows as a site grown by >= CYCLES.
	case_title "no slab allocation site grew by one object per cycle"
	local grown known harness pds=$((CYCLES * 2))
	ok 'slab allocation sites traced' test -s /tmp/slab0
	grown=$(grown_sites /tmp/slab0 /tmp/slab1)
	known=$(grep -E '^kmalloc-[0-9]+:rxe_alloc\[rdma_rxe\]: ' <<< "$grown")
	harness=$(grep -E '^kmalloc-[0-9]+:p9_fcall_init: ' <<< "$grown")
	[ -n "$harness" ] && diag "9p client buffers (the harness's I/O): $harness"
	grown=$(unexplained "$grown")
	ok_eq "no allocation site grew by >= $CYCLES objects" "" "$grown"
	# kernfs_* sites are files under /sys held open (seen once:
	# kmalloc-96:kernfs_fop_open 0 -> 39, nothing of mrc's open): say
	# who holds them
	if grep -q ':kernfs_' <<< "$grown"; then
		local p n
		for p in /proc/[0-9]*; do
			n=$(ls -l "$p/fd" 2>/dev/null | grep -c ' -> /sys/')
			[ "$n" -gt 0 ] &&
				diag "$(cat "$p/comm" 2>/dev/null) (pid ${p#/proc/}): $n files under /sys open: $(ls -l "$p/fd" 2>/dev/null | grep -o ' -> /sys/.*' | head -3 | tr '\n' ' ')"
		done
	fi
	if [ -n "$known" ]; then
		diag "known rdma_rxe leak (internal MR per PD): $known"
		ok "rdma_rxe's own leak is at most one object per PD" \
			test "$(awk '{ print $4 - $2 }' <<< "$known")" -le "$pds"
	fi
	ok 'no mrc_rx slab cache left' sh -c '! grep -q "^mrc_rx " /proc/slabinfo'
}

mrc_test_main "$@"
