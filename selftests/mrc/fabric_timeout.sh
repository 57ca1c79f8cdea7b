#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_timeout.sh - what the VM fabric (fabric/run.sh) leaves behind when
# a run times out, no mrc involved.  A test that hangs, in the kernel or
# not, must leave each guest's kernel log with the stacks of its blocked
# tasks (sysrq w), not only the console's hung-task headers: the runner
# asks the guests for them (.fabric/dump) before it kills them.  The guest
# command here writes a marker to its kernel log and then sleeps past the
# runner's timeout.  Host side only: its own fabric of one VM.  TAP.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/check_lib.sh"

fabric_begin fabric_timeout 6
marker="mrc-fabric-timeout-marker-$$"
t0=$SECONDS
"$HERE/fabric/run.sh" -n 1 -p 1 -t 60 -o "$out" -- bash -c "
	echo '<4>$marker' >/dev/kmsg
	sleep 600" >"$out/run.out" 2>&1
rc=$?
took=$((SECONDS - t0))
sed 's/^/# /' "$out/run.out"
check "run.sh exits 124 (timeout): $rc" test "$rc" = 124
check "within the timeout and the dump's wait: ${took} s" test "$took" -lt 120
check "says where the dmesg went" \
	grep -q "node1: blocked tasks and dmesg saved in $out/dmesg.1.log" "$out/run.out"
check "the guest wrote .fabric/dumped.1" test -e "$out/.fabric/dumped.1"
check "dmesg.1.log has the command's kernel log" grep -q "$marker" "$out/dmesg.1.log"
check "and the blocked tasks' list (sysrq w)" grep -q "Show Blocked State" "$out/dmesg.1.log"
fabric_end
