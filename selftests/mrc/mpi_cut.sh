#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The seeds' case (issue 20): an MPI allreduce loop across the VMs over
# mrc survives a plane cut.  Open MPI as in mpi.sh (mpi_lib.sh: pml cm,
# mtl ofi on the mrc provider, `--mca btl self`, so no data can go over
# TCP), one rank per VM, MRC_MPI_NODES VMs (default 2).  mpi_cut.py runs
# ITERS allreduces of MIB MiB of float64, every result checked by every rank;
# once iteration CUT_AT has ended, node 1 takes plane 1 down (ip link set
# eth1 down) and leaves it down to the end of the job.  Checks: mpirun
# exits 0, every rank saw every result right, the cut came with at least
# half of the loop still to run, plane 1 has no active path while down and
# plane 0 carried the rest; on every node mrc's tx_bytes grew by at least
# the payload its rank must have sent, and no message failed or timed out
# (tx_failed, tx_timeout).  Then plane 1 comes back: all paths active
# again on every node, and a short loop (no cut) sends over plane 1 again.
# The iteration times before, around and after the cut, and the time lost,
# are diagnostics (bench/mpi reports them side by side with TCP).  At the
# end no /dev/mrc endpoint or buffer is left and mrc unloads.
#
# A file of its own rather than a case of mpi.sh: one concern (surviving
# a cut) with its own node state (a plane down and up again), and the MPI
# tier can run it alone (`run_tests.sh --vm-only mpi_cut.sh`).  Long (MPI
# start-up under TCG): in TEST_PROGS_MPI, run by `run_tests.sh --mpi`.
source "$(dirname "$0")/lib.sh"
NODES=${MRC_MPI_NODES:-2}
TIMEOUT=${MRC_MPI_TIMEOUT:-1500}

ITERS=${MRC_MPI_CUT_ITERS:-30}	# allreduces in the loop
MIB=${MRC_MPI_CUT_MIB:-4}	# MiB of float64 each
CUT_AT=${MRC_MPI_CUT_AT:-8}	# plane 1 goes down once this iteration ended
ITERS_BACK=4			# the loop after the plane came back

source "$(dirname "$0")/mpi_lib.sh"

# mpirun_loop ITERS OUT [PROGRESS]: the loop over mrc on every node,
# output to OUT, rank 0's iteration lines to PROGRESS as they happen
mpirun_loop() {
	mpirun_on "$NODES" mrc "$MPI_PY" "$CUT_PY" loop "$1" "$MIB" ${3:+"$3"} \
		> "$2" 2>&1
}

# this_rank FILE FIELD: FIELD (iters, bad, sent-at-least) of the final
# line this node's rank printed in FILE
this_rank() {
	awk -v h="$(hostname)" -v f="$2" \
		'$1 == "rank" && $3 == h { for (i = 4; i < NF; i++)
			if ($i == f) print $(i + 1) }' "$1"
}

# publish FILE: node 1's copy of a loop's output, for the other nodes
publish() {
	cp "$1" "$MRC_SHARED/$(basename "$1").tmp" &&
		mv "$MRC_SHARED/$(basename "$1").tmp" "$MRC_SHARED/$(basename "$1")"
}

# chk_rank_results FILE ITERS: this node's rank ran all its iterations right and
# mrc carried at least its payload since the counters TX0, FAILED0, TMO0
chk_rank_results() {
	local out=$MRC_SHARED/$1 iters=$2 sent grew
	ok_eq "node$MRC_NODE's rank: $iters iterations, 0 wrong results" \
		"$iters 0" "$(this_rank "$out" iters) $(this_rank "$out" bad)"
	sent=$(this_rank "$out" sent-at-least)
	grew=$(($(msg_stat tx_bytes) - TX0))
	_chk_cmp "node$MRC_NODE: mrc/msg tx_bytes grew by $grew B, at least its rank's payload" \
		tx_bytes "$grew" '>=' "${sent:-1}"
	chk_msg_stat "node$MRC_NODE: no message failed" tx_failed = "$FAILED0"
	chk_msg_stat "node$MRC_NODE: no message timed out" tx_timeout = "$TMO0"
}

counters0() {
	TX0=$(msg_stat tx_bytes)
	FAILED0=$(msg_stat tx_failed)
	TMO0=$(msg_stat tx_timeout)
}

