#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Epoch churn and a slow-drip peer, between two nodes on both planes
# (modules/mrc_echo: messages of random size whose content and order the
# receiver checks).  Two stress cases:
#
# A. Epoch churn.  Node 2 restarts mrc CYCLES times (MRC_CHURN_CYCLES;
#    default 8, 30 on the debug-kernel lane, i.e. when MRC_KERNEL is set):
#    it stops its own traffic, unloads mrc_echo and mrc, loads both again
#    and adds node 1 back, as a rebooted node would, and each new instance
#    sends to node 1 until the next restart.  Node 1 keeps sending to node
#    2 throughout.  So every few seconds node 1 meets a new incarnation of
#    node 2 (new QPNs, a new epoch) with its own messages to node 2 queued
#    and in flight: the handshake starts its unfinished sends over on the
#    new instance, its receive side opens a new epoch.  Afterwards: node 1
#    saw exactly CYCLES restarts (peer_restarts), every message either
#    node received was intact and in order, every send of node 1
#    completed, all 16 paths come back, a transfer each way is whole, node
#    1's buffers are back to 0 and no slab site of mrc, of its AHs or of
#    its cm ids on node 1 grew by CYCLES objects.
# B. A slow-drip peer.  The rogue tool on node 2 (rogue.c "drip") forges
#    on a real path of node 2, with node 2's token (as an on-path node or
#    a broken peer could), the first packet of a 1 MiB message in node
#    2's current epoch and then the very same packet every DRIP_S seconds.
#    Node 1 must give the message up twice peer_timeout_ms after that
#    first packet while the duplicates keep coming (they used to refresh
#    the expiry clock: the message and its reassembly memory stayed for
#    as long as the drip went on), and drop the later drips as DATA of an
#    epoch it gave up (rx_gone_pkts).  Node 2's next sends then fail at
#    most with -ETIMEDOUT (node 1 answers MRC_WF_GONE) and move on to a
#    new epoch: every send completes, a batch after them is acknowledged
#    whole, and node 1 receives exactly the ones acknowledged, intact.  DRIP_ROUNDS rounds (MRC_CHURN_DRIP_ROUNDS;
#    default 1, 3 on the lane); peer_timeout_ms is PEER_TIMEOUT_MS
#    (MRC_CHURN_PEER_TIMEOUT_MS, default 3000 x the timeout scale) on both
#    nodes.
#
# MRC_CHURN_CASES (default AB) runs only the cases it names.  The guests'
# dmesg must stay clean throughout (lib.sh; on the debug kernel also
# KASAN, lockdep, kmemleak).  Written as titled cases (lib.sh's case_title
# and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
: "${MRC_CHURN_CYCLES:=$([ -n "${MRC_KERNEL:-}" ] && echo 30 || echo 8)}"
: "${MRC_CHURN_DRIP_ROUNDS:=$([ -n "${MRC_KERNEL:-}" ] && echo 3 || echo 1)}"
export MRC_CHURN_CYCLES MRC_CHURN_DRIP_ROUNDS
CYCLES=$MRC_CHURN_CYCLES
DRIP_ROUNDS=$MRC_CHURN_DRIP_ROUNDS
PEER_TIMEOUT_MS=${MRC_CHURN_PEER_TIMEOUT_MS:-$((3000 * ${MRC_TIMEOUT_SCALE:-1}))}
DRIP_S=1		# seconds between two drips
# The drip outlasts the expiry (2 x peer_timeout_ms) by 30 s x scale.
DRIP_SECS=$((PEER_TIMEOUT_MS * 2 / 1000 + 30 * ${MRC_TIMEOUT_SCALE:-1}))
BATCH=10		# messages node 2 sends in each round of case B
CASES=${MRC_CHURN_CASES:-AB}
TIMEOUT=${MRC_CHURN_TIMEOUT:-$((900 + CYCLES * 40 + DRIP_ROUNDS * (DRIP_SECS + 120)))}
export MRC_APPEND="${MRC_APPEND:-} slub_debug=U"
MAXLEN=262144

