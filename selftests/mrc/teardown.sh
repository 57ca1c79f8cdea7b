#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown and lifetime races (issue 21, findings 1, 3, 4, 7, 12, 13),
# between two nodes with both planes, traffic running both ways
# (modules/mrc_echo: small random-size messages, content and CRC checked
# by the receiver).  Four stress cases, each followed by checks that the
# node is still sound:
#
# A. `mrcctl peer del` + `peer add` under traffic, CYCLES times on node 1
#    (MRC_TEARDOWN_CYCLES; default 20, 100 on the debug-kernel lane, i.e.
#    when MRC_KERNEL is set).  Each deletion happens once some of the
#    peer's paths are active again, so DATA, SACK/NACK, GRANT and probe
#    senders are busy with the peer's address handles while it goes
#    (findings 1 and 12: an AH destroyed before it left its link, or
#    while posted sends used it).  Afterwards: every message that arrived
#    was intact, all 16 paths come back on both nodes, a fresh transfer
#    each way completes whole (every send status 0, every message
#    received, in order), mrc's reassembly and send buffers are back to
#    0, and no slab allocation site of mrc, ib_core, rdma_cm or rdma_rxe
#    grew by one object per cycle (the guests boot with slub_debug=U; see
#    load_unload.sh).
# B. `rdma link delete rxe1` / `rdma link add` on node 1, LINK_CYCLES
#    times (MRC_TEARDOWN_LINK_CYCLES, default 5), while node 2 deletes and
#    re-adds node 1 as a peer in a loop: every re-add asks node 1 for its
#    token (NEED_TOKEN), which makes node 1 resolve all its links to node 2
#    again, so rdma_cm handlers keep running on rxe1 while it goes away
#    (finding 3: a link attached to a removed rail).  Afterwards all 16
#    paths are active again and a transfer each way completes whole.
# C. Closing a consumer whose recv() sends: node 2 loads mrc_echo with
#    reply_ms=REPLY_MS (recv() waits until the unload starts, then sends
#    a reply) and unloads it while the first recv() waits, with node 1's
#    messages arriving,
#    CLOSE_CYCLES times (MRC_TEARDOWN_CLOSE_CYCLES, default 5).  No reply
#    is pending then, so a close that waits for the sends first goes on
#    at once.  The reply goes to peer GHOST, configured but absent, so its
#    done() comes only after peer_timeout_ms (-EHOSTUNREACH): an unload
#    that returned before that reply completed leaves the done() to run
#    in freed module memory (an Oops).  Each unload must succeed, and
#    nothing may run after it
#    (finding 4: mrc_ep_close() waited for the sends before the recv()s,
#    and a reply sent after that wait completed in unloaded code; 13: the
#    wake-up after the last send touched a freed endpoint).
# E. `rdma link delete rxe1` on node 1 while a resolution on it waits for
#    a SIDR reply: peer GHOST has static neighbour entries, so its routes
#    resolve and its requests go out, to nobody.  rdma_cm tells the
#    consumer of an id whose device goes (DEVICE_REMOVAL) and waits until
#    the id is destroyed; an id that mrc kept held the `rdma link delete`
#    for ever (a hung task).  The delete must return within 20 s, rxe1
#    come back as a rail and all 16 paths to the peer be active again.
# D. `rmmod mrc` racing a `mrcctl peer add` / `peer del` loop on
#    node 1, RMMOD_CYCLES times (MRC_TEARDOWN_RMMOD_CYCLES, default 5)
#    (finding 7: a PEER_ADD during unload left work, timers and cm ids
#    behind the module).  Every unload succeeds and leaves no rdma_cm id.
#
# MRC_TEARDOWN_CASES (default ABCED) runs only the cases it names (after
# the common setup; D unloads everything, so it comes last).
#
# The guests' dmesg must stay clean throughout (lib.sh: no WARN, BUG,
# Oops; on the debug kernel also KASAN, lockdep, kmemleak): that is where
# most of these races show.  Written as titled cases (lib.sh's
# case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
: "${MRC_TEARDOWN_CYCLES:=$([ -n "${MRC_KERNEL:-}" ] && echo 100 || echo 20)}"
export MRC_TEARDOWN_CYCLES
CYCLES=$MRC_TEARDOWN_CYCLES
LINK_CYCLES=${MRC_TEARDOWN_LINK_CYCLES:-5}
CLOSE_CYCLES=${MRC_TEARDOWN_CLOSE_CYCLES:-5}
RMMOD_CYCLES=${MRC_TEARDOWN_RMMOD_CYCLES:-5}
CASES=${MRC_TEARDOWN_CASES:-ABCED}
TIMEOUT=${MRC_TEARDOWN_TIMEOUT:-$((1200 + CYCLES * 20))}
export MRC_APPEND="${MRC_APPEND:-} slub_debug=U"
MAXLEN=65536		# stress traffic: many small messages
STREAM=1000000		# messages queued by a stress job (stopped, never all sent)
CHECK_COUNT=30		# messages each way in a check transfer
CHECK_MAXLEN=262144
# case C: recv() waits this long before it replies, or until the rmmod
# starts: the rmmod comes first, so no reply is sent before it.
REPLY_MS=600000
GHOST=3			# cases C, E: a configured peer with no VM behind it
GHOST_MAC=02:00:00:00:00:03	# case E: its neighbour entries' address

