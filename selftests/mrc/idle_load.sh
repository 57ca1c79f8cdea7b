#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Not a test (not in the Makefile's TEST_PROGS): bench/idle-load's guest
# side.  Three nodes as in credit.sh (node 1 peers with 2 and 3), nothing
# sent: each node reports the packets per second its rails send and
# receive over 20 s (keepalive PROBEs and replies only) and how busy its
# CPU was, after 20 s for the paths to settle.  MRC_IDLE_ARGS: extra
# module parameters (e.g. "entropy=2 probe_ms=1000").
NODES=3
TIMEOUT=400
source "$(dirname "$(realpath "$0")")/lib.sh"

rail_sum() {	# rail_sum STAT: summed over this node's rails
	local n=0 r
	for r in /sys/kernel/mrc/rails/*/stats/"$1"; do n=$((n + $(cat "$r"))); done
	echo $n
}
cpu() { awk '/^cpu /{ print $2 + $3 + $4 + $6 + $7 + $8, $5 }' /proc/stat; }

run_guest() {
	local n=$MRC_NODE o rx0 tx0 rx1 tx1 c0 c1 busy
	# shellcheck disable=SC2086  # MRC_IDLE_ARGS: several parameters
	ok modprobe modprobe mrc node_id="$n" ${MRC_IDLE_ARGS:-}
	if is_node 1; then
		for o in 2 3; do ok "add peer node$o" peer_add $o; done
	else
		ok 'add peer node1' peer_add 1
	fi
	barrier up
	sleep 20
	read -ra c0 <<<"$(cpu)"; rx0=$(rail_sum rx_packets); tx0=$(rail_sum tx_packets)
	sleep 20
	read -ra c1 <<<"$(cpu)"; rx1=$(rail_sum rx_packets); tx1=$(rail_sum tx_packets)
	busy=$((100 * (c1[0] - c0[0]) / (c1[0] - c0[0] + c1[1] - c0[1])))
	diag "idle: node$n rx $(((rx1 - rx0) / 20))/s tx $(((tx1 - tx0) / 20))/s cpu busy $busy%"
	barrier done
	ok 'modprobe -r mrc' modprobe -r mrc
}
mrc_test_main "$@"
