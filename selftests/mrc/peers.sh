#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peers and paths between two nodes: rdma_cm resolution gives every
# (plane, entropy value) path, PROBEs make them active with an RTT; a plane
# taken down retires that plane's paths on both sides within a second and
# brings them back when it returns; a deleted and re-added rxe device is
# resolved again; a peer added while a local plane is down gets that
# plane's paths once it returns; configuration errors and unprivileged
# changes are refused with a clear message; probes from a node that is not
# a peer are dropped and counted; a node is its own peer (rxe loops its
# datagrams back): its paths come up, mrc-perf runs between two of its
# endpoints, and its node id cannot change meanwhile.  Written as titled
# cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=600


# paths_in STATE [PLANE]: number of paths to the other node in STATE.
paths_in() {
	mrcctl -j peer show "$OTHER" 2>/dev/null | jq --arg s "$1" \
		--arg p "${2:-any}" '[.[0].paths[] | select(.state == $s and
		($p == "any" or (.plane | tostring) == $p))] | length'
}

run_guest() {
	local n=$MRC_NODE out
	OTHER=$((3 - n))
	local addrs="$(node_ip $OTHER 0),$(node_ip $OTHER 1)"

	case_title 'peer configuration: what is refused, and why'
	ok 'modprobe mrc' modprobe mrc
	chk_refused 'peer add refused while node_id is 0' 'node_id' \
		mrcctl peer add "$OTHER" addr "$addrs"
	ok "mrcctl config set node_id $n" mrcctl config set node_id "$n"
	chk_refused "peer add refused for our own node id with node $OTHER's addresses" \
		'not local' mrcctl peer add "$n" addr "$addrs"
	chk_refused 'peer add refused without CAP_NET_ADMIN' 'CAP_NET_ADMIN' \
		"${UNPRIV[@]}" "$(command -v mrcctl)" \
		peer add "$OTHER" addr "$addrs"
	chk_refused 'peer add refused with 9 addresses' 'Error' \
		mrcctl peer add "$OTHER" \
		addr 10.9.0.1,10.9.0.2,10.9.0.3,10.9.0.4,10.9.0.5,10.9.0.6,10.9.0.7,10.9.0.8,10.9.0.9
	ok "mrcctl peer add $OTHER addr $addrs" \
		mrcctl peer add "$OTHER" addr "$addrs"
	chk_refused 'a second add of the same peer is refused' 'exists' \
		mrcctl peer add "$OTHER" addr "$addrs"
	chk_refused 'peer del of an unknown node is refused' 'no such peer' \
		mrcctl peer del 77

	case_title 'every path resolves and comes up with an RTT'

	wait_for 'all 16 paths active (2 planes x 8 entropy values)' 20 \
		all_active "$OTHER" 16
	ok_eq 'every active path has an RTT estimate' 16 \
		"$(mrcctl -j peer show "$OTHER" | jq '[.[0].paths[] | select(.srtt_us != null)] | length')"
	mrcctl peer show "$OTHER" | sed 's/^/# /'

	mrcctl monitor > /tmp/mon.log 2>&1 &
	local mon=$!
	barrier paths-up

	case_title 'a plane fails: both sides retire exactly its paths'
	is_node 1 && ip link set eth1 down
	wait_for 'the 8 plane-1 paths leave the spray set' 10 \
		sh -c "[ \"\$(mrcctl -j peer show $OTHER | jq '[.[0].paths[] | select(.plane == 1 and .state != \"active\")] | length')\" = 8 ]"
	ok_eq 'plane-0 paths stay active' 8 "$(paths_in active 0)"
	barrier plane-down
	is_node 1 && ip link set eth1 up
	wait_for 'all 16 paths active again after the plane returns' 20 \
		all_active "$OTHER" 16
	ok 'monitor saw path state events' grep -q '^\[path state\]' /tmp/mon.log
	barrier plane-back

	case_title "plane 1's device goes away and comes back on node 2"
	if is_node 2; then
		rdma link delete rxe1
		wait_for 'plane-1 paths unresolved without the device' 10 \
			sh -c "[ \"\$(mrcctl -j peer show $OTHER | jq '[.[0].paths[] | select(.plane == 1 and .state == \"unresolved\")] | length')\" -ge 1 ]"
		rdma link add rxe1 type rxe netdev eth1
	fi
	wait_for 'all 16 paths active after the device returns' 30 \
		all_active "$OTHER" 16
	barrier device-back

	case_title 'node 1 forgets node 2, whose probes are dropped and counted'
	if is_node 1; then
		local before
		before=$(cat /sys/kernel/mrc/rails/rxe0:1/drops/unknown_peer)
		ok 'mrcctl peer del' mrcctl peer del "$OTHER"
		ok_eq 'no peer left' 0 "$(mrcctl -j peer show | jq length)"
		wait_for "probes from a non-peer counted as unknown_peer (was $before)" 10 \
			sh -c "[ \$(cat /sys/kernel/mrc/rails/rxe0:1/drops/unknown_peer) -gt $before ]"
	fi
	barrier peer-deleted

	# Resolving a plane that is down fails at once (no route), and must
	# be retried when the plane returns.
	case_title 'a peer added while a local plane is down gets it back'
	if is_node 1; then
		ip link set eth1 down
		ok 'peer add while the local plane 1 is down' \
			mrcctl peer add "$OTHER" addr "$addrs"
		wait_for 'plane-0 paths active, plane 1 down' 20 \
			all_active "$OTHER" 8
		sleep 3
		ip link set eth1 up
	fi
	wait_for 'all 16 paths active once the plane is up again' 30 \
		all_active "$OTHER" 16
	barrier readded
	kill $mon 2>/dev/null; wait $mon 2>/dev/null
	ok 'modprobe -r mrc' modprobe -r mrc

	big_peer
}

