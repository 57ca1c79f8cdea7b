#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Open MPI over mrc: Debian's Open MPI 4.1.4 with `--mca pml cm --mca mtl
# ofi --mca mtl_ofi_provider_include mrc` (the ofi MTL on the provider of
# tools/libmrc-fi, Documentation/mrc/libfabric.rst), one rank per VM,
# MPI_NODES VMs (default 2).  Node 1 runs mpirun; the others run Debian's
# sshd, started here on the fabric's plane-0 address with a host key made
# in the guest, and accept the key node 1 made (its public half passes
# through the fabric's shared folder); mpirun starts their ranks over ssh.
# The TCP BTL is not loaded (`--mca btl self`: pml cm carries every
# message through the MTL), so the data can only go over mrc.  Checks:
# ssh between the guests; an mpi4py script (mpi_check.py) whose
# allreduce, alltoall, bcast, send-to-self and ring results are checked
# by every rank; each node's mrc tx_bytes grew by at least the payload
# its rank sent by point-to-point and alltoall; the same script over UCX
# (RC on rxe0, bench/mpi's reference) passes, and over mrc with two
# ranks per node (each node its own peer: separate processes of one node
# reach each other through mrc) it passes and the node's own peer
# carries packets; NetPIPE (NPopenmpi, 1 B
# .. 1 MiB, fixed repeats) completes and mrc's counters grew by at least
# its payload; a short HPCC run (hpcc: HPL, DGEMM, STREAM, PTRANS,
# RandomAccess, FFT, latency and bandwidth rings on an HPCC_N matrix)
# passes its own checks and moves at least HPL's share of the matrix
# over mrc; a rank killed (SIGKILL) mid-transfer makes mpirun fail
# within a bound, not hang; then no /dev/mrc endpoint is left, mrc holds
# no message buffer and unloads.  Titled cases (lib.sh).
#
# Long (MPI start-up under TCG): not in TEST_PROGS; run it with
# `selftests/mrc/run_tests.sh --mpi` (README, "Tests").
source "$(dirname "$0")/lib.sh"
NODES=${MRC_MPI_NODES:-2}
TIMEOUT=${MRC_MPI_TIMEOUT:-1500}

NP_MAX=262144		# NetPIPE's largest message (the bench goes further)
NP_REPEATS=20		# NetPIPE -n: round trips per size
HPCC_N=${MRC_MPI_HPCC_N:-400}	# HPCC's matrix order (HPL, PTRANS)

source "$(dirname "$0")/mpi_lib.sh"

# mpirun_mrc ARGS...: mpirun on every node, one rank each, over mrc
mpirun_mrc() { mpirun_on "$NODES" mrc "$@"; }

# np_bytes FILE: payload one side of NetPIPE sent at the least: every size
# of its output (column 1) NP_REPEATS times
np_bytes() {
	awk -v r=$NP_REPEATS '{ s += $1 * r } END { printf "%d\n", s }' "$1"
}

# hpcc_input DIR: an hpccinf.txt for a short run: HPL and PTRANS on an
# HPCC_N matrix, blocks of 40, a 1 x NODES process grid (the other tests
# size themselves from the same memory)
hpcc_input() {
	cat > "$1/hpccinf.txt" <<-EOF
	HPLinpack benchmark input file
	mrc selftest: a short HPCC run
	HPL.out      output file name (if any)
	8            device out (6=stdout,7=stderr,file)
	1            # of problems sizes (N)
	$HPCC_N          Ns
	1            # of NBs
	40           NBs
	0            PMAP process mapping (0=Row-,1=Column-major)
	1            # of process grids (P x Q)
	1            Ps
	$NODES            Qs
	16.0         threshold
	1            # of panel fact
	2            PFACTs (0=left, 1=Crout, 2=Right)
	1            # of recursive stopping criterium
	4            NBMINs (>= 1)
	1            # of panels in recursion
	2            NDIVs
	1            # of recursive panel fact.
	1            RFACTs (0=left, 1=Crout, 2=Right)
	1            # of broadcast
	1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
	1            # of lookahead depth
	1            DEPTHs (>=0)
	2            SWAP (0=bin-exch,1=long,2=mix)
	64           swapping threshold
	0            L1 in (0=transposed,1=no-transposed) form
	0            U  in (0=transposed,1=no-transposed) form
	1            Equilibration (0=no,1=yes)
	8            memory alignment in double (> 0)
	##### This line (no. 32) is ignored (it serves as a separator). ######
	0                      		Number of additional problem sizes for PTRANS
	$HPCC_N                  	values of N
	0                       	number of additional blocking sizes for PTRANS
	40                      	values of NB
	EOF
}

