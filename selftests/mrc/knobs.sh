#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every knob does something, through each of its three faces: module
# parameter (command line and /etc/modprobe.d), sysfs and netlink (mrcctl).
#   min_mtu:   rails whose active MTU is below it are mtu-low, not active
#   max_rails: ports beyond it are not taken as rails and are counted
#   entropy:   UD QPs per rail (rails created afterwards)
# Then every knob's range: each takes its minimum and maximum and refuses
# one beyond, and probe_ms, swept over its range with two nodes (10 ms,
# the 2^32 ns boundary at 4294/4295 ms, 10 s), keeps each idle path's
# keepalive probe rate at one per probe_ms (a u32 keepalive wrapped 4295
# ms to 32.7 us: tens of thousands of probes per second).  Node 1 runs the
# single-node cases while node 2 waits.  MRC_KNOBS_WINDOW_S: the probe
# rate's measuring window (20 s).
# Written as titled cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=900

run_guest() {
	is_node 1 && single_node
	barrier single-node-done 900
	knob_ranges
	probe_sweep
}

single_node() {
	local out

	case_title 'min_mtu from the command line'
	ok 'modprobe mrc min_mtu=2048' modprobe mrc min_mtu=2048
	chk_knob min_mtu 2048
	chk_rail rxe1:1 state active

	case_title 'min_mtu against a rail whose MTU drops'
	ip link set eth1 mtu 1500	# rxe's active_mtu becomes 1024
	chk_rail_soon rxe1:1 state mtu-low
	chk_rail rxe1:1 mtu 1024
	chk_rail rxe0:1 state active
	ok 'mrcctl config set min_mtu 1024' mrcctl config set min_mtu 1024
	chk_rail_soon rxe1:1 state active
	echo 4096 > /sys/kernel/mrc/min_mtu
	chk_rail_soon rxe1:1 state mtu-low
	ip link set eth1 mtu 9000
	chk_rail_soon rxe1:1 state active

	case_title 'min_mtu refusals leave the value alone and say why'
	out=$(mrcctl config set min_mtu 3000 2>&1)
	ok_eq 'mrcctl config set min_mtu 3000 exits 1' 1 $?
	ok 'and says why' grep -q 'power of two' <<< "$out"
	diag "mrcctl said: $out"
	chk_refused 'sysfs write 8192' '' sh -c 'echo 8192 > /sys/kernel/mrc/min_mtu'
	chk_refused 'sysfs write junk' '' sh -c 'echo 12abc > /sys/kernel/mrc/min_mtu'
	chk_knob min_mtu 4096
	ok 'modprobe -r mrc' modprobe -r mrc
	chk_refused 'modprobe mrc min_mtu=3000' '' modprobe mrc min_mtu=3000
	ok 'dmesg tells the operator why' \
		sh -c 'dmesg | grep -q "min_mtu=3000: value must be a power of two"'
	ok 'module not loaded after refused parameter' test ! -e /sys/module/mrc

	case_title 'max_rails from /etc/modprobe.d'
	mkdir -p /etc/modprobe.d
	echo 'options mrc max_rails=2' > /etc/modprobe.d/mrc-test.conf
	ok 'modprobe mrc' modprobe mrc
	rm -f /etc/modprobe.d/mrc-test.conf
	chk_knob max_rails 2
	ok_eq 'rails_refused starts at 0' 0 \
		"$(cat /sys/kernel/mrc/stats/rails_refused)"
	ip link add vethA type veth peer name vethB
	ip link set vethA up; ip link set vethB up
	ok 'rdma link add rxe9 beyond max_rails' \
		rdma link add rxe9 type rxe netdev vethA
	ok 'rxe9:1 not taken as a rail' test ! -e /sys/kernel/mrc/rails/rxe9:1
	ok_eq 'rails_refused counted' 1 \
		"$(cat /sys/kernel/mrc/stats/rails_refused)"
	ok_eq 'still 2 rails' 2 "$(mrcctl -j rail show | jq length)"
	rdma link delete rxe9
	ok 'mrcctl config set max_rails 3' mrcctl config set max_rails 3
	ok 'rdma link add rxe9 within max_rails' \
		rdma link add rxe9 type rxe netdev vethA
	wait_for 'rxe9:1 is a rail now' 10 test -e /sys/kernel/mrc/rails/rxe9:1
	rdma link delete rxe9
	ip link del vethA
	ok 'modprobe -r mrc' modprobe -r mrc

	case_title 'entropy: QPs per rail, for rails created afterwards'
	ok 'modprobe mrc entropy=3' modprobe mrc entropy=3
	chk_rail rxe0:1 qps 3
	ok_eq '3 QP numbers listed' 3 \
		"$(wc -w < /sys/kernel/mrc/rails/rxe0:1/qpns)"
	ok_eq 'rdma res: 3 + 1 QPs on rxe0' 4 \
		"$(rdma res show qp link rxe0/1 2>/dev/null | grep -c 'lqpn')"
	ok 'mrcctl config set entropy 5' mrcctl config set entropy 5
	chk_rail rxe0:1 qps 3
	rdma link delete rxe1
	rdma link add rxe1 type rxe netdev eth1
	chk_rail_soon rxe1:1 qps 5
	ok 'modprobe -r mrc' modprobe -r mrc
}

