#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rails: both rxe ports of every VM become active rails (mrcctl, JSON and
# sysfs agree); link down/up moves the state and emits events; deleting an
# rxe device removes its rail (event); adding an rxe device after load
# creates a rail (event).  Written as titled cases (lib.sh's case_title
# and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=600

MON=/tmp/mrc-monitor.log
MON_PID=

rail_field() {	# rail_field NAME KEY: one field from mrcctl -j rail show
	mrcctl -j rail show | jq -r --arg n "$1" --arg k "$2" \
		'.[] | select(.name == $n) | .[$k]'
}

monitor_start() {
	mrcctl monitor > "$MON" 2>&1 &
	MON_PID=$!
	# The monitor is listening once it prints a config event we cause.
	local i
	for ((i = 0; i < 50; i++)); do
		echo 63 > /sys/kernel/mrc/max_rails
		echo 64 > /sys/kernel/mrc/max_rails
		grep -q '^\[config\]' "$MON" && return 0
		sleep 0.2
	done
	return 1
}

cleanup() {
	[ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null
	ip link del vethA 2>/dev/null
}

run_guest() {
	local n=$MRC_NODE p gid
	trap cleanup EXIT

	case_title 'both ports become active rails'
	ok 'modprobe mrc' modprobe mrc
	ok_eq 'mrcctl -j rail show lists 2 rails' 2 \
		"$(mrcctl -j rail show | jq length)"
	for p in 0 1; do
		ok_eq "rxe$p:1 state active" active "$(rail_field rxe$p:1 state)"
		ok_eq "rxe$p:1 netdev eth$p" "eth$p" \
			"$(rail_field rxe$p:1 netdev)"
		ok_eq "rxe$p:1 mtu 4096" 4096 "$(rail_field rxe$p:1 mtu)"
		gid=$(rail_field rxe$p:1 gid)
		ok_eq "rxe$p:1 gid is the RoCEv2 IPv4 GID" \
			"::ffff:$(node_ip "$n" $p)" "$gid"
		chk_rail rxe$p:1 state active
		chk_rail rxe$p:1 gid "$gid"
	done
	mrcctl rail show | sed 's/^/# /'

	ok 'mrcctl monitor subscribed' monitor_start

	case_title 'a link down and up moves the state, with events'
	ip link set eth1 down
	chk_rail_soon rxe1:1 state down
	wait_for 'monitor: rxe1:1 active -> down' 10 \
		grep -q '^\[rail state\] rxe1:1 active -> down' "$MON"
	chk_rail rxe0:1 state active
	ip link set eth1 up
	chk_rail_soon rxe1:1 state active 20
	wait_for 'monitor: rxe1:1 down -> active' 10 \
		grep -q '^\[rail state\] rxe1:1 down -> active' "$MON"
	ok 'state_changes counted' test \
		"$(cat /sys/kernel/mrc/rails/rxe1:1/stats/state_changes)" -ge 2

	case_title 'removing a device removes its rail, with an event'
	ok 'rdma link delete rxe1' rdma link delete rxe1
	wait_for 'rail rxe1:1 gone from sysfs' 10 \
		test ! -e /sys/kernel/mrc/rails/rxe1:1
	wait_for 'monitor: rail removed rxe1:1' 10 \
		grep -q '^\[rail removed\] rxe1:1' "$MON"
	ok_eq 'one rail left' 1 "$(mrcctl -j rail show | jq length)"

	case_title 'a device added after load becomes a rail, with an event'
	ok 'rdma link add rxe1 again' rdma link add rxe1 type rxe netdev eth1
	wait_for 'monitor: rail added rxe1:1' 10 \
		grep -q '^\[rail added\] rxe1:1' "$MON"
	chk_rail_soon rxe1:1 state active 20
	ip link add vethA type veth peer name vethB
	ip link set vethA up
	ip link set vethB up
	ip addr add 192.0.2.1/24 dev vethA
	ok 'rdma link add rxe9 on a veth' rdma link add rxe9 type rxe netdev vethA
	wait_for 'monitor: rail added rxe9:1' 10 \
		grep -q '^\[rail added\] rxe9:1' "$MON"
	chk_rail_soon rxe9:1 state active 20
	ok_eq 'rxe9:1 netdev vethA' vethA "$(rail_field rxe9:1 netdev)"
	ok 'rdma link delete rxe9' rdma link delete rxe9
	wait_for 'monitor: rail removed rxe9:1' 10 \
		grep -q '^\[rail removed\] rxe9:1' "$MON"
	kill "$MON_PID"; wait "$MON_PID" 2>/dev/null; MON_PID=
	sed 's/^/# monitor: /' "$MON"

	barrier rails-done
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
