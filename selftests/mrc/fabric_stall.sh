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
# reach the console as the real ones do.  lib.sh's NIC probe's line
# (_nic_probe) stops the run too, once, even written just before the
# command ends.  And the probe itself, run by a lib.sh test with a failed
# result on two VMs whose NICs work, finds them working: no stall.  Host
# side only: its own fabrics.  TAP.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/check_lib.sh"

fabric_begin fabric_stall 10
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

# lib.sh's probe's line, once, as the command's last act.
rm -rf "${out:?}"/* "$out"/.fabric
"$HERE/fabric/run.sh" -n 1 -p 1 -t 400 -o "$out" -- bash -c '
	echo "<2>mrc-fabric: eth0: NIC STALL: 5 packets to the driver, none completed in 2 s (tx_packets 7)" >/dev/kmsg' \
	>"$out/run.out" 2>&1
rc=$?
sed 's/^/# /' "$out/run.out"
check "the probe's line at the end: run.sh exits 5: $rc" test "$rc" = 5
check "and says the probe found it" grep -q "node1: a NIC stopped transmitting (lib.sh's probe" "$out/run.out"

# The probe on working NICs: a lib.sh test whose node 1 fails a result.
rm -rf "${out:?}"/* "$out"/.fabric
"$HERE/fabric/run.sh" -n 2 -p 2 -t 400 -o "$out" -- bash -c "
	source '$HERE/lib.sh'
	run_guest() { is_node 1 && ok 'a result that fails' false; }
	mrc_test_main" >"$out/run.out" 2>&1
rc=$?
sed 's/^/# /' "$out/run.out"
check "a failed lib.sh test on working NICs: run.sh exits 1: $rc" test "$rc" = 1
for p in 0 1; do
	v=$(sed -n "s/.*eth$p probe (a result failed): \([0-9]*\) packet(s) to the driver, \([0-9]*\) completed.*/\1 \2/p" \
		"$out/node.1.out")
	check "node 1 probed eth$p: its packets completed (to the driver, completed: ${v:-none})" \
		test -n "$v" -a "${v#* }" -ge 2
done
check "node 2, all ok, probed nothing" \
	bash -c "! grep -q 'probe (a result failed)' '$out/node.2.out'"
fabric_end