# hpcc_val FILE KEY: KEY's value in the summary of HPCC's output FILE
hpcc_val() {
	sed -n '/^Begin of Summary section/,/^End of Summary section/s/^'"$2"'=//p' "$1"
}

# sent_of FILE: what mpi_check.py says this node's rank sent
sent_of() {
	awk -v h="$(hostname)" '$3 == h && $4 == "sent-at-least" { print $5 }' "$1"
}

run_guest() {
	local n=$MRC_NODE o fidir=$MRC_REPO/tools/libmrc-fi
	local chk=$MRC_REPO/selftests/mrc/mpi_check.py
	local tx0 sent nchecks rc t0 t grew out k

	case_title "mrc loaded, every other node a peer on both planes ($NODES nodes)"
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	for ((o = 1; o <= NODES; o++)); do
		[ $o = "$n" ] && continue
		ok "add peer node$o on both planes" peer_add "$o"
	done
	ok "add this node as its own peer (ranks of one node talk through mrc)" \
		peer_add "$n"
	for ((o = 1; o <= NODES; o++)); do
		chk_paths_active "$o" 16 60
	done

	case_title 'the provider installed, offering FI_LOCAL_COMM'
	ok 'make -C tools/libmrc-fi install' make -s -C "$fidir" install
	unset FI_PROVIDER_PATH
	ok 'fi_info -p mrc -t FI_EP_RDM -v: FI_LOCAL_COMM and FI_REMOTE_COMM' \
		sh -c 'v=$(fi_info -p mrc -t FI_EP_RDM -v) || exit 1
		       caps=$(echo "$v" | grep -m1 "caps: \[")
		       for c in FI_LOCAL_COMM FI_REMOTE_COMM FI_TAGGED; do
			       echo "$caps" | grep -qw "$c" || { echo "no $c: $caps"; exit 1; }
		       done'

	case_title 'launching: sshd on the other nodes, node 1 logs in with its own key'
	mpi_launch_setup
	if is_node 1; then
		for ((o = 2; o <= NODES; o++)); do
			ok_eq "ssh $(node_ip $o 0) hostname" "mrc-node$o" \
				"$($MPI_SSH "$(node_ip $o 0)" hostname 2>&1)"
		done
	fi

	case_title "mpi4py over mrc: allreduce, alltoall, bcast, send to itself, ring (TCP BTL not loaded)"
	tx0=$(msg_stat tx_bytes)
	barrier mpi4py-start 120
	if is_node 1; then
		t0=$(now_ms)
		mpirun_mrc "$MPI_PY" "$chk" \
			> /tmp/mpi4py.out 2>&1
		rc=$?
		t=$(($(now_ms) - t0))
		ok_eq "mpirun python3 mpi_check.py: exit status (took $t ms)" 0 "$rc"
		nchecks=$((NODES * (5 + 2 * NODES)))
		ok_eq "every rank's checks passed ($nchecks)" "$nchecks 0" \
			"$(grep -c '^ok rank' /tmp/mpi4py.out) $(grep -c '^FAIL' /tmp/mpi4py.out)"
		diag "$(cat /tmp/mpi4py.out)"
		cp /tmp/mpi4py.out "$MRC_SHARED/mpi4py.out.tmp" &&
			mv "$MRC_SHARED/mpi4py.out.tmp" "$MRC_SHARED/mpi4py.out"
	fi
	barrier mpi4py-done 700
	sent=$(sent_of "$MRC_SHARED/mpi4py.out")
	ok "rank on node$n reported what it sent ($sent B)" test -n "$sent"
	grew=$(($(msg_stat tx_bytes) - tx0))
	_chk_cmp "node$n: mrc/msg tx_bytes grew by $grew B, at least its rank's payload" \
		tx_bytes "$grew" '>=' "${sent:-1}"

	# bench/mpi's reference: the same script over UCX, RC on rxe0 (its
	# UD wire-up needs UCX_UD_VERBS_ETH_DGID_CHECK=n on rxe: mpi_lib.sh)
	case_title "mpi4py over UCX (RC on rxe0), bench/mpi's reference"
	barrier ucx-start 120
	if is_node 1; then
		t0=$(now_ms)
		mpirun_on "$NODES" ucx "$MPI_PY" "$chk" > /tmp/mpi4py-ucx.out 2>&1
		rc=$?
		t=$(($(now_ms) - t0))
		ok_eq "mpirun --mca pml ucx python3 mpi_check.py: exit status (took $t ms)" 0 "$rc"
		ok_eq "every rank's checks passed ($nchecks)" "$nchecks 0" \
			"$(grep -c '^ok rank' /tmp/mpi4py-ucx.out) $(grep -c '^FAIL' /tmp/mpi4py-ucx.out)"
		[ "$rc" = 0 ] || diag "$(tail -n 30 /tmp/mpi4py-ucx.out)"
	fi
	barrier ucx-done 700

	# Two ranks per node: ranks of one node are separate processes, which
	# the provider reaches through mrc, the node its own peer.
	case_title "mpi4py over mrc, 2 ranks per node ($((2 * NODES)) ranks)"
	tx0=$(($(plane_tx_pkts "$n" 0) + $(plane_tx_pkts "$n" 1)))
	barrier ppn2-start 120
	if is_node 1; then
		t0=$(now_ms)
		MPI_PPN=2 mpirun_mrc "$MPI_PY" "$chk" > /tmp/mpi4py-ppn2.out 2>&1
		rc=$?
		t=$(($(now_ms) - t0))
		ok_eq "mpirun -np $((2 * NODES)) python3 mpi_check.py: exit status (took $t ms)" 0 "$rc"
		k=$((2 * NODES))
		ok_eq "every rank's checks passed ($((k * (5 + 2 * k))))" \
			"$((k * (5 + 2 * k))) 0" \
			"$(grep -c '^ok rank' /tmp/mpi4py-ppn2.out) $(grep -c '^FAIL' /tmp/mpi4py-ppn2.out)"
		[ "$rc" = 0 ] || diag "$(tail -n 30 /tmp/mpi4py-ppn2.out)"
	fi
	barrier ppn2-done 700
	grew=$(($(plane_tx_pkts "$n" 0) + $(plane_tx_pkts "$n" 1) - tx0))
	ok "node$n's ranks talked through its own peer ($grew packets)" \
		test "$grew" -gt 0

	case_title "NetPIPE (NPopenmpi) over mrc: 1 B .. $NP_MAX B, $NP_REPEATS round trips each"
	tx0=$(msg_stat tx_bytes)
	barrier np-start 120
	if [ "$NODES" -gt 2 ]; then
		skip 'NetPIPE runs between two ranks' "$NODES nodes"
	elif is_node 1; then
		t0=$(now_ms)
		mpirun_mrc NPopenmpi -u $NP_MAX -n $NP_REPEATS \
			-o "$MRC_SHARED/np.out" > /tmp/np.log 2>&1
		rc=$?
		t=$(($(now_ms) - t0))
		ok_eq "mpirun NPopenmpi: exit status (took $t ms)" 0 "$rc"
		ok "it reached $NP_MAX B" awk -v m=$NP_MAX \
			'$1 == m { f = 1 } END { exit !f }' "$MRC_SHARED/np.out"
		diag "bytes, Mbit/s, seconds per transfer (half round trip):"
		diag "$(awk 'NR % 4 == 1' "$MRC_SHARED/np.out" 2>/dev/null)"
	fi
	barrier np-done 700
	if [ "$NODES" = 2 ]; then
		grew=$(($(msg_stat tx_bytes) - tx0))
		_chk_cmp "node$n: mrc/msg tx_bytes grew by $grew B, at least NetPIPE's payload" \
			tx_bytes "$grew" '>=' \
			"$(np_bytes "$MRC_SHARED/np.out" 2>/dev/null || echo 1)"
	fi

	case_title "HPCC over mrc, a short run: N $HPCC_N, a 1 x $NODES process grid"
	tx0=$(msg_stat tx_bytes)
	barrier hpcc-start 120
	if is_node 1; then
		# In the shared folder: each rank's working directory
		mkdir -p "$MRC_SHARED/hpcc" && hpcc_input "$MRC_SHARED/hpcc"
		t0=$(now_ms)
		MPI_TMO=900 mpirun_mrc --wdir "$MRC_SHARED/hpcc" hpcc \
			> /tmp/hpcc.log 2>&1
		rc=$?
		t=$(($(now_ms) - t0))
		ok_eq "mpirun hpcc: exit status (took $t ms)" 0 "$rc"
		out=$MRC_SHARED/hpcc/hpccoutf.txt
		ok "HPL's scaled residual check passed" \
			grep -q '^||Ax-b||_oo.*PASSED$' "$out"
		ok 'no residual check failed (HPL, PTRANS)' \
			sh -c "! grep -qE 'FAILED|[1-9][0-9]* tests completed and failed' '$out'"
		ok_eq "PTRANS's residual" 0 "$(hpcc_val "$out" PTRANS_residual)"
		ok_eq 'HPCC says every test ran (Success)' 1 \
			"$(hpcc_val "$out" Success)"
		for k in HPL_Tflops PTRANS_GBs MPIRandomAccess_GUPs \
			 MPIRandomAccess_Errors MPIFFT_Gflops MPIFFT_maxErr \
			 MinPingPongBandwidth_GBytes MaxPingPongLatency_usec \
			 RandomlyOrderedRingBandwidth_GBytes \
			 RandomlyOrderedRingLatency_usec; do
			diag "$k=$(hpcc_val "$out" $k)"
		done
		tail -n 20 /tmp/hpcc.log | while IFS= read -r l; do diag "$l"; done
	fi
	barrier hpcc-done 1000
	# HPL alone moves each panel from its process column to the others:
	# half the N x N matrix of doubles, so a quarter of it per rank
	grew=$(($(msg_stat tx_bytes) - tx0))
	_chk_cmp "node$n: mrc/msg tx_bytes grew by $grew B, at least HPL's share (2 N^2 B)" \
		tx_bytes "$grew" '>=' $((2 * HPCC_N * HPCC_N))

	case_title "a rank killed mid-transfer: mpirun fails, no hang"
	barrier kill-start 120
	if is_node 1; then
		t0=$(now_ms)
		mpirun_mrc "$MPI_PY" "$chk" loop \
			> /tmp/loop.out 2>&1 &
		local mpid=$!
		wait_for 'the ring loop is under way (5 rounds)' 300 \
			grep -q '^loop 5$' /tmp/loop.out
		put loop-running 1
		wait "$mpid"
		rc=$?
		t=$(($(now_ms) - t0))
		ok "mpirun failed (exit status $rc, not 0, not timeout's 124)" \
			test "$rc" != 0 -a "$rc" != 124
		diag "$(tail -n 15 /tmp/loop.out)"
	else
		get loop-running 400 > /dev/null
		if is_node "$NODES"; then
			local rpid
			rpid=$(pgrep -f "^$MPI_PY .*mpi_check.py loop")
			ok "SIGKILL the rank on node$n (pid $rpid)" \
				kill -KILL $rpid
		fi
	fi
	barrier kill-done 700

	case_title 'everything closed: no /dev/mrc endpoint, no buffer held, mrc unloads'
	mpi_launch_stop
	# [.] and [o]: the pattern must not match this sh -c's own command line
	wait_for 'no MPI process left' 60 \
		sh -c '! pgrep -af "mpi_check[.]py|NP[o]penmpi|[h]pcc|[o]rted"'
	wait_for 'no /dev/mrc endpoint left (module refcnt 0)' 60 \
		test "$(cat /sys/module/mrc/refcnt)" = 0
	wait_for 'no message buffer held (rx/tx_buffer_bytes 0)' 60 buffers_free
	barrier closed
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
