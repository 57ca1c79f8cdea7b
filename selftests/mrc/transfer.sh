#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Transfer: the example consumer module (modules/mrc_echo) on both nodes
# sends COUNT messages of random sizes 1 B..MAXLEN to the other node at the
# same time; every message is checked on receipt (content recomputed from
# its seed, CRC, in-order sequence) and every send completes with status 0.
# Then the same with netem (delay 1ms reorder 25% loss 1%) on plane 1 of
# node 1: still all intact, and retransmission counters move (before it,
# the loss floor in use: learned, then set by data_rto_min_ms).  Then large
# messages (up to the 64 MiB cap, one of exactly 64 MiB) between three
# endpoints on each node at once.  Sends to ports with nothing bound fail
# with ECONNREFUSED; an endpoint that turns messages away (admit() busy)
# holds its senders back without failing them.  Finally everything
# unloads cleanly with
# the receive buffers back to zero.  Written as titled cases (lib.sh's
# case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
MEM=2048	# 64 MiB messages: copies on both sides, both directions
TIMEOUT=${MRC_TRANSFER_TIMEOUT:-900}
COUNT=${MRC_TRANSFER_COUNT:-50}
MAXLEN=${MRC_TRANSFER_MAXLEN:-4194304}
LARGE_COUNT=${MRC_TRANSFER_LARGE_COUNT:-5}
LARGE_MAXLEN=67108864	# the message cap (MRC_MSG_MAX_LEN)
NPORTS=3

source "$MRC_LIB_DIR/echo_lib.sh"

transfer_done() {	# all our sends completed and all theirs arrived
	[ "$(echo_stat busy)" = 0 ] &&
	[ $(($(echo_stat done_ok) + $(echo_stat done_err))) -ge "$COUNT" ] &&
	[ "$(echo_stat rx)" -ge "$COUNT" ]
}

echo_idle() { [ "$(echo_stat busy)" = 0 ]; }	# nothing queued in mrc_echo
# accepted_done: every send mrc_echo accepted was confirmed (done_ok)
accepted_done() { [ "$(echo_stat sent)" = "$(echo_stat done_ok)" ]; }

