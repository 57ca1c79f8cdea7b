#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The authenticated SIDR handshake (wire version 4, protocol.rst "Keys"):
# a peer configured with a key is reached only with the right key, and a
# SIDR request in its name changes nothing unless it is authentic and
# new.  Before version 4 any process on any fabric host could send one
# and reset the peer's state (new incarnation: its queued messages start
# over; a new token: our packets to it dropped; NEED_TOKEN: every link
# resolved again).
#
# Node 1 adds node 2 with a key; node 2 first adds node 1 with another:
# neither answers the other's requests (cm_bad_auth), no path comes up;
# the kernel refuses keys of a wrong size with an extack (cli.py of
# YNL, if build/ynl is there).  Node 2 sets the cluster's default key to
# node 1's and adds node 1 again without a key of its own: it takes the
# default, and every path comes up; deleting the default afterwards
# changes no peer.  Then an unprivileged process on node 2 (user
# nobody, librdmacm: selftests/mrc/sidr.c) sends node 1 requests in node
# 2's name: without a MAC (cm_no_auth), with a random MAC (what a wrong
# key gives: cm_bad_auth), and node 2's last real request replayed
# byte for byte (answered, but not newer than what node 1 took:
# cm_stale).  Node 1's token for node 2, its paths' remote QPNs, its
# resolutions and its idea of node 2's incarnation must not change, and
# each counter must count exactly its requests.  mrc_echo messages then
# flow both ways.  Freshness of the data path's control packets: node 2's
# plane 1 goes down and up; the RAIL_DOWN it sent node 1 meanwhile,
# recorded on the wire (rogue.c replay_rail_down, packet socket), is sent
# again 50 times once plane 1 is back: node 1 drops each as replayed,
# accepts no notice and keeps plane 1's paths active (before, each copy
# took them out of the spray set).  Last, the recorded request is
# replayed once more, 61 s after it was sent: outside the window, refused
# (cm_expired).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_AUTH_TIMEOUT:-600}
COUNT=${MRC_AUTH_COUNT:-20}

source "$MRC_LIB_DIR/echo_lib.sh"

SIDR=$MRC_LIB_DIR/sidr
ROGUE=$MRC_LIB_DIR/rogue
if [ -z "${MRC_IN_VM:-}" ] &&
   ! make -s -C "$MRC_LIB_DIR" sidr rogue > /dev/null 2>&1; then
	echo "not ok 1 build selftests/mrc/sidr and rogue (need librdmacm-dev, libibverbs-dev)"
	exit 1
fi
R0=/sys/kernel/mrc/rails/rxe0:1
REPLAYS=${MRC_AUTH_REPLAYS:-50}
YNL_TOP=${MRC_REPO:-}/build/ynl
SPEC=${MRC_REPO:-.}/Documentation/netlink/specs/mrc.yaml
KEY=/tmp/mrc-auth.key
WRONG=/tmp/mrc-auth.wrong

cm_stat() { cat "/sys/kernel/mrc/stats/cm_$1"; }