source "$MRC_LIB_DIR/echo_lib.sh"

# poll SECONDS CMD...: CMD succeeds within SECONDS (no TAP result).
poll() {
	local t0=$SECONDS lim=$(($1 * _MRC_TSCALE))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $((SECONDS - t0)) -ge "$lim" ] && return 1
		mrc_sleep 0.2
	done
}

is_peer() { [ "$(mrcctl -j peer show "$1" 2>/dev/null | jq length)" = 1 ]; }

# rdma_rxe builds each UD packet from the AH its send names, looking it up
# when the send leaves the queue: a send posted with an AH destroyed
# meanwhile fails there (finding 12), and with a freed PD the lookup finds
# one of another PD.
chk_no_av_errors() {
	ok 'rdma_rxe never missed a send'"'"'s address handle' \
		sh -c '! dmesg | grep -E "Unable to find AH matching ah_num|Failed no address vector|PDs don.t match for AH and QP"'
}

recv_started() { [ "$(echo_stat recv_calls)" -ge 1 ]; }

some_active() { [ "$(active_paths "$1")" -gt 0 ] 2>/dev/null; }
# Case A, node 1: CYCLES deletions of the peer under traffic.
peer_cycles() {
	local o=$1 i stuck=0 failed=0
	for ((i = 1; i <= CYCLES; i++)); do
		# Delete once paths carry traffic again (or after 20 s).
		poll 20 some_active "$o" || stuck=$((stuck + 1))
		mrc_sleep "0.$((RANDOM % 4))"
		mrcctl peer del "$o" >/dev/null 2>&1 || failed=$((failed + 1))
		peer_add "$o" >/dev/null 2>&1 || failed=$((failed + 1))
	done
	ok_eq "$CYCLES peer del + add cycles, every command succeeded" 0 "$failed"
	diag "cycles whose paths were not back within 20 s: $stuck"
}

# Case B, node 2: delete and re-add peer node 1 until told to stop.
readd_loop() {
	local o=$1 n=0
	while [ ! -e /tmp/.teardown-stop ]; do
		mrcctl peer del "$o" >/dev/null 2>&1
		peer_add "$o" >/dev/null 2>&1
		n=$((n + 1))
		mrc_sleep 0.$((RANDOM % 5))
	done
	echo "$n"
}

# Case B, node 1: LINK_CYCLES deletions of rxe1.
link_cycles() {
	local i failed=0
	for ((i = 1; i <= LINK_CYCLES; i++)); do
		mrc_sleep "0.$((RANDOM % 10))"
		rdma link delete rxe1 || failed=$((failed + 1))
		mrc_sleep "0.$((RANDOM % 5))"
		rdma link add rxe1 type rxe netdev eth1 || failed=$((failed + 1))
		poll 30 test -e /sys/kernel/mrc/rails/rxe1:1 ||
			failed=$((failed + 1))
		# Let resolutions start on the new rail before it goes again.
		mrc_sleep 1
	done
	ok_eq "$LINK_CYCLES rdma link delete + add cycles of rxe1, rail back each time" \
		0 "$failed"
}

