#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib_test.sh - host-side checks of lib.sh's synchronisation helpers (fast
# tier, no VM): a barrier that does not know who takes part fails at once
# and says so, instead of passing; one that does waits for every
# participant and passes when they all arrived.  TAP.
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
n=0 failed=0

check() {	# check DESC CMD...: one TAP result
	local desc=$1

	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}

# guest NODE SCRIPT: SCRIPT run as lib.sh's guest side of node NODE (its
# own TMPDIR, as each VM has its own /tmp)
guest() {
	mkdir -p "$T/tmp.$1"
	MRC_NODE=$1 MRC_NODES=2 MRC_SHARED=$T/shared MRC_OUTDIR=$T \
		TMPDIR=$T/tmp.$1 bash -c "source '$HERE/lib.sh'; $2"
}

echo "TAP version 13"
echo "1..4"

out=$(guest 1 'barrier up 2' 2>&1)
rc=$?
check 'barrier without participants fails' test "$rc" != 0
check 'and says why' grep -q 'no participants' <<< "$out"

# With participants: node 1 waits for node 2, who comes a second later.
t0=$SECONDS
guest 2 'mrc_guest_init; sleep 1; barrier up 10' &
bg=$!
guest 1 'mrc_guest_init; barrier up 10'
rc=$?
wait $bg
check 'barrier with participants passes once both arrived' test "$rc" = 0
check 'and waited for the later one' test $((SECONDS - t0)) -ge 1

echo "# $failed of $n failed"
[ $failed = 0 ]
