#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the VM test fabric itself (no mrc involved): every node has
# one ACTIVE Soft-RoCE device per plane with a RoCEv2 IPv4 GID and a 4096
# active MTU, and RC traffic (ibv_rc_pingpong) flows node1 -> node2 on
# every plane.  Written as titled cases (lib.sh's case_title), one per
# layer of the fabric.

source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=300

# ::ffff:10.200.P.N as the kernel prints it in sysfs.
expected_gid() {
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' 10 200 "$1" "$2"
}

# shellcheck disable=SC2317  # called through wait_for
listening() {	# PORT: a TCP socket listens on it
	[ -n "$(ss -Hltn "sport = :$1")" ]
}

run_guest() {
	local p dev idx port pid rc ib=/sys/class/infiniband
	local f g0 g1 h0 h1 pm

	# A guest whose TSC was miscalibrated at boot keeps a clock that
	# runs too fast or too slow, and so does every timeout in it (seen:
	# twenty times too fast, "tsc: Using PIT calibration value"; the
	# fabric now gives the guests the host's TSC rate).  Two files made
	# in the shared folder two seconds apart by the guest's clock: the
	# host's filesystem stamps them with the host's.
	case_title "the guest's clock runs at the host's rate"
	f=$MRC_SHARED/clock.$MRC_NODE
	: >"$f.a"
	g0=$EPOCHREALTIME
	sleep 2
	g1=$EPOCHREALTIME
	: >"$f.b"
	h0=$(stat -c %.9Y "$f.a")
	h1=$(stat -c %.9Y "$f.b")
	# host interval / guest interval, per mille
	pm=$(( (${h1/./} - ${h0/./}) / ((${g1/./} - ${g0/./}) ? (${g1/./} - ${g0/./}) : 1) ))
	ok "the host's clock counted $pm/1000 of 2 s of the guest's (0.8 to 1.25)" \
		test "$pm" -ge 800 -a "$pm" -le 1250
	diag "kernel: $(dmesg | grep -m 2 -E 'tsc: (Detected|Refined)' | tr '\n' ' ')"

	case_title 'one ACTIVE Soft-RoCE device per plane, RoCEv2 GID, MTU 4096'
	for ((p = 0; p < MRC_PLANES; p++)); do
		dev=rxe$p
		ok "$dev exists" test -d "$ib/$dev"
		ok_eq "$dev port 1 ACTIVE" "4: ACTIVE" "$(cat "$ib/$dev/ports/1/state" 2>&1)"
		idx=$(gid_index "$dev")
		ok "$dev has a RoCEv2 IPv4 GID (index ${idx:-none})" test -n "$idx"
		ok_eq "$dev RoCEv2 GID is ::ffff:$(node_ip "$MRC_NODE" "$p")" \
			"$(expected_gid "$p" "$MRC_NODE")" \
			"$(cat "$ib/$dev/ports/1/gids/${idx:-0}" 2>&1)"
		ok_eq "$dev active_mtu" 4096 \
			"$(ibv_devinfo -d "$dev" | awk '$1 == "active_mtu:" { print $2 }')"
	done

	barrier devices-checked || return

	case_title 'RC traffic node1 -> node2 on every plane (ibv_rc_pingpong)'
	[ "$MRC_NODES" -ge 2 ] || { skip "ibv_rc_pingpong" "needs 2 nodes"; return; }

	for ((p = 0; p < MRC_PLANES; p++)); do
		dev=rxe$p
		idx=$(gid_index "$dev")
		port=$((18515 + p))
		if is_node 2; then
			# Server: listen, announce the port, wait for the client.
			timeout 60 ibv_rc_pingpong -d "$dev" -g "${idx:-1}" -p "$port" \
				-n 100 -s 4096 -m 4096 >"/tmp/pp$p.log" 2>&1 &
			pid=$!
			wait_for "rc_pingpong server on $dev listening" 20 \
				listening "$port"
			put "pingpong.$p.port" "$port"
			wait "$pid"
			rc=$?
			ok_eq "rc_pingpong server on $dev (plane $p) exit status" 0 "$rc" ||
				diag "$(cat "/tmp/pp$p.log")"
		elif is_node 1; then
			port=$(get "pingpong.$p.port" 60) || continue
			ok "rc_pingpong node1 -> node2 on $dev (plane $p)" \
				timeout 60 ibv_rc_pingpong -d "$dev" -g "${idx:-1}" -p "$port" \
				-n 100 -s 4096 -m 4096 "$(node_ip 2 "$p")"
		fi
		barrier "pingpong-$p-done"
	done
}

mrc_test_main "$@"