# phase NAME OTHER [COUNT MAXLEN]: one transfer each way, checked; its
# case is titled by the caller.
phase() {
	local name=$1 o=$2 t0 t1 ms p0 r0 d0 p r d
	local COUNT=${3:-$COUNT} MAXLEN=${4:-$MAXLEN}
	echo reset > $D/mrc_echo/ctl
	p0=$(msg_stat tx_pkts)
	r0=$(msg_stat tx_retrans)
	d0=$(msg_stat rx_dup_pkts)
	barrier "start-$name"
	t0=$EPOCHREALTIME
	ok "send $COUNT messages of 1..$MAXLEN B to node$o" \
		sh -c "echo send $o 7 $COUNT $MAXLEN $((MRC_NODE * 7919 + ${#name})) > $D/mrc_echo/ctl"
	wait_for "$COUNT sent and $COUNT received" 600 transfer_done
	t1=$EPOCHREALTIME
	ms=$(( (${t1/./} - ${t0/./}) / 1000 ))
	chk_echo_stat 'every send completed with status 0' done_ok = "$COUNT"
	chk_echo_stat 'no send refused' send_err = 0
	chk_echo_stat "$COUNT messages received" rx = "$COUNT"
	chk_echo_stat 'every message intact' rx_bad = 0
	chk_echo_stat 'in order' rx_order = 0
	diag "$name: sent $(echo_stat sent) msgs / $(echo_stat tx_bytes) B," \
	     "received $(echo_stat rx) msgs / $(echo_stat rx_bytes) B in $ms ms"
	p=$(($(msg_stat tx_pkts) - p0))
	r=$(($(msg_stat tx_retrans) - r0))
	d=$(($(msg_stat rx_dup_pkts) - d0))
	diag "$name: sent $p packets, $r retransmitted" \
	     "($((r * 1000 / (p ? p : 1))) per mille); received $d duplicates"
	diag "$name: mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	barrier "end-$name"
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) r0 nm0 rs0 f

	case_title "mrc_echo with $NPORTS endpoints on both nodes, all paths up"
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	mount -t debugfs none $D 2>/dev/null
	ok "add peer node$o on both planes" peer_add "$o"
	ok "insmod mrc_echo ($NPORTS endpoints)" insmod "$ECHO_KO" nports=$NPORTS
	chk_paths_active "$o" 16 60
	barrier paths-up

	case_title "clean: $COUNT messages of 1..$MAXLEN B each way at once"
	phase clean "$o"

	# Knob data_rto_min_ms: at 0 (default) the floor of the DATA RTO is
	# learned from the peer's RTTs (0.1 to 20 ms, or twice the slowest
	# recent RTT up to rto_max_ms, 200 ms: the VMs' RTTs keep it at 20
	# ms or above); above 0 it is the knob.  peer-get shows the one in
	# use.
	case_title 'data_rto_min_ms: the loss floor in use, learned or set'
	f=$(mrcctl -j peer show "$o" | jq '.[0].loss_floor_us')
	diag "loss floor learned from node$o's RTTs: $f us"
	ok "learned floor within 100..200000 us ($f)" \
		test "$f" -ge 100 -a "$f" -le 200000
	ok 'mrcctl config set data_rto_min_ms 7' \
		mrcctl config set data_rto_min_ms 7
	ok_eq 'the floor in use is the knob' 7000 \
		"$(mrcctl -j peer show "$o" | jq '.[0].loss_floor_us')"
	ok 'mrcctl config set data_rto_min_ms 0' \
		mrcctl config set data_rto_min_ms 0
	mrcctl peer show "$o" | grep 'loss floor' | sed 's/^/# /'

	case_title 'lossy: netem on plane 1 of node 1, all intact, resent'
	if is_node 1; then
		ok 'netem on eth1' tc qdisc add dev eth1 root netem \
			delay 1ms reorder 25% loss 1%
	fi
	r0=$(msg_stat tx_retrans)
	phase lossy "$o"
	if is_node 1; then
		chk_msg_stat 'retransmissions counted over the lossy plane' \
			tx_retrans '>' "$r0"
		tc qdisc del dev eth1 root
	fi

	case_title "large: $LARGE_COUNT messages up to the 64 MiB cap from $NPORTS endpoints"
	phase large "$o" "$LARGE_COUNT" "$LARGE_MAXLEN"

	# Memory knobs.  rx_msgs_per_peer 1 + rx_buffer_mb 2: the receiver
	# holds one message per peer (the next one due in each lane always
	# fits), packets of the others are dropped as no_memory and resent:
	# all still arrive.  Messages of up to 256 KiB, so that several are
	# in flight at once and two of them share a lane (the three
	# endpoints' ports are three lanes).
	case_title 'rx_msgs_per_peer 1, rx_buffer_mb 2: packets beyond refused, resent'
	nm0=$(msg_stat rx_no_mem) rs0=$(pacer_stat req_stale)
	ok 'mrcctl config set rx_msgs_per_peer 1' mrcctl config set rx_msgs_per_peer 1
	echo 2 > /sys/kernel/mrc/rx_buffer_mb
	phase tight "$o" 40 262144
	chk_msg_stat 'the receiver refused packets of further messages' \
		rx_no_mem '>' "$nm0"
	# A message its receiver's endpoint held back (busy) gives its
	# credit schedule up and asks again later, with the same id.  The
	# credit table must take that request (core/credit_rx.c,
	# mrc_credit_newer()): one taken as a replay (req_stale) is refused
	# for stale_ns, 6 s here, and its sender waits that long.  A few
	# may be requests overtaken on the way; a wait repeats its request
	# every few tens of ms.
	_chk_cmp "credit requests of messages given up and asked again are taken" \
		req_stale "$(($(pacer_stat req_stale) - rs0))" '<=' 4
	echo 64 > /sys/kernel/mrc/rx_msgs_per_peer
	echo 256 > /sys/kernel/mrc/rx_buffer_mb

	# tx_msgs_per_peer 2: a third queued send is refused with ENOBUFS at
	# once, nothing is lost: what was accepted arrives.
	case_title 'tx_msgs_per_peer 2: further sends refused at once, none lost'
	barrier tx-limit
	echo reset > $D/mrc_echo/ctl
	ok 'mrcctl config set tx_msgs_per_peer 2' mrcctl config set tx_msgs_per_peer 2
	ok 'send 10 messages of 1 MiB' sh -c "echo send $o 7 10 1048576 5 1 > $D/mrc_echo/ctl"
	wait_for 'every send completed or refused' 300 echo_idle
	wait_for 'accepted sends confirmed' 300 accepted_done
	chk_echo_stat 'sends refused with ENOBUFS' send_err '>=' 1
	ok_eq 'sent + refused = 10' 10 $(($(echo_stat sent) + $(echo_stat send_err)))
	chk_echo_stat 'no accepted send failed' done_err = 0
	echo 4096 > /sys/kernel/mrc/tx_msgs_per_peer
	barrier tx-limit-done
	chk_echo_stat "every accepted message of node$o arrived intact" rx_bad = 0
	mrcctl peer show "$o" | sed 's/^/# /'

	# A port with nothing bound: the receiver refuses each message at
	# its first packet and the sender's done() gets -ECONNREFUSED, not 0
	# (core/msg_rx.c, Refusal); both sides count it.
	case_title 'sends to ports with nothing bound fail with ECONNREFUSED'
	echo reset > $D/mrc_echo/ctl
	# rx_refused counts the peer's sends: read before the barrier lets
	# them go.
	local rf0 tf0 tx0
	rf0=$(msg_stat rx_refused) tf0=$(msg_stat tx_refused)
	barrier refused
	tx0=$(msg_stat tx_failed)
	ok 'send 6 messages to ports 7100..7102 (nothing bound)' \
		sh -c "echo send $o 7100 6 20000 9 > $D/mrc_echo/ctl"
	wait_for 'every send completed' 120 sends_done 6
	chk_echo_stat 'every one failed' done_err = 6
	chk_echo_stat 'with ECONNREFUSED' done_err_last_status = -111
	chk_msg_stat 'counted by the sender (tx_refused)' tx_refused = \
		$((tf0 + 6))
	chk_msg_stat 'and as failed (tx_failed)' tx_failed = $((tx0 + 6))
	barrier refused-done
	chk_msg_stat "node$o's 6 refused here (rx_refused)" rx_refused = \
		$((rf0 + 6))
	chk_echo_stat 'none delivered' rx = 0

	# An endpoint that cannot take messages (mrc_echo "hold 1": its
	# admit() says -EBUSY) holds its senders back for longer than they
	# would wait for an unresponsive peer (4 x peer_timeout_ms): nothing
	# fails, nothing is acknowledged; then everything arrives.
	case_title 'an endpoint turning messages away holds its senders back, nothing fails'
	barrier hold
	echo reset > $D/mrc_echo/ctl
	local busy0 exp0 stale0
	busy0=$(msg_stat tx_busy)
	exp0=$(msg_stat rx_expired)
	stale0=$(credit_stat "$o" requests_stale)
	ok 'hold 1: admit() says busy' sh -c "echo hold 1 > $D/mrc_echo/ctl"
	barrier held
	ok 'send 12 messages of up to 200000 B' \
		sh -c "echo send $o 7 12 200000 11 > $D/mrc_echo/ctl"
	sleep $((4 * 3 + 3))	# past 4 x peer_timeout_ms (3 s)
	chk_echo_stat 'none completed meanwhile' done_ok = 0
	chk_echo_stat 'none failed' done_err = 0
	chk_echo_stat "none of node$o's delivered" rx = 0
	chk_echo_stat "node$o's turned away (held)" held '>' 0
	chk_msg_stat 'busy answers came back (tx_busy)' tx_busy '>' "$busy0"
	barrier hold-checked
	ok 'hold 0' sh -c "echo hold 0 > $D/mrc_echo/ctl"
	wait_for 'every send completed' 120 sends_done 12
	chk_echo_stat 'all 12 confirmed' done_ok = 12 ||
		diag "done_err $(echo_stat done_err)," \
		     "last status $(echo_stat done_err_last_status)"
	wait_for "node$o's 12 arrived" 120 received_at_least 12
	chk_echo_stat 'intact, in order' rx_bad = 0
	chk_echo_stat 'in order' rx_order = 0
	# Each busy answer made its sender give the credit schedule up; the
	# message asks again with its own id when it resumes, maybe after
	# another port's message took the sender's credit entry here.  That
	# request is taken (core/credit_rx.c mrc_credit_newer()): were it
	# refused as stale, it would be asked again every request timeout
	# for stale_ns (2 x peer_timeout_ms, hundreds of refusals) while
	# this side expires the waiting message's context after as long
	# (rx_expired), and its sender fails it with ETIMEDOUT.
	chk_msg_stat 'nothing given up here (rx_expired)' rx_expired = "$exp0"
	chk_credit_stat "node$o's re-requests taken (requests_stale)" "$o" \
		requests_stale '<' $((stale0 + 50))

	case_title 'everything unloads, receive buffers back to 0'
	barrier transfers-done
	ok 'rmmod mrc_echo' rmmod mrc_echo
	chk_rx_buffers_free
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