source "$MRC_LIB_DIR/echo_lib.sh"

ROGUE=$MRC_LIB_DIR/rogue
if [ -z "${MRC_IN_VM:-}" ] &&
   ! make -s -C "$MRC_LIB_DIR" rogue > /dev/null 2>&1; then
	echo "not ok 1 build selftests/mrc/rogue (needs libibverbs-dev)"
	exit 1
fi
R=/sys/kernel/mrc/rails/rxe0:1
# the per-incarnation counters of node 2's mrc_echo, summed over case A
SUM=/tmp/.churn-sum

# start NODE [SEQ_BASE]: mrc, mrc_echo (its messages numbered from
# SEQ_BASE + 1: each instance after the last, for the peer's order
# check), then the peer
start() {
	modprobe mrc node_id="$MRC_NODE" &&
		mount -t debugfs none $D 2>/dev/null
	# The endpoint first: node 1's queued messages arrive as soon as the
	# paths are back (to an unbound port they would be refused).
	insmod "$ECHO_KO" seq_base="${2:-0}" && peer_add "$1"
}

some_active() { [ "$(active_paths "$1")" -gt 0 ] 2>/dev/null; }

# Adds this incarnation's mrc_echo counters to $SUM.
sum_add() {
	local k v
	for k in sent done_ok done_err rx rx_bad rx_order; do
		v=$(echo_stat "$k")
		echo "$k $(($(stat_of $SUM "$k" 2>/dev/null || echo 0) + v))"
	done > $SUM.new
	mv $SUM.new $SUM
}
sum_of() { stat_of $SUM "$1"; }

# Case A, node 2: CYCLES restarts, its own traffic running in between.
restart_cycles() {
	local o=$1 i failed=0 slow=0
	: > $SUM
	for ((i = 1; i <= CYCLES; i++)); do
		echo stop > $D/mrc_echo/ctl
		wait_for_quiet 60 echo_idle || failed=$((failed + 1))
		wait_for_quiet 120 all_completed || failed=$((failed + 1))
		sum_add
		{ rmmod mrc_echo && modprobe -r mrc; } ||
			{ failed=$((failed + 1)); break; }
		start "$o" $((i * 1000000)) || { failed=$((failed + 1)); break; }
		wait_for_quiet 30 some_active "$o" || slow=$((slow + 1))
		stress_start "$o" "$i"
		# Traffic both ways for a while, then the next restart.
		mrc_sleep "1.$((RANDOM % 10))"
	done
	echo stop > $D/mrc_echo/ctl
	wait_for_quiet 60 echo_idle
	wait_for_quiet 120 all_completed
	sum_add
	ok_eq "$CYCLES restarts of mrc, every unload, load and wait succeeded" \
		0 "$failed"
	diag "A: restarts whose paths were not back within 30 s: $slow"
}

# wait_for_quiet SECONDS CMD...: CMD succeeds within SECONDS x scale
# (no TAP result).
wait_for_quiet() {
	local t0=$SECONDS lim=$(($1 * ${MRC_TIMEOUT_SCALE:-1}))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $((SECONDS - t0)) -ge "$lim" ] && return 1
		mrc_sleep 0.2
	done
}

case_a() {
	local o=$1 r0

	case_title "A: node 2 restarts mrc $CYCLES times while node 1 sends to it"
	r0=$(msg_stat peer_restarts)
	is_node 1 && stress_start "$o" 0
	barrier stress-a
	is_node 2 && restart_cycles "$o"
	barrier cycles-a $((CYCLES * 60 + 120))
	if is_node 1; then
		stress_stop
		diag "A: node 1 sent $(echo_stat sent), ok $(echo_stat done_ok), failed $(echo_stat done_err) (last status $(echo_stat done_err_last_status)), received $(echo_stat rx)"
		chk_msg_stat "node 2 seen restarting $CYCLES times" \
			peer_restarts = $((r0 + CYCLES))
		chk_echo_stat 'every message from node 2 intact' rx_bad = 0
		chk_echo_stat '... and in order' rx_order = 0
	else
		diag "A: node 2's instances sent $(sum_of sent), ok $(sum_of done_ok), failed $(sum_of done_err), received $(sum_of rx)"
		ok_eq 'every message from node 1 intact, in each instance' 0 \
			"$(sum_of rx_bad)"
		ok_eq '... and in order' 0 "$(sum_of rx_order)"
		ok "node 2's instances received node 1's messages" \
			test "$(sum_of rx)" -gt 0
	fi
	chk_paths_active "$o" 16 120 'after the restarts'
	barrier quiet-a

	case_title 'A: afterwards a transfer each way is whole, nothing leaked'
	check_transfer "$o" a
	if is_node 1; then
		chk_sites_flat /tmp/sites0 "$CYCLES"
	fi
	barrier leak-a
}

