#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD queue pairs: every rail gets one QP per entropy value with receives
# posted; a QP forced into ERROR is recovered by itself (reset, RTS,
# receives reposted) within a second, counted; a QP that keeps breaking
# is recovered after a growing wait (10 ms doubling to 1 s); unloading
# returns every
# RDMA resource.  Written as titled cases (lib.sh's case_title and chk_*
# helpers).
source "$(dirname "$0")/lib.sh"
NODES=1
TIMEOUT=600

R=/sys/kernel/mrc/rails/rxe0:1

qp_state() {	# qp_state QPN: the QP's state as rdma res shows it
	rdma res show qp link rxe0/1 lqpn "$1" 2>/dev/null |
		sed -n 's/.* state \([A-Z]*\) .*/\1/p'
}

qp_rts() { [ "$(qp_state "$1")" = RTS ]; }	# qp_rts QPN: the QP is in RTS

run_guest() {
	local res0 qpn ev

	case_title 'one UD QP per entropy value, each in RTS'
	res0=$(rdma res show | sort)
	ok 'modprobe mrc' modprobe mrc
	chk_rail rxe0:1 qps 8
	for qpn in $(cat $R/qpns); do
		ok_eq "QP $qpn is RTS" RTS "$(qp_state "$qpn")"
	done

	case_title 'a QP forced into ERROR recovers by itself, counted'
	for ev in 0 3 7; do
		qpn=$(cut -d' ' -f$((ev + 1)) $R/qpns)
		echo "$ev" > $R/inject_qp_error
		wait_for "QP $qpn (ev $ev) back to RTS after a forced error" 5 \
			qp_rts "$qpn"
	done
	chk_rail_soon rxe0:1 stats/qp_recoveries 3 5
	chk_rail rxe0:1 stats/qp_errors 3
	ok_eq 'the first error of each QP is recovered at once' 0 \
		"$(ev_stat qp_recover_deferred)"
	ok 'bad index refused' sh -c "! echo 8 > $R/inject_qp_error"

	# A QP that breaks again soon after its recovery waits 10 ms, then
	# 20, 40 .. up to 1 s: whatever errors it repeatedly cannot make it
	# flush its work requests more than once a second.
	case_title 'a QP that keeps breaking is recovered less and less often'
	local i t0 t1
	qpn=$(cut -d' ' -f6 $R/qpns)
	t0=$(date +%s%N)
	for i in $(seq 10); do
		echo 5 > $R/inject_qp_error
		wait_for "error $i of QP $qpn (ev 5): back to RTS" 10 \
			qp_rts "$qpn"
	done
	t1=$(date +%s%N)
	chk_rail_soon rxe0:1 stats/qp_recoveries 13 5
	ok_eq 'every error after the first waited' 9 \
		"$(ev_stat qp_recover_deferred)"
	# 0 + 10 + 20 + .. + 640 + 1000 + 1000 ms of waits at least
	ok "10 recoveries took at least 3.27 s ($(((t1 - t0) / 1000000)) ms)" \
		test $(((t1 - t0) / 1000000)) -ge 3270
	sleep 11	# healthy for longer than 10 s: the backoff is forgotten
	echo 5 > $R/inject_qp_error
	wait_for 'after a calm period: recovered at once' 5 qp_rts "$qpn"
	ok_eq 'without waiting' 9 "$(ev_stat qp_recover_deferred)"

	case_title 'unloading returns every RDMA resource'
	ok 'modprobe -r mrc' modprobe -r mrc
	ok_eq 'rdma resources back to baseline' "$res0" "$(rdma res show | sort)"
}

mrc_test_main "$@"