# Case D, node 1: unload mrc while a loop adds and deletes peer 2.  An
# mrcctl that finds no "mrc" family has the kernel load the module
# (MODULE_ALIAS_GENL_FAMILY): the loop's commands after an unload would
# load it again, so autoloading is off meanwhile (an install rule) and
# the test loads mrc.ko with insmod.
rmmod_cycles() {
	local o=$1 i pid failed=0 left=0 ko
	ko=$(modinfo -n mrc)
	# mrc's dependencies stay loaded for insmod (rmmod, not modprobe -r)
	modprobe mrc node_id="$MRC_NODE" && rmmod mrc
	echo 'install mrc /bin/false' > /etc/modprobe.d/mrc-teardown.conf
	for ((i = 1; i <= RMMOD_CYCLES; i++)); do
		if ! insmod "$ko" node_id="$MRC_NODE"; then
			failed=$((failed + 1))
			continue
		fi
		(
			while :; do
				mrcctl peer add "$o" addr "$(node_ip "$o" 0),$(node_ip "$o" 1)"
				mrcctl peer del "$o"
			done
		) >/dev/null 2>&1 &
		pid=$!
		mrc_sleep "0.$((3 + RANDOM % 7))"
		rmmod mrc || failed=$((failed + 1))
		kill "$pid"
		wait "$pid" 2>/dev/null
		[ -e /sys/module/mrc ] && left=$((left + 1)) && rmmod mrc
	done
	mrc_sleep 3	# work and timers left behind would run now
	ok_eq "$RMMOD_CYCLES unloads during a peer add/del loop succeeded" 0 "$failed"
	ok_eq 'mrc gone after each' 0 "$left"
	chk_unloaded
	rm -f /etc/modprobe.d/mrc-teardown.conf
}

case_a() {
	local o=$1

	case_title "A: peer del/add under traffic, $CYCLES cycles on node 1"
	stress_start "$o" 1
	barrier stress-a
	is_node 1 && peer_cycles "$o"
	barrier cycles-a $((CYCLES * 30 + 120))
	stress_stop
	chk_echo_stat 'every message that arrived was intact' rx_bad = 0
	diag "A: sent $(echo_stat sent), ok $(echo_stat done_ok), failed $(echo_stat done_err), received $(echo_stat rx)"
	chk_paths_active "$o" 16 120 'after the cycles'
	chk_no_av_errors
	barrier quiet-a

	case_title 'A: afterwards a transfer each way is whole, nothing leaked'
	check_transfer "$o" a
	chk_sites_flat /tmp/sites0 "$CYCLES"
	barrier leak-a
}

case_b() {
	local o=$1 loops

	case_title "B: rdma link delete/add of rxe1 on node 1 while node 2 re-adds it, $LINK_CYCLES cycles"
	rm -f /tmp/.teardown-stop
	barrier link-b
	if is_node 2; then
		readd_loop "$o" > /tmp/.teardown-loops &
		put readd-running 1
	else
		get readd-running > /dev/null
		link_cycles
	fi
	barrier links-done-b $((LINK_CYCLES * 60 + 120))
	if is_node 2; then
		: > /tmp/.teardown-stop
		wait
		read -r loops < /tmp/.teardown-loops
		diag "B: node 1 re-added $loops times"
		is_peer "$o" || peer_add "$o"
		ok 'node 1 is a peer again' is_peer "$o"
	fi
	chk_no_av_errors
	chk_paths_active "$o" 16 180 'after the link cycles'
	check_transfer "$o" b
}

case_c() {
	local o=$1 i

	case_title "C: closing a consumer whose recv() replies, $CLOSE_CYCLES times"
	if is_node 2; then
		ok 'rmmod mrc_echo' rmmod mrc_echo
		# The replies go to a peer that is not there: each is
		# accepted and fails only after peer_timeout_ms, long after
		# an unload that did not wait for it.
		ok "peer $GHOST (configured, absent) for the replies" \
			mrcctl peer add $GHOST addr "$(node_ip $GHOST 0),$(node_ip $GHOST 1)"
	fi
	for ((i = 1; i <= CLOSE_CYCLES; i++)); do
		if is_node 2; then
			insmod "$ECHO_KO" reply_ms=$REPLY_MS reply_node=$GHOST ||
				{ ok 'insmod mrc_echo reply_ms' false; break; }
		fi
		barrier "close-$i"
		if is_node 1; then
			stress_start "$o" "$((i + 10))"
		else
			# The first recv() waits for the unload: no reply is
			# pending yet, and the rmmod sets them all going.
			wait_for "cycle $i: the first recv() runs" 120 \
				recv_started
			chk_echo_stat "cycle $i: no reply sent yet" replied = 0
			ok "cycle $i: rmmod mrc_echo while its recv() is about to reply" \
				rmmod mrc_echo
		fi
		barrier "closed-$i"
		if is_node 1; then
			echo stop > $D/mrc_echo/ctl
			poll 60 echo_idle
			poll 120 all_completed
		fi
	done
	barrier close-done
	if is_node 2; then
		ok "mrcctl peer del $GHOST" mrcctl peer del $GHOST
		ok 'insmod mrc_echo again' insmod "$ECHO_KO"
	fi
	barrier echo-back
	check_transfer "$o" c
}