# partial_held: node 1 holds reassembly memory (the drip's message)
partial_held() { [ "$(msg_stat rx_buffer_bytes)" -gt 0 ]; }
expired_since() { [ "$(msg_stat rx_expired)" -gt "$1" ]; }
gone_since() { [ "$(msg_stat rx_gone_pkts)" -ge "$1" ]; }

# drip_batch NODE TAG GONE: node 2 sends BATCH messages to node 1 (once
# the drip's rogue, if one runs, captures); both check what arrived.
# GONE 1: the batch may meet an epoch node 1 gave up (-ETIMEDOUT).
drip_batch() {
	local o=$1 tag=$2 gone=$3 g0 ok1
	echo reset > $D/mrc_echo/ctl
	barrier "batch-$tag"
	if is_node 2; then
		[ -e /tmp/.drip-pid ] &&
			wait_for 'the rogue captures' 60 \
				grep -q '^# capturing' /tmp/rogue.drip
		g0=$(msg_stat tx_epoch_gone)
		# how much of the batch can go before node 1's first answer
		diag "before batch $tag: $(grep -h ' tx:' $D/mrc/queues)"
		ok "send $BATCH messages to node1" \
			sh -c "echo send $o 7 $BATCH 65536 $((tag + 77)) > $D/mrc_echo/ctl"
		wait_for "$BATCH sends completed" 120 sends_done "$BATCH"
		diag "batch $tag: ok $(echo_stat done_ok), failed $(echo_stat done_err) (last status $(echo_stat done_err_last_status))"
		diag "node 2: $(tr '\n' ' ' < $D/mrc/msg)"
		if [ "$gone" = 1 ]; then
			chk_msg_stat 'the given-up epoch was left (tx_epoch_gone)' \
				tx_epoch_gone '>' "$g0"
			ok "failed sends (if any) failed with -ETIMEDOUT" \
				test "$(echo_stat done_err)" = 0 -o \
				"$(echo_stat done_err_last_status)" = -110
			# Which of the batch had a packet out when node 1's
			# first GONE came back is a race with the sender's
			# pushes (all of it: a window grown to 128 packets
			# holds 10 messages of 9 packets on average).  Those
			# fail: node 1 may have delivered them.  The next
			# batch goes in the new epoch, and every send of it
			# completes.
			ok1=$(echo_stat done_ok)
			ok "send $BATCH more messages to node1" \
				sh -c "echo send $o 7 $BATCH 65536 $((tag + 88)) > $D/mrc_echo/ctl"
			wait_for "$((2 * BATCH)) sends completed" 120 \
				sends_done $((2 * BATCH))
			diag "and then: ok $(($(echo_stat done_ok) - ok1)) more, failed $(echo_stat done_err) in all"
			ok_eq 'every send in the new epoch acknowledged' \
				"$BATCH" "$(($(echo_stat done_ok) - ok1))"
		else
			chk_echo_stat 'every send acknowledged' done_ok = "$BATCH"
		fi
		put "acked-$tag" "$(echo_stat done_ok)"
	fi
	barrier "batch-$tag-sent" 180
	if is_node 1; then
		local acked
		acked=$(get "acked-$tag")
		wait_for "the $acked acknowledged arrive" 60 received_at_least "$acked"
		mrc_sleep 1
		chk_echo_stat "exactly the $acked acknowledged received" rx = "$acked"
		chk_echo_stat 'intact' rx_bad = 0
		chk_echo_stat 'in order' rx_order = 0
	fi
	barrier "batch-$tag-checked"
}

