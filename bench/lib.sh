# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# bench/lib.sh - the guest side of bench/run and bench/credit: sources
# selftests/mrc/lib.sh and uses only its public functions (barrier, put,
# get, node_ip, gid_index, is_node, stat_of, msg_stat, now_ms, peer_add,
# active_paths, mrc_guest_init, mrc_sleep, ...), plus what only the
# benches need.  A bench sources it in the guests (MRC_IN_VM=1), not on
# the host:
#
#	guest_main() {
#		source "$HERE/lib.sh"
#		bench_guest_init 1 2
#		...
#	}

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/selftests/mrc/lib.sh"
set +u		# lib.sh sets -u; the benches' guest code runs without it

# bench_guest_init NODE...: barrier/put/get among NODE..., RAW (the raw
# outputs, $MRC_SHARED/raw, kept on the host) and D (debugfs)
bench_guest_init() {
	mrc_guest_init "$@"
	RAW=$MRC_SHARED/raw
	mkdir -p "$RAW" 2>/dev/null
	D=/sys/kernel/debug
}

say() { echo "bench: node$MRC_NODE: $*"; }	# say MSG...: a progress line for the host
res() { put "res.$1" "$2"; say "$1 = $2"; }	# res NAME VALUE: a figure for the host

# Perf in the guests (bench/profile, bench/credit with BENCH_PROFILE=1):
# system-wide, started disabled and switched on and off through perf's
# control FIFOs, so that the window holds only the measured transfer and
# no fork of the bench's own.
declare -A BENCH_PERF_CTL BENCH_PERF_ACK BENCH_PERF_PID

# bench_perf_start NAME PERF-ARGS...: perf, disabled until
# bench_perf_ctl NAME enable; its output in $RAW/NAME.node$MRC_NODE.log
bench_perf_start() {
	local name=$1 c a
	shift
	rm -f "/tmp/$name.ctl" "/tmp/$name.ack"
	mkfifo "/tmp/$name.ctl" "/tmp/$name.ack"
	perf "$@" -D -1 --control "fifo:/tmp/$name.ctl,/tmp/$name.ack" \
		>"$RAW/$name.node$MRC_NODE.log" 2>&1 &
	BENCH_PERF_PID[$name]=$!
	# perf opens the control FIFO, then (blocking) the ack FIFO: these
	# opens wait until it has set up its events.
	exec {c}>"/tmp/$name.ctl" {a}<"/tmp/$name.ack"
	BENCH_PERF_CTL[$name]=$c
	BENCH_PERF_ACK[$name]=$a
}

# bench_perf_ctl NAME CMD: send CMD (enable, disable) to perf NAME and
# wait for its ack (builtins only)
bench_perf_ctl() {
	local a
	echo "$2" >&"${BENCH_PERF_CTL[$1]}"
	read -r -t 120 -u "${BENCH_PERF_ACK[$1]}" a && [ "$a" = ack ] ||
		say "warning: perf ($1) did not ack $2"
}

# bench_perf_stop NAME...: end each perf NAME and close its FIFOs
bench_perf_stop() {
	local n

	for n in "$@"; do
		kill -INT "${BENCH_PERF_PID[$n]}"
		wait "${BENCH_PERF_PID[$n]}"
		eval "exec ${BENCH_PERF_CTL[$n]}>&- ${BENCH_PERF_ACK[$n]}<&-"
		rm -f "/tmp/$n.ctl" "/tmp/$n.ack"
	done
}

# bench_perf_report NAME DATA: perf report of DATA into
# $RAW/NAME.node$MRC_NODE.{report (by symbol), dso (by module),
# callgraph (call graphs of the functions over 2%)}; DATA is removed
bench_perf_report() {
	local p=$RAW/$1.node$MRC_NODE

	perf report -q -i "$2" --stdio --no-children --sort sym \
		--percent-limit 0.3 -g none >"$p.report" 2>/dev/null
	perf report -q -i "$2" --stdio --no-children --sort dso \
		--percent-limit 0.5 -g none >"$p.dso" 2>/dev/null
	perf report -i "$2" --stdio --no-children --sort sym \
		--percent-limit 2 -G >"$p.callgraph" 2>/dev/null
	rm -f "$2"
}
