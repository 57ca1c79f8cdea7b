#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzing mrc's user-space interfaces (issue 21): nlfuzz (nlfuzz.c) runs
# on both nodes at once for MRC_NLFUZZ_SECONDS (default 60; 600 on the
# debug-kernel lane, i.e. when MRC_KERNEL is set) with
# MRC_NLFUZZ_THREADS netlink and as many /dev/mrc workers (default 2):
# random valid and invalid requests of every command of the netlink
# family, built from its spec, as do and dump, and random BIND, SETOPT,
# GETOPT, STATS, FLUSH, write, read, poll and close on eight /dev/mrc
# files shared by the workers, interrupted by signals, with messages to
# the other node (which reads and checks them), to this node, to
# configured but absent peers and to nodes nobody configured.
#
# What is exercised and what is kept out: peer-add and peer-del name only
# the fuzz peers, node ids 100..107 (their addresses may be the other
# node's: SIDR exchanges the other node must refuse), and this node's own
# id (its own peer if every address is local; deleted at the end); the
# real peer is
# never deleted and the node-id knob never changed; knobs, rail weights,
# classes, the real peer's policy and the default key are changed at
# will and put back every 3 s and at the end (nlfuzz_nl.c).  So the
# fabric the checks below need survives, and the fuzz still reaches
# every command and every knob.
#
# Before, nlfuzz --selftest builds 2000 clean and 2000 mutated requests
# of every operation without sending them: none may delete the real
# peer, add another peer than a fuzz peer or change the node id, and the
# clean ones must be as the spec says.
#
# Afterwards, on each node: nlfuzz saw no anomaly (every reply and event
# as the spec says, every message read intact), the state is back (knobs
# as before, the peer alone, its 16 paths active), a /dev/mrc exchange
# each way is whole, (node 1) a run's cleanup deletes the node's own peer
# (one operation of seed 1, node 1 its own peer before), the reassembly and send buffers are back to 0, mrc
# unloads, leaves no slab cache and no rdma_cm id, no allocation site of
# mrc (or of its address handles and cm ids) grew by LEAK_OBJS objects
# or more over the run (slub_debug=U, as teardown.sh), and dmesg shows no
# WARNING, BUG, Oops, KASAN report or list corruption (lib.sh checks
# the rest of the kernel's complaints).  MRC_NLFUZZ_SEED sets the seed
# (node N uses SEED + N); each run prints its own.  Written as titled
# cases (lib.sh's case_title and chk_* helpers).  MRC_NLFUZZ_ARGS adds
# nlfuzz options, e.g. --node-id (the node-id knob fuzzed as well).
source "$(dirname "$0")/lib.sh"
NODES=2
: "${MRC_NLFUZZ_SECONDS:=$([ -n "${MRC_KERNEL:-}" ] && echo 600 || echo 60)}"
export MRC_NLFUZZ_SECONDS
FUZZ_S=$MRC_NLFUZZ_SECONDS
THREADS=${MRC_NLFUZZ_THREADS:-2}
ARGS=${MRC_NLFUZZ_ARGS:-}	# more nlfuzz options (e.g. --node-id)
TIMEOUT=$((900 + 2 * FUZZ_S))
export MRC_APPEND="${MRC_APPEND:-} slub_debug=U"
LEAK_OBJS=50		# a site grown by this many objects is a leak

NLFUZZ=$(dirname "$0")/nlfuzz
XCHG_PORT=7200
XCHG_N=20

PY_ABI=$(<"$(dirname "$0")/devmrc_abi.py")
# An exchange after the fuzz: XCHG_N messages each way, all whole.
read -r -d '' PY_XCHG <<'EOF'
peer, port, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
me = 3 - peer
ramp = bytes(range(256)) * 300
body = lambda src, i: ramp[(src * 37 + i) & 0xff:][:1 + i * 3001]
fd = dev()
bind(fd, port)
print("bound", flush=True)
while not os.path.exists("/tmp/xchg-go"):
    time.sleep(0.1)
for i in range(n):
    send(fd, peer, port, body(me, i))
got = []
p = select.poll()
p.register(fd, select.POLLIN)
t = time.time()
while len(got) < n and time.time() - t < 120:
    if p.poll(1000):
        node, sport, data = recv(fd, 64 << 20)
        got.append((node, sport, data))
fcntl.ioctl(fd, FLUSH)
st = stats(fd)
want = [(peer, port, body(peer, i)) for i in range(n)]
print("received %d of %d, intact and in order: %s; tx_done %d tx_failed %d"
      % (len(got), n, got == want, st["tx_done"], st["tx_failed"]))
sys.exit(0 if got == want and st["tx_done"] == n and not st["tx_failed"] else 1)
EOF

# Live objects per allocation site of mrc, of the AHs and cm ids it has
# the RDMA core make (slub_debug=U's alloc_traces; as teardown.sh):
# "cache:site[module] N".  Taken while mrc is loaded.
site_snapshot() {
	local f
	slab_flush_freed
	for f in /sys/kernel/debug/slab/kmalloc-*/alloc_traces; do
		awk -v c="$(basename "$(dirname "$f")")" '
			/^ *[0-9]+ / && $3 ~ /^\[(mrc|ib_core|rdma_cm)\]$/ {
				site = $2; sub(/\+.*/, "", site)
				n[c ":" site $3] += $1
			}
			END { for (k in n) print k, n[k] }' "$f"
	done | sort | grep -E '\[mrc\]|^[^ ]*:(_rdma_create_ah|__rdma_create_id)\['
}