run_guest() {
	local n=$MRC_NODE o fidir=$MRC_REPO/tools/libmrc-fi
	local rc t0 t_cut t_end mpid p0 p1 last nafter sum

	CUT_PY=$MRC_REPO/selftests/mrc/mpi_cut.py

	case_title "mrc loaded, every other node a peer on both planes ($NODES nodes)"
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	for ((o = 1; o <= NODES; o++)); do
		[ $o = "$n" ] && continue
		ok "add peer node$o on both planes" peer_add "$o"
	done
	for ((o = 1; o <= NODES; o++)); do
		[ $o = "$n" ] && continue
		chk_paths_active "$o" 16 60
	done
	ok 'make -C tools/libmrc-fi install' make -s -C "$fidir" install
	unset FI_PROVIDER_PATH
	mpi_launch_setup

	case_title "$ITERS allreduces of $MIB MiB over mrc, plane 1 cut on node1 after iteration $CUT_AT"
	counters0
	barrier loop-start 120
	if is_node 1; then
		t0=$(now_ms)
		mpirun_loop "$ITERS" /tmp/cut.out /tmp/cut.progress &
		mpid=$!
		wait_for "the loop reached iteration $CUT_AT" 600 \
			grep -q "^iter $CUT_AT " /tmp/cut.progress
		t_cut=$(now_ms)
		ok 'plane 1 down on node1 (ip link set eth1 down)' \
			ip link set eth1 down
		p0=$(plane_tx_pkts 2 0)
		diag "plane 1 down $((t_cut - $(awk -v i="$CUT_AT" \
			'$1 == "iter" && $2 == i { print $3 }' /tmp/cut.progress))) ms" \
		     "after iteration $CUT_AT ended"
		wait "$mpid"
		rc=$?
		t_end=$(now_ms)
		ok_eq "mpirun mpi_cut.py loop: exit status (took $((t_end - t0)) ms)" \
			0 "$rc"
		ok_eq 'no rank saw a wrong result' 0 \
			"$(grep -c '^FAIL' /tmp/cut.out)"
		last=$(awk '$1 == "iter" { i = $2 } END { print i }' /tmp/cut.out)
		ok_eq 'rank 0 timed every iteration' "$((ITERS - 1))" "$last"
		nafter=$(awk -v c="$t_cut" '$1 == "iter" && $3 >= c { k++ }
			END { print k + 0 }' /tmp/cut.out)
		_chk_cmp 'the cut came mid-loop: iterations that ended after it' \
			after "$nafter" '>=' $(((ITERS - CUT_AT) / 2))
		ok_eq 'no plane-1 path to node2 active while the plane is down' \
			0 "$(plane_active 2 1)"
		p1=$(plane_tx_pkts 2 0)
		_chk_cmp 'plane 0 carried the rest: its paths to node2 sent packets after the cut' \
			plane0_tx_pkts "$p1" '>' "$p0"
		diag "plane 1 down at +$((t_cut - t0)) ms; the job ended" \
		     "$((t_end - t_cut)) ms later; per-iteration times:"
		"$MPI_PY" "$CUT_PY" report /tmp/cut.out "$t_cut" > /tmp/cut.rep
		diag "$(grep -v '^summary' /tmp/cut.rep)"
		read -r _ sum <<< "$(grep '^summary' /tmp/cut.rep)"
		diag "median before the cut, the iteration under way at the" \
		     "cut, median after, the longest from the cut on, time" \
		     "lost (s), iterations from the cut on: $sum"
		diag "mrc on node1: $(tr '\n' ' ' < /sys/kernel/debug/mrc/msg)"
		diag "mrc events on node1: $(tr '\n' ' ' < /sys/kernel/debug/mrc/events)"
		diag "node1's paths to node2 at the end of the job:"
		diag "$(mrcctl -s peer show 2 2>&1)"
		diag "libfabric's messages (FI_LOG_LEVEL=warn), if any:"
		diag "$(grep -m 20 'libfabric:' /tmp/cut.out)"
		publish /tmp/cut.out
	fi
	barrier loop-done 1200
	chk_rank_results cut.out "$ITERS"

	case_title 'plane 1 returns: all paths active again, a loop goes over plane 1 too'
	if is_node 1; then
		ok 'plane 1 up on node1 (ip link set eth1 up)' ip link set eth1 up
	fi
	for ((o = 1; o <= NODES; o++)); do
		[ $o = "$n" ] && continue
		chk_paths_active "$o" 16 120 again
	done
	counters0
	barrier back-start 300
	if is_node 1; then
		p0=$(plane_tx_pkts 2 1)
		mpirun_loop "$ITERS_BACK" /tmp/back.out
		ok_eq "mpirun mpi_cut.py loop $ITERS_BACK: exit status" 0 "$?"
		p1=$(plane_tx_pkts 2 1)
		_chk_cmp 'plane 1 carries data again: its paths to node2 sent packets' \
			plane1_tx_pkts "$p1" '>' "$p0"
		diag "$(grep '^iter' /tmp/back.out)"
		publish /tmp/back.out
	fi
	barrier back-done 600
	chk_rank_results back.out "$ITERS_BACK"

	case_title 'everything closed: no /dev/mrc endpoint, no buffer held, mrc unloads'
	mpi_launch_stop
	wait_for 'no MPI process left' 60 \
		sh -c '! pgrep -af "mpi_cut[.]py|[o]rted"'
	wait_for 'no /dev/mrc endpoint left (module refcnt 0)' 60 \
		test "$(cat /sys/module/mrc/refcnt)" = 0
	wait_for 'no message buffer held (rx/tx_buffer_bytes 0)' 60 buffers_free
	barrier closed
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