# write_key FILE HEX: the key's bytes in FILE, readable by root only
write_key() {
	(umask 077 && python3 -c 'import sys
open(sys.argv[1], "wb").write(bytes.fromhex(sys.argv[2]))' "$1" "$2")
}

# peer_state NODE: what a request in NODE's name could change here: the
# token we send it, and every path's plane, entropy and remote QPN
peer_state() {
	echo "token $(peer_token "$1")"
	mrcctl -j peer show "$1" |
		jq -c '[.[0].paths[] | [.plane, .entropy, .remote_qpn]]'
}

# resolutions NODE: how often a link to NODE was resolved or NODE was
# seen to restart (the kernel log)
resolutions() {
	dmesg | grep -cE "peer $1 (plane [0-9]+ resolved|restarted)"
}

# ynl_refused TEXT JSON: cli.py's peer-add with JSON fails, saying TEXT
ynl_refused() {
	local out
	out=$(python3 "$YNL_TOP/tools/net/ynl/cli.py" --spec "$SPEC" \
		--schema "$YNL_TOP/Documentation/netlink/genetlink-legacy.yaml" \
		--do "${3:-peer-add}" --json "$2" 2>&1) &&
		{ echo "succeeded: $out"; return 1; }
	grep -q -- "$1" <<< "$out" || { echo "said: $out"; return 1; }
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) hex before after res0 t0 r
	local no0 bad0 stale0 exp0 replay rd0 dn0 rpid

	case_title 'node 1 keyed, node 2 with another key: nobody answers, no path'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	mount -t debugfs none $D 2>/dev/null
	is_node 1 && put key "$(python3 -c 'import os; print(os.urandom(32).hex())')"
	hex=$(get key)
	ok 'write the key file (0600)' write_key $KEY "$hex"
	ok 'write another key' write_key $WRONG \
		"$(python3 -c 'import os; print(os.urandom(32).hex())')"
	bad0=$(cm_stat bad_auth)
	if is_node 1; then
		ok 'add peer node2 with the key' mrcctl peer add 2 \
			addr "$(node_ip 2 0),$(node_ip 2 1)" key $KEY
	else
		ok 'add peer node1 with another key' mrcctl peer add 1 \
			addr "$(node_ip 1 0),$(node_ip 1 1)" key $WRONG
	fi
	ok_eq 'peer show -j: keyed' true "$(mrcctl -j peer show $o | jq '.[0].keyed')"
	ok 'peer show: "key set"' sh -c "mrcctl peer show $o | grep -q 'key set'"
	barrier added
	wait_for 'requests with the wrong MAC refused here (cm_bad_auth)' 30 \
		sh -c "[ \$(cat /sys/kernel/mrc/stats/cm_bad_auth) -ge $((bad0 + 2)) ]"
	ok_eq 'no path to the peer is active' 0 "$(active_paths $o)"
	ok_eq 'no token for the peer' 0000000000000000 "$(peer_token $o)"
	barrier wrong_checked

	case_title 'a key of the wrong size is refused, by mrcctl and the kernel'
	head -c 15 /dev/urandom > /tmp/mrc-auth.short
	chk_refused 'mrcctl: a 15-byte key file' '16 to 64 bytes' \
		mrcctl peer add 9 addr 10.9.9.9 key /tmp/mrc-auth.short
	chk_refused 'mrcctl: a 15-byte default key file' '16 to 64 bytes' \
		mrcctl key set /tmp/mrc-auth.short
	ok_eq 'no default key' 'default key none' "$(mrcctl key show)"
	if [ -r "$YNL_TOP/tools/net/ynl/cli.py" ]; then
		ok 'kernel: a 15-byte key (extack "key must be 16 to 64 bytes")' \
			ynl_refused 'key must be 16 to 64 bytes' \
			'{"peer": {"node": 9, "addrs": {"addr": ["0a090909"]}, "key": "'"$(printf '%030d' 0)"'"}}'
		ok 'kernel: a 65-byte key' ynl_refused 'key must be 16 to 64 bytes' \
			'{"peer": {"node": 9, "addrs": {"addr": ["0a090909"]}, "key": "'"$(printf '%0130d' 0)"'"}}'
		ok 'kernel: a key with peer set (extack)' \
			ynl_refused 'a key is given only with peer add' \
			'{"peer": {"node": '$o', "policy": 255, "key": "'"$hex"'"}}' peer-set
		ok 'kernel: a 15-byte default key (key-set, extack)' \
			ynl_refused 'key must be 16 to 64 bytes' \
			'{"key": "'"$(printf '%030d' 0)"'"}' key-set
	else
		skip 'kernel extack for bad keys' 'no build/ynl (selftests/mrc/ynl/get-ynl)'
	fi
	ok 'no peer 9 was added' sh -c '! mrcctl peer show 9 2>/dev/null | grep -q "node 9"'

	case_title 'node 2 adds node 1 again with the default key: every path comes up'
	if is_node 2; then
		ok 'del peer node1' mrcctl peer del 1
		ok 'key set: the default key' mrcctl key set $KEY
		ok_eq 'key show: set' true "$(mrcctl -j key show | jq '.default_key')"
		ok 'add peer node1 without a key of its own' mrcctl peer add 1 \
			addr "$(node_ip 1 0),$(node_ip 1 1)"
		ok_eq 'the peer took the default key (keyed)' true \
			"$(mrcctl -j peer show 1 | jq '.[0].keyed')"
	fi
	chk_paths_active $o 16 90
	chk_token_known $o
	if is_node 2; then
		ok 'key del: the default key' mrcctl key del
		ok_eq 'key show: none' 'default key none' "$(mrcctl key show)"
		ok_eq 'the peer keeps its key' true \
			"$(mrcctl -j peer show 1 | jq '.[0].keyed')"
	fi
	barrier keyed_up 120
	_sleep 2
	if is_node 2; then
		# The last real request node 2 sent (root-only hook).
		replay=$(awk '{print $3}' $D/mrc/cm_request)
		ok_eq 'debugfs mrc/cm_request: 136 bytes to node1' 272 "${#replay}"
		put replay "$replay"
		put replay_ms "$(now_ms)"
	fi
	barrier recorded

	case_title 'forged and replayed SIDR requests of an unprivileged process change nothing'
	if is_node 1; then
		before=$(peer_state 2)
		res0=$(resolutions 2)
		no0=$(cm_stat no_auth)
		bad0=$(cm_stat bad_auth)
		stale0=$(cm_stat stale)
	fi
	barrier snapshot
	if is_node 2; then
		for r in "none rejected" "random rejected"; do
			set -- $r
			ok_eq "nobody: request as node2, new incarnation, token, NEED_TOKEN, MAC $1: $2" \
				"result $2" "$("${UNPRIV[@]}" $SIDR -t "$(node_ip 1 0)" \
					-s 2 -n 1 -m "$1" 2>&1)"
		done
		ok_eq 'nobody: node2'"'"'s last request replayed: answered' 'result reply' \
			"$("${UNPRIV[@]}" $SIDR -t "$(node_ip 1 0)" -x "$(get replay)" 2>&1)"
	fi
	barrier forged
	if is_node 1; then
		_sleep 3	# a re-resolution would have started by now
		after=$(peer_state 2)
		ok_eq 'token for node2 and every path'"'"'s remote QPN unchanged' \
			"$before" "$after"
		ok_eq 'no link to node2 resolved again, no restart seen' \
			"$res0" "$(resolutions 2)"
		ok_eq 'cm_no_auth counts the request without a MAC' \
			$((no0 + 1)) "$(cm_stat no_auth)"
		ok_eq 'cm_bad_auth counts the request with a wrong MAC' \
			$((bad0 + 1)) "$(cm_stat bad_auth)"
		ok_eq 'cm_stale counts the replay' $((stale0 + 1)) "$(cm_stat stale)"
		chk_paths_active 2 16 30 'still'
	fi
	barrier checked 120

	case_title "messages flow between the keyed nodes ($COUNT each way)"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	echo reset > $D/mrc_echo/ctl
	barrier echo_up
	ok "send $COUNT messages to node$o" \
		sh -c "echo send $o 7 $COUNT 65536 4711 > $D/mrc_echo/ctl"
	wait_for "$COUNT sends completed" 120 sends_done "$COUNT"
	ok_eq 'every send completed with status 0' "$COUNT" "$(echo_stat done_ok)"
	wait_for "$COUNT messages received" 60 received_at_least "$COUNT"
	ok_eq 'no bad message' 0 "$(echo_stat rx_bad)"
	barrier echoed 200

	case_title "a recorded RAIL_DOWN sent again $REPLAYS times: replayed, plane 1 stays up"
	put "qpns$n" "$(tr ' ' , < $R0/qpns)"
	if is_node 2; then
		rm -f /tmp/mrc-auth.go
		"$ROGUE" -d rxe0 -t "$(node_ip 1 0)" -q "$(get qpns1)" -i eth0 \
			-Q "$(get qpns2)" -n "$REPLAYS" -T 60 \
			-W /tmp/mrc-auth.go replay_rail_down > /tmp/rogue.rd 2>&1 &
		rpid=$!
		_sleep 2
		ok 'plane 1 (eth1) down' ip link set eth1 down
		wait_for 'rogue recorded the RAIL_DOWN to node1' 60 \
			grep -q 'captured RAIL_DOWN' /tmp/rogue.rd
		ok 'plane 1 (eth1) up' ip link set eth1 up
	fi
	wait_for "plane 1's 8 paths to node$o active again" 90 \
		sh -c "[ \"\$(mrcctl -j peer show $o | jq '[.[0].paths[] | select(.plane == 1 and .state == \"active\")] | length')\" = 8 ]"
	barrier plane1_back 120
	if is_node 1; then
		rd0=$(cat $R0/drops/replayed)
		dn0=$(cat $R0/stats/down_notices_rx)
	fi
	barrier rd_snapshot
	if is_node 2; then
		touch /tmp/mrc-auth.go
		wait "$rpid"	# a builtin: not in ok's subshell
		ok_eq 'rogue replayed it (exit status)' 0 $?
		sed 's/^/# /' /tmp/rogue.rd
		put rd_sent "$(sed -n 's/^expect replayed //p' /tmp/rogue.rd)"
	fi
	barrier rd_sent 120
	if is_node 1; then
		_sleep 2
		ok_eq "drops/replayed: every one of the $REPLAYS copies" \
			"$(get rd_sent)" $(($(cat $R0/drops/replayed) - rd0))
		ok_eq 'no RAIL_DOWN accepted (stats/down_notices_rx)' "$dn0" \
			"$(cat $R0/stats/down_notices_rx)"
		ok_eq "plane 1's 8 paths to node2 still active" 8 \
			"$(mrcctl -j peer show 2 | jq '[.[0].paths[] | select(.plane == 1 and .state == "active")] | length')"
	fi
	barrier rd_checked

	case_title 'the recorded request, replayed 61 s after it was sent, is refused'
	if is_node 1; then
		exp0=$(cm_stat expired)
		before=$(peer_state 2)
	fi
	barrier snapshot2
	if is_node 2; then
		t0=$(get replay_ms)
		while [ $(($(now_ms) - t0)) -lt 61000 ]; do _sleep 1; done
		ok_eq 'nobody: the 61 s old request: rejected' 'result rejected' \
			"$("${UNPRIV[@]}" $SIDR -t "$(node_ip 1 0)" -x "$(get replay)" 2>&1)"
	fi
	barrier replayed 120
	if is_node 1; then
		ok_eq 'cm_expired counts it' $((exp0 + 1)) "$(cm_stat expired)"
		ok_eq 'token for node2 and paths unchanged' "$before" "$(peer_state 2)"
	fi
	# The key is a secret: never in the log.
	ok 'dmesg does not show the key' sh -c "! dmesg | grep -qi '$hex'"
	barrier done 120

	case_title 'mrc_echo and mrc unload'
	ok 'rmmod mrc_echo' rmmod mrc_echo
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
