#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD queue pairs: every rail gets one QP per entropy value with receives
# posted; a QP forced into ERROR is recovered by itself (reset, RTS,
# receives reposted) within a second, counted; unloading returns every
# RDMA resource.
source "$(dirname "$0")/lib.sh"
NODES=1
TIMEOUT=600

R=/sys/kernel/mrc/rails/rxe0:1

qp_state() {	# qp_state QPN: the QP's state as rdma res shows it
	rdma res show qp link rxe0/1 lqpn "$1" 2>/dev/null |
		sed -n 's/.* state \([A-Z]*\) .*/\1/p'
}

run_guest() {
	local res0 qpn ev

	res0=$(rdma res show | sort)
	ok 'modprobe mrc' modprobe mrc
	ok_eq 'rxe0:1 has 8 QPs (default entropy)' 8 "$(cat $R/qps)"
	for qpn in $(cat $R/qpns); do
		ok_eq "QP $qpn is RTS" RTS "$(qp_state "$qpn")"
	done

	for ev in 0 3 7; do
		qpn=$(cut -d' ' -f$((ev + 1)) $R/qpns)
		echo "$ev" > $R/inject_qp_error
		wait_for "QP $qpn (ev $ev) back to RTS after a forced error" 5 \
			sh -c "[ \"\$(rdma res show qp link rxe0/1 lqpn $qpn |
				sed -n 's/.* state \([A-Z]*\) .*/\1/p')\" = RTS ]"
	done
	wait_for 'qp_recoveries counted 3' 5 \
		sh -c "[ \$(cat $R/stats/qp_recoveries) = 3 ]"
	ok_eq 'qp_errors counted 3' 3 "$(cat $R/stats/qp_errors)"
	ok 'bad index refused' sh -c "! echo 8 > $R/inject_qp_error"
	ok 'modprobe -r mrc' modprobe -r mrc
	ok_eq 'rdma resources back to baseline' "$res0" "$(rdma res show | sort)"
}

mrc_test_main "$@"