knobs() { mrcctl -j config show | jq -c '[.[] | {name, value}]'; }

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) seed knobs0 cm0 pid grown

	case_title 'setup: mrc, the peer on both planes'
	cm0=$(rdma res show cm_id 2>/dev/null | grep -c .)
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	ok "add peer node$o on both planes" peer_add "$o"
	chk_paths_active "$o" 16 120
	knobs0=$(knobs)
	ok 'knobs read' test -n "$knobs0"
	mrc_sleep 5	# idle receive-pool classes are emptied after ~3 s
	site_snapshot > /tmp/sites0
	barrier setup 300

	case_title 'the request builder keeps to its bounds (no kernel involved)'
	relay_tap nlfuzz "$NLFUZZ" --selftest 2000 --peer "$o"

	seed=$(( ${MRC_NLFUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))} + n ))
	case_title "nlfuzz on both nodes, $FUZZ_S s, $THREADS + $THREADS workers, seed $seed"
	# shellcheck disable=SC2086 # ARGS: several words
	relay_tap nlfuzz "$NLFUZZ" --seed "$seed" --seconds "$FUZZ_S" --threads "$THREADS" \
		--peer "$o" --peer-addr "$(node_ip "$o" 0),$(node_ip "$o" 1)" $ARGS
	# What the engine still holds (shown if anything here failed): the
	# sends of files the fuzz closed may still be queued.
	diag "mrc/queues after the fuzz:"$'\n'"$(head -n 80 /sys/kernel/debug/mrc/queues)"
	barrier fuzzed $((FUZZ_S * 3 + 300))
	diag "mrc/queues when both nodes are done:"$'\n'"$(head -n 80 /sys/kernel/debug/mrc/queues)"
	diag "mrc/msg: $(grep -E '^(rx_no_mem|rx_refused|rx_expired|rx_gone_pkts|rx_gone_sacks|tx_epoch_gone|tx_timeout|tx_refused|rx_busy) ' \
		/sys/kernel/debug/mrc/msg | tr '\n' ' ')"

	case_title 'afterwards: the state is back, the peer reachable'
	ok_eq 'every knob as before the fuzz' "$knobs0" "$(knobs)"
	ok_eq "only node$o is a peer (fuzz peers deleted)" "[$o]" \
		"$(mrcctl -j peer show | jq -c '[.[].node]')"
	chk_paths_active "$o" 16 180 'again'
	rm -f /tmp/xchg-go
	python3 -c "$PY_ABI"$'\n'"$PY_XCHG" "$o" $XCHG_PORT $XCHG_N \
		> /tmp/xchg.out 2>&1 &
	pid=$!
	wait_for '/dev/mrc exchange endpoint bound' 30 grep -q bound /tmp/xchg.out
	barrier xchg-bound
	: > /tmp/xchg-go
	wait "$pid"
	ok_eq "$XCHG_N messages each way through /dev/mrc, whole and in order" \
		0 "$?"
	diag "exchange: $(tr '\n' ' ' < /tmp/xchg.out)"
	barrier xchg-done

	# A peer-add of our own id with only local addresses makes this node
	# its own peer (the fuzz peers' cleanup missed it once: seed
	# 373034506).  One operation of a fixed sequence (not a peer-del of
	# our id), then the cleanup.
	if is_node 1; then
		case_title "the fuzz's cleanup deletes this node's own peer"
		ok 'add this node as its own peer' peer_add "$n"
		relay_tap nlfuzz "$NLFUZZ" --seed 1 --seconds 10 --threads 1 \
			--count 1 --peer "$o" \
			--peer-addr "$(node_ip "$o" 0),$(node_ip "$o" 1)"
		ok_eq "only node$o is a peer" "[$o]" \
			"$(mrcctl -j peer show | jq -c '[.[].node]')"
	fi
	barrier own-peer-done

	case_title 'no leak: buffers back to 0, mrc unloads clean'
	wait_for 'reassembly and send buffers back to 0' 60 buffers_free
	mrc_sleep 5
	site_snapshot > /tmp/sites1
	ok 'slab allocation sites of mrc traced' test -s /tmp/sites0
	grown=$(join -a 2 -e 0 -o 0,1.2,2.2 /tmp/sites0 /tmp/sites1 |
		awk -v lim=$LEAK_OBJS '$3 - $2 >= lim { print $1": "$2" -> "$3 }')
	ok_eq "no slab site of mrc, its AHs or cm ids grew by >= $LEAK_OBJS objects" \
		"" "$grown"
	barrier quiet
	ok 'modprobe -r mrc' modprobe -r mrc
	chk_unloaded
	ok 'no mrc_rx slab cache left' sh -c '! grep -q "^mrc_rx " /proc/slabinfo'
	ok_eq 'no rdma_cm id left' "$cm0" \
		"$(rdma res show cm_id 2>/dev/null | grep -c .)"
	ok 'dmesg: no KASAN report, no list corruption' \
		sh -c '! dmesg | grep -E "KASAN|list_(add|del) corruption"'
}

mrc_test_main "$@"
