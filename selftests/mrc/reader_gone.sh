#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A /dev/mrc reader that dies while a peer streams to it, as an MPI rank
# killed mid-transfer: node 1 sends 4 MiB messages (scheduled: credits
# on, the default) to a reader on node 2 that stops reading, so that its
# receive queue fills and new messages wait at node 1 (busy answers),
# then is killed with SIGKILL.  Every send of node 1 must end soon after:
# delivered (taken before the kill), or refused (ECONNREFUSED: a released
# file takes nothing new), never by the "no progress" timeout of the
# peer's queue (4 x peer_timeout_ms, ETIMEDOUT), and node 1's endpoint
# closes at once.  Three times: a reader that never reads, one that reads
# a message every half second, and one that never reads 600 small
# messages, hundreds of which wait when it dies: their refusals, ahead
# of delivery where the paths reordered them, must all find room in the
# receiver's books (rx_refuse_waits stays 0).  Titled cases (lib.sh).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_READER_GONE_TIMEOUT:-900}

PORT=7400
MSG=$((4 << 20))
COUNT=24

PY_ABI=$(<"$(dirname "$0")/devmrc_abi.py")
read -r -d '' PY_CHECKS <<'EOF'
def reader(port, mode):
    # A small queue fills with a message or two; then new ones wait.
    fd = dev()
    bind(fd, int(port))
    setopt(fd, RCVBUF, 1 << 20)
    print("bound", flush=True)
    n = 0
    while mode == "slow":
        recv(fd, 8 << 20)
        n += 1
        print("read", n, flush=True)
        time.sleep(0.5)
    time.sleep(3600)

def sender(node, port, count, size, killed):
    # Non-blocking sends of COUNT messages, then until all have ended:
    # how many ended how, and when, against the time of the kill (a file
    # the other node writes).
    fd = dev(os.O_NONBLOCK)
    bind(fd, 0)
    if int(count) > 64:     # all of them queued at once
        setopt(fd, SNDWIN, min(int(count), 1024))
    payload = b"\x5a" * int(size)
    sent = 0
    p = select.poll()
    p.register(fd, select.POLLOUT)
    errors = {}
    t_end = time.monotonic() + 600
    while sent < int(count) and time.monotonic() < t_end:
        try:
            send(fd, int(node), int(port), payload)
            sent += 1
        except OSError as e:
            if e.errno != errno.EAGAIN:
                n = errno.errorcode.get(e.errno, str(e.errno))
                errors[n] = errors.get(n, 0) + 1
                if e.errno != errno.ECONNREFUSED:
                    break
            p.poll(200)
    print("sent", sent, flush=True)
    while not os.path.exists(killed):
        time.sleep(0.1)
    t0 = time.monotonic()
    while stats(fd)["tx_outstanding"] and time.monotonic() - t0 < 60:
        time.sleep(0.1)
    st = stats(fd)
    print("ended %.1f s after the kill" % (time.monotonic() - t0))
    try:
        fcntl.ioctl(fd, FLUSH)
    except OSError as e:
        n = errno.errorcode.get(e.errno, str(e.errno))
        errors[n] = errors.get(n, 0) + 1
    if st["last_error"]:
        n = errno.errorcode.get(-st["last_error"], str(st["last_error"]))
        errors["last " + n] = 1
    print("outstanding", st["tx_outstanding"], "done", st["tx_done"],
          "failed", st["tx_failed"], "errors", errors, flush=True)
    t0 = time.monotonic()
    os.close(fd)
    print("close took %.1f s" % (time.monotonic() - t0), flush=True)

globals()[sys.argv[1]](*sys.argv[2:])
EOF
PY=$PY_ABI$'\n'$PY_CHECKS

val() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$1"; }

msgs() { local k; for k; do printf '%s %s ' "$k" "$(msg_stat "$k")"; done; }
busier() { [ "$(msg_stat rx_busy)" -gt "$1" ]; }	# busier N: rx_busy > N

