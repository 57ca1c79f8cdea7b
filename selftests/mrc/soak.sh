#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: mixed traffic for MRC_SOAK_SECONDS (default 60; the long soak is
# MRC_SOAK_SECONDS=600) between two nodes while plane 1 flaps (node 1's
# eth1 goes down for FLAP_DOWN_S seconds every FLAP_UP_S seconds), and the
# peer's mrc restarts once half way (node 2: mrc_echo and the mrc-perf
# server stopped, modprobe -r mrc, modprobe mrc, peer added again).
#
# After the restart node 1 must find the restarted peer by itself (the
# new incarnation in its SIDR request; selftests/mrc/restart.sh tests that
# with messages in flight, peer_restart.sh the paths).  MRC_SOAK_READD=1
# has node 1 re-add the peer as well (mrcctl peer del + peer add), as an
# operator might; that was the default while self-recovery failed under
# the flapping plane (it also found a bug: a peer added while a local
# plane was down never got that plane).
#
# Traffic runs in rounds until the time is up.  In each round both nodes'
# kernel endpoints (modules/mrc_echo, port 7) send ROUND_COUNT messages of
# 1 B..16 MiB to each other (content, CRC and order checked by the
# receiver) while node 1's mrc-perf sends with 4 /dev/mrc endpoints to the
# server on node 2 (sizes 1 B, 4 KiB, 256 KiB, 4 MiB in turn; the server
# acknowledges the exact message and byte counts).  Every round: every
# send completes with status 0, every message arrives exactly once, intact,
# in order.  At the end: no lost or duplicated message over the whole run,
# mrc's buffers back to 0 and unreclaimable slab and vmalloc use flat
# (within LEAK_KB of their level after the first round), no WARN in dmesg
# (the dmesg check of lib.sh; on the debug kernel also KASAN, lockdep,
# kmemleak).  Written as titled cases (lib.sh's case_title and chk_*
# helpers): one per round and one for the restart.
source "$(dirname "$0")/lib.sh"
NODES=2
SOAK_S=${MRC_SOAK_SECONDS:-60}
TIMEOUT=${MRC_SOAK_TIMEOUT:-$((SOAK_S * 2 + 400))}
ROUND_COUNT=${MRC_SOAK_ROUND_COUNT:-6}
MAXLEN=$((16 << 20))
FLAP_UP_S=${MRC_SOAK_FLAP_UP_S:-4}
FLAP_DOWN_S=${MRC_SOAK_FLAP_DOWN_S:-2}
LEAK_KB=${MRC_SOAK_LEAK_KB:-4096}
READD=${MRC_SOAK_READD:-0}
PERF_PORT=18515
# mrc-perf per round, in turn: "SIZE ITERS"
PERF_RUNS=("1 400" "4096 200" "262144 24" "4194304 3")

source "$MRC_LIB_DIR/echo_lib.sh"

paths_at_least() { [ "$(active_paths "$OTHER")" -ge "$1" ]; }
round_done() {	# our sends completed and theirs arrived
	[ "$(echo_stat busy)" = 0 ] &&
	[ $(($(echo_stat done_ok) + $(echo_stat done_err))) -ge "$ROUND_COUNT" ] &&
	[ "$(echo_stat rx)" -ge "$ROUND_COUNT" ]
}

# Node 1: plane 1 down for FLAP_DOWN_S every FLAP_UP_S until told to stop.
flapper() {
	local n=0
	while [ ! -e /tmp/soak.stop ]; do
		_sleep "$FLAP_UP_S"
		[ -e /tmp/soak.stop ] && break
		ip link set eth1 down
		n=$((n + 1))
		echo "$n" > /tmp/soak.flaps
		_sleep "$FLAP_DOWN_S"
		ip link set eth1 up
	done
}

perf_server_start() {
	mrc-perf -s -p $PERF_PORT > /tmp/perf-server.log 2>&1 &
	PERF_PID=$!
	wait_for 'mrc-perf server bound' 30 grep -q server /tmp/perf-server.log
}

perf_server_stop() {
	kill "$PERF_PID" 2>/dev/null
	wait "$PERF_PID" 2>/dev/null
}

