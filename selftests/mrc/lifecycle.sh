#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle under load, three phases between two nodes, each with
# traffic running both ways (modules/mrc_echo: COUNT x SIZE each way, 1.5
# times as many in phase A; content, CRC and order checked by the
# receiver):
#
# A. Unloading mrc while it is in use.  With node 1's mrc-perf and a
#    Python /dev/mrc sender open, node 2's mrc-perf server and a Python
#    receiver open, and mrc_echo loaded on both: `rmmod mrc` is refused
#    ("in use by: mrc_echo"), `modprobe -r mrc` too ("is in use"), and the
#    kernel's own answer, delete_module(O_NONBLOCK), is EAGAIN
#    (EWOULDBLOCK), all while the transfers run (both nodes' planes are
#    shaped for them, so that they outlast the refusals); the transfers
#    go on undisturbed (every message intact,
#    in order, exactly once; mrc-perf's counts acknowledged).  After
#    rmmod mrc_echo the one open /dev/mrc file still holds the module
#    (refcnt 1, EAGAIN).  That file then sends DEV_COUNT messages and
#    closes at once, with sends outstanding (node 1's planes are still
#    shaped, until after the unload): close() drains them (it
#    returns when every one has completed), mrc's send buffers are back to
#    0, and delete_module() right after the close succeeds; the receiver
#    has every message intact and in order.  mrc's vmalloc use is back to
#    its level before the traffic, and after the unload no vmalloc area is
#    left to an unloaded module and unreclaimable slab is back (see
#    "Memory" below).
# B. `rdma link delete rxe1` on node 1 mid-transfer: rail rxe1:1 leaves
#    `mrcctl rail show`, its paths leave the spray set on both nodes and
#    their packets in flight are sent again on plane 0 (path_down_pkts
#    grows by the count mrc logs for the removal; if nothing was in flight
#    on them at that instant, which happens between the sender's bursts,
#    that check is skipped);
#    after `rdma link add` the rail is back, all 16 paths are active again
#    on both nodes, both transfers complete with nothing lost or
#    duplicated, and a later transfer uses plane 1 again.
# C. Node 2's VM killed mid-transfer (the fabric SIGKILLs its QEMU:
#    kill_node, fabric/run.sh).  Node 1 (peer_timeout_ms lowered to
#    PEER_TIMEOUT_MS) fails every unacked send with -EHOSTUNREACH, none
#    before PEER_TIMEOUT_MS / 2 and all within PEER_TIMEOUT_MS + SLACK_MS
#    of the kill; its send and reassembly buffers go back to 0 (incomplete
#    messages from the dead node expire), its vmalloc use is back to its
#    level before, mrc unloads leaving nothing behind, loads again with its
#    rails active, and unloads cleanly.  Node 2's missing result is
#    expected.
#
# The guests' dmesg must stay clean throughout (lib.sh).  Written as titled
# cases (lib.sh's case_title and chk_* helpers), each named by its phase.
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_LIFECYCLE_TIMEOUT:-600}
COUNT=${MRC_LIFECYCLE_COUNT:-12}	# per direction, phases B and C
# Phase A: more, and each node's planes shaped to SHAPE_MBIT, so that the
# traffic outlasts the refusals (a dozen commands, up to 12 s on a loaded
# host) with a margin however fast mrc is: at 2 x 24 mbit, node 2's
# 72 MiB take at least 13 s, node 1's and mrc-perf's 19 MiB 16 s.  (A
# lower rate is no safer: netem's queue then adds seconds of delay, and
# loss detection slows the transfer far more than the rate does.)
COUNT_A=${MRC_LIFECYCLE_COUNT_A:-$((COUNT * 3 / 2))}
SHAPE_MBIT=${MRC_LIFECYCLE_SHAPE_MBIT:-24}	# per plane, phase A
SIZE=${MRC_LIFECYCLE_SIZE:-4194304}
# /dev/mrc messages sent just before the close, still shaped: their
# drain at 2 x SHAPE_MBIT (1.4 s) must fit in close()'s wait of
# peer_timeout_ms (3 s).  With 24, 18-20 MiB were left at the close on
# a quiet host, and close() returned with them still outstanding.
DEV_COUNT=8
DEV_SIZE=1048576
DEV_PORT=7100
PERF_PORT=18515
PEER_TIMEOUT_MS=1000	# phase C; the knob's default is 3000
SLACK_MS=4000		# path detection (RTO <= rto_max_ms) + TCG polling
DOWN_S=2		# phase B: seconds on plane 0 alone

