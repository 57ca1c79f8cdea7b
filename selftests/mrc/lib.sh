# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Library for mrc VM selftests. A test script looks like:
#
#	#!/bin/bash
#	# SPDX-License-Identifier: GPL-2.0
#	source "$(dirname "$0")/lib.sh"
#	NODES=2		# optional (1..4), default 2
#	TIMEOUT=300	# optional, seconds for the whole run including boot
#	#PLANES=2 MTU=9000 MEM=1024 ONLY=1	# optional fabric settings
#	run_guest() {	# runs in every VM (or only node 1 if ONLY=1)
#		ok 'rxe0 exists' test -e /sys/class/infiniband/rxe0
#		barrier both-ready
#	}
#	mrc_test_main "$@"
#
# On the host (MRC_IN_VM unset) mrc_test_main boots the fabric with
# fabric/run.sh, runs the same script in the guests and prints one kselftest
# TAP stream: every guest result renumbered and prefixed with its node
# ("ok 3 node2: rail rxe1 active"). Exit 0 pass, 1 fail, 4 skip.
# Host environment: V=1 shows guest diagnostics of passing nodes too (and is
# passed on to the guests); MRC_KEEP=1 keeps the output dir even on success;
# MRC_TMPDIR sets where output dirs are created (default $TMPDIR or /tmp).
# MRC_TIMEOUT_SCALE=N (integer, default 1) multiplies every time limit:
# TIMEOUT, MRC_BOOT_TIMEOUT (default 240 s: a VM not ready by then is
# booted again, MRC_BOOT_RETRIES times (default 1), then fails the test at
# once, fabric/run.sh -b and -r), mrc-perf's no-progress limit
# (MRC_PERF_TIMEOUT_S, 60 s) and the timeouts of barrier, get and
# wait_for (slow debug kernels, scripts/debug-kernel); it is passed on to
# the guests.  A run that fabric/run.sh stops because a guest's NIC stalled
# (its exit 5: a fault of the emulated NIC, below mrc) is run again,
# MRC_FABRIC_RETRIES times (default 1); the stopped run's outputs are kept
# and named in the TAP stream.  MRC_FABRIC_RUN replaces fabric/run.sh (for
# lib_test.sh).
#
# In a guest (MRC_IN_VM=1) mrc_test_main runs run_guest "$@" and then a final
# "dmesg clean" test; it exits 0 iff every result was ok.
#
# Guest helpers (each result line goes to the TAP stream, also from inside
# $(...), so `x=$(get key)` still reports a timeout):
#	ok DESC CMD...			run CMD; ok, or not ok + its output
#	ok_eq DESC EXPECTED ACTUAL	compare two strings
#	skip DESC REASON		a skipped test
#	skip_all REASON			skip the rest of the test (exit 4 if nothing ran)
#	diag MSG...			a "# MSG" diagnostic line
#	barrier NAME [TIMEOUT_S=120]	wait for all running nodes; not ok on timeout
#					and at once when nobody said who takes part
#	put KEY VALUE			publish a small value to all nodes
#	get KEY [TIMEOUT_S=60]		print a value put by any node (waits for it)
#	wait_for DESC TIMEOUT_S CMD...	poll CMD until it succeeds (a test result)
#	node_ip NODE PLANE		10.200.PLANE.NODE
#	gid_index DEV [PORT=1]		index of DEV's RoCEv2 IPv4 GID
#	is_node N			true on node N
#	kill_node N [TIMEOUT_S=30]	the fabric kills node N's VM (SIGKILL
#					to its QEMU, no shutdown); a result
#	await_kill [TIMEOUT_S=120]	on the node to be killed: wait for it
#					(not ok if still alive after TIMEOUT_S)
#	require_mrc			skip_all unless mrc.ko can be modprobed
# and, below ("shared guest helpers"), counter readers (stat_of, msg_stat,
# credit_stat, ...), peers through mrcctl (peer_add, active_paths,
# all_active, ...) and mrc_guest_init for scripts without mrc_test_main.
# Guest environment: MRC_NODE MRC_NODES MRC_PLANES MRC_ONLY MRC_MTU MRC_SHARED
# MRC_OUTDIR MRC_REPO MRC_KVER (see fabric/run.sh), V.

set -u

MRC_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
_MRC_TSCALE=${MRC_TIMEOUT_SCALE:-1}
[[ $_MRC_TSCALE =~ ^[1-9][0-9]*$ ]] || _MRC_TSCALE=1
# mrcctl is built as tools/mrcctl/mrcctl (tools/Makefile); the fabric puts
# only tools/ on the guests' PATH.
if [ "${MRC_IN_VM:-}" = 1 ] && [ -d "${MRC_REPO:-}/tools/mrcctl" ]; then
	PATH=$MRC_REPO/tools/mrcctl:$PATH
fi

# ------------------------------------------------------------------ guest side

_MRC_TAP_FD=1		# becomes a dup of the original stdout in the guest
_MRC_RESULTS=/dev/null	# one line per result (survives subshells)

_tap() { echo "$*" >&"$_MRC_TAP_FD"; }

# _result ok|"not ok" DESC: print a numbered result and record it.
# Helpers avoid forks: under TCG every fork+exec costs 0.1-1 s.
_result() {
	local -a all
	echo "$1" >>"$_MRC_RESULTS"
	mapfile -t all <"$_MRC_RESULTS"
	_tap "$1 ${#all[@]} ${_MRC_CASE:+$_MRC_CASE: }$2"
}

# Titled cases, the shape of MPTCP's mptcp_join.sh: a test is a list of
# cases, each opened by case_title, and every check after it carries the
# case's number and title ("003 max_rails from modprobe.d: ...").
_MRC_CASE=
_MRC_NCASE=0
case_title() {	# case_title TEXT: a new case; what it sets up and checks
	_MRC_NCASE=$((_MRC_NCASE + 1))
	printf -v _MRC_CASE '%03d %s' "$_MRC_NCASE" "$1"
	_tap "# ---- $_MRC_CASE"
}