# resolved_paths NODE N: PEER_GET of NODE (mrcctl peer show NODE) lists N
# paths with a rail (resolved links)
resolved_paths() {
	[ "$(mrcctl -j peer show "$1" |
	     jq '[.[0].paths[] | select(.rail != null)] | length')" = "$2" ]
}

# The largest peer: 8 addresses (4 per plane: extra addresses on each
# NIC) x 24 entropy values = 192 paths.  Its PEER_GET answer, alone and
# in a dump, is larger than the 32 KiB a netlink dump gets by default.
big_peer() {
	local a p big="" paths

	case_title 'a peer of 8 addresses x 24 paths: PEER_GET and its dump'
	for a in 1 2 3; do
		for p in 0 1; do
			ip addr add "10.20$a.$p.$MRC_NODE/24" dev "eth$p"
		done
	done
	ok 'modprobe mrc entropy=24' modprobe mrc node_id="$MRC_NODE" entropy=24
	for a in 0 1 2 3; do
		for p in 0 1; do
			if [ "$a" = 0 ]; then
				big+="${big:+,}$(node_ip "$OTHER" "$p")"
			else
				big+="${big:+,}10.20$a.$p.$OTHER"
			fi
		done
	done
	ok "peer add with 8 addresses ($big)" mrcctl peer add "$OTHER" addr "$big"
	wait_for 'all 8 links resolved: PEER_GET lists 192 paths with a rail' 60 \
		resolved_paths "$OTHER" 192
	paths=$(mrcctl -j peer show | jq '[.[] | select(.node == '"$OTHER"') | .paths[]] | length')
	ok_eq 'the dump lists the peer with all 192 paths' 192 "$paths"
	ok 'mrcctl -s peer show (dump, with counters) succeeds' \
		sh -c 'mrcctl -s peer show > /tmp/big-peer.txt'
	diag "dump: $(wc -c < /tmp/big-peer.txt) bytes of text"
	barrier big-peer
	ok 'modprobe -r mrc' modprobe -r mrc
	for a in 1 2 3; do
		for p in 0 1; do
			ip addr del "10.20$a.$p.$MRC_NODE/24" dev "eth$p"
		done
	done

	case_title 'the node as its own peer: two endpoints of it talk through the rails'
	local mine="$(node_ip $n 0),$(node_ip $n 1)" pid
	ok "modprobe mrc node_id=$n" modprobe mrc node_id="$n"
	ok "mrcctl peer add $n addr $mine (itself)" mrcctl peer add "$n" addr "$mine"
	chk_paths_active "$n" 16 30 '(to itself)'
	mrc-perf -s -p 18600 > /tmp/self-server.log 2>&1 &
	pid=$!
	_sleep 0.5
	ok 'mrc-perf bw to itself: 300 x 64 KiB' \
		sh -c "mrc-perf -c $n -p 18600 bw -n 300 > /tmp/self-bw.log 2>&1"
	diag "$(tail -n 1 /tmp/self-bw.log)"
	ok 'mrc-perf lat to itself: 300 round trips' \
		sh -c "mrc-perf -c $n -p 18600 lat -n 300 > /tmp/self-lat.log 2>&1"
	diag "$(tail -n 1 /tmp/self-lat.log)"
	kill "$pid"
	wait "$pid" 2>/dev/null
	ok_eq 'every send to itself completed (tx_failed, tx_timeout)' '0 0' \
		"$(msg_stat tx_failed) $(msg_stat tx_timeout)"
	ok_eq 'and arrived once (rx_msgs = tx_msgs)' "$(msg_stat tx_msgs)" \
		"$(msg_stat rx_msgs)"
	chk_refused 'node_id cannot change while the node is its own peer' \
		'own peer' mrcctl config set node_id $((n + 10))
	ok "mrcctl peer del $n" mrcctl peer del "$n"
	ok 'then it can' mrcctl config set node_id $((n + 10))
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
