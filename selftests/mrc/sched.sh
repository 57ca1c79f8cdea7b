#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path scheduling between two nodes, over /dev/mrc (mrc-perf):
#  - configuration: sched_policy knob (default load-aware), rail weights
#    (netlink and sysfs), per-peer policy; misconfigurations refused with
#    their extack text (unknown class, rail that does not exist, weight
#    above 100, class only on rails of weight 0, class mapped to no live
#    rail, unknown policy);
#  - slow plane: netem delay DELAY_MS (5 ms) +- a fifth of it on plane 1
#    of both nodes; 4 KiB
#    request/response under round-robin (plane 1 carries >= 35% of node
#    1's DATA packets), load-aware (<= 10%, p50 MIN_GAIN x below
#    round-robin's) and with the delay removed; p50/p95/p99 reported
#    side by side with the targets (p95 round-robin / load-aware >= 3,
#    load-aware / unimpaired <= 1.5);
#  - recovery: plane 1's share of a ping-pong's packets: <= 15% with the
#    delay, >= 30% again within RECOVER_MS (1.5 s: the target of 1 s
#    plus sampling slack) of its removal;
#  - isolation: bulk class on plane 0, latency class on plane 1; during a
#    bulk transfer and a latency ping-pong, the per-rail class counters
#    (debugfs mrc/sched) show no bulk packet on plane 1 and no latency
#    packet on plane 0; latency p50/p95/p99 reported with and without
#    isolation; with plane 1 down a class set on it alone is refused and
#    latency traffic falls back to plane 0 (peer fallbacks counter,
#    class_fallback events in mrcctl monitor, out and back);
#  - yield to latency (knobs bg_yield_pkts, bulk_yield_pkts): a
#    background- or bulk-class transfer next to a latency ping-pong is
#    held back with the default (debugfs mrc/msg bg_yields / bulk_yields
#    move) and never with 0;
#  - live policy change: the policy changes every 0.3 s during a bulk
#    transfer; it completes, no message fails, and per policy tag
#    sent == acked + lost + released.
# Written as titled cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_SCHED_TIMEOUT:-900}
PORT=18515
MIN_GAIN=${MRC_SCHED_MIN_GAIN:-1.3}
LAT_N=${MRC_SCHED_LAT_N:-200}
RECOVER_MS=${MRC_SCHED_RECOVER_MS:-1500}
# The slow plane's netem delay, ms (5 ms, as in the targets; jitter a
# fifth).
# The debug-kernel lane sets more: its paths' RTTs of 66-103 ms drown
# 5 ms (scripts/debug-kernel).
DELAY_MS=${MRC_SCHED_DELAY_MS:-5}
# Optional (bench/sched): a background-class transfer of this many MiB
# next to a latency-class ping-pong; 0 = skipped (the default, CI).
BG_MB=${MRC_SCHED_BACKGROUND_MB:-0}
# The guests get the script's arguments, not the environment: bench/sched
# passes lat_n=N bg_mb=M recover_ms=T.
for a in "$@"; do
	case $a in
	lat_n=*) LAT_N=${a#*=} ;;
	bg_mb=*) BG_MB=${a#*=} ;;
	recover_ms=*) RECOVER_MS=${a#*=} ;;
	delay_ms=*) DELAY_MS=${a#*=} ;;
	esac
done
D=/sys/kernel/debug
NETEM="delay ${DELAY_MS}ms $(( DELAY_MS / 5 ? DELAY_MS / 5 : 1 ))ms"
# Recovery samples of ~0.1 s: 7 with the delay, then RECOVER_MS and ~1.7 s
# more (40 in all for the 1.5 s default).
RECOVER_SAMPLES=$(( 8 + RECOVER_MS / 100 + 17 ))

policy() {	# policy N: on this node
	echo "$1" > /sys/kernel/mrc/sched_policy
}
# pNN of a JSON lat run (p50_us, p95_us, p99_us) from file $1
lat_of() { jq -r ".results[0].$2" "$1"; }
lat_run() {	# lat_run OUT [mrc-perf args]
	local out=$1
	shift
	mrc-perf -c 2 -p $PORT "$@" -j lat -m 4096 -n "$LAT_N" > "$out" && return
	# What held the ping-pong: this node's queues (request unsent or
	# unacked, echo partial or held) and the message counters.
	diag "$(cat $D/mrc/queues $D/mrc/msg)"
	return 1
}
# TX[rail id, class]: DATA packets sent per rail and class, from debugfs
# mrc/sched (no fork: under TCG a fork costs up to a second).
declare -A TX
tx_read() {
	local l w
	TX=()
	mapfile -t l < $D/mrc/sched
	for w in "${l[@]}"; do
		set -- $w
		# rail ID weight W tx_default N tx_latency N tx_bulk N tx_background N
		[ "$1" = rail ] || continue
		TX[$2,default]=$6 TX[$2,latency]=$8 TX[$2,bulk]=${10}
		TX[$2,background]=${12}
	done
}
tx() { echo "${TX[$1,$2]:-0}"; }	# tx RAIL CLASS (after tx_read)
# The figures as markdown, for bench/sched: $MRC_SHARED/sched-results.md
md() { printf '%s\n' "$@" >> "$MRC_SHARED/sched-results.md"; }
md_lat() {	# md_lat LABEL FILE [EXTRA column]
	md "| $1 | $(lat_of "$2" p50_us) | $(lat_of "$2" p95_us) | $(lat_of "$2" p99_us) |${3+ $3 |}"
}
tag_sent() {	# tag_sent N: packets sent under policy N (its tag line)
	awk -v n="$1" '$1 == "tag" && k++ == n { print $4 }' $D/mrc/sched
}
# tag_sends_or_done N BEFORE PID: policy N sent more than BEFORE, or the
# transfer (PID) is over
tag_sends_or_done() {
	[ "$(tag_sent "$1")" -gt "$2" ] || ! kill -0 "$3" 2>/dev/null
}
tags_consistent() {
	local l w bad=0 seen=0
	mapfile -t l < $D/mrc/sched
	for w in "${l[@]}"; do
		set -- $w
		[ "$1" = tag ] || continue
		# tag P sent N acked N lost N released N
		[ $(($4)) -eq $(($6 + $8 + ${10})) ] || { echo "$w"; bad=1; }
		[ "$4" -gt 0 ] && seen=$((seen + 1))
	done
	echo "policies used: $seen"
	[ $bad = 0 ] && [ $seen -ge 3 ]
}

bg_yields() { msg_stat bg_yields; }

# Knobs bg_yield_pkts / bulk_yield_pkts: a transfer of the class (24 x
# 1 MiB) with a latency ping-pong (50 x 4 KiB) started next to it.  With
# a limit the class's messages are held back (bg_yields / bulk_yields
# moves); with 0 they never are.  Both transfers complete either way.
yield_run() {	# yield_run CLASS KNOB
	local cls=$1 knob=bg_yield_pkts ctr=bg_yields pid rc y0 y1

	[ "$cls" = bulk ] && knob=bulk_yield_pkts ctr=bulk_yields
	echo "$2" > /sys/kernel/mrc/$knob
	y0=$(msg_stat $ctr)
	# 64 MiB, so that the transfer still runs when the ping-pong
	# starts.  24 MiB, 0.6 s on a quiet host, was over by then at
	# times, and nothing was held back because nothing ran beside it.
	mrc-perf -c 2 -p $PORT -C "$cls" bw -m 1048576 -n 64 -w 8 \
		> /tmp/bw.yield 2>&1 &
	pid=$!
	_sleep 0.3
	ok "$knob $2: the $cls transfer runs as the ping-pong starts" \
		kill -0 "$pid"
	ok "$knob $2: latency ping-pong next to a $cls transfer" \
		mrc-perf -c 2 -p $PORT -C latency lat -m 4096 -n 50
	wait "$pid"
	rc=$?
	ok_eq "$knob $2: $cls transfer completes" 0 "$rc"
	y1=$(msg_stat $ctr)
	diag "$knob $2: $ctr $y0 -> $y1; $cls transfer: $(cat /tmp/bw.yield)"
	if [ "$2" = 0 ]; then
		ok_eq "$knob 0: $cls never held back" "$y0" "$y1"
	else
		ok "$knob $2: $cls held back while latency ran ($y0 -> $y1)" \
			test "$y1" -gt "$y0"
	fi
}

# Background class (bench/sched only): BG_MB x 1 MiB on plane 0 next to
# a latency-class ping-pong on plane 1; p99 against the unloaded one.
background_run() {
	local pid rc t0 t1

	ok 'class set background rails rxe0:1' \
		mrcctl class set background rails rxe0:1
	t0=$SECONDS
	mrc-perf -c 2 -p $PORT -C background -j bw -m 1048576 -n "$BG_MB" -w 8 \
		> /tmp/bw.bg 2>&1 &
	pid=$!
	ok "latency ping-pong next to a $BG_MB MiB background transfer" \
		lat_run /tmp/lat.bg -C latency
	wait "$pid"
	rc=$?
	t1=$SECONDS
	ok_eq "background transfer of $BG_MB MiB completes" 0 "$rc"
	md "" "## Background: $BG_MB MiB (1 MiB messages) in the background class on plane 0, latency class on plane 1" "" \
	   "| latency class | p50 us | p95 us | p99 us | note |" "|---|---|---|---|---|"
	md_lat "alone (no bulk)" /tmp/lat.un ""
	md_lat "next to the background transfer" /tmp/lat.bg \
		"transfer took $((t1 - t0)) s, rc $rc, bg_yield_pkts $(cat /sys/kernel/mrc/bg_yield_pkts), bg_yields $(bg_yields)"
	diag "$(cat /tmp/bw.bg)"
	mrcctl class set background rails all
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) pid r0 r1 t0 t i s0 s1 p0 p1 s x0
	local rr la un share rc d0 d1 p t1 samples

	case_title 'both nodes up, load-aware by default, every path active'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	is_node 1 && : > "$MRC_SHARED/sched-results.md"
	ok_eq 'sched_policy knob defaults to load-aware (3)' 3 \
		"$(cat /sys/kernel/mrc/sched_policy)"
	ok "add peer node$o on both planes" peer_add "$o"
	chk_paths_active "$o" 16 60
	r0=$(cat /sys/kernel/mrc/rails/rxe0:1/id)
	r1=$(cat /sys/kernel/mrc/rails/rxe1:1/id)
	if is_node 2; then
		mrc-perf -s -p $PORT > /tmp/perf-server.log 2>&1 &
		pid=$!
		wait_for 'mrc-perf server bound' 30 \
			grep -q server /tmp/perf-server.log
	fi

	case_title 'weights, classes, policies; misconfigurations refused with why'
	if is_node 1; then
		ok 'peer show: policy load-aware (knob), SHARE column' \
			sh -c "mrcctl peer show $o | grep -q 'policy load-aware (knob)' &&
			       mrcctl peer show $o | grep -q SHARE"
		chk_refused 'unknown class refused by the kernel' \
			'unknown traffic class' mrcctl class set 9 rails rxe1:1
		chk_refused 'rail that does not exist refused' \
			'no such rail' mrcctl class set latency rails rxe7:1
		chk_refused 'weight above 100 refused (netlink)' \
			'rail weight above 100' mrcctl rail set rxe1:1 weight 101
		chk_refused 'weight above 100 refused (sysfs)' '' \
			sh -c 'echo 101 > /sys/kernel/mrc/rails/rxe1:1/weight'
		ok 'rail set rxe1:1 weight 0' mrcctl rail set rxe1:1 weight 0
		ok_eq 'sysfs shows weight 0' 0 \
			"$(cat /sys/kernel/mrc/rails/rxe1:1/weight)"
		ok_eq 'mrcctl -j rail show shows weight 0' 0 \
			"$(mrcctl -j rail show rxe1:1 | jq '.[0].weight')"
		ok 'mrcctl rail show prints "weight 0"' \
			sh -c "mrcctl rail show rxe1:1 | grep -q ' weight 0\$'"
		chk_refused 'class only on rails of weight 0 refused' \
			'weight 0' mrcctl class set latency rails rxe1:1
		ok 'weight back to 100 (sysfs)' \
			sh -c 'echo 100 > /sys/kernel/mrc/rails/rxe1:1/weight'
		chk_refused 'peer set: unknown policy refused by the kernel' \
			'unknown scheduling policy' mrcctl peer set "$o" policy 7
		ok 'peer set round-robin, then default' \
			sh -c "mrcctl peer set $o policy round-robin &&
			       mrcctl peer show $o | grep -q 'policy round-robin (peer)' &&
			       mrcctl peer set $o policy default &&
			       mrcctl peer show $o | grep -q 'policy load-aware (knob)'"
	fi
	barrier config-done 300

	# Slow plane: netem on plane 1 of both nodes.
	case_title "round-robin on a slow plane: it carries >= 35% of the packets"
	ok "netem $NETEM on eth1" tc qdisc add dev eth1 root netem $NETEM
	policy 0
	barrier rr 120
	if is_node 1; then
		tx_read; s0=$(tx "$r0" default) s1=$(tx "$r1" default)
		ok "4 KiB lat x $LAT_N, round-robin, slow plane" \
			lat_run /tmp/lat.rr
		tx_read; d0=$(( $(tx "$r0" default) - s0 ))
		d1=$(( $(tx "$r1" default) - s1 ))
		diag "round-robin: plane 0 sent $d0, plane 1 $d1 DATA packets"
		RR_SHARE="$((100 * d1 / (d0 + d1 ? d0 + d1 : 1)))% of $((d0 + d1))"
		ok 'round-robin: the slow plane carries >= 35% of the packets' \
			test $((100 * d1)) -ge $((35 * (d0 + d1)))
	fi
	barrier rr-done 300

	case_title 'load-aware on a slow plane: it carries <= 10% of the packets'
	policy 3
	barrier la 120
	if is_node 1; then
		x0=$(mrcctl -j peer show "$o" | jq '.[0].explores')
		tx_read; s0=$(tx "$r0" default) s1=$(tx "$r1" default)
		ok "4 KiB lat x $LAT_N, load-aware, slow plane" \
			lat_run /tmp/lat.la
		tx_read; d0=$(( $(tx "$r0" default) - s0 ))
		d1=$(( $(tx "$r1" default) - s1 ))
		# Keepalives measure the idle slow paths: data explores them
		# only after 2 x probe_ms without news (schedcfg.c).
		diag "load-aware: plane 0 sent $d0, plane 1 $d1 DATA packets;" \
		     "explorations $(( $(mrcctl -j peer show "$o" |
					 jq '.[0].explores') - x0 ))"
		LA_SHARE="$((100 * d1 / (d0 + d1 ? d0 + d1 : 1)))% of $((d0 + d1))"
		ok 'load-aware: the slow plane carries <= 10% of the packets' \
			test $((100 * d1)) -le $((10 * (d0 + d1)))
	fi
	barrier la-done 300

	case_title "delay removed: load-aware p50 at least ${MIN_GAIN}x below round-robin's"
	ok 'netem removed' tc qdisc del dev eth1 root
	barrier unimpaired 120
	if is_node 1; then
		ok "4 KiB lat x $LAT_N, load-aware, no delay" \
			lat_run /tmp/lat.un
		md "## Slow path: netem $NETEM on plane 1, 4 KiB request/response x $LAT_N" "" \
		   "| policy | p50 us | p95 us | p99 us | plane 1 share (node 1 DATA) |" \
		   "|---|---|---|---|---|"
		md_lat round-robin /tmp/lat.rr "$RR_SHARE"
		md_lat load-aware /tmp/lat.la "$LA_SHARE"
		md_lat "load-aware, delay removed" /tmp/lat.un ""
		diag "4 KiB request/response, usec   p50      p95      p99"
		for t in rr la un; do
			diag "$(printf '%-30s %8s %8s %8s' "$t" \
				"$(lat_of /tmp/lat.$t p50_us)" \
				"$(lat_of /tmp/lat.$t p95_us)" \
				"$(lat_of /tmp/lat.$t p99_us)")"
		done
		rr=$(lat_of /tmp/lat.rr p50_us)
		la=$(lat_of /tmp/lat.la p50_us)
		un=$(lat_of /tmp/lat.un p50_us)
		# Load-aware put (almost) nothing on the slow plane (checked
		# above), so its p50 should be near the undelayed one; if it is
		# far above, the host's load drowned the delay and the latency
		# comparison says nothing (seen with a load average of 12 on 2
		# cores): skipped, not passed.
		# Likewise when the undelayed ping-pong's own spread (p95 -
		# p50) exceeds the delay: the delay is inside the noise (seen
		# on the KCSAN lane: p50 58 ms, p95 134 ms, with 50 ms).
		un95=$(lat_of /tmp/lat.un p95_us)
		if awk -v a="$la" -v u="$un" 'BEGIN { exit !(a > 1.3 * u) }'; then
			skip "load-aware p50 at least ${MIN_GAIN}x below round-robin's" \
			     "host too noisy: load-aware p50 $la us > 1.3 x undelayed $un us"
		elif awk -v u="$un" -v n="$un95" -v d="$DELAY_MS" \
			'BEGIN { exit !(n - u > d * 1000) }'; then
			skip "load-aware p50 at least ${MIN_GAIN}x below round-robin's" \
			     "host too noisy: undelayed p95 - p50 = $un95 - $un us > the $DELAY_MS ms delay"
		else
			ok "load-aware p50 at least ${MIN_GAIN}x below round-robin's" \
				awk -v a="$la" -v b="$rr" -v g="$MIN_GAIN" \
				'BEGIN { exit !(a * g <= b) }'
		fi
		rr=$(lat_of /tmp/lat.rr p95_us)
		la=$(lat_of /tmp/lat.la p95_us)
		un=$(lat_of /tmp/lat.un p95_us)
		diag "p95 round-robin / load-aware = $(awk -v a="$la" -v b="$rr" \
			'BEGIN { printf "%.2f", b / a }') (target >= 3);" \
		     "load-aware / unimpaired = $(awk -v a="$la" -v b="$un" \
			'BEGIN { printf "%.2f", a / b }') (target <= 1.5)"
	fi
	barrier slow-done 300

	# Recovery: the delay removed during request/response traffic (a
	# bulk transfer queues tens of ms in TCG guests: 5 ms would not
	# show; a ping-pong keeps the paths' RTTs near their base).
	case_title "recovery: plane 1 carries traffic again within $RECOVER_MS ms of the delay's removal"
	if is_node 1; then
		tc qdisc add dev eth1 root netem $NETEM
		mrc-perf -c 2 -p $PORT lat -m 4096 -n 100000 > /tmp/lat.rec 2>&1 &
		pid=$!
		# Plane 1's share of node 1's DATA packets per interval of
		# >= 0.1 s and >= 10 packets, from ~0.7 s before the delay goes
		# until plane 1 is back (or ~3 s after).  First 300 packets
		# (at most 20 s) let plane 1's srtt catch up with the delay: on
		# a loaded host the ping-pong may crawl.
		tx_read; p0=$(tx "$r0" default) p1=$(tx "$r1" default)
		t0=$SECONDS
		while :; do
			_sleep 0.2
			tx_read; s0=$(tx "$r0" default) s1=$(tx "$r1" default)
			[ $((s0 + s1 - p0 - p1)) -ge 300 ] && break
			[ $((SECONDS - t0)) -ge 20 ] && break
		done
		p0=$s0 p1=$s1
		rr=0 la=0	# packets on plane 1 / in all, with the delay
		t0=${EPOCHREALTIME/./}
		t1=
		share=
		s=0
		samples=()
		for ((i = 1; i <= RECOVER_SAMPLES; i++)); do
			_sleep 0.1
			if [ $i = 8 ]; then
				tc qdisc del dev eth1 root
				t1=${EPOCHREALTIME/./}
				samples+=("delay removed at +$(( (t1 - t0) / 1000 )) ms")
			fi
			tx_read; s0=$(tx "$r0" default) s1=$(tx "$r1" default)
			t=${EPOCHREALTIME/./}
			d0=$((s0 - p0)) d1=$((s1 - p1))
			[ $((d0 + d1)) -lt 10 ] && continue	# too few to judge
			p0=$s0 p1=$s1
			share=$(( 100 * d1 / (d0 + d1) ))
			samples+=("+$(( (t - t0) / 1000 )) ms: plane 1 ${share}% of $((d0 + d1)) DATA packets")
			[ -z "$t1" ] && rr=$((rr + d1)) la=$((la + d0 + d1))
			[ -n "$t1" ] && [ "$share" -ge 30 ] && break
		done
		s=$(( la ? 100 * rr / la : 100 ))
		diag "$(printf '%s\n' "${samples[@]}")"
		md "" "## Recovery: plane 1's share of a 4 KiB ping-pong's DATA packets" ""
		md "${samples[@]/#/    }"
		ok "with the delay, plane 1 carried <= 15% ($s% of $la)" \
			test "$s" -le 15
		t=$(( (t - t1) / 1000 ))
		# The target is 1 s; the bound adds the sampling slack of
		# a loaded TCG guest (the time is that of the sample's end).
		ok "delay removed: plane 1 carries >= 30% again within $RECOVER_MS ms ($t ms; target 1000)" \
			test "${share:-0}" -ge 30 -a "$t" -le "$RECOVER_MS"
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	barrier recovery-done 300

	case_title 'isolation: bulk class on plane 0, latency class on plane 1'
	if is_node 1; then
		# The same without isolation first (reported only).
		mrc-perf -c 2 -p $PORT -C bulk bw -m 65536 -n 400 -w 16 \
			> /tmp/bw.noiso 2>&1 &
		pid=$!
		ok "latency ping-pong during a bulk transfer, no isolation" \
			lat_run /tmp/lat.noiso -C latency
		wait "$pid"
		ok_eq 'bulk transfer (no isolation) completes' 0 $?
		ok 'class set bulk rails rxe0:1' mrcctl class set bulk rails rxe0:1
		ok 'class set latency rails rxe1:1' \
			mrcctl class set latency rails rxe1:1
		ok 'class show' sh -c "mrcctl class show | grep -q 'class latency rails rxe1:1'"
		tx_read
		s0=$(tx "$r0" bulk) s1=$(tx "$r1" bulk)
		p0=$(tx "$r0" latency) p1=$(tx "$r1" latency)
		mrc-perf -c 2 -p $PORT -C bulk bw -m 65536 -n 400 -w 16 \
			> /tmp/bw.iso 2>&1 &
		pid=$!
		ok "latency class ping-pong during a bulk transfer, isolated" \
			lat_run /tmp/lat.iso -C latency
		wait "$pid"
		ok_eq 'bulk transfer (isolated) completes' 0 $?
		md "" "## Isolation: latency-class 4 KiB ping-pong x $LAT_N next to a bulk-class transfer (400 x 64 KiB)" "" \
		   "| latency class | p50 us | p95 us | p99 us |" "|---|---|---|---|"
		md_lat "alone (no bulk)" /tmp/lat.un
		md_lat "with bulk, no isolation" /tmp/lat.noiso
		md_lat "with bulk, bulk on plane 0, latency on plane 1" /tmp/lat.iso
		diag "latency class, usec            p50      p95      p99"
		for t in un noiso iso; do
			diag "$(printf '%-30s %8s %8s %8s' "$t" \
				"$(lat_of /tmp/lat.$t p50_us)" \
				"$(lat_of /tmp/lat.$t p95_us)" \
				"$(lat_of /tmp/lat.$t p99_us)")"
		done
		tx_read
		ok_eq 'no bulk packet on plane 1' 0 $(( $(tx "$r1" bulk) - s1 ))
		ok 'bulk packets on plane 0' test $(( $(tx "$r0" bulk) - s0 )) -gt 0
		ok_eq 'no latency packet on plane 0' 0 \
			$(( $(tx "$r0" latency) - p0 ))
		ok 'latency packets on plane 1' \
			test $(( $(tx "$r1" latency) - p1 )) -gt 0
	fi

	case_title 'plane 1 down: a class on it alone refused, latency falls back and returns'
	if is_node 1; then
		mrcctl monitor peer > /tmp/mon.log 2>&1 &
		p=$!
		ip link set eth1 down
		wait_for 'rail rxe1:1 down' 10 \
			grep -qv active /sys/kernel/mrc/rails/rxe1:1/state
		chk_refused 'class mapped to no live rail refused' \
			'no live rail' mrcctl class set background rails rxe1:1
		ok 'latency class falls back to plane 0 (20 x 4 KiB)' \
			mrc-perf -c 2 -p $PORT -C latency lat -m 4096 -n 20
		ok 'peer fallbacks counted' sh -c \
			"[ \$(mrcctl -j peer show $o | jq '.[0].fallbacks') -gt 0 ]"
		ip link set eth1 up
		chk_paths_active "$o" 16 60
		ok 'latency class back on plane 1 (5 x 4 KiB)' \
			mrc-perf -c 2 -p $PORT -C latency lat -m 4096 -n 5
		wait_for 'monitor: class_fallback events, out and back' 10 \
			grep -q 'class latency: back on its rails' /tmp/mon.log
		ok 'monitor: latency fell back to other rails' \
			grep -q '\[class fallback\] node 2 class latency: on other rails' \
			/tmp/mon.log
		kill "$p"
		wait "$p" 2>/dev/null
	fi

	# Optional (bench/sched): its own case only when asked for.
	if [ "$BG_MB" -gt 0 ]; then
		case_title "a $BG_MB MiB background transfer next to a latency ping-pong"
		is_node 1 && background_run
	fi

	case_title 'yield to latency: bg_yield_pkts and bulk_yield_pkts'
	if is_node 1; then
		ok 'classes back to all rails' sh -c \
			'mrcctl class set bulk rails all && mrcctl class set latency rails all'
		yield_run background 4
		yield_run background 0
		echo 4 > /sys/kernel/mrc/bg_yield_pkts
		yield_run bulk 4
		yield_run bulk 0
		echo 4 > /sys/kernel/mrc/bulk_yield_pkts
	fi
	barrier isolation-done 300

	case_title 'the policy changes every 0.3 s mid-transfer: it completes, tags add up'
	if is_node 1; then
		# 3000 x 64 KiB: on an idle host 600 of them (39 MB) were done
		# in about 1.5 s, before min-inflight and min-latency were set
		# (in CI: their tags sent 0).
		mrc-perf -c 2 -p $PORT bw -m 65536 -n 3000 -w 16 > /tmp/bw.live 2>&1 &
		pid=$!
		# Each policy carries packets before the next: a fixed 0.3 s
		# step did not on the debug-kernel lane, where mrc-perf was
		# still starting while min-inflight and min-latency were set
		# (their tags sent 0).
		for i in 0 3 1 2 3 0 3; do
			_sleep 0.3
			s0=$(tag_sent "$i")
			policy "$i"
			wait_for "policy $i set mid-transfer (sent, or the transfer ended)" 60 \
				tag_sends_or_done "$i" "$s0" "$pid"
		done
		wait "$pid"
		rc=$?
		ok_eq 'transfer with live policy changes completes' 0 "$rc"
		[ "$rc" = 0 ] || diag "$(cat /tmp/bw.live)"
		ok_eq 'no message failed' 0 \
			"$(awk '$1 == "tx_failed" { print $2 }' $D/mrc/msg)"
		wait_for 'per policy tag: sent == acked + lost + released' 30 \
			tags_consistent
		diag "$(cat $D/mrc/sched)"
		mrcctl peer show "$o" | sed 's/^/# /'
	fi
	barrier live-done 300

	case_title 'mrc-perf server stops, mrc unloads'
	diag "phases done after $SECONDS s"
	if is_node 2; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	barrier server-down 60
	ok 'modprobe -r mrc' modprobe -r mrc
}
mrc_test_main "$@"
