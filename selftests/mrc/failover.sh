#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Failover: node 1 sends COUNT messages of SIZE bytes (default 48 x 4 MiB =
# 192 MiB) to node 2 with the example consumer (modules/mrc_echo).  During
# the transfer plane 1 goes down on node 1 (ip link set eth1 down), then
# node 2's rail of that plane is deleted (rdma link delete rxe1); after
# DOWN_S seconds over plane 0 alone, the plane comes back (link up, rxe1
# re-added).  Every message arrives exactly once, intact and in
# order, every send completes with status 0, and all 16 paths are active
# again on both nodes; a second, short transfer then goes over plane 1
# too (its paths carry packets again).  Then plane 1 turns slow instead
# of dead (a hot link: node 1's eth1 delays by HOT_DELAY_MS) during a
# third transfer: it completes intact, in order, with fewer than
# HOT_RESENT_MAX_PCT percent of its packets sent again.  The receiver's longest stall
# (largest gap between two deliveries) is reported as a diagnostic and
# only bounded generously.  Each node that loses its rail of plane 1 tells
# the other over plane 0 (RAIL_DOWN; rail counters down_notices_tx/rx), so
# the other stops spraying into the dead rail at once.  Written as titled
# cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_FAILOVER_TIMEOUT:-600}
COUNT=${MRC_FAILOVER_COUNT:-48}
SIZE=${MRC_FAILOVER_SIZE:-4194304}
# A "does not hang" bound, a time limit: scaled like the others on slow
# debug kernels (MRC_TIMEOUT_SCALE); the stall itself is measured by bench/.
STALL_MAX_MS=${MRC_FAILOVER_STALL_MAX_MS:-$((10000 * _MRC_TSCALE))}
DOWN_S=3	# how long plane 1 stays down after the rail is deleted
HOT_DELAY_MS=100	# the hot link: plane 1's delay (netem on node 1's eth1)
HOT_COUNT=12		# ... while node 1 sends this many messages of SIZE
HOT_RESENT_MAX_PCT=5	# ... and sends fewer than this % of packets again

source "$MRC_LIB_DIR/echo_lib.sh"

plane0_active() { [ "$(plane_active "$OTHER" 0)" -ge 1 ]; }
# notices NAME: RAIL_DOWN counter of plane 0's rail (down_notices_tx/rx)
notices() { cat /sys/kernel/mrc/rails/rxe0:1/stats/down_notices_$1; }
notices_ge() { [ "$(notices "$1")" -ge "$2" ]; }
# msg_stat NAME: a debugfs mrc/msg counter
msg_stat() { stat_of $D/mrc/msg "$1"; }

