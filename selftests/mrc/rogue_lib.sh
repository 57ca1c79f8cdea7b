# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What reached a node's NIC, its rxe and its mrc on plane 0, for the tests
# of hostile traffic (rogue.sh, hostile.sh): sourced after lib.sh, with R
# set to the rail's sysfs directory.  ROGUE_TOS is the IPv4 TOS the
# hostile tool marks its datagrams with (rogue.c 0x28, garbage.c 0x30).
ROGUE_TOS=${ROGUE_TOS:-0x28}

# fabric_counters: what reached node 1 on plane 0, "name value" lines:
# the rogue's frames at the NIC (tc ingress, by the rogue's TOS), RoCE
# frames at the NIC, rxe's packets past its header/QP-state/qkey/ICRC
# checks (rcvd_pkts) and those completed into a posted receive
# (rdma_recvs), mrc's completions handled, and the NIC's own counters.
fabric_counters() {
	local c=/sys/class/infiniband/rxe0/ports/1/hw_counters v
	# The NIC's two counts, then rxe's at once (no fork in between):
	# traffic flows all the time (PROBEs), and the deltas of counts
	# read apart would differ by what arrived meanwhile.
	tc_pkts
	read -r v < $c/rdma_recvs; echo "rxe_rdma_recvs $v"
	read -r v < $c/rcvd_pkts; echo "rxe_rcvd_pkts $v"
	read -r v < $R/stats/rx_packets; echo "mrc_rx_packets $v"
	read -r v < $R/stats/drop_no_buffer; echo "mrc_drop_no_buffer $v"
	for v in rx_packets rx_dropped tx_packets; do
		echo "eth0_$v $(< /sys/class/net/eth0/statistics/$v)"
	done
}
FABRIC="rogue_at_nic roce_at_nic rxe_rcvd_pkts rxe_rdma_recvs mrc_rx_packets
mrc_drop_no_buffer eth0_rx_packets eth0_rx_dropped eth0_tx_packets"

# count_at_nic: node 1 counts, at eth0's ingress, the rogue's frames
# (filter 1: its TOS, ROGUE_TOS) and every RoCE frame (filter 2: UDP 4791).
count_at_nic() {
	tc qdisc add dev eth0 handle ffff: ingress &&
	tc filter add dev eth0 parent ffff: pref 1 protocol ip u32 \
		match ip tos "$ROGUE_TOS" 0xff action continue &&
	tc filter add dev eth0 parent ffff: pref 2 protocol ip u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff action ok
}

# tc_pkts: the packets count_at_nic's filters matched, as
# "rogue_at_nic N" (filter 1) and "roce_at_nic N" (filter 2); 0 without.
tc_pkts() {
	tc -s filter show dev eth0 ingress 2>/dev/null | awk '
		/^filter/ { for (i = 1; i < NF; i++) if ($i == "pref") p = $(i + 1) }
		/Sent/ && !(p in n) { n[p] = $4 }
		END { print "rogue_at_nic", n[1] + 0; print "roce_at_nic", n[2] + 0 }'
}

# fabric_diag BEFORE AFTER: the deltas of fabric_counters, one line.
fabric_diag() {
	local r out=
	for r in $FABRIC; do
		out+=" $r $(($(stat_of "$2" $r) - $(stat_of "$1" $r)))"
	done
	echo "$out"
}