# knob_ranges: every knob takes its minimum and maximum (read back in
# sysfs) and refuses one beyond either; each is put back afterwards.
knob_ranges() {
	local name min max def v n=0 bad=0 knobs list

	case_title "node$MRC_NODE: every knob takes its minimum and maximum"
	ok 'modprobe mrc' modprobe mrc
	list=$(mrcctl -j config show |
	       jq -r '.[] | "\(.name) \(.min) \(.max) \(.value)"')
	knobs=$(wc -l <<< "$list")
	while read -r name min max def; do
		for v in "$min" "$max"; do
			n=$((n + 1))
			if ! echo "$v" > "/sys/kernel/mrc/$name" ||
			   [ "$(cat "/sys/kernel/mrc/$name")" != "$v" ]; then
				diag "$name: $v not taken"
				bad=$((bad + 1))
			fi
		done
		if [ "$min" -gt 0 ] && echo $((min - 1)) > "/sys/kernel/mrc/$name" 2>/dev/null; then
			diag "$name: $((min - 1)) taken below the minimum"
			bad=$((bad + 1))
		fi
		if echo $((max + 1)) > "/sys/kernel/mrc/$name" 2>/dev/null; then
			diag "$name: $((max + 1)) taken above the maximum"
			bad=$((bad + 1))
		fi
		echo "$def" > "/sys/kernel/mrc/$name"
	done <<< "$list"
	ok "$knobs knobs listed" test "$knobs" -ge 20
	ok_eq "every knob's minimum and maximum written" $((2 * knobs)) "$n"
	ok_eq "$n knob extremes taken, none beyond them" 0 "$bad"
	ok_eq 'no path or scheduling parameters refused' 0 \
		"$(cat /sys/kernel/mrc/stats/params_refused)"
	ok 'modprobe -r mrc' modprobe -r mrc
}

# path_probes NODE: keepalive and probe count of all paths to NODE
path_probes() {
	mrcctl -j -s peer show "$1" | jq '[.[0].paths[].probes] | add'
}

# path_timeouts NODE: timeouts of all paths to NODE (each keepalive
# unanswered within an RTO is one, and is followed by a probe at once)
path_timeouts() {
	mrcctl -j -s peer show "$1" | jq '[.[0].paths[].timeouts] | add'
}

# probe_sweep: the keepalive rate per idle path over probe_ms's range,
# from PROBE_MIN: the knob's minimum, 10 ms, unless MRC_KNOBS_PROBE_MIN_MS
# says more (the debug-kernel lane: 16 paths x 100 probes/s and their
# replies take a KASAN guest's whole vCPU, so its answers come late and
# its count says how fast that kernel is, not what the knob does).
PROBE_MIN=${MRC_KNOBS_PROBE_MIN_MS:-10}
probe_sweep() {
	local other=$((3 - MRC_NODE)) w=${MRC_KNOBS_WINDOW_S:-20} v p0 p1 o0 o1 per
	local paths=16 lo hi t0 ms

	case_title 'probe_ms over its range: one keepalive per probe_ms per idle path'
	ok 'modprobe mrc' modprobe mrc node_id="$MRC_NODE"
	ok "add peer node$other" peer_add "$other"
	wait_for "all $paths paths active" 30 all_active "$other" "$paths"
	for v in "$PROBE_MIN" 4294 4295 10000; do
		ok "probe_ms $v" mrcctl config set probe_ms "$v"
		barrier "probe-$v"
		# One interval for the old schedule to run out, and every path
		# active again: a path coming back from the last step (at 10 ms
		# some are always out on a loaded host) is probed at its retry
		# rate, not its keepalive, and would be counted here.
		sleep $(((v + 999) / 1000))
		wait_for "probe_ms $v: all $paths paths active before counting" \
			60 all_active "$other" "$paths"
		t0=$(now_ms)
		p0=$(path_probes "$other")
		o0=$(path_timeouts "$other")
		sleep "$w"
		p1=$(path_probes "$other")
		o1=$(path_timeouts "$other")
		ms=$(($(now_ms) - t0))
		# Keepalives: the probes that did not follow a timeout (a
		# keepalive a stalled guest answered late is probed again at
		# once; that probe is not the knob's rate).
		per=$(((p1 - p0 - (o1 - o0)) / paths))
		# At most one per interval (+1 for the window's edges); at
		# least a quarter of that (a slow software fabric).
		hi=$((ms / v + 1))
		lo=$((w * 1000 / v / 4))
		diag "probe_ms $v: $((p1 - p0)) probes on $paths paths in ${ms} ms, $((o1 - o0)) after a timeout"
		ok "probe_ms $v: $per probes per path in ${w}s, $lo..$hi" \
			test "$per" -ge "$lo" -a "$per" -le "$hi"
		# A keepalive unanswered within an RTO takes its path out of
		# the spray set until a probe is answered: at 10 ms on a
		# loaded TCG host some paths are always coming back, so the
		# check is that none stays out, not an instant's snapshot.
		diag "probe_ms $v: $(active_paths "$other") of $paths paths active at the window's end"
		wait_for "probe_ms $v: all $paths paths active (none stays out)" \
			10 all_active "$other" "$paths"
	done
	barrier probe-sweep-done
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