_count() { local -a all; mapfile -t all <"$_MRC_RESULTS"; echo "${#all[@]}"; }

# sleep without a fork: read with a timeout on a FIFO nobody writes to.
_MRC_SLEEP_FD=
_sleep() {
	if [ -n "$_MRC_SLEEP_FD" ]; then
		read -r -t "$1" -u "$_MRC_SLEEP_FD" _ 2>/dev/null
		return 0
	fi
	sleep "$1"
}

# Before counting live slab objects per allocation site (alloc_traces):
# a KASAN kernel (the debug-kernel lane) keeps freed objects in its
# quarantine, where slub still counts them as allocated; shrinking a cache
# frees its quarantined objects (kmem_cache_shrink()).  Elsewhere it only
# shrinks the kmalloc caches.
slab_flush_freed() {
	local f
	for f in /sys/kernel/slab/kmalloc-*/shrink; do
		echo 1 > "$f"
	done 2>/dev/null
	return 0
}

# Live objects per allocation site, from slub_debug=U's alloc_traces:
# "cache:site[module] N", for the sites of the modules under test.
# Taken while mrc is loaded (an unloaded module's sites have no name).
site_snapshot() {
	local f
	slab_flush_freed
	for f in /sys/kernel/debug/slab/kmalloc-*/alloc_traces; do
		awk -v c="$(basename "$(dirname "$f")")" '
			/^ *[0-9]+ / && $3 ~ /^\[(mrc|ib_core|ib_cm|rdma_cm|rdma_rxe)\]$/ {
				site = $2; sub(/\+.*/, "", site)
				n[c ":" site $3] += $1
			}
			END { for (k in n) print k, n[k] }' "$f"
	done | sort
}

# What mrc allocates itself, or has the RDMA core allocate for it: its
# own sites, address handles (_rdma_create_ah), rdma_cm ids
# (__rdma_create_id).  Other sites of the RDMA core only show in a
# diagnostic: ib_core's MAD receive buffers (ib_mad_recv_done) grew by
# 6 per cycle in a 20-cycle run, on both nodes (SIDR exchanges; the
# same question as load_unload.sh's ib_cm ids, issue 21).
MRC_SITES='\[mrc\]|^[^ ]*:(_rdma_create_ah|__rdma_create_id)\['

# chk_sites_flat BEFORE CYCLES: after a stress loop of CYCLES cycles, with
# mrc's buffers back to 0, no slab site of mrc, of its AHs or of its cm
# ids (MRC_SITES) holds CYCLES objects more than in the site_snapshot
# file BEFORE: nothing leaked once per cycle.
chk_sites_flat() {
	local grown
	wait_for 'reassembly and send buffers back to 0' 30 buffers_free
	mrc_sleep 5	# idle receive-pool classes are emptied after ~3 s
	site_snapshot > /tmp/sites.after
	ok 'slab allocation sites traced' test -s "$1"
	grown=$(join -a 2 -e 0 -o 0,1.2,2.2 "$1" /tmp/sites.after |
		awk -v lim="$2" '$3 - $2 >= lim { print $1": "$2" -> "$3 }')
	[ -n "$grown" ] && diag "slab sites grown by >= $2: $grown"
	ok_eq "no slab site of mrc, of its AHs or of its cm ids grew by >= $2 objects" \
		"" "$(grep -E "$MRC_SITES" <<< "$grown")"
}

# Print text (stdin) as "# " diagnostic lines.
_diag_stream() {
	local l
	while IFS= read -r l || [ -n "$l" ]; do _tap "# $l"; done
}

diag() { _diag_stream <<<"$*"; }	# multi-line text: every line gets "# "

ok() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		_result ok "$desc"
		[ "${V:-0}" = 1 ] && [ -n "$out" ] && _diag_stream <<<"$out"
	else
		_result "not ok" "$desc"
		diag "command: $* (exit status $rc)"
		[ -n "$out" ] && _diag_stream <<<"$out"
	fi
	return $rc
}

ok_eq() {
	if [ "$2" = "$3" ]; then
		_result ok "$1"
		return 0
	fi
	_result "not ok" "$1"
	diag "expected: '$2'"
	diag "actual:   '$3'"
	return 1
}

skip() { _result ok "$1 # SKIP ${2:-}"; }

skip_all() {
	_result ok "all remaining tests # SKIP ${1:-}"
	: >"$_MRC_RESULTS.skip_all"
	exit "$KSFT_SKIP"
}

node_ip() { echo "10.200.$2.$1"; }

is_node() { [ "${MRC_NODE:-}" = "$1" ]; }

# RoCEv2 GID with an IPv4-mapped address (::ffff:a.b.c.d); index 0 is the
# link-local one, but read it rather than assume.
gid_index() {
	local dev=$1 port=${2:-1} g i t v
	for g in /sys/class/infiniband/"$dev"/ports/"$port"/gids/*; do
		i=${g##*/}
		t='' v=''
		read -r t <"/sys/class/infiniband/$dev/ports/$port/gid_attrs/types/$i" 2>/dev/null
		[ "$t" = "RoCE v2" ] || continue
		read -r v <"$g" 2>/dev/null
		case $v in
		0000:0000:0000:0000:0000:ffff:*) echo "$i"; return 0 ;;
		esac
	done
	return 1
}

# Nodes that run the test: all, or only MRC_ONLY (set in _mrc_guest_main).
_MRC_PARTICIPANTS=()

