#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mrc libfabric provider (tools/libmrc-fi, Documentation/mrc/
# libfabric.rst) between two nodes, driven by libfabric's own clients:
# `make install` puts libmrc-fi.so where Debian's libfabric looks and
# `fi_info -p mrc` lists it (FI_EP_RDM, FI_MSG, FI_TAGGED) without
# FI_PROVIDER_PATH; fi_pingpong -p mrc -e rdm with its data check (-c)
# over the whole size sweep (0 B .. 6 MiB, -S all), untagged from node 1
# and tagged from node 2; each node's mrc counters grew by at least the
# payload it sent; fi_pingpong beside mrc-perf lat at 64 B, 64 KiB and
# 1 MiB (figures as diagnostics); the provider's own checks
# (fi_mrc_check: bad addresses, a node that is not a peer, truncation,
# cancel, tag and source matching, order, peek/claim/discard, CQ data,
# blocking reads, unexpected large messages); a fi_pingpong killed
# mid-sweep; sends to a node that went away end in error completions
# (fi_mrc_check unreach); then every /dev/mrc endpoint is closed, no
# message buffer is held, and mrc unloads.  Titled cases (lib.sh).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_LIBFABRIC_TIMEOUT:-1200}

PP_PORT=47592		# fi_pingpong's out-of-band TCP port (its default)
PERF_PORT=18515		# mrc-perf server
ITERS=10		# fi_pingpong -I: round trips per size

# sweep_bytes: payload bytes one side of fi_pingpong -S all sends:
# ITERS messages of each size 0, 1, 2, 3, 4, 6, .. 4 MiB, 6 MiB (its
# generate_test_sizes() up to its 6 MiB maximum).
sweep_bytes() {
	local i p sum=1 max=$((6 << 20))
	for ((i = 1; ; i++)); do
		p=$((1 << i))
		((p > max)) && break
		sum=$((sum + p))
		((p + p / 2 > max)) && break
		sum=$((sum + p + p / 2))
	done
	echo $((sum * ITERS))
}

# pp_server OUT [ARGS]: fi_pingpong server in the background, listening;
# sizes -S $PP_SIZE (all: the sweep)
pp_server() {
	local out=$1
	shift
	stdbuf -oL fi_pingpong -p mrc -e rdm -I $ITERS -S "${PP_SIZE:-all}" \
		-c "$@" > "$out" 2>&1 &
	PP_PID=$!
	wait_for 'fi_pingpong server listening' 30 \
		sh -c "ss -ltn | grep -q ':$PP_PORT '"
}

# pp_client OUT SERVER_NODE [ARGS]: fi_pingpong client, the whole sweep
pp_client() {
	local out=$1 srv=$2
	shift 2
	timeout 600 stdbuf -oL fi_pingpong -p mrc -e rdm -I $ITERS \
		-S "${PP_SIZE:-all}" -c "$@" "$(node_ip "$srv" 0)" > "$out" 2>&1
}

