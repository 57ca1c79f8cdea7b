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