# node 2: the whole mrc stack goes away and comes back.
restart_mrc() {
	local a="$(node_ip "$OTHER" 0),$(node_ip "$OTHER" 1)"

	perf_server_stop
	ok 'rmmod mrc_echo' rmmod mrc_echo
	wait_for 'mrc buffers back to 0 (rx and tx)' 30 buffers_free
	ok 'modprobe -r mrc' modprobe -r mrc
	ok 'modprobe mrc' modprobe mrc node_id="$MRC_NODE"
	ok "add peer node$OTHER again" mrcctl peer add "$OTHER" addr "$a"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	perf_server_start
	# With READD node 1 re-adds us only after this: do not wait here.
	[ "$READD" = 1 ] ||
		wait_for "paths to node$OTHER active again" 120 paths_at_least 8
}

# One round: both directions of mrc_echo, plus mrc-perf from node 1; its
# case is titled by the caller.
ROUND_OK=0
TOT_SENT=0
TOT_RX=0
round() {
	local r=$1 perf=${PERF_RUNS[$(($1 % ${#PERF_RUNS[@]}))]} pid='' prc=0 got

	echo reset > $D/mrc_echo/ctl
	barrier "round-$r-reset"
	echo send "$OTHER" 7 "$ROUND_COUNT" "$MAXLEN" $((r * 7919 + MRC_NODE)) \
		> $D/mrc_echo/ctl
	if is_node 1; then
		# shellcheck disable=SC2086  # "SIZE ITERS"
		set -- $perf
		mrc-perf -c "$OTHER" -p $PERF_PORT bw -m "$1" -n "$2" -e 4 -w 8 \
			> "/tmp/perf.$r" 2>&1 &
		pid=$!
	fi
	if ! wait_for "$ROUND_COUNT sent, $ROUND_COUNT received" \
		$((SOAK_S + 120)) round_done; then
		diag "$(cat $D/mrc_echo/stats)"
		diag "$(mrcctl -s peer show "$OTHER" 2>&1)"
		diag "$(mrcctl -s rail show 2>&1)"
		diag "$(tr '\n' ' ' < $D/mrc/msg)"
		diag "$(cat $D/mrc/credit 2>&1)"
	fi
	if [ -n "$pid" ]; then
		wait "$pid"
		prc=$?
		ok_eq "mrc-perf bw $perf: every message and byte acknowledged" \
			0 "$prc" || diag "$(tail -n 5 "/tmp/perf.$r")"
	fi
	got="$(echo_stat done_ok) $(echo_stat done_err) $(echo_stat send_err)"
	got+=" $(echo_stat rx) $(echo_stat rx_bad) $(echo_stat rx_order)"
	ok_eq 'sends ok/failed/refused, received/bad/out of order' \
		"$ROUND_COUNT 0 0 $ROUND_COUNT 0 0" "$got" && ROUND_OK=$((ROUND_OK + 1))
	TOT_SENT=$((TOT_SENT + $(echo_stat done_ok)))
	TOT_RX=$((TOT_RX + $(echo_stat rx)))
	diag "round $r: $(echo_stat tx_bytes) B sent, $(echo_stat rx_bytes) B received;" \
	     "paths active $(active_paths "$OTHER"); flaps so far $(cat /tmp/soak.flaps 2>/dev/null || echo 0)"
	barrier "round-$r-done" $((SOAK_S + 300))
}

run_guest() {
	OTHER=$((3 - MRC_NODE))
	local a="$(node_ip "$OTHER" 0),$(node_ip "$OTHER" 1)"
	local r=0 t0 go restarted=0 slab0 slab1 vm0 vm1 m0

	case_title 'mrc_echo on both nodes, the mrc-perf server on node 2'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$MRC_NODE"
	mount -t debugfs none $D 2>/dev/null
	ok "add peer node$OTHER on both planes" mrcctl peer add "$OTHER" addr "$a"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	wait_for "16 paths to node$OTHER active" 60 paths_at_least 16
	is_node 2 && perf_server_start
	barrier setup-done
	# Plane 1 flaps on node 1 from now on, under every round.
	if is_node 1; then
		rm -f /tmp/soak.stop /tmp/soak.flaps
		flapper &
		FLAP_PID=$!
	fi

	t0=$SECONDS
	while :; do
		# node 1 decides; node 2 follows: go, restart or stop.
		if is_node 1; then
			# The restart comes before the stop: on the debug-kernel
			# lane one round took 203 s, past SOAK_S, and the run
			# stopped without its restart.
			go=go
			if [ $restarted = 0 ] && [ $((SECONDS - t0)) -ge $((SOAK_S / 2)) ]; then
				go=restart
			elif [ $((SECONDS - t0)) -ge "$SOAK_S" ]; then
				go=stop
			fi
			put "round-$r" "$go"
		else
			go=$(get "round-$r" $((SOAK_S + 300))) || break
		fi
		[ "$go" = stop ] && break
		if [ "$go" = restart ]; then
			case_title "node2's mrc restarts half way; the paths come back"
			restarted=1
			if is_node 2; then
				restart_mrc
				put restarted 1
			else
				m0=$(now_ms)
				get restarted 300 > /dev/null
				if [ "$READD" = 1 ]; then
					ok "re-add the restarted peer node$OTHER (peer del + add)" \
						sh -c "mrcctl peer del $OTHER && mrcctl peer add $OTHER addr $a"
				fi
				wait_for "node$OTHER's new mrc: paths active again" 120 \
					paths_at_least 8
				diag "peer restart took $(($(now_ms) - m0)) ms"
			fi
		fi
		case_title "round $r: mrc_echo both ways and mrc-perf, plane 1 flapping"
		round "$r"
		if [ "$r" = 0 ]; then	# the level after warm-up
			slab0=$(meminfo_kb SUnreclaim)
			vm0=$(meminfo_kb VmallocUsed)
		fi
		r=$((r + 1))
	done

	case_title 'the whole run: one restart, plane 1 flapped, nothing lost'
	ok_eq "peer restarted once" 1 "$restarted"

	if is_node 1; then
		: > /tmp/soak.stop
		wait "$FLAP_PID"
		ip link set eth1 up
		ok "plane 1 flapped ($(cat /tmp/soak.flaps 2>/dev/null || echo 0) times)" \
			test "$(cat /tmp/soak.flaps 2>/dev/null || echo 0)" -ge 2
	fi
	wait_for "all 16 paths to node$OTHER active at the end" 120 paths_at_least 16
	ok_eq "every round clean ($r rounds)" "$r" "$ROUND_OK"
	# Over the run: what we sent arrived once at the other side, and we
	# received once what it sent (each side's totals, compared).
	put "totals-$MRC_NODE" "$TOT_SENT $TOT_RX"
	local theirs
	theirs=$(get "totals-$OTHER" 300)
	ok_eq "no message lost or duplicated: sent by node$OTHER = received here" \
		"${theirs%% *}" "$TOT_RX"
	diag "soak: $r rounds in $((SECONDS - t0)) s; node$MRC_NODE sent $TOT_SENT," \
	     "received $TOT_RX kernel-endpoint messages"

	case_title 'memory: buffers back to 0, slab and vmalloc flat'
	wait_for 'mrc buffers back to 0 (rx and tx)' 30 buffers_free
	slab1=$(meminfo_kb SUnreclaim)
	vm1=$(meminfo_kb VmallocUsed)
	diag "unreclaimable slab $slab0 -> $slab1 kB, vmalloc $vm0 -> $vm1 kB"
	ok "unreclaimable slab flat (grew $((slab1 - slab0)) kB, limit $LEAK_KB)" \
		test $((slab1 - slab0)) -lt "$LEAK_KB"
	ok "vmalloc flat (grew $((vm1 - vm0)) kB, limit $LEAK_KB)" \
		test $((vm1 - vm0)) -lt "$LEAK_KB"
	diag "mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	barrier soak-done $((SOAK_S + 300))


	case_title 'everything unloads'
	is_node 2 && perf_server_stop
	ok 'rmmod mrc_echo' rmmod mrc_echo
	chk_rx_buffers_free
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