# pp_ok OUT: the run printed a result for the largest size (6m)
pp_ok() {
	grep -Eq '^6m +10 +=10 ' "$1" || { cat "$1"; return 1; }
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) fidir=$MRC_REPO/tools/libmrc-fi
	local chk=$MRC_REPO/selftests/mrc/fi_mrc_check
	local tx0 rx0 want

	case_title 'mrc loaded, the other node a peer on both planes'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	ok "add peer node$o on both planes" peer_add "$o"
	chk_paths_active "$o" 16 60

	case_title 'make install puts libmrc-fi.so where libfabric looks'
	ok 'libmrc-fi.so is built' test -f "$fidir/libmrc-fi.so"
	# The guest's root is an overlay on the host's: this install stays
	# in the guest.
	ok 'make -C tools/libmrc-fi install' make -s -C "$fidir" install
	ok 'installed in /usr/lib/x86_64-linux-gnu/libfabric' \
		test -f /usr/lib/x86_64-linux-gnu/libfabric/libmrc-fi.so
	unset FI_PROVIDER_PATH
	ok 'fi_info -l lists mrc' sh -c 'fi_info -l | grep -q "^mrc:"'
	ok 'fi_info -p mrc: provider mrc, FI_EP_RDM' \
		sh -c 'fi_info -p mrc | grep -q "provider: mrc" &&
		       fi_info -p mrc | grep -q "type: *FI_EP_RDM"'
	ok 'fi_info -p mrc -t FI_EP_RDM -v: caps FI_MSG, FI_TAGGED, FI_SOURCE, FI_DIRECTED_RECV; mode FI_CONTEXT' \
		sh -c 'v=$(fi_info -p mrc -t FI_EP_RDM -v) || exit 1
		       caps=$(echo "$v" | grep -m1 "caps: \[")
		       mode=$(echo "$v" | grep -m1 "mode: \[")
		       for c in FI_MSG FI_TAGGED FI_SOURCE FI_DIRECTED_RECV; do
			       echo "$caps" | grep -qw "$c" || { echo "no $c: $caps"; exit 1; }
		       done
		       echo "$mode" | grep -qw FI_CONTEXT || { echo "no FI_CONTEXT: $mode"; exit 1; }'
	ok 'fi_info -p mrc -c FI_TAGGED finds it' \
		sh -c 'fi_info -p mrc -c FI_TAGGED | grep -q "provider: mrc"'
	ok 'fi_info -p mrc -c FI_RMA finds nothing' \
		sh -c '! fi_info -p mrc -c FI_RMA >/dev/null 2>&1'
	diag "$(fi_info -p mrc)"
	barrier installed

	tx0=$(msg_stat tx_bytes) rx0=$(msg_stat rx_bytes)
	want=$(sweep_bytes)

	case_title 'fi_pingpong -p mrc -e rdm -S all -c: node 1 -> node 2, untagged'
	if is_node 2; then
		pp_server /tmp/pp1.srv
	fi
	barrier pp1-listening 60
	if is_node 1; then
		ok 'fi_pingpong client: 0 B .. 6 MiB, data checked' \
			pp_client /tmp/pp1.cli 2
		ok 'it reached 6 MiB, 10 round trips' pp_ok /tmp/pp1.cli
		diag "$(cat /tmp/pp1.cli)"
	else
		wait $PP_PID
		ok_eq 'fi_pingpong server exit status' 0 $?
	fi
	barrier pp1-done 900

	case_title 'fi_pingpong -p mrc -e rdm -S all -c -m tagged: node 2 -> node 1'
	if is_node 1; then
		pp_server /tmp/pp2.srv -m tagged
	fi
	barrier pp2-listening 60
	if is_node 2; then
		ok 'fi_pingpong -m tagged client: 0 B .. 6 MiB, data checked' \
			pp_client /tmp/pp2.cli 1 -m tagged
		ok 'it reached 6 MiB, 10 round trips' pp_ok /tmp/pp2.cli
		diag "$(cat /tmp/pp2.cli)"
	else
		wait $PP_PID
		ok_eq 'fi_pingpong -m tagged server exit status' 0 $?
	fi
	barrier pp2-done 900

	case_title "mrc's counters grew by at least the payload (2 sweeps x $want B each way)"
	_chk_cmp "node$n: mrc/msg tx_bytes grew by >= $((2 * want))" tx_bytes \
		$(($(msg_stat tx_bytes) - tx0)) '>=' $((2 * want))
	_chk_cmp "node$n: mrc/msg rx_bytes grew by >= $((2 * want))" rx_bytes \
		$(($(msg_stat rx_bytes) - rx0)) '>=' $((2 * want))

	case_title 'fi_pingpong against mrc-perf lat, node 1 -> node 2 (figures are diagnostics)'
	local sz perf_pid
	if is_node 2; then
		mrc-perf -s -p $PERF_PORT > /tmp/perf-srv.log 2>&1 &
		perf_pid=$!
		wait_for 'mrc-perf server bound' 30 grep -q server /tmp/perf-srv.log
	fi
	for sz in 64 65536 1048576; do
		local PP_SIZE=$sz
		is_node 2 && pp_server /tmp/ppc.$sz.srv
		barrier "ppc-$sz" 60
		if is_node 1; then
			ok "fi_pingpong -S $sz -I $ITERS -c" \
				pp_client /tmp/ppc.$sz 2
			ok "mrc-perf lat -m $sz -n $ITERS" \
				sh -c "mrc-perf -c 2 -p $PERF_PORT lat -m $sz -n $ITERS -j > /tmp/perf.$sz"
			diag "$sz B, half round trip: fi_pingpong $(awk 'NR == 2 { print $7 }' /tmp/ppc.$sz) us (mean), mrc-perf lat $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.0f us (p50)" % r["p50_us"])' /tmp/perf.$sz 2>/dev/null)"
		else
			wait $PP_PID
			ok_eq "fi_pingpong -S $sz server exit status" 0 $?
		fi
		barrier "ppc-$sz-done" 300
	done
	PP_SIZE=all
	if is_node 2; then
		kill "$perf_pid"
		wait "$perf_pid" 2>/dev/null
	fi

	case_title 'fi_mrc_check: the provider API edge cases, node 1 against node 2'
	barrier check-start
	if is_node 2; then
		ok 'fi_mrc_check peer (node 2)' \
			sh -c "timeout 300 '$chk' peer 1 > /tmp/chk.out 2>&1"
	else
		ok 'fi_mrc_check main (node 1): every check passed' \
			sh -c "timeout 300 '$chk' main 2 > /tmp/chk.out 2>&1"
	fi
	diag "$(cat /tmp/chk.out)"
	barrier check-done 400

	case_title 'a process killed mid-transfer: its peer is stopped too, nothing stays behind'
	if is_node 2; then
		pp_server /tmp/pp3.srv -m tagged
	fi
	barrier pp3-listening 60
	if is_node 1; then
		# stdbuf execs fi_pingpong: $! is its PID
		stdbuf -oL fi_pingpong -p mrc -e rdm -I $ITERS -S all -c \
			-m tagged "$(node_ip 2 0)" > /tmp/pp3.cli 2>&1 &
		local cpid=$!
		wait_for 'the sweep is under way (64 KiB reached)' 120 \
			grep -q '^64k ' /tmp/pp3.cli
		kill -KILL "$cpid"
		wait "$cpid"
		ok_eq 'fi_pingpong client killed mid-sweep (exit status 128 + SIGKILL)' \
			137 $?
	fi
	barrier pp3-killed 300
	if is_node 2 && kill -0 "$PP_PID" 2>/dev/null; then
		# the client died while the server waited for its next ping
		ok 'its server is still waiting for the next message' true
		kill -KILL "$PP_PID"
		wait "$PP_PID" 2>/dev/null
		ok 'and is killed too' sh -c "! kill -0 $PP_PID 2>/dev/null"
	elif is_node 2; then
		# the client died with the server's pong in flight: mrc
		# refuses it at node 1 (port unbound), or it times out, and
		# the provider reports that as an error completion; or the
		# server reads its control connection (fi_pingpong's TCP
		# socket to the client, closed by the kill) before that:
		# a FIN reads as "remote connection closed"; a reset (the
		# dead client's socket held unread bytes, or the server wrote
		# to it after the close) as "Connection reset by peer"
		wait "$PP_PID"
		local st=$?
		diag "its server ended first: exit status $st; $(tail -n 3 /tmp/pp3.srv | tr '\n' ' ')"
		ok 'its server ended on its own, not by a signal' \
			test "$st" -ge 1 -a "$st" -lt 128
		ok 'on an error completion of its pong (refused or timed out), or its control connection closed' \
			grep -Eqi '(refused|timed out|remote connection closed|connection reset by peer)' /tmp/pp3.srv
	fi

	case_title 'node 2 cut off: sends to it end in error completions, nothing hangs'
	if is_node 2; then
		ok 'node 2 takes both planes down' \
			sh -c 'ip link set eth0 down && ip link set eth1 down'
	fi
	barrier planes-down 60
	if is_node 1; then
		ok 'fi_mrc_check unreach 2: error completions, no hang' \
			sh -c "timeout 300 '$chk' unreach 2 > /tmp/unr.out 2>&1"
		diag "$(cat /tmp/unr.out)"
	fi
	barrier unreach-done 400
	if is_node 2; then
		ok 'node 2 brings its planes back' \
			sh -c 'ip link set eth0 up && ip link set eth1 up'
	fi

	case_title 'everything closed: no /dev/mrc endpoint, no buffer held, mrc unloads'
	wait_for 'no /dev/mrc endpoint left (module refcnt 0)' 30 \
		test "$(cat /sys/module/mrc/refcnt)" = 0
	wait_for 'no message buffer held (rx/tx_buffer_bytes 0)' 30 buffers_free
	barrier closed
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