# one_run MODE: the reader in MODE on node 2, node 1's sends to it
one_run() {
	local mode=$1 out=/tmp/sender.$1.out pid t to0 ref0 b0 rw0
	local count=$COUNT size=$MSG

	[ "$mode" = many ] && count=600 size=4096
	case_title "a $mode reader killed while node 1 streams $count x $size B to it"
	if is_node 2; then
		b0=$(msg_stat rx_busy)
		rw0=$(msg_stat rx_refuse_waits)
		python3 -c "$PY" reader $PORT "$mode" > /tmp/reader.$mode 2>&1 &
		pid=$!
		wait_for "reader bound on port $PORT" 30 \
			grep -q bound /tmp/reader.$mode
		put "reader-$mode" 1
		# The queue fills and node 1's later messages wait.
		wait_for 'node 1 held back (rx_busy of debugfs mrc/msg)' 120 \
			busier "$b0"
		get "sending-$mode" 300 > /dev/null
		sleep 2
		ok "SIGKILL the reader (pid $pid)" kill -KILL "$pid"
		wait "$pid" 2> /dev/null
		: > "$MRC_SHARED/killed.$mode"
		diag "reader: $(tail -n 1 /tmp/reader.$mode)"
	else
		get "reader-$mode" 120 > /dev/null
		to0=$(msg_stat tx_timeout)
		ref0=$(msg_stat tx_refused)
		python3 -c "$PY" sender 2 $PORT "$count" "$size" \
			"$MRC_SHARED/killed.$mode" > "$out" 2>&1 &
		pid=$!
		wait_for 'sends started' 60 grep -q '^sent' "$out"
		put "sending-$mode" 1
		wait_for 'the sender is done' 180 grep -q '^close took' "$out"
		wait "$pid"
		ok_eq 'sender exit status' 0 "$?"
		diag "$(tr '\n' ' ' < "$out")"
		t=$(sed -n 's/^ended \([0-9.]*\) s.*/\1/p' "$out")
		ok "every send ended within 6 s of the kill (${t:-?} s)" \
			awk -v t="${t:-999}" 'BEGIN { exit !(t < 6) }'
		ok_eq 'none outstanding' 0 "$(val "$out" outstanding)"
		ok_eq 'no send timed out (tx_timeout of debugfs mrc/msg)' \
			"$to0" "$(msg_stat tx_timeout)"
		ok "the ones the reader never took were refused (tx_refused +$(($(msg_stat tx_refused) - ref0)))" \
			test "$(msg_stat tx_refused)" -gt "$ref0"
		ok_eq 'failed sends = refused ones' \
			"$(val "$out" failed)" $(($(msg_stat tx_refused) - ref0))
		ok 'its endpoint closed at once' \
			grep -q '^close took 0\.' "$out"
	fi
	barrier "ended-$mode" 300
	if is_node 2 && [ "$mode" = many ]; then
		ok_eq 'every refusal ahead of delivery had room (rx_refuse_waits of debugfs mrc/msg)' \
			"$rw0" "$(msg_stat rx_refuse_waits)"
	fi
	diag "mrc/msg: $(msgs rx_busy rx_refused rx_refuse_waits rx_no_endpoint tx_busy tx_refused tx_timeout)"
	diag "mrc/credit: $(grep '^peer' /sys/kernel/debug/mrc/credit | tr '\n' ' ')"
	barrier "done-$mode" 300
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE))

	case_title 'mrc and the peer on both nodes (default knobs: credits on)'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	ok "add peer node$o on both planes" peer_add "$o"
	chk_paths_active "$o" 16 60
	barrier up 300

	one_run never
	one_run slow
	one_run many

	case_title 'everything closed: no endpoint, no buffer held, mrc unloads'
	wait_for 'no /dev/mrc endpoint left (module refcnt 0)' 30 \
		test "$(cat /sys/module/mrc/refcnt)" = 0
	wait_for 'no message buffer held (rx/tx_buffer_bytes 0)' 30 \
		buffers_free
	ok_eq 'no peer queue timed out' 0 "$(msg_stat tx_timeout)"
	barrier closed 300
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
