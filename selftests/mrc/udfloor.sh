#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric's floor module (modules/mrc_udfloor, plain UD verbs, no mrc):
# node 1 sends 4096-byte datagrams to node 2 over both planes for 2 s;
# node 2 counted datagrams of that size on each plane and no error.  Then
# both unload in the middle of a second run (receiver first, then the
# sender with its rings full): rmmod returns promptly and the dmesg stays
# clean (lib.sh's final check).  Figures are printed, not checked (TCG).
source "$(dirname "$0")/lib.sh"
NODES=2
PLANES=2
TIMEOUT=240
SIZE=4096
UDF_KO=$MRC_LIB_DIR/modules/mrc_udfloor/mrc_udfloor.ko

if [ -z "${MRC_IN_VM:-}" ] &&
   ! make -s -C "$MRC_LIB_DIR/modules" >/dev/null 2>&1; then
	echo "not ok 1 build selftests/mrc/modules (mrc_udfloor.ko)"
	exit 1
fi

U=/sys/kernel/debug/mrc_udfloor
udf() { stat_of $U/stats "$1"; }	# udf KEY: a line of mrc_udfloor/stats
tx_idle() { [ "$(udf tx_running)" = 0 ]; }
rx_some() { [ "$(udf rx_packets)" -gt 0 ]; }

# start SECS: node 1 sends to node 2 on both planes (after node 2 put
# its QPNs and Q_Key)
start_cmd() {
	local q
	q=$(get udf.qkey)
	echo "start $1 $SIZE rxe0 $(node_ip 2 0) $(get udf.qpn0) $q" \
		"rxe1 $(node_ip 2 1) $(get udf.qpn1) $q"
}

run_guest() {
	local t0 ms res0

	case_title 'load on both nodes'
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	res0=$(rdma res show)
	ok 'insmod mrc_udfloor devs=rxe0,rxe1' insmod "$UDF_KO" devs=rxe0,rxe1
	ok_eq 'two planes' 2 "$(udf planes)"
	if is_node 2; then
		put udf.qpn0 "$(udf rxe0_qpn)"
		put udf.qpn1 "$(udf rxe1_qpn)"
		put udf.qkey "$(udf qkey)"
	fi
	barrier loaded

	case_title "2 s of $SIZE-byte datagrams on both planes"
	if is_node 1; then
		ok 'start' sh -c "echo '$(start_cmd 2)' > $U/ctl"
		wait_for 'the sender finishes' 30 tx_idle
		ok 'datagrams sent' test "$(udf tx_ok)" -gt 0
		ok_eq 'no send error' 0 "$(udf tx_errors)"
		ok 'both planes sent' test "$(udf rxe0_tx_ok)" -gt 0 -a \
			"$(udf rxe1_tx_ok)" -gt 0
		diag "sent $(udf tx_ok) datagrams in $(udf tx_ns) ns: $(udf tx_pps)/s"
		put udf.sent "$(udf tx_ok)"
	fi
	barrier sent
	if is_node 2; then
		_sleep 0.5
		ok 'datagrams received' rx_some
		ok_eq "every datagram $SIZE bytes" "$SIZE $SIZE" \
			"$(udf rx_len_min) $(udf rx_len_max)"
		ok 'on both planes' test "$(udf rxe0_rx_packets)" -gt 0 -a \
			"$(udf rxe1_rx_packets)" -gt 0
		ok_eq 'no receive error' 0 "$(udf rx_errors)"
		ok 'no more than were sent' \
			test "$(udf rx_packets)" -le "$(get udf.sent)"
		diag "received $(udf rx_packets) of $(get udf.sent) ($(udf rx_bytes) B) in $(udf rx_span_ns) ns: $(udf rx_pps) packets/s, $(udf rx_Bps) B/s"
		echo reset > $U/ctl
	fi
	barrier counted

	case_title 'unload in the middle of a run'
	is_node 1 && ok 'start 60 s' sh -c "echo '$(start_cmd 60)' > $U/ctl"
	if is_node 2; then
		wait_for 'datagrams arrive' 30 rx_some
		t0=$(now_ms)
		ok 'rmmod the receiver while datagrams arrive' rmmod mrc_udfloor
		diag "rmmod took $(($(now_ms) - t0)) ms"
	fi
	barrier receiver-gone
	if is_node 1; then
		ok 'the sender still runs' test "$(udf tx_running)" = 1
		t0=$(now_ms)
		ok 'rmmod the sender with its rings full' rmmod mrc_udfloor
		ms=$(($(now_ms) - t0))
		diag "rmmod took $ms ms"
		ok "rmmod within 10 s ($ms ms)" test "$ms" -lt 10000
	fi
	ok 'module gone' test ! -e /sys/module/mrc_udfloor
	ok_eq 'RDMA resources (pd, cq, qp, mr) as before' "$res0" \
		"$(rdma res show)"
}

mrc_test_main "$@"
