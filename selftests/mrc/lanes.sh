#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lanes: each traffic class is its own ordered lane (msg_id bits 31..26:
# the class and a bucket of destination ports,
# Documentation/mrc/protocol.rst), so a latency message never waits behind
# a bulk or background one, at the sender (latency is served first) or at
# the receiver (in-order delivery per lane, not per node).  Node 1 sends
# over /dev/mrc from two endpoints, one of class bulk (MRC_OPT_CLASS) and
# one of class background, in this order:
#
#   B1 bulk 16 MiB, G1 background 16 MiB, L1 latency 4 KiB,
#   B2 bulk 4 KiB, L2 latency 4 KiB
#
# L1 and L2 go from the bulk endpoint with a per-message class (send
# header flags MRC_DEV_SEND_FLAGS(latency)).
#
# to one endpoint of node 2, which records the arrival order and checks
# every payload.  Expected: L1 arrives before B1 and G1 (with one sequence
# space per node, as in protocol version 1, it came after both); within a
# lane the order holds (L1 before L2, B1 before B2); all five arrive
# intact, exactly once.  Run once with credits on (the default: B1 needs
# grants, L1 goes in its unscheduled window meanwhile) and once with
# credit=0.  Written as titled cases (lib.sh's case_title and chk_*
# helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_LANES_TIMEOUT:-600}
PORT=7100

read -r -d '' PY <<'EOF'
import fcntl, hashlib, os, struct, sys, time

MAGIC = 0xF7
def ioc(d, nr, size): return (d << 30) | (size << 16) | (MAGIC << 8) | nr
BIND, SETOPT = ioc(3, 1, 8), ioc(1, 2, 16)
RCVBUF, CLASS = 1, 5
CLASSES = {"latency": 1, "bulk": 2, "background": 3}
# (tag, class, size) in send order
PLAN = [("B1", "bulk", 16 << 20), ("G1", "background", 16 << 20),
        ("L1", "latency", 4096), ("B2", "bulk", 4096),
        ("L2", "latency", 4096)]

def payload(tag, size):
    # tag, then bytes derived from it: checkable on arrival
    seed = hashlib.sha256(tag.encode()).digest()
    body = (seed * (size // len(seed) + 1))[:size - 2]
    return tag.encode() + body

def dev(port, cls=None):
    fd = os.open("/dev/mrc", os.O_RDWR)
    b = bytearray(struct.pack("=IHH", 8, port, 0))
    fcntl.ioctl(fd, BIND, b)
    if cls is not None:
        fcntl.ioctl(fd, SETOPT, struct.pack("=IIQ", 16, CLASS, CLASSES[cls]))
    return fd

def sender(node, port):
    fds = {c: dev(0, c) for c in ("bulk", "background")}
    # Every datagram built first: building G1's 16 MiB takes Python 0.2 s
    # on the host, seconds under TCG, as long as B1 takes to arrive, and
    # L1 must be sent while B1 is still on its way.
    out = []
    for tag, cls, size in PLAN:
        p = payload(tag, size)
        fd, flags = fds.get(cls), 0
        if fd is None:	# per message: F_CLASS | class << 8
            fd, flags = fds["bulk"], 1 | CLASSES[cls] << 8
        out.append((tag, cls, size, fd,
                    struct.pack("=IIHHI", 1, node, port, flags, len(p)) + p))
    for tag, cls, size, fd, d in out:
        os.write(fd, d)
        print("sent", tag, cls, size, flush=True)

def receiver(port, out):
    fd = dev(port)
    fcntl.ioctl(fd, SETOPT, struct.pack("=IIQ", 16, RCVBUF, 256 << 20))
    print("bound", port, flush=True)
    sizes = {t: s for t, _, s in PLAN}
    got = []
    while len(got) < len(PLAN):
        m = os.read(fd, 17 << 20)
        node, sport, flags, ln, _ = struct.unpack("=IHHII", m[:16])
        data = m[16:]
        tag = data[:2].decode(errors="replace")
        ok = tag in sizes and len(data) == ln == sizes[tag] and \
            data == payload(tag, sizes[tag])
        got.append(tag if ok else "bad:" + tag)
        print("got", tag, ln, "ok" if ok else "BAD", flush=True)
    with open(out, "w") as f:
        f.write(" ".join(got) + "\n")

if sys.argv[1] == "send":
    sender(int(sys.argv[2]), int(sys.argv[3]))
else:
    receiver(int(sys.argv[2]), sys.argv[3])
EOF

before() {	# before A B ORDER...: A arrived before B
	local a=$1 b=$2 i=0 ia=-1 ib=-1 t
	shift 2
	for t in "$@"; do
		[ "$t" = "$a" ] && ia=$i
		[ "$t" = "$b" ] && ib=$i
		i=$((i + 1))
	done
	[ $ia -ge 0 ] && [ $ib -ge 0 ] && [ $ia -lt $ib ]
}

# phase NAME: one run of the plan; node 2 checks the arrival order.  Its
# case is titled by the caller.
phase() {
	local name=$1 order pid

	if is_node 2; then
		rm -f /tmp/lanes.order /tmp/lanes.rx.log
		python3 -c "$PY" recv $PORT /tmp/lanes.order \
			> /tmp/lanes.rx.log 2>&1 &
		pid=$!
		wait_for 'receiver bound' 30 grep -q bound /tmp/lanes.rx.log
	fi
	barrier "$name-ready"
	if is_node 1; then
		ok 'send B1 G1 L1 B2 L2 from 2 endpoints' \
			python3 -c "$PY" send 2 $PORT
	else
		wait_for 'all 5 messages received' 180 \
			test -s /tmp/lanes.order
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		read -r -a order < /tmp/lanes.order
		diag "$name: arrival order: ${order[*]}"
		ok_eq '5 messages, each once and intact' \
			"B1 B2 G1 L1 L2" \
			"$(printf '%s\n' "${order[@]}" | sort | tr '\n' ' ' |
			   sed 's/ $//')"
		ok 'latency L1 before bulk B1' before L1 B1 "${order[@]}"
		ok 'latency L1 before background G1' before L1 G1 "${order[@]}"
		ok 'in order within the latency lane (L1, L2)' \
			before L1 L2 "${order[@]}"
		ok 'in order within the bulk lane (B1, B2)' \
			before B1 B2 "${order[@]}"
	fi
	barrier "$name-done" 300
}

run_guest() {
	local o=$((3 - MRC_NODE))

	case_title 'two nodes, all 16 paths up'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$MRC_NODE"
	ok "add peer node$o on both planes" peer_add "$o"
	chk_paths_active "$o" 16 60
	barrier up

	case_title 'credits on: latency overtakes bulk and background, lanes in order'
	phase credit

	case_title 'credit=0: latency overtakes bulk and background, lanes in order'
	ok 'credits off (credit=0)' mrcctl config set credit 0
	phase nocredit
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