case_b() {
	local o=$1 i e0 g0 t0 sent

	case_title "B: a peer that drips a duplicate every $DRIP_S s, $DRIP_ROUNDS round(s)"
	ok "peer_timeout_ms $PEER_TIMEOUT_MS" \
		sh -c "echo $PEER_TIMEOUT_MS > /sys/kernel/mrc/peer_timeout_ms"
	put "qpns$MRC_NODE" "$(tr ' ' , < $R/qpns)"
	barrier drip-setup
	for ((i = 1; i <= DRIP_ROUNDS; i++)); do
		case_title "B: drip round $i: the forged message, then duplicates"
		if is_node 2; then
			rm -f /tmp/.drip-go
			"$ROGUE" -d rxe0 -t "$(node_ip 1 0)" -q "$(get qpns1)" \
				-i eth0 -Q "$(tr ' ' , < $R/qpns)" -W /tmp/.drip-go \
				-T "$DRIP_SECS" -P "$DRIP_S" drip \
				> /tmp/rogue.drip 2>&1 &
			echo $! > /tmp/.drip-pid
		fi
		# Its capture sees this batch's DATA: the drip is of its epoch.
		drip_batch "$o" "$i" $((i > 1))
		is_node 1 && { e0=$(msg_stat rx_expired); g0=$(msg_stat rx_gone_pkts); }
		barrier "drip-$i"
		is_node 2 && : > /tmp/.drip-go
		if is_node 1; then
			t0=$SECONDS
			wait_for 'the first drip is taken (reassembly memory held)' 30 \
				partial_held
			wait_for "given up within 2 x peer_timeout_ms, the drip going on" \
				$((PEER_TIMEOUT_MS * 2 / 1000 + 20)) expired_since "$e0"
			diag "round $i: expired after $((SECONDS - t0)) s (peer_timeout_ms $PEER_TIMEOUT_MS)"
			chk_msg_stat 'one message given up' rx_expired = $((e0 + 1))
			chk_msg_stat 'its reassembly memory freed' rx_buffer_bytes = 0
			wait_for 'later drips dropped as a given-up epoch' 30 \
				gone_since $((g0 + 2))
			chk_msg_stat 'and none taken again' rx_buffer_bytes = 0
		fi
		barrier "dripped-$i" $((DRIP_SECS + 120))
		if is_node 2; then
			wait_for 'the drip ends' $((DRIP_SECS + 60)) \
				sh -c "! kill -0 $(cat /tmp/.drip-pid)"
			sed 's/^/# /' /tmp/rogue.drip
			sent=$(sed -n 's/^drip sent //p' /tmp/rogue.drip)
			ok "rogue dripped (${sent:-0} packets)" test "${sent:-0}" -gt 2
			rm -f /tmp/.drip-pid
		fi
	done
	barrier drips-done
	drip_batch "$o" $((DRIP_ROUNDS + 1)) 1
	if is_node 1; then
		chk_rx_buffers_free 10
		diag "node 1: $(tr '\n' ' ' < $D/mrc/msg)"
	fi
}

run_guest() {
	local o=$((3 - MRC_NODE)) c

	case_title 'setup: mrc, mrc_echo, the peer on both planes'
	ok 'modprobe mrc, insmod mrc_echo, add the peer' start "$o"
	chk_paths_active "$o" 16 120
	site_snapshot > /tmp/sites0
	barrier setup

	for c in A B; do
		[[ $CASES == *$c* ]] || { skip "case $c" 'not in MRC_CHURN_CASES'; continue; }
		"case_${c,,}" "$o"
	done

	case_title 'mrc_echo and mrc unload'
	barrier unload
	ok 'rmmod mrc_echo' rmmod mrc_echo
	chk_rx_buffers_free 10
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