# KEY -> a file name: [A-Za-z0-9._-], at most 100 characters; sets _MRC_NAME.
_safe_name() {
	_MRC_NAME=${1//[^A-Za-z0-9._-]/_}
	_MRC_NAME=${_MRC_NAME:0:100}
}

# Write a file in the shared dir atomically (readers never see partial data).
_atomic_write() {	# FILE CONTENT
	local tmp
	tmp=$1.tmp.${MRC_NODE:-0}.$$.$RANDOM
	printf '%s' "$2" >"$tmp" && mv -f "$tmp" "$1"
}

barrier() {
	local name gen=0 dir t0 timeout=$((${2:-120} * _MRC_TSCALE)) missing n cnt
	# Nobody to wait for means nobody said who takes part (mrc_test_main
	# or mrc_guest_init): passing at once would hide that, so fail loudly.
	if [ ${#_MRC_PARTICIPANTS[@]} = 0 ]; then
		echo "barrier $1: no participants (call mrc_guest_init or mrc_test_main first)" >&2
		_result "not ok" "barrier $1 (no participants: call mrc_guest_init or mrc_test_main first)"
		return 1
	fi
	_safe_name "$1"
	name=$_MRC_NAME
	# The same NAME may be used repeatedly: every node counts its own uses.
	cnt=${TMPDIR:-/tmp}/.mrc-barrier.$name
	[ -r "$cnt" ] && read -r gen <"$cnt"
	gen=$((gen + 1))
	echo "$gen" >"$cnt"
	dir=$MRC_SHARED/.barrier/$name.$gen
	[ -d "$dir" ] || mkdir -p "$dir"
	_atomic_write "$dir/$MRC_NODE" "$MRC_NODE"
	t0=$SECONDS
	while :; do
		missing=
		for n in "${_MRC_PARTICIPANTS[@]}"; do
			[ -e "$dir/$n" ] || missing+=" node$n"
		done
		[ -z "$missing" ] && return 0
		if [ $((SECONDS - t0)) -ge "$timeout" ]; then
			_result "not ok" "barrier $1 (timeout after ${timeout}s, missing:$missing)"
			return 1
		fi
		# Do not wait for a node that can never arrive.
		for n in "${_MRC_PARTICIPANTS[@]}"; do
			[ -e "$dir/$n" ] && continue
			if [ -e "$MRC_OUTDIR/.fabric/dead.$n" ]; then
				_result "not ok" "barrier $1 (node$n's VM died)"
				return 1
			elif [ -e "$MRC_OUTDIR/.fabric/killed.$n" ]; then
				_result "not ok" "barrier $1 (node$n was killed)"
				return 1
			elif [ -e "$MRC_OUTDIR/node.$n.rc" ]; then
				_result "not ok" "barrier $1 (node$n already finished its test)"
				return 1
			fi
		done
		_sleep 0.1
	done
}

put() {
	_safe_name "$1"
	[ -d "$MRC_SHARED/.kv" ] || mkdir -p "$MRC_SHARED/.kv"
	_atomic_write "$MRC_SHARED/.kv/$_MRC_NAME" "$2"
}

get() {
	local f v timeout=$((${2:-60} * _MRC_TSCALE)) t0=$SECONDS
	_safe_name "$1"
	f=$MRC_SHARED/.kv/$_MRC_NAME
	until [ -e "$f" ]; do
		if [ $((SECONDS - t0)) -ge "$timeout" ]; then
			_result "not ok" "get $1 (no value after ${timeout}s)"
			return 1
		fi
		_sleep 0.1
	done
	IFS= read -r -d '' v <"$f"
	printf '%s\n' "$v"
}

wait_for() {
	local desc=$1 timeout=$(($2 * _MRC_TSCALE)) out rc t0=$SECONDS
	shift 2
	while :; do
		out=$("$@" 2>&1)
		rc=$?
		if [ $rc -eq 0 ]; then
			_result ok "$desc"
			return 0
		fi
		[ $((SECONDS - t0)) -ge "$timeout" ] && break
		_sleep 0.2
	done
	_result "not ok" "$desc"
	diag "timeout after ${timeout}s waiting for: $* (last exit status $rc)"
	[ -n "$out" ] && _diag_stream <<<"$out"
	return 1
}

# ---- chk_*: one named check of mrc's state each ----

# chk_knob NAME VALUE: the knob reads VALUE in sysfs and in mrcctl.
chk_knob() {
	ok_eq "knob $1 is $2 (sysfs, mrcctl)" "$2 $2" \
		"$(cat "/sys/kernel/mrc/$1") $(mrcctl -j config show |
			jq --arg n "$1" '.[] | select(.name == $n) | .value')"
}

# chk_rail RAIL ATTR VALUE: /sys/kernel/mrc/rails/RAIL/ATTR reads VALUE.
chk_rail() {
	ok_eq "rail $1 $2 is $3" "$3" \
		"$(cat "/sys/kernel/mrc/rails/$1/$2" 2>/dev/null)"
}

# chk_rail_soon RAIL ATTR VALUE [SECONDS]: ... within SECONDS (10).
chk_rail_soon() {
	wait_for "rail $1 $2 becomes $3" "${4:-10}" \
		sh -c "[ \"\$(cat /sys/kernel/mrc/rails/$1/$2 2>/dev/null)\" = '$3' ]"
}

# chk_refused DESC TEXT CMD...: CMD fails, and what it printed says why
# (contains TEXT, a grep pattern; "" for anything): the check form of
# fails_with.
chk_refused() {
	local desc=$1
	shift
	ok "$desc" fails_with "$@"
}

# -- message and path checks

# chk_paths_active NODE N SECONDS [TEXT]: N paths to NODE active in SECONDS.
chk_paths_active() {
	wait_for "$2 paths to node$1 active${4:+ $4}" "$3" all_active "$1" "$2"
}

# chk_rx_buffers_free [SECONDS]: rx_buffer_bytes back to 0 in SECONDS (10).
chk_rx_buffers_free() {
	wait_for 'receive buffers back to 0 (rx_buffer_bytes)' "${1:-10}" \
		rx_buffers_free
}

# _chk_cmp DESC NAME VALUE OP N: the counter NAME's VALUE is OP N, where OP
# is = (strings) or > >= < <= (numbers; not ok if VALUE is not one).
_chk_cmp() {
	local desc="$1 ($2 $4 $5)" v=$3 n=$5
	case $4 in
	=) [ "$v" = "$n" ] ;;
	'>') [ "$v" -gt "$n" ] ;;
	'>=') [ "$v" -ge "$n" ] ;;
	'<') [ "$v" -lt "$n" ] ;;
	'<=') [ "$v" -le "$n" ] ;;
	*) false ;;
	esac 2>/dev/null || {
		_result "not ok" "$desc"
		diag "$2 is '$v'"
		return 1
	}
	_result ok "$desc"
}