run_guest() {
	OTHER=$((3 - MRC_NODE))
	local a="$(node_ip $OTHER 0),$(node_ip $OTHER 1)"
	local t0 n0 t_down t_up r0 r1 gap span rx tx0 pk0 re0 ea0 na0 pk re

	case_title 'mrc_echo on both nodes, all 16 paths up'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$MRC_NODE"
	mount -t debugfs none $D 2>/dev/null
	ok "add peer node$OTHER on both planes" mrcctl peer add "$OTHER" addr "$a"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	chk_paths_active "$OTHER" 16 60
	echo reset > $D/mrc_echo/ctl
	barrier paths-up

	# Node 1 sends; node 2 receives.
	case_title 'plane 1 fails mid-transfer, each side tells the other over plane 0'
	if is_node 1; then
		t0=$(now_ms)
		ok "send $COUNT x $SIZE B to node$OTHER" \
			sh -c "echo send $OTHER 7 $COUNT $SIZE 4242 1 > $D/mrc_echo/ctl"
		wait_for 'a message acked over both planes' 120 sent_at_least 1
		t_down=$(now_ms)
		ok 'plane 1 down on node1 (ip link set eth1 down)' \
			ip link set eth1 down
		put plane-down 1
		wait_for 'node1 told node2 over plane 0 (RAIL_DOWN sent)' 10 \
			notices_ge tx 1
		get rail-deleted 120 > /dev/null
		wait_for "node2's RAIL_DOWN for its deleted rail reached node1" 10 \
			notices_ge rx 1
		n0=$(echo_stat done_ok)
		diag "plane 1 down at +$((t_down - t0)) ms after $n0 messages acked"
		# Plane 1's paths have all left; plane 0's carry on.  Under the
		# bulk transfer each of them may be assumed-bad for a moment
		# (spurious RTOs in TCG guests), all 8 at once now and then: a
		# snapshot of their states failed twice in CI, so plane 0 gets
		# a few seconds to show an active path.
		ok_eq 'no plane-1 path active while the plane is down' 0 \
			"$(plane_active "$OTHER" 1)"
		wait_for 'plane-0 paths active meanwhile' 5 plane0_active
		# Plane 0 alone for a while (the receiver checks it delivered).
		_sleep "$DOWN_S"
	else
		get plane-down 120 > /dev/null
		wait_for "node1's RAIL_DOWN for its plane 1 reached node2" 10 \
			notices_ge rx 1
		ok "node2's rail of plane 1 deleted (rdma link delete rxe1)" \
			rdma link delete rxe1
		wait_for 'node2 told node1 over plane 0 (RAIL_DOWN sent)' 10 \
			notices_ge tx 1
		r0=$(echo_stat rx_bytes)
		put rail-deleted 1
	fi

	case_title 'plane 1 returns: all 16 paths active again'
	if is_node 1; then
		t_up=$(now_ms)
		ok 'plane 1 up on node1 (ip link set eth1 up)' ip link set eth1 up
		put plane-up 1
		diag "plane 1 was down for $((t_up - t_down)) ms;" \
		     "$(echo_stat done_ok) of $COUNT messages acked when it returned"
		chk_paths_active "$OTHER" 16 120 again
		diag "paths back at +$(($(now_ms) - t0)) ms with" \
		     "$(echo_stat done_ok) of $COUNT messages acked"
	else
		get plane-up 300 > /dev/null
		r1=$(echo_stat rx_bytes)
		diag "delivered over plane 0 alone: $((r1 - r0)) B"
		ok 'rxe1 re-added' rdma link add rxe1 type rxe netdev eth1
		chk_paths_active "$OTHER" 16 120 again
	fi

	case_title 'every message delivered once, intact, in order, no long stall'
	if is_node 1; then
		wait_for "all $COUNT sends completed" 600 sends_done "$COUNT"
		chk_echo_stat 'every send completed with status 0' \
			done_ok = "$COUNT"
		chk_echo_stat 'no send failed' done_err = 0
		chk_echo_stat 'no send refused' send_err = 0
		diag "sender: $COUNT msgs / $(echo_stat tx_bytes) B in" \
		     "$(($(now_ms) - t0)) ms"
		diag "sender mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	else
		wait_for "$COUNT messages received" 600 received_at_least "$COUNT"
		rx=$(echo_stat rx)
		chk_echo_stat "exactly $COUNT messages delivered (none lost or duplicated)" \
			rx = "$COUNT"
		chk_echo_stat "$((COUNT * SIZE)) bytes delivered" \
			rx_bytes = "$((COUNT * SIZE))"
		chk_echo_stat 'every message intact' rx_bad = 0
		chk_echo_stat 'in order, no duplicate' rx_order = 0
		gap=$(echo_stat rx_gap_max_us)
		span=$(echo_stat rx_span_us)
		diag "longest stall: $((gap / 1000)) ms between deliveries" \
		     "(after $(echo_stat rx_gap_at_bytes) B); mean gap" \
		     "$((span / (rx > 1 ? rx - 1 : 1) / 1000)) ms; first to last" \
		     "delivery $((span / 1000)) ms"
		ok "longest stall under $STALL_MAX_MS ms" \
			test $((gap / 1000)) -lt "$STALL_MAX_MS"
		diag "receiver mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	fi
	mrcctl peer show "$OTHER" | sed 's/^/# /'
	barrier transfer-done

	# The returned plane is in service: a short transfer uses it.
	case_title 'the returned plane carries a second transfer'
	echo reset > $D/mrc_echo/ctl
	barrier second-transfer
	if is_node 1; then
		tx0=$(plane_tx_pkts "$OTHER" 1)
		ok "send 4 x $SIZE B to node$OTHER" \
			sh -c "echo send $OTHER 7 4 $SIZE 77 1 > $D/mrc_echo/ctl"
		wait_for 'all 4 sends completed' 300 sh -c \
			"grep -qx 'done_ok 4' $D/mrc_echo/stats"
		ok "plane-1 paths carried packets again ($tx0 -> $(plane_tx_pkts "$OTHER" 1))" \
			test "$(plane_tx_pkts "$OTHER" 1)" -gt "$tx0"
	else
		wait_for '4 more messages received' 300 received_at_least 4
		chk_echo_stat 'all intact' rx_bad = 0
		chk_echo_stat 'and in order' rx_order = 0
	fi

	# A hot link: plane 1 slow instead of dead.  The receiver NACKs holes
	# by the timing of the fast plane's packets, which overtake the slow
	# plane's by HOT_DELAY_MS; the sender resends a NACKed packet only
	# once it is overdue on its own path (nack_early_pkts).
	case_title "plane 1 of node 1 ${HOT_DELAY_MS} ms slower: few packets sent twice"
	barrier second-done
	echo reset > $D/mrc_echo/ctl
	barrier hot-start
	if is_node 1; then
		ok "eth1 delayed by $HOT_DELAY_MS ms (netem)" \
			tc qdisc add dev eth1 root netem delay ${HOT_DELAY_MS}ms
		t0=$(now_ms)
		pk0=$(msg_stat tx_pkts)
		re0=$(msg_stat tx_retrans)
		ea0=$(msg_stat nack_early_pkts)
		na0=$(msg_stat nacks_rx)
		ok "send $HOT_COUNT x $SIZE B to node$OTHER" \
			sh -c "echo send $OTHER 7 $HOT_COUNT $SIZE 99 1 > $D/mrc_echo/ctl"
		wait_for "all $HOT_COUNT sends completed" 300 sh -c \
			"grep -qx 'done_ok $HOT_COUNT' $D/mrc_echo/stats"
		chk_echo_stat 'no send failed' done_err = 0
		pk=$(($(msg_stat tx_pkts) - pk0))
		re=$(($(msg_stat tx_retrans) - re0))
		diag "$HOT_COUNT x $SIZE B in $(($(now_ms) - t0)) ms: $re of $pk" \
		     "packets sent again; $(($(msg_stat nacks_rx) - na0)) NACKs," \
		     "$(($(msg_stat nack_early_pkts) - ea0)) NACKed packets still" \
		     "on their way"
		ok "under $HOT_RESENT_MAX_PCT% of the packets sent again ($re of $pk)" \
			test $((re * 100)) -lt $((pk * HOT_RESENT_MAX_PCT))
		ok 'eth1 no longer delayed' tc qdisc del dev eth1 root
	else
		wait_for "$HOT_COUNT messages received" 300 \
			received_at_least "$HOT_COUNT"
		chk_echo_stat "exactly $HOT_COUNT messages delivered" \
			rx = "$HOT_COUNT"
		chk_echo_stat 'all intact' rx_bad = 0
		chk_echo_stat 'and in order' rx_order = 0
	fi

	case_title 'everything unloads, receive buffers back to 0'
	barrier hot-done
	ok 'rmmod mrc_echo' rmmod mrc_echo
	chk_rx_buffers_free
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