source "$MRC_LIB_DIR/echo_lib.sh"

# /dev/mrc sender and receiver, and delete_module (ioctl numbers from
# uapi/linux/mrc.h, as in devmrc.sh).  A message is {index, sha256 of
# index + body, body}: the receiver checks content and order.
read -r -d '' PY <<'EOF'
import ctypes, errno, fcntl, hashlib, os, select, struct, sys, time

MAGIC = 0xF7
def ioc(d, nr, size): return (d << 30) | (size << 16) | (MAGIC << 8) | nr
BIND = ioc(3, 1, 8)
SETOPT = ioc(1, 2, 16)
STATS_SIZE = 8 + 12 * 8
STATS = ioc(3, 4, STATS_SIZE)
RCVBUF = 1

def bind(fd, port):
    b = bytearray(struct.pack("=IHH", 8, port, 0))
    fcntl.ioctl(fd, BIND, b)

def tx_outstanding(fd):
    b = bytearray(struct.pack("=Ii", STATS_SIZE, 0) + bytes(96))
    fcntl.ioctl(fd, STATS, b)
    return struct.unpack("=Ii12Q", b)[6]

def unload():
    """delete_module("mrc", O_NONBLOCK): "0" or the errno's name."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(176, b"mrc", os.O_NONBLOCK) == 0:
        return "0"
    return errno.errorcode.get(ctypes.get_errno(), "?")

def wait_file(f):
    while not os.path.exists(f):
        time.sleep(0.05)

def msg_stat(key):
    for l in open("/sys/kernel/debug/mrc/msg"):
        k, v = l.split()
        if k == key:
            return v
    return "?"

def send(node, port, count, size, go):
    fd = os.open("/dev/mrc", os.O_RDWR)
    bind(fd, 0)
    print("bound", flush=True)
    wait_file(go)
    for i in range(count):
        idx = struct.pack("=I", i)
        body = os.urandom(size - 36)
        m = idx + hashlib.sha256(idx + body).digest() + body
        os.write(fd, struct.pack("=IIHHI", 1, node, port, 0, len(m)) + m)
    print("outstanding", tx_outstanding(fd), flush=True)
    t0 = time.monotonic()
    os.close(fd)
    print("close_ms", int((time.monotonic() - t0) * 1000), flush=True)
    print("tx_buffer_bytes", msg_stat("tx_buffer_bytes"), flush=True)
    print("unload", unload(), flush=True)

def recv(port, count, done):
    fd = os.open("/dev/mrc", os.O_RDWR)
    bind(fd, port)
    fcntl.ioctl(fd, SETOPT, struct.pack("=IIQ", 16, RCVBUF, 256 << 20))
    print("bound", flush=True)
    p = select.poll()
    p.register(fd, select.POLLIN)
    bad = order = n = 0
    while n < count and not os.path.exists(done):
        if not p.poll(1000):
            continue
        m = os.read(fd, 4 << 20)[16:]
        i = struct.unpack("=I", m[:4])[0]
        if hashlib.sha256(m[:4] + m[36:]).digest() != m[4:36]:
            bad += 1
        elif i != n:
            order += 1
        n += 1
    print("rx %d bad %d order %d" % (n, bad, order), flush=True)
    wait_file(done)
    os.close(fd)

if sys.argv[1] == "send":
    a = sys.argv[2:]
    send(int(a[0]), int(a[1]), int(a[2]), int(a[3]), a[4])
elif sys.argv[1] == "recv":
    recv(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
EOF
py() { python3 -c "$PY" "$@"; }

# delete_module("mrc", O_NONBLOCK), the kernel's own answer to an unload
# (rmmod and modprobe -r look at the refcount first and do not ask it):
# "0" or EAGAIN (= EWOULDBLOCK) or "errno N".  Perl: Python's start-up
# takes seconds under TCG, and this runs while the traffic must still be
# running.
unload_errno() {
	perl -e 'my $n = "mrc"; my $r = syscall(176, $n, 04000);
		print $r == 0 ? "0" : $!{EAGAIN} ? "EAGAIN" : "errno " . ($! + 0)'
}

plane_inactive() { [ "$(plane_active "$OTHER" "$1")" = 0 ]; }
rail_names() { mrcctl -j rail show | jq -r '[.[].name] | sort | join(" ")'; }
rail_active() {	# rail_active NAME
	[ "$(mrcctl -j rail show | jq -r --arg n "$1" '.[] | select(.name == $n) | .state')" = active ]
}
flowing() { [ "$(echo_stat done_ok)" -ge 1 ] && [ "$(echo_stat rx)" -ge 1 ]; }
started() { [ $(($(echo_stat done_ok) + $(echo_stat rx))) -ge 1 ]; }
in_flight() { [ "$(echo_stat done_ok)" -lt "$COUNT" ] || [ "$(echo_stat rx)" -lt "$COUNT" ]; }
both_done() {	# our COUNT sends completed, their COUNT messages arrived
	[ "$(echo_stat busy)" = 0 ] && completed_at_least "$COUNT" &&
	[ "$(echo_stat rx)" -ge "$COUNT" ]
}
send_both_ways() {	# send_both_ways SEED: COUNT x SIZE to the other node
	echo "send $OTHER 7 $COUNT $SIZE $1 1" > $D/mrc_echo/ctl
}
# Both directions complete: sends ok/failed/refused, received/bad/out of order.
check_transfer() {	# check_transfer PHASE
	wait_for "$COUNT sent and $COUNT received" 300 both_done ||
		diag "$(cat $D/mrc_echo/stats)"
	diag "$1: transfers done $((SECONDS - T0)) s after they started"
	ok_eq "sends ok/failed/refused, received/bad/out of order" \
		"$COUNT 0 0 $COUNT 0 0" \
		"$(echo_stat done_ok) $(echo_stat done_err) $(echo_stat send_err) $(echo_stat rx) $(echo_stat rx_bad) $(echo_stat rx_order)"
	ok_eq "$((COUNT * SIZE)) bytes received" "$((COUNT * SIZE))" \
		"$(echo_stat rx_bytes)"
}

# Memory.  Per-site slab tracking (slub_debug=U, as unreachable.sh does)
# is too slow here: one scan of the kmalloc caches took 45 s under TCG.
# Instead: mrc's own buffer counters (tx/rx_buffer_bytes), the vmalloc
# areas of mrc and mrc_echo (message buffers and reassembly memory are
# kvmalloc'd: every one above a page is a vmalloc area with its caller),
# and after each unload no vmalloc area left to an unloaded module and
# unreclaimable slab back within LEAK_KB of its level before mrc was first
# loaded.  (The debug-kernel lane adds kmemleak, lib.sh.)
LEAK_KB=4096

mrc_vmalloc() {	# "AREAS BYTES" of vmalloc held by mrc and mrc_echo
	awk '$3 ~ /\[mrc/ { n++; b += $2 } END { print n + 0, b + 0 }' \
		/proc/vmallocinfo
}

# vmalloc_flat BASE: mrc's vmalloc use is BASE again (else prints it).
vmalloc_flat() {
	[ "$(mrc_vmalloc)" = "$1" ] && return 0
	echo "now $(mrc_vmalloc), before $1:"
	awk '$3 ~ /\[mrc/' /proc/vmallocinfo
	return 1
}

# Areas whose caller is in no loaded module or the kernel (printed as a
# bare address): left behind by a module since unloaded.
no_orphans() {
	local o
	o=$(awk '$3 ~ /^0x/' /proc/vmallocinfo)
	[ -z "$o" ] && return 0
	echo "$o"
	return 1
}

# after_unload: mrc is gone and left nothing behind; unreclaimable slab
# is compared with its level before mrc was first loaded.
after_unload() {
	ok "no vmalloc area left to an unloaded module" no_orphans
	chk_meminfo_grew_less SUnreclaim "$SLAB0" "$LEAK_KB"
}

shape() {	# phase A's traffic at SHAPE_MBIT per plane (netem rate)
	local d
	for d in eth0 eth1; do
		ok "$d shaped to $SHAPE_MBIT mbit" \
			tc qdisc add dev $d root netem rate ${SHAPE_MBIT}mbit
	done
}
unshape() {
	tc qdisc del dev eth0 root
	tc qdisc del dev eth1 root
}

setup() {	# setup: mrc, the peer, mrc_echo, all paths active
	ok "modprobe mrc node_id" modprobe mrc node_id="$MRC_NODE"
	ok "add peer node$OTHER on both planes" peer_add "$OTHER"
	ok "insmod mrc_echo" insmod "$ECHO_KO"
	chk_paths_active "$OTHER" 16 60
	echo reset > $D/mrc_echo/ctl
}

# ---- A: rmmod while in use ----

refusals() {	# while traffic runs, with mrc_echo loaded
	local refcnt holders t0=$SECONDS
	read -r refcnt < /sys/module/mrc/refcnt
	holders=(/sys/module/mrc/holders/*)
	diag "mrc refcnt $refcnt, holders: ${holders[*]##*/}"
	ok 'mrc_echo holds mrc (holders/mrc_echo)' \
		test -e /sys/module/mrc/holders/mrc_echo
	chk_refused 'rmmod mrc refused: "in use by: mrc_echo"' \
		'Module mrc is in use by: mrc_echo' rmmod mrc
	chk_refused 'modprobe -r mrc refused: "is in use"' \
		'Module mrc is in use' modprobe -r mrc
	ok_eq 'delete_module(mrc, O_NONBLOCK) fails with EAGAIN (EWOULDBLOCK)' \
		EAGAIN "$(unload_errno)"
	ok 'mrc still loaded and live' \
		grep -qx live /sys/module/mrc/initstate
	ok "transfer still running after the refusals" in_flight
	diag "A: the refusals took $((SECONDS - t0)) s"
}

phase_a_node1() {
	local perf_pid p_pid out

	py send "$OTHER" $DEV_PORT $DEV_COUNT $DEV_SIZE /tmp/lc.go \
		> /tmp/lc.send 2>&1 &
	p_pid=$!
	wait_for '/dev/mrc sender bound' 30 grep -q bound /tmp/lc.send
	VM0=$(mrc_vmalloc)
	get a-ready > /dev/null
	shape
	T0=$SECONDS
	send_both_ways 11
	mrc-perf -c "$OTHER" -p $PERF_PORT bw -m 65536 -n 300 -e 2 -w 8 \
		> /tmp/perf.log 2>&1 &
	perf_pid=$!
	wait_for 'traffic started' 120 started
	refusals
	check_transfer A
	wait "$perf_pid"
	ok_eq 'mrc-perf bw: every message and byte acknowledged' 0 $? ||
		diag "$(tail -n 5 /tmp/perf.log)"
	barrier a-traffic-done

	case_title "A. mrc_echo gone: the open /dev/mrc file alone holds mrc; close() drains"
	wait_for 'mrc buffers back to 0' 30 buffers_free
	wait_for 'mrc vmalloc use back to its level before the traffic' \
		30 vmalloc_flat "$VM0"
	ok 'rmmod mrc_echo (its endpoint closes)' rmmod mrc_echo
	chk_refcnt mrc 1
	chk_refused 'modprobe -r mrc still refused: "is in use"' \
		'Module mrc is in use' modprobe -r mrc
	ok_eq 'delete_module fails with EAGAIN' EAGAIN "$(unload_errno)"

	# The file sends, then closes at once: close() drains.  Still at
	# SHAPE_MBIT, so its last messages are on their way when it closes
	# (unshaped, the 1-vCPU guest could run the whole transfer before
	# the writer runs again).
	: > /tmp/lc.go
	wait "$p_pid"
	out=$(cat /tmp/lc.send)
	diag "A: /dev/mrc sender: $(tr '\n' ' ' <<<"$out")"
	ok "sends outstanding when the file closed" \
		test "$(stat_of /tmp/lc.send outstanding)" -gt 0
	diag "A: close() took $(stat_of /tmp/lc.send close_ms) ms (draining)"
	ok_eq 'after close() mrc send buffers are 0 (tx_buffer_bytes)' 0 \
		"$(stat_of /tmp/lc.send tx_buffer_bytes)"
	ok_eq 'delete_module right after the close succeeds' 0 \
		"$(stat_of /tmp/lc.send unload)"
	unshape
	put a-sent 1
	chk_unloaded
}

phase_a_node2() {
	local perf_pid r_pid

	py recv $DEV_PORT $DEV_COUNT /tmp/lc.rclose > /tmp/lc.recv 2>&1 &
	r_pid=$!
	mrc-perf -s -p $PERF_PORT > /tmp/perf-server.log 2>&1 &
	perf_pid=$!
	wait_for '/dev/mrc receiver and mrc-perf server bound' 30 \
		sh -c 'grep -q bound /tmp/lc.recv && grep -q server /tmp/perf-server.log'
	VM0=$(mrc_vmalloc)
	shape
	put a-ready 1
	T0=$SECONDS
	send_both_ways 22
	wait_for 'traffic started' 120 started
	refusals
	check_transfer A
	unshape
	barrier a-traffic-done

	case_title "A. mrc_echo gone: the open /dev/mrc file alone holds mrc; close() drains"
	wait_for 'mrc buffers back to 0' 30 buffers_free
	wait_for 'mrc vmalloc use back to its level before the traffic' \
		30 vmalloc_flat "$VM0"
	ok 'rmmod mrc_echo (its endpoint closes)' rmmod mrc_echo
	get a-sent 300 > /dev/null
	wait_for "/dev/mrc receiver got $DEV_COUNT messages" 60 \
		grep -q '^rx' /tmp/lc.recv
	kill "$perf_pid"
	wait "$perf_pid" 2>/dev/null
	: > /tmp/lc.rclose
	wait "$r_pid"
	ok_eq "$DEV_COUNT received over /dev/mrc, all intact, in order" \
		"rx $DEV_COUNT bad 0 order 0" "$(grep '^rx' /tmp/lc.recv)"
	ok 'modprobe -r mrc once the files are closed' modprobe -r mrc
}

# ---- B: rdma link delete under traffic ----

phase_b() {
	local d0 tx0 n l0

	case_title 'B. mrc, the peer and mrc_echo again'
	setup
	barrier b-ready

	case_title 'B. rdma link delete rxe1 on node 1 mid-transfer, then add it back'
	# Node 1 shaped, so that its sends outlast the wait for both
	# directions and the deletion (on a quiet host both transfers were
	# over by then at times); unshaped once they are done.
	is_node 1 && shape
	T0=$SECONDS
	send_both_ways 33
	if is_node 1; then
		wait_for 'traffic flowing both ways' 120 flowing
		d0=$(msg_stat path_down_pkts)
		l0=$(dmesg | grep -c 'mrc: rail rxe1:1: ')
		ok 'rdma link delete rxe1 (node1, mid-transfer)' \
			rdma link delete rxe1
		ok 'the transfer was still running' in_flight
		put b-deleted 1
		ok_eq 'mrcctl rail show: rxe1:1 gone' 'rxe0:1' "$(rail_names)"
		mrcctl rail show | sed 's/^/# /'
		ok_eq 'no plane-1 path active' 0 "$(plane_active "$OTHER" 1)"
		# mrc logs what the removal gave back (rail.c): the line after
		# those of the unload in phase A
		n=$(dmesg | grep 'mrc: rail rxe1:1: ' | tail -n +$((l0 + 1)) |
		    sed -n 's/.* \([0-9]*\) packets in flight on its paths.*/\1/p')
		ok "mrc logged the packets in flight on its paths (${n:-none})" \
			test -n "$n"
		if [ "${n:-0}" -gt 0 ]; then
			ok "those $n sent again ($(($(msg_stat path_down_pkts) - d0)) path_down_pkts)" \
				test "$(msg_stat path_down_pkts)" -ge $((d0 + n))
		else
			skip 'packets in flight on its paths sent again' \
				'none was in flight on them when the rail went'
		fi
		_sleep $DOWN_S
		ok "plane-0 paths still active ($(plane_active "$OTHER" 0) of 8)" \
			test "$(plane_active "$OTHER" 0)" -ge 1
		ok 'rdma link add rxe1 type rxe netdev eth1' \
			rdma link add rxe1 type rxe netdev eth1
		put b-added 1
		wait_for 'rail rxe1:1 back and active' 30 rail_active rxe1:1
		ok_eq 'mrcctl rail show: both rails' 'rxe0:1 rxe1:1' "$(rail_names)"
	else
		get b-deleted > /dev/null
		wait_for "node1's plane-1 paths leave node2's spray set" 30 \
			plane_inactive 1
		get b-added > /dev/null
	fi

	case_title 'B. every path back, both transfers complete, nothing lost'
	chk_paths_active "$OTHER" 16 120
	check_transfer B
	is_node 1 && unshape
	diag "B: mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	barrier b-done

	case_title 'B. the returned rail carries traffic again'
	echo reset > $D/mrc_echo/ctl
	barrier b-again
	if is_node 1; then
		tx0=$(plane_tx_pkts "$OTHER" 1)
		ok "send 4 x $SIZE B to node$OTHER" \
			sh -c "echo send $OTHER 7 4 $SIZE 44 1 > $D/mrc_echo/ctl"
		wait_for 'all 4 acked' 300 sh -c \
			"grep -qx 'done_ok 4' $D/mrc_echo/stats"
		ok "plane-1 paths carried packets again ($tx0 -> $(plane_tx_pkts "$OTHER" 1))" \
			test "$(plane_tx_pkts "$OTHER" 1)" -gt "$tx0"
	else
		wait_for '4 more messages received' 300 sh -c \
			"grep -qx 'rx 4' $D/mrc_echo/stats"
		ok_eq 'intact and in order' '0 0' \
			"$(echo_stat rx_bad) $(echo_stat rx_order)"
	fi
	barrier b-again-done
}

# ---- C: the peer's VM killed mid-transfer ----

phase_c_node1() {
	local t_kill t_fail t_half e_half n_ok

	echo reset > $D/mrc_echo/ctl
	wait_for 'mrc buffers back to 0' 30 buffers_free
	VM0=$(mrc_vmalloc)
	ok "mrcctl config set peer_timeout_ms $PEER_TIMEOUT_MS" \
		mrcctl config set peer_timeout_ms $PEER_TIMEOUT_MS
	barrier c-ready
	# Shaped, so that node 1's 48 MiB outlast the wait for both
	# directions and the kill (on a quiet host they were all acked by
	# then); node 2's sends are not.
	shape
	send_both_ways 55
	wait_for 'traffic flowing both ways' 120 flowing
	case_title "C. node 2's VM killed mid-transfer: node 1 fails the unacked sends in time"
	kill_node "$OTHER"
	t_kill=$(now_ms)
	n_ok=$(echo_stat done_ok)
	ok "killed mid-transfer ($n_ok of $COUNT acked)" test "$n_ok" -lt "$COUNT"
	_sleep $(printf '%d.%03d' $((PEER_TIMEOUT_MS / 2000)) $((PEER_TIMEOUT_MS / 2 % 1000)))
	e_half=$(echo_stat done_err)
	t_half=$(($(now_ms) - t_kill))
	if [ "$t_half" -lt $((PEER_TIMEOUT_MS * 3 / 4)) ]; then
		ok_eq "no send failed ${t_half} ms after the kill (< peer_timeout_ms)" \
			0 "$e_half"
	else
		skip 'no send failed before peer_timeout_ms' \
			"the check ran late (${t_half} ms)"
	fi
	wait_for "all $COUNT sends completed" $(((PEER_TIMEOUT_MS + SLACK_MS) / 1000 + 30)) \
		completed_at_least "$COUNT"
	t_fail=$(($(now_ms) - t_kill))
	diag "C: $(echo_stat done_ok) sends acked, $(echo_stat done_err) failed" \
	     "($(echo_stat done_err_last_status) the last), all done $t_fail ms" \
	     "after the kill was seen; $(echo_stat rx) messages received"
	ok 'the unacked sends failed' test "$(echo_stat done_err)" -gt 0
	ok_eq 'every failure is -EHOSTUNREACH' "$(echo_stat done_err)" \
		"$(echo_stat done_ehostunreach)"
	ok "within peer_timeout_ms + ${SLACK_MS} ms of the kill ($t_fail ms)" \
		test "$t_fail" -le $((PEER_TIMEOUT_MS + SLACK_MS))
	ok_eq 'what arrived from node2 is intact and in order' '0 0' \
		"$(echo_stat rx_bad) $(echo_stat rx_order)"
	ok_eq "no path to node$OTHER active" 0 "$(active_paths "$OTHER")"
	ok_eq 'send buffers back to 0 (tx_buffer_bytes)' 0 \
		"$(msg_stat tx_buffer_bytes)"
	unshape
	# Partial messages expire after 2 x peer_timeout_ms without news.
	chk_rx_buffers_free $(((2 * PEER_TIMEOUT_MS + SLACK_MS) / 1000 + 5))
	diag "C: mrc expired $(msg_stat rx_expired) incomplete message(s);" \
	     "mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	wait_for 'mrc vmalloc use back to its level before the traffic' \
		30 vmalloc_flat "$VM0"

	case_title 'C. node 1 alone: mrc unloads leaving nothing, loads again'
	ok 'rmmod mrc_echo' rmmod mrc_echo
	ok 'modprobe -r mrc' modprobe -r mrc
	chk_unloaded
	after_unload
	ok 'modprobe mrc again' modprobe mrc node_id="$MRC_NODE"
	wait_for 'both rails active after the reload' 30 \
		sh -c 'mrcctl -j rail show | jq -e "[.[] | select(.state == \"active\")] | length == 2"'
	ok 'modprobe -r mrc' modprobe -r mrc
	diag "phase C took $((SECONDS - TA)) s"
}

run_guest() {
	OTHER=$((3 - MRC_NODE))

	case_title 'A. mrc, the peer and mrc_echo on both nodes'
	mount -t debugfs none $D 2>/dev/null
	ok 'no vmalloc area of an unloaded module before the test' no_orphans
	SLAB0=$(meminfo_kb SUnreclaim)
	setup
	barrier a-paths-up
	TA=$SECONDS
	COUNT_B=$COUNT
	COUNT=$COUNT_A
	case_title 'A. unloading mrc in use is refused; the transfers go on undisturbed'
	if is_node 1; then
		phase_a_node1
	else
		phase_a_node2
	fi
	COUNT=$COUNT_B
	case_title 'A. after the unload: no vmalloc area orphaned, slab back'
	after_unload
	barrier a-unloaded
	diag "phase A took $((SECONDS - TA)) s"

	TA=$SECONDS
	phase_b
	diag "phase B took $((SECONDS - TA)) s"
	TA=$SECONDS

	case_title 'C. transfers both ways, node 1 with peer_timeout_ms lowered'
	if is_node 1; then
		phase_c_node1
	else
		echo reset > $D/mrc_echo/ctl
		barrier c-ready
		send_both_ways 66
		await_kill 180
	fi
}

mrc_test_main "$@"
