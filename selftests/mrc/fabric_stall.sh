#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_stall.sh - the VM fabric's NIC stall detection (fabric/run.sh,
# "NIC STALL" in its usage), no mrc involved.  A guest whose console shows
# the kernel's NETDEV WATCHDOG twice has a transmit queue that stopped for
# good: the runner must stop the run at once with exit 5 and name the node,
# not let the test time out; lib.sh then runs the test again
# (lib_test.sh checks that part without VMs).  The watchdog's lines are
# written to the guest's /dev/kmsg at the level the kernel uses, so they
# reach the console as the real ones do.  Host side only: its own fabric
# of one VM.  TAP.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/check_lib.sh"

fabric_begin fabric_stall 4
# The guest says its eth0 stalled, twice (as the watchdog does 5 s apart),
# then would run for 200 s.
t0=$SECONDS
"$HERE/fabric/run.sh" -n 1 -p 1 -t 400 -o "$out" -- bash -c '
	for i in 1 2; do
		echo "<2>virtio_net virtio2 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out $((i * 5000)) ms" >/dev/kmsg
		sleep 1
	done
	sleep 200' >"$out/run.out" 2>&1
rc=$?
took=$((SECONDS - t0))
sed 's/^/# /' "$out/run.out"
check "run.sh exits 5 (NIC stall), not 0 or 124: $rc" test "$rc" = 5
check "well before the command would end: ${took} s" test "$took" -lt 150
check "names the node" grep -q 'node1: a NIC stopped transmitting' "$out/run.out"
check "and leaves .fabric/nicstall.1" test -s "$out/.fabric/nicstall.1"
fabric_end