# chk_msg_stat DESC KEY OP N: debugfs mrc/msg's KEY is OP N (_chk_cmp).
chk_msg_stat() { _chk_cmp "$1" "$2" "$(msg_stat "$2")" "$3" "$4"; }

# chk_echo_stat DESC KEY OP N: mrc_echo's KEY (echo_lib.sh) is OP N.
chk_echo_stat() { _chk_cmp "$1" "$2" "$(echo_stat "$2")" "$3" "$4"; }

# chk_credit_stat DESC PEER KEY OP N: PEER's debugfs mrc/credit KEY is OP N.
chk_credit_stat() {
	_chk_cmp "$1" "node$2 $3" "$(credit_stat "$2" "$3")" "$4" "$5"
}

# -- control, lifetime and hostile-input checks

# relay_tap NAME CMD...: runs CMD, a TAP producer, and reports its results
# as ours ("#" lines as diagnostics, "Bail out!" as a failure), then a
# result "NAME exit status" (0).
relay_tap() {
	local name=$1 line rc
	shift
	"$@" > /tmp/relay.out 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "${line#ok [0-9]* - }" true ;;
		"not ok "*) ok "${line#not ok [0-9]* - }" false ;;
		"Bail out!"*) ok "$line" false ;;
		"#"*) diag "${line#\# }" ;;
		esac
	done < /tmp/relay.out
	ok_eq "$name exit status" 0 "$rc"
}

# "${UNPRIV[@]}" CMD...: runs CMD as user nobody with no capabilities and
# no way to gain any (setpriv): what any local user can do.
UNPRIV=(setpriv --reuid=65534 --regid=65534 --clear-groups
	--inh-caps=-all --bounding-set=-all --no-new-privs)

# chk_unloaded: mrc is not loaded (no /sys/module/mrc).
chk_unloaded() {
	ok 'mrc not loaded (no /sys/module/mrc)' test ! -e /sys/module/mrc
}

# chk_refcnt MODULE N: /sys/module/MODULE/refcnt reads N.
chk_refcnt() {
	ok_eq "$1 refcount is $2" "$2" "$(cat "/sys/module/$1/refcnt" 2>&1)"
}

# chk_meminfo_grew_less FIELD BASE_KB LIMIT_KB: /proc/meminfo FIELD (Slab,
# SUnreclaim) is now less than LIMIT_KB above BASE_KB.
chk_meminfo_grew_less() {
	local now
	now=$(meminfo_kb "$1")
	ok "$1 grew less than $3 kB ($2 -> $now kB)" \
		test $((now - $2)) -lt "$3"
}

# chk_token_known NODE: debugfs mrc/tokens has this node's token for peer
# NODE (not 0: the peer told it).
chk_token_known() {
	local tok
	tok=$(peer_token "$1")
	ok "debugfs mrc/tokens: the token for node$1 is known" \
		test -n "$tok" -a "$tok" != 0000000000000000
}

# A node that dies on purpose (fabric/run.sh header): the runner kills its
# QEMU and writes .fabric/killed.N.  Its missing result is then expected.
kill_node() {
	local n=$1 timeout=$((${2:-30} * _MRC_TSCALE)) t0=$SECONDS
	_atomic_write "$MRC_OUTDIR/.fabric/kill.$n" "$MRC_NODE"
	until [ -e "$MRC_OUTDIR/.fabric/killed.$n" ]; do
		if [ $((SECONDS - t0)) -ge "$timeout" ]; then
			_result "not ok" "the fabric killed node$n (not after ${timeout}s)"
			return 1
		fi
		_sleep 0.05
	done
	_result ok "the fabric killed node$n's VM (SIGKILL to its QEMU)"
}

await_kill() {
	_sleep $((${1:-120} * _MRC_TSCALE))
	_result "not ok" "node$MRC_NODE killed by the fabric (still alive after $((${1:-120} * _MRC_TSCALE))s)"
	return 1
}

require_mrc() {
	modinfo mrc >/dev/null 2>&1 || skip_all "mrc.ko not built (run make first)"
}

# Kernel complaints anywhere in the run fail the test.  Besides WARN/BUG/
# Oops this catches what the debug-kernel lane's checkers print (KASAN:
# "BUG: KASAN", lockdep: "WARNING: possible ...", debug objects: "ODEBUG"
# with a WARNING, UBSAN, sleeping in atomic: "BUG: sleeping function", hung
# tasks) and kmemleak giving up.
_MRC_DMESG_BAD='WARNING:|BUG:|kernel BUG|Oops|general protection|UBSAN:|unreferenced object|Call Trace|INFO: task .* blocked for more than|Kernel memory leak detector disabled'

# kmemleak (debug kernels only, scripts/debug-kernel).  A known leak that
# is not ours may be excluded: Debian 6.1's rdma_rxe keeps the internal DMA
# MR that ib_alloc_pd() makes for every PD (see load_unload.sh); its
# kmemleak backtrace goes through rxe_get_dma_mr.  MRC_KMEMLEAK_KNOWN is an
# awk regex matched against each whole report block.
_MRC_KMEMLEAK=/sys/kernel/debug/kmemleak
MRC_KMEMLEAK_KNOWN=${MRC_KMEMLEAK_KNOWN:-rxe_get_dma_mr}

# stdin: a kmemleak report; stdout: the blocks not matching the known
# leak; the number of known blocks goes to file $1.
_kmemleak_filter() {
	awk -v known="$MRC_KMEMLEAK_KNOWN" -v kf="$1" '
		function flush() {
			if (blk != "") {
				if (known != "" && blk ~ known)
					nk++
				else
					printf "%s", blk
			}
			blk = ""
		}
		/^unreferenced object/ { flush() }
		{ blk = blk $0 "\n" }
		END { flush(); print nk + 0 > kf }'
}

