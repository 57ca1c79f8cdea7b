#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib_test.sh - host-side checks of lib.sh's synchronisation helpers (fast
# tier, no VM): a barrier that does not know who takes part fails at once
# and says so, instead of passing; one that does waits for every
# participant and passes when they all arrived.  The dmesg check's KCSAN
# filter leaves out the kernel's own data races, and only those.  A run
# that the fabric stopped for a stalled guest NIC (run.sh exit 5) is run
# again once and said so; stalled twice, the test fails.  TAP.
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
source "$HERE/check_lib.sh"

# guest NODE SCRIPT: SCRIPT run as lib.sh's guest side of node NODE (its
# own TMPDIR, as each VM has its own /tmp)
guest() {
	mkdir -p "$T/tmp.$1"
	MRC_NODE=$1 MRC_NODES=2 MRC_SHARED=$T/shared MRC_OUTDIR=$T \
		TMPDIR=$T/tmp.$1 bash -c "source '$HERE/lib.sh'; $2"
}

echo "TAP version 13"
echo "1..17"

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

# KCSAN reports: one of the networking stack's (left out, counted, kept
# for the log), one with a frame in mrc (kept), and what is not KCSAN's
# (kept whatever it names).
cat >"$T/dmesg" <<'EOF'
[    1.0] eth0: up
[    2.0] ==================================================================
[    2.0] BUG: KCSAN: data-race in tcp_ack / tcp_sendmsg
[    2.0] write to 0xffff1 of 8 bytes by task 1 on cpu 0:
[    2.0]  tcp_ack+0x1/0x2
[    2.0] Reported by Kernel Concurrency Sanitizer on:
[    2.0] ==================================================================
[    3.0] ==================================================================
[    3.0] BUG: KCSAN: data-race in ib_poll_handler / __ib_process_cq
[    3.0] read to 0xffff2 of 4 bytes by task 2 on cpu 1:
[    3.0]  mrc_ud_cq_work+0x10/0x80 [mrc]
[    3.0] ==================================================================
[    4.0] BUG: KASAN: use-after-free in tcp_ack
[    5.0] ==================================================================
[    5.0] BUG: KCSAN: data-race in virtqueue_get_buf_ctx_split+0x6d/0x230
[    5.0] race at unknown origin, with read to 0xffff3 of 2 bytes by interrupt on cpu 1:
[    5.0]  virtqueue_get_buf_ctx_split+0x6d/0x230
[    5.0]  rxe_requester+0xda9/0x1e10 [rdma_rxe]
[    5.0]  _raw_spin_unlock_bh+0x29/0x30
[    5.0]  mrc_msg_tx_workfn+0x13b/0x190 [mrc]
[    5.0] ==================================================================
EOF
out=$(bash -c "source '$HERE/lib.sh'; _kcsan_filter '$T/kf'" <"$T/dmesg")
check 'kcsan filter: a race outside our modules is left out and counted' \
	eval '! grep -q tcp_sendmsg <<< "$out" && [ "$(cat "$T/kf")" = 2 ] &&
	      grep -q tcp_sendmsg "$T/kf.first"'
check 'kcsan filter: a race with a frame in mrc stays' \
	grep -q 'mrc_ud_cq_work.*\[mrc\]' <<< "$out"
check 'kcsan filter: a report that is not KCSAN stays' \
	grep -q 'BUG: KASAN: use-after-free in tcp_ack' <<< "$out"
check 'kcsan filter: lines outside reports stay' grep -q 'eth0: up' <<< "$out"
check 'kcsan filter: mrc deeper in the stack than the race does not make it ours' \
	eval '! grep -q virtqueue_get_buf <<< "$out"'

# stat_of and meminfo_kb (and credit_stat, pacer_stat, peer_token, which
# share snap) take a seq_file in one pass.  A `while read` loop seeks back
# after every line (lseek(fd, -N, SEEK_CUR)), and a seq_file makes its text
# again at each seek: a counter that gained a digit meanwhile shifts the
# lines under the reader.
want=$(awk '$1 == "MemTotal:" { print $2 " " $3 }' /proc/meminfo)
check 'stat_of: the value of a key' \
	test "$(bash -c "source '$HERE/lib.sh'; stat_of /proc/meminfo MemTotal:")" = "$want"
strace -qq -e trace=lseek -P /proc/meminfo -o "$T/seeks" \
	bash -c "source '$HERE/lib.sh'; stat_of /proc/meminfo Nope; meminfo_kb Nope" >"$T/nope"
check 'stat_of and meminfo_kb: 0 for a key not there' \
	test "$(tr '\n' ' ' <"$T/nope")" = "0 0 "
check 'stat_of and meminfo_kb: a seq_file read in one pass, no seek back' \
	eval '[ -s "$T/seeks" ] && ! grep "lseek([0-9]*, -" "$T/seeks"'

# A fake fabric runner: exit 5 (a guest NIC stalled) for its first
# STALLS calls, then results from both nodes.
cat >"$T/fakerun" <<'EOF'
#!/bin/bash
while [ "$1" != -o ]; do shift; done
out=$2
c=$(cat "$T_CALLS" 2>/dev/null || echo 0)
echo $((c + 1)) >"$T_CALLS"
[ "$c" -lt "$STALLS" ] && exit 5
for n in 1 2; do
	printf 'TAP version 13\nok 1 fine\n1..1\n' >"$out/node.$n.out"
	echo 0 >"$out/node.$n.rc"
done
exit 0
EOF
chmod +x "$T/fakerun"
printf '#!/bin/bash\nsource "%s/lib.sh"\nrun_guest() { :; }\nmrc_test_main\n' \
	"$HERE" >"$T/faketest"
chmod +x "$T/faketest"
fake() {	# fake STALLS: run faketest on the fake fabric; its TAP in $T/fake.out
	rm -f "$T/calls"
	MRC_FABRIC_RUN=$T/fakerun T_CALLS=$T/calls STALLS=$1 MRC_TMPDIR=$T \
		"$T/faketest" >"$T/fake.out" 2>"$T/fake.err"
}
if [ "$(id -u)" = 0 ]; then
	fake 1
	rc=$?
	check 'a NIC stall: the test runs again and passes' \
		eval '[ $rc = 0 ] && [ "$(cat "$T/calls")" = 2 ] &&
		      grep -q "^ok 2 node2: fine" "$T/fake.out"'
	check 'and the stopped run is named, not counted' \
		eval 'grep -q "^# fabric: a run stopped by a guest NIC stall, not counted" "$T/fake.out" &&
		      ! grep -q "^not ok" "$T/fake.out"'
	fake 2
	rc=$?
	check 'a NIC stall twice: the test fails' \
		eval '[ $rc = 1 ] && [ "$(cat "$T/calls")" = 2 ]'
	check 'and says why' \
		grep -q '^not ok 1 fabric: a guest NIC stalled in each of 2 runs' "$T/fake.out"
	fake 0
	rc=$?
	check 'no stall: one run' \
		eval '[ $rc = 0 ] && [ "$(cat "$T/calls")" = 1 ] && ! grep -q stall "$T/fake.out"'
else
	for d in 'a NIC stall: the test runs again' 'and the stopped run is named' \
		 'a NIC stall twice' 'and says why' 'no stall: one run'; do
		n=$((n + 1))
		echo "ok $n - $d # SKIP not root"
	done
fi

echo "# $failed of $n failed"
[ $failed = 0 ]