# An rdma_cm id of ours on rxe1 waits for the SIDR reply of GHOST.
ghost_sidr_waiting() {
	rdma res show cm_id 2>/dev/null |
		grep -E "link rxe1/.* state CONNECT .*dst-addr $(node_ip $GHOST 1):"
}

# ghost_neigh add|del: GHOST's static neighbour entries on both planes.
ghost_neigh() {
	local p
	for p in 0 1; do
		if [ "$1" = add ]; then
			ip neigh replace "$(node_ip $GHOST $p)" lladdr $GHOST_MAC \
				dev "eth$p" nud permanent || return 1
		else
			ip neigh del "$(node_ip $GHOST $p)" dev "eth$p" || return 1
		fi
	done
}

case_e() {
	local o=$1 pid t0 took

	case_title 'E: rdma link delete of rxe1 while a resolution on it waits for a SIDR reply'
	if is_node 1; then
		ok "peer $GHOST's addresses resolve, to a MAC nobody has" \
			ghost_neigh add
		ok "peer $GHOST (configured, absent)" \
			mrcctl peer add $GHOST addr "$(node_ip $GHOST 0),$(node_ip $GHOST 1)"
		wait_for "a SIDR request to $GHOST waits on rxe1" 30 \
			ghost_sidr_waiting
		t0=$SECONDS
		rdma link delete rxe1 &
		pid=$!
		poll 20 sh -c "! kill -0 $pid"
		took=$((SECONDS - t0))
		if ok "rdma link delete rxe1 returned within 20 s (${took} s)" \
			sh -c "! kill -0 $pid"; then
			wait "$pid"
			ok_eq 'and succeeded (exit status)' 0 $?
		else
			# Blocked in the kernel: nothing after this can work.
			diag "$(cat /proc/$pid/stack 2>/dev/null)"
		fi
		ok 'rdma link add rxe1' rdma link add rxe1 type rxe netdev eth1
		wait_for 'rxe1 is a rail again' 30 test -e /sys/kernel/mrc/rails/rxe1:1
		ok "mrcctl peer del $GHOST" mrcctl peer del $GHOST
		ok "peer $GHOST's neighbour entries deleted" ghost_neigh del
	fi
	barrier deleted-e 120
	chk_paths_active "$o" 16 180 'after the delete'
	check_transfer "$o" e
}

case_d() {
	local o=$1 cm0

	case_title "D: rmmod mrc during a peer add/del loop, $RMMOD_CYCLES times on node 1"
	ok 'rmmod mrc_echo' rmmod mrc_echo
	wait_for 'reassembly and send buffers back to 0' 30 buffers_free
	barrier unload-d
	ok 'modprobe -r mrc' modprobe -r mrc
	cm0=$(rdma res show cm_id 2>/dev/null | grep -c .)
	barrier unloaded-d
	if is_node 1; then
		rmmod_cycles "$o"
		ok_eq 'no rdma_cm id left' "$cm0" \
			"$(rdma res show cm_id 2>/dev/null | grep -c .)"
	fi
	barrier done-d $((RMMOD_CYCLES * 60 + 120))
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) c

	case_title 'setup: mrc, the peer on both planes, mrc_echo'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	mount -t debugfs none $D 2>/dev/null
	ok "add peer node$o on both planes" peer_add "$o"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	chk_paths_active "$o" 16 120
	site_snapshot > /tmp/sites0
	barrier setup

	for c in A B C E D; do
		[[ $CASES == *$c* ]] || { skip "case $c" 'not in MRC_TEARDOWN_CASES'; continue; }
		"case_${c,,}" "$o"
	done
}

mrc_test_main "$@"