# Before the test: leaks from boot and fabric setup are not the test's;
# they are shown, then forgotten (kmemleak "clear").
_kmemleak_start() {
	local pre n
	[ -w "$_MRC_KMEMLEAK" ] || return 0
	echo scan >"$_MRC_KMEMLEAK" 2>/dev/null
	pre=$(cat "$_MRC_KMEMLEAK" 2>/dev/null)
	if [ -n "$pre" ]; then
		n=$(grep -c '^unreferenced object' <<<"$pre")
		diag "kmemleak: $n object(s) unreferenced before the test (boot, fabric setup): not counted; first lines:"
		head -n 20 <<<"$pre" | _diag_stream
	fi
	echo clear >"$_MRC_KMEMLEAK" 2>/dev/null
}

# After the test: objects younger than 5 s are never reported, and a second
# scan is needed for objects that became unreferenced recently.
_kmemleak_check() {
	local leaks known=0
	[ -w "$_MRC_KMEMLEAK" ] || return 0
	_sleep 6
	echo scan >"$_MRC_KMEMLEAK" 2>/dev/null
	echo scan >"$_MRC_KMEMLEAK" 2>/dev/null
	leaks=$(_kmemleak_filter /tmp/.mrc-kmemleak-known <"$_MRC_KMEMLEAK" 2>/dev/null)
	read -r known </tmp/.mrc-kmemleak-known 2>/dev/null
	[ "${known:-0}" -gt 0 ] &&
		diag "kmemleak: $known report(s) of the known rdma_rxe leak ($MRC_KMEMLEAK_KNOWN) ignored"
	if [ -z "$leaks" ]; then
		_result ok "kmemleak: no leak"
	else
		_result "not ok" "kmemleak: no leak"
		head -n 80 <<<"$leaks" | _diag_stream
	fi
}

# KCSAN (the lane's kcsan variant) reports every data race of the kernel,
# and the rest of the kernel has races of its own (the networking stack,
# rdma_rxe).  A report is ours when a racing access is in one of our
# modules: its title ("data-race in A / B") or the top frame of an
# access's stack names one.  Deeper frames do not count: mrc's code is
# below much of the kernel's (a softirq that runs when mrc unlocks, a
# verbs call), whose races are not mrc's.  Ours fails the test like any
# "BUG:"; the others are counted and shown, not failed.
# (bracket expressions, not backslashes: awk -v would take those as
# string escapes, and awks differ in what they make of "\[")
_MRC_KCSAN_OURS=${MRC_KCSAN_OURS:-'[[](mrc|mrc_echo|mrc_udfloor)[]]'}

# stdin: dmesg; stdout: dmesg without the KCSAN reports that are not ours
# (a report runs from its "BUG: KCSAN:" line to the next line of "="s;
# an access's top frame is the line after its "read/write ... by ...:");
# the number of those left out goes to file $1, the first of them to $1.first.
_kcsan_filter() {
	awk -v ours="$_MRC_KCSAN_OURS" -v kf="$1" '
		function flush() {
			if (blk != "") {
				if (mine)
					printf "%s", blk
				else if (n++ == 0)
					printf "%s", blk > (kf ".first")
			}
			blk = ""; inblk = 0; mine = 0; top = 0
		}
		/BUG: KCSAN:/ { flush(); inblk = 1; if ($0 ~ ours) mine = 1 }
		inblk {
			blk = blk $0 "\n"
			if (top && $0 ~ ours)
				mine = 1
			top = ($0 ~ / (read|write).* of [0-9]+ bytes by /)
			if (index($0, "====================")) flush()
			next
		}
		{ print }
		END { flush(); print n + 0 > kf }'
}

_dmesg_check() {
	local bad others=0
	_kmemleak_check
	rm -f /tmp/.mrc-kcsan-others.first
	bad=$(dmesg 2>/dev/null | _kcsan_filter /tmp/.mrc-kcsan-others |
		grep -E "$_MRC_DMESG_BAD")
	read -r others </tmp/.mrc-kcsan-others 2>/dev/null
	if [ "${others:-0}" -gt 0 ]; then
		diag "KCSAN: $others data-race report(s) outside mrc's modules, not counted; the first:"
		head -n 30 /tmp/.mrc-kcsan-others.first | _diag_stream
	fi
	if [ -z "$bad" ]; then
		_result ok "dmesg clean"
	else
		_result "not ok" "dmesg clean"
		head -n 80 <<<"$bad" | _diag_stream
	fi
}

# Packets DEV's root qdisc has handed to the driver (tc's "Sent ... pkt").
_qdisc_sent() {
	tc -s qdisc show dev "$1" 2>/dev/null |
		awk '$1 == "Sent" { print $4; exit }'
}

