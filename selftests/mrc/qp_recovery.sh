#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD queue pairs: every rail gets one QP per entropy value with receives
# posted; a QP forced into ERROR is recovered by itself (reset, RTS,
# receives reposted) within a second, counted; unloading returns every
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
	ok 'bad index refused' sh -c "! echo 8 > $R/inject_qp_error"

	case_title 'unloading returns every RDMA resource'
	ok 'modprobe -r mrc' modprobe -r mrc
	ok_eq 'rdma resources back to baseline' "$res0" "$(rdma res show | sort)"
}

mrc_test_main "$@"
