#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peer restart: node 1 sends FIRST messages of 1 MiB to node 2 and waits
# until node 2 has them; node 2 then drops everything it receives on both
# planes (tc ingress, so that what its old instance counted is final), and
# only then does node 1 send the other COUNT - FIRST, so none of them can
# reach the old instance.  Node 2 unloads mrc (and mrc_echo), stops
# dropping, loads mrc again and adds node 1 back, as a rebooted node
# would.  Node 1 must notice the new incarnation in node 2's HELLO,
# resolve its links again (node 2's QPNs changed) and start its unfinished
# messages over: every send of node 1 completes with status 0
# (peer_timeout_ms is raised so that none is given up), node 2's new
# instance gets exactly the COUNT - FIRST sent after the drop, intact and
# in order, and traffic works both ways afterwards.
#
# It used to take both planes down instead of dropping at ingress, and
# failed under load: the unload then took 150 s (rdma_rxe waits 50 s per
# QP whose packets sit in a downed virtio-net TX ring, with a WARN), so
# node 1's sends expired (Documentation/mrc/control-plane.rst).
# Written as titled cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_RESTART_TIMEOUT:-600}
COUNT=20
FIRST=3
SIZE=1048576

source "$MRC_LIB_DIR/echo_lib.sh"

start() {	# start NODE: mrc, mrc_echo, then the peer
	modprobe mrc node_id="$MRC_NODE" peer_timeout_ms=60000 &&
		mount -t debugfs none $D 2>/dev/null
	# The endpoint first: the peer's queued messages arrive as soon as
	# the paths are back (to an unbound port they would be refused).
	insmod "$ECHO_KO" && peer_add "$1"
}

run_guest() {
	local o=$((3 - MRC_NODE)) before after

	case_title 'both nodes up: mrc, mrc_echo, the peer, every path active'
	ok 'modprobe mrc, insmod mrc_echo, add the peer' start "$o"
	chk_paths_active "$o" 16 60
	barrier up

	# The gate is on what was sent, not on how fast it arrives: the
	# messages sent after the drop is in place can only reach node 2's
	# new instance, so node 1 must start them over.
	case_title "node 2 restarts with node 1's later messages unfinished"
	if is_node 1; then
		ok "send $FIRST messages of $SIZE B to node2" \
			sh -c "echo send 2 7 $FIRST $SIZE 11 1 > $D/mrc_echo/ctl"
		wait_for "the first $FIRST sends completed" 120 sends_done "$FIRST"
		ok_eq "the first $FIRST completed with status 0" "$FIRST" \
			"$(echo_stat done_ok)"
	else
		wait_for "the first $FIRST messages arrive" 120 \
			received_at_least "$FIRST"
	fi
	barrier first-sent 120
	if is_node 2; then
		# Nothing more may reach this instance once it is counted:
		# every frame arriving on either plane is dropped first (node 1
		# keeps its messages queued).  Not "ip link set down": rxe's
		# packets left in a downed virtio-net TX ring hold QP
		# references, and destroying those QPs at unload then waits
		# 50 s per QP with a WARN in rdma_rxe (seen: 150 s, node 1's
		# peer_timeout expired meanwhile).
		ok 'drop all ingress on both planes' sh -c 'for d in eth0 eth1
			do tc qdisc add dev $d handle ffff: ingress &&
			tc filter add dev $d parent ffff: matchall action drop ||
			exit 1; done'
	fi
	barrier dropping 120
	if is_node 1; then
		ok "send the other $((COUNT - FIRST)) messages to node2" \
			sh -c "echo send 2 7 $((COUNT - FIRST)) $SIZE 13 1 > $D/mrc_echo/ctl"
		_sleep 2
		# mrc has them (sent counts each mrc_send() that took its
		# message) and none has completed, ok or not.
		ok_eq "none of them completes while node2 drops" \
			"$FIRST 0" "$(echo_stat done_ok) $(echo_stat done_err)"
		ok "mrc holds them unfinished (sent > $FIRST)" \
			test "$(echo_stat sent)" -gt "$FIRST"
	fi
	barrier sending 120
	if is_node 2; then
		before=$(echo_stat rx)
		ok_eq "the old instance received exactly the first $FIRST" \
			"$FIRST" "$before"
		ok_eq 'intact before the restart' 0 "$(echo_stat rx_bad)"
		ok 'rmmod mrc_echo' rmmod mrc_echo
		ok 'modprobe -r mrc' modprobe -r mrc
		ok 'stop dropping' sh -c 'tc qdisc del dev eth0 ingress &&
			tc qdisc del dev eth1 ingress'
		ok 'modprobe mrc and mrc_echo again, add node1 back' start "$o"
	fi
	barrier restarted 300

	case_title "node 1's sends all complete, node 2's new instance gets the rest"
	if is_node 1; then
		wait_for "all $COUNT sends completed" 300 sends_done "$COUNT"
		ok_eq 'every send completed with status 0' "$COUNT" \
			"$(echo_stat done_ok)"
		ok_eq 'node2 seen restarting once' 1 "$(msg_stat peer_restarts)"
		diag "node1: $(tr '\n' ' ' < $D/mrc/msg)"
	else
		wait_for "the other $((COUNT - FIRST)) messages arrive" 300 \
			received_at_least "$((COUNT - FIRST))"
		after=$(echo_stat rx)
		diag "received $before before the restart, $after after"
		ok_eq 'intact after the restart' 0 "$(echo_stat rx_bad)"
		ok_eq 'in order after the restart' 0 "$(echo_stat rx_order)"
		ok_eq "the new instance received exactly the other $((COUNT - FIRST))" \
			"$((COUNT - FIRST))" "$after"
	fi
	barrier transfer-done 300

	# And the other way round: node 1's receive side follows the new
	# incarnation's sequence numbers.
	case_title "traffic the other way: node 1 follows the new incarnation"
	chk_paths_active "$o" 16 60
	echo reset > $D/mrc_echo/ctl
	barrier reverse
	if is_node 2; then
		ok 'send 5 messages to node1' \
			sh -c "echo send 1 7 5 65536 12 > $D/mrc_echo/ctl"
		wait_for 'sent' 120 sends_done 5
		ok_eq 'all confirmed' 5 "$(echo_stat done_ok)"
	else
		wait_for '5 messages from the restarted node2' 120 \
			sh -c "[ \$(awk '\$1==\"rx\"{print \$2}' $D/mrc_echo/stats) -ge 5 ]"
		ok_eq 'intact' 0 "$(echo_stat rx_bad)"
	fi
	barrier reverse-done 120

	case_title 'unload: no receive buffer left'
	ok 'rmmod mrc_echo' rmmod mrc_echo
	chk_rx_buffers_free 10
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