# The fabric's NIC stall (fabric/run.sh, "NIC STALL") makes the guest
# kernel's watchdog speak only once the transmit ring is full.  A node whose
# only sender is held back before that (rxe keeps at most 64 packets of a
# QP in flight) stalls in silence: its packets sit in the ring, never
# completed, and whatever the test then checks fails.  So a node with a
# failed result probes each fabric NIC that is up: five datagrams to
# another node on that plane.  A NIC driver counts a transmit in tx_packets
# when the emulated NIC has completed it, within milliseconds.  If two or
# more of the probe's packets reached the driver (the qdisc's count) and
# none completed in 2 s, the NIC has stopped: the node says so in the
# kernel log, and the runner stops the run as a NIC stall (exit 5).
_nic_probe() {
	local p dev ip peer=1 s0 s1 c0 c1 i

	[ "${MRC_NODES:-1}" -ge 2 ] && grep -q '^not ok$' "$_MRC_RESULTS" ||
		return 0
	is_node 1 && peer=2
	for ((p = 0; p < ${MRC_PLANES:-1}; p++)); do
		dev=eth$p
		[ "$(cat "/sys/class/net/$dev/operstate" 2>/dev/null)" = up ] ||
			continue
		ip=$(node_ip "$peer" "$p")
		s0=$(_qdisc_sent "$dev")
		read -r c0 <"/sys/class/net/$dev/statistics/tx_packets" || continue
		for i in 1 2 3 4 5; do
			echo "mrc nic probe $i" 2>/dev/null >"/dev/udp/$ip/9"
			_sleep 0.2
		done
		_sleep 2
		s1=$(_qdisc_sent "$dev")
		read -r c1 <"/sys/class/net/$dev/statistics/tx_packets"
		[ -n "$s0" ] && [ -n "$s1" ] || continue
		diag "$dev probe (a result failed): $((s1 - s0)) packet(s) to the driver, $((c1 - c0)) completed by the NIC"
		if [ $((s1 - s0)) -ge 2 ] && [ "$c1" = "$c0" ]; then
			echo "<2>mrc-fabric: $dev: NIC STALL: $((s1 - s0)) packets to the driver, none completed in 2 s (tx_packets $c1)" \
				>/dev/kmsg
		fi
	done
}

_mrc_guest_main() {
	local st
	declare -F run_guest >/dev/null || { echo "not ok 1 run_guest() not defined"; exit "$KSFT_FAIL"; }
	exec {_MRC_TAP_FD}>&1
	# mrc-perf's no-progress limit (60 s) scales like the others.
	export MRC_PERF_TIMEOUT_S=${MRC_PERF_TIMEOUT_S:-$((60 * _MRC_TSCALE))}
	_MRC_RESULTS=/tmp/mrc-results.$$
	: >"$_MRC_RESULTS"
	if mkfifo "/tmp/.mrc-sleep.$$" 2>/dev/null; then
		exec {_MRC_SLEEP_FD}<>"/tmp/.mrc-sleep.$$"
		rm -f "/tmp/.mrc-sleep.$$"
	fi
	if [ -n "${MRC_ONLY:-}" ]; then
		_MRC_PARTICIPANTS=("$MRC_ONLY")
	else
		for ((st = 1; st <= ${MRC_NODES:-1}; st++)); do _MRC_PARTICIPANTS+=("$st"); done
	fi
	_tap "TAP version 13"
	_kmemleak_start
	# A subshell: an `exit` or a set -u abort in run_guest still gets the
	# dmesg check and a clear report.
	(
		run_guest "$@"
		: >"$_MRC_RESULTS.completed"
	)
	st=$?
	if [ -e "$_MRC_RESULTS.skip_all" ] && ! grep -qv '^ok$' "$_MRC_RESULTS" &&
	   [ "$(_count)" -le 1 ]; then
		_tap "1..$(_count)"
		exit "$KSFT_SKIP"
	fi
	if [ ! -e "$_MRC_RESULTS.completed" ] && [ ! -e "$_MRC_RESULTS.skip_all" ] && [ $st -ne 0 ]; then
		_result "not ok" "run_guest aborted (exit status $st)"
	fi
	_nic_probe
	_dmesg_check
	_tap "1..$(_count)"
	grep -q '^not ok$' "$_MRC_RESULTS" && exit "$KSFT_FAIL"
	exit "$KSFT_PASS"
}

# ------------------------------------------------------------------ host side

_mrc_host_main() {
	local script out rc n f line rcn nres=0 nfail total=0 fails=0 skips=0
	local -a args entries
	script=$(realpath -- "$0")
	echo "TAP version 13"
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP must be run as root (VM fabric)"
		exit "$KSFT_SKIP"
	fi
	args=(-n "${NODES:-2}" -t "$((${TIMEOUT:-300} * _MRC_TSCALE))"
	      -b "$((${MRC_BOOT_TIMEOUT:-240} * _MRC_TSCALE))"
	      -r "${MRC_BOOT_RETRIES:-1}")
	[ -n "${PLANES:-}" ] && args+=(-p "$PLANES")
	[ -n "${MTU:-}" ] && args+=(--mtu "$MTU")
	[ -n "${MEM:-}" ] && args+=(--mem "$MEM")
	[ "${ONLY:-0}" = 1 ] && args+=(--only 1)
	# The test's MRC_* settings (MRC_SOAK_SECONDS=600, ...) go into the
	# guests too; the fabric's own ones do not.
	local -a pass=()
	local v
	for v in $(compgen -e MRC_); do
		case $v in
		MRC_NODE|MRC_LIB_DIR|MRC_TIMEOUT_SCALE|MRC_KERNEL|MRC_KMODDIR|\
		MRC_TMPDIR|MRC_LOGDIR|MRC_NO_DEPS|MRC_FABRIC_RUN|\
		MRC_FABRIC_RETRIES) ;;
		*) pass+=("$v=${!v}") ;;
		esac
	done
	# A test may watch the host while its fabric runs: host_during_run
	# OUTDIR, in the background, stopped when the fabric ends.
	local hpid=
	# A run whose fabric broke beneath it (run.sh exit 5: a guest NIC
	# stopped transmitting) says nothing about mrc: it runs again, up to
	# MRC_FABRIC_RETRIES times (default 1), its outputs kept aside.
	local attempt=0 stalled=()
	while :; do
		out=$(mktemp -d "${MRC_TMPDIR:-${TMPDIR:-/tmp}}/mrc-test.${script##*/}.XXXXXX") || exit "$KSFT_FAIL"
		if declare -F host_during_run > /dev/null; then
			host_during_run "$out" &
			hpid=$!
		fi
		# Progress of the fabric as diagnostics on stderr (stdout stays TAP).
		"${MRC_FABRIC_RUN:-$MRC_LIB_DIR/fabric/run.sh}" "${args[@]}" -o "$out" -- env V="${V:-0}" \
			MRC_TIMEOUT_SCALE="$_MRC_TSCALE" "${pass[@]}" "$script" "$@" 2>&1 |
			sed -u 's/^/# /' >&2
		rc=${PIPESTATUS[0]}
		if [ -n "$hpid" ]; then
			kill "$hpid" 2>/dev/null
			wait "$hpid" 2>/dev/null
			hpid=
		fi
		[ "$rc" -eq 5 ] || break
		stalled+=("$out")
		attempt=$((attempt + 1))
		[ "$attempt" -le "${MRC_FABRIC_RETRIES:-1}" ] || break
		echo "# fabric: a guest NIC stalled (outputs in $out); running the test again ($attempt of ${MRC_FABRIC_RETRIES:-1})" >&2
	done
	if [ "$rc" -eq 4 ]; then
		echo "1..0 # SKIP VM fabric prerequisites missing (see above)"
		rm -rf "$out"
		exit "$KSFT_SKIP"
	fi

	# entries: "R|ok|desc" results and "D|text" guest diagnostics, in order.
	entries=()
	for f in "${stalled[@]}"; do
		[ "$f" = "$out" ] && continue
		entries+=("D|fabric: a run stopped by a guest NIC stall, not counted (outputs kept in $f)")
	done
	if [ "$rc" -eq 5 ]; then
		# Every run's fabric broke: nothing was learnt about mrc.
		printf '1..1\nnot ok 1 fabric: a guest NIC stalled in each of %d runs (run.sh exit 5; outputs kept in %s)\n' \
			"${#stalled[@]}" "${stalled[*]}"
		exit "$KSFT_FAIL"
	fi
	if [ "$rc" -ne 0 ] && ! compgen -G "$out/node.*.rc" >/dev/null &&
	   { [ "$rc" -ne 1 ] || ! compgen -G "$out/console.*.log" >/dev/null; }; then
		# The fabric never ran (usage or host setup error): one result.
		echo "1..1"
		echo "not ok 1 fabric: run.sh exit status $rc (see its messages on stderr)"
		echo "# outputs kept in $out"
		exit "$KSFT_FAIL"
	fi
	local -a nodes=()
	if [ "${ONLY:-0}" = 1 ]; then nodes=(1); else
		for ((n = 1; n <= ${NODES:-2}; n++)); do nodes+=("$n"); done
	fi
	for n in "${nodes[@]}"; do
		f=$out/node.$n.out
		rcn=$(cat "$out/node.$n.rc" 2>/dev/null)
		nfail=0
		local -a nent=()
		if [ -r "$f" ]; then
			while IFS= read -r line || [ -n "$line" ]; do
				if [[ $line =~ ^(ok|not\ ok)\ [0-9]+(\ -)?\ ?(.*)$ ]]; then
					nent+=("R|${BASH_REMATCH[1]}|node$n: ${BASH_REMATCH[3]}")
					[ "${BASH_REMATCH[1]}" = "not ok" ] && nfail=$((nfail + 1))
				elif [[ $line =~ ^TAP\ version|^1\.\.[0-9]+ ]]; then
					:
				else
					nent+=("D|${line#\# }")
				fi
			done <"$f"
		fi
		if [ -z "$rcn" ] && [ -e "$out/.fabric/killed.$n" ]; then
			# Killed on purpose (kill_node): its results until then.
			nent+=("R|ok|node$n: killed mid-test as requested (no result after that expected)")
		elif [ -z "$rcn" ]; then
			if [ "$rc" -eq 124 ]; then
				nent+=("R|not ok|node$n: finished within $((${TIMEOUT:-300} * _MRC_TSCALE))s (timeout)")
			else
				nent+=("R|not ok|node$n: ran to completion (VM died or fabric failed)")
			fi
			nfail=$((nfail + 1))
			nent+=("D|console tail ($out/console.$n.log):")
			while IFS= read -r line; do nent+=("D|  $line"); done \
				< <(tail -n 20 "$out/console.$n.log" 2>/dev/null)
		elif [ "$rcn" != 0 ] && [ "$rcn" != "$KSFT_SKIP" ] && [ $nfail -eq 0 ]; then
			nent+=("R|not ok|node$n: exit status $rcn")
			nfail=$((nfail + 1))
		fi
		for line in "${nent[@]}"; do
			if [ "${line:0:2}" = "R|" ]; then
				entries+=("$line")
			elif [ $nfail -gt 0 ] || [ "${V:-0}" = 1 ]; then
				entries+=("D|node$n: ${line#D|}")
			fi
		done
	done
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 124 ]; then
		entries+=("R|not ok|fabric: run.sh exit status $rc")
	fi

	for line in "${entries[@]}"; do [ "${line:0:2}" = "R|" ] && nres=$((nres + 1)); done
	echo "1..$nres"
	for line in "${entries[@]}"; do
		if [ "${line:0:2}" = "D|" ]; then
			echo "# ${line#D|}"
			continue
		fi
		line=${line#R|}
		total=$((total + 1))
		[ "${line%%|*}" = "not ok" ] && fails=$((fails + 1))
		[[ ${line#*|} =~ \#\ *(SKIP|skip) ]] && skips=$((skips + 1))
		echo "${line%%|*} $total ${line#*|}"
	done
	if [ $fails -gt 0 ] || [ "${MRC_KEEP:-0}" = 1 ]; then
		echo "# outputs kept in $out (console.N.log, node.N.out, dmesg.N.log)"
	else
		rm -rf "$out"
	fi
	echo "# $script: $((total - fails)) ok, $fails not ok ($skips skipped)"
	[ $fails -gt 0 ] && exit "$KSFT_FAIL"
	[ $total -gt 0 ] && [ $skips -eq $total ] && exit "$KSFT_SKIP"
	exit "$KSFT_PASS"
}

# ------------------------------------------------------- shared guest helpers
# Used by the VM tests and bench/lib.sh; one definition each.

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }	# now_ms: CLOCK_REALTIME in ms (no fork)

# snap FILE: FILE's lines in the array SNAP, taken in one read (no fork).
# A `while read` loop seeks back after each line it takes, and a seq_file
# (debugfs, /proc) makes its text again at every seek: a counter that
# gained a digit in between moves the lines, and the next read starts
# inside one (a blank, cut or shifted line).  mapfile reads on to the end.
snap() {
	SNAP=()
	mapfile -t SNAP < "$1"
}

# stat_of FILE KEY: the value of KEY in a "key value" file (0 if none)
stat_of() {
	local l k v
	snap "$1"
	for l in "${SNAP[@]}"; do
		[[ $l =~ ^[[:space:]]*([^[:space:]]+) ]] &&
			[ "${BASH_REMATCH[1]}" = "$2" ] || continue
		read -r k v <<<"$l"
		echo "$v"
		return 0
	done
	echo 0
}

msg_stat() { stat_of /sys/kernel/debug/mrc/msg "$1"; }	# msg_stat KEY: a debugfs mrc/msg counter
ev_stat() { stat_of /sys/kernel/debug/mrc/events "$1"; }	# ev_stat KEY: a debugfs mrc/events counter
rx_buffers_free() { [ "$(msg_stat rx_buffer_bytes)" = 0 ]; }	# rx_buffers_free: no reassembly memory held
# buffers_free: no reassembly memory and no sender payload held (rx and tx)
buffers_free() {
	[ "$(msg_stat rx_buffer_bytes)" = 0 ] && [ "$(msg_stat tx_buffer_bytes)" = 0 ]
}

# pacer_stat KEY: a "KEY value" line of debugfs mrc/credit (0 if none)
pacer_stat() { stat_of /sys/kernel/debug/mrc/credit "$1"; }

# credit_stat PEER KEY: a per-peer counter of debugfs mrc/credit (0 if none)
credit_stat() {
	local -a f
	local i l
	snap /sys/kernel/debug/mrc/credit
	for l in "${SNAP[@]}"; do
		[[ $l == "peer $1 "* ]] || continue
		read -r -a f <<<"$l"
		for ((i = 2; i + 1 < ${#f[@]}; i += 2)); do
			[ "${f[i]}" = "$2" ] && { echo "${f[i + 1]}"; return; }
		done
	done
	echo 0
}

# peer_token NODE: the token this node puts in its packets to peer NODE
# (debugfs mrc/tokens, root only, a test hook; 16 hex digits, 0 while
# unknown; nothing if no such peer)
peer_token() {
	local k n t v l
	snap /sys/kernel/debug/mrc/tokens
	for l in "${SNAP[@]}"; do
		read -r k n t v <<<"$l"
		[ "$k" = peer ] && [ "$n" = "$1" ] && { echo "$v"; return; }
	done
}

# meminfo_kb FIELD: a /proc/meminfo field in kB (0 if none)
meminfo_kb() {
	local k v l
	snap /proc/meminfo
	for l in "${SNAP[@]}"; do
		[[ $l == "$1:"* ]] || continue
		read -r k v _ <<<"$l"
		echo "$v"
		return 0
	done
	echo 0
}

# fails_with TEXT CMD...: CMD fails and prints TEXT (else says what it did)
fails_with() {
	local text=$1 out
	shift
	out=$("$@" 2>&1) && { echo "succeeded: $out"; return 1; }
	grep -q -- "$text" <<< "$out" || { echo "said: $out"; return 1; }
}

# peer_add NODE: add the other node as a peer, one address per plane
peer_add() {
	mrcctl peer add "$1" addr "$(node_ip "$1" 0),$(node_ip "$1" 1)"
}

# active_paths NODE: how many of the peer's paths are in the spray set
# (state active; the kernel's paths_active); nothing if there is no peer
active_paths() { mrcctl -j peer show "$1" | jq '.[0].paths_active'; }

# plane_active NODE PLANE: how many of the peer's paths of PLANE are active
plane_active() {
	mrcctl -j peer show "$1" |
		jq "[.[0].paths[] | select(.plane == $2 and .state == \"active\")] | length"
}

# plane_tx_pkts NODE PLANE: packets sent on the peer's paths of PLANE
plane_tx_pkts() {
	mrcctl -j -s peer show "$1" |
		jq "[.[0].paths[] | select(.plane == $2) | .tx_pkts] | add"
}

# all_active NODE N: N paths active; if not, the peer's paths (wait_for
# shows them when it gives up).
all_active() {
	[ "$(active_paths "$1")" = "$2" ] && return 0
	mrcctl peer show "$1" 2>&1
	return 1
}

# For scripts that run in the guests without mrc_test_main (bench/): use
# barrier, put and get (no TAP results are printed unless one fails).
# mrc_guest_init [NODE...]: the nodes that take part (default 1..MRC_NODES)
mrc_guest_init() {
	local n
	_MRC_PARTICIPANTS=("$@")
	if [ $# = 0 ]; then
		for ((n = 1; n <= ${MRC_NODES:-1}; n++)); do _MRC_PARTICIPANTS+=("$n"); done
	fi
	_MRC_RESULTS=/tmp/mrc-guest-results.$$
	: >"$_MRC_RESULTS"
}

# mrc_sleep SECONDS: sleep; without a fork once mrc_sleep_nofork ran (as
# in every test: mrc_test_main sets it up; barrier and get sleep so too)
mrc_sleep() { _sleep "$1"; }

# mrc_sleep_nofork [FIFO]: from now on mrc_sleep, barrier and get sleep
# without a fork (read -t on FIFO, which nobody writes; default a new one)
mrc_sleep_nofork() {
	local fifo=${1:-/tmp/.mrc-sleep.$$}
	[ -n "$_MRC_SLEEP_FD" ] && return 0
	[ -p "$fifo" ] || mkfifo "$fifo" || return 1
	exec {_MRC_SLEEP_FD}<>"$fifo"
}

mrc_test_main() {
	if [ "${MRC_IN_VM:-}" = 1 ]; then
		_mrc_guest_main "$@"
	else
		_mrc_host_main "$@"
	fi
}
