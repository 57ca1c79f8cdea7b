#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Busy polling of /dev/mrc readers (MRC_OPT_BUSY_POLL, mrc/cq.c) between
# two nodes: the option's ABI (bounds, CAP_NET_ADMIN to raise it); a
# reader that would not wait never busy polls, one that waits polls for
# the time it asked and then sleeps; mrc-perf lat with and without
# --busy-poll (with it, the busy-polling readers find messages
# themselves: busy_hit of debugfs mrc/events; how many, and the
# latencies, are diagnostics); a rail deleted while a reader busy polls
# its CQ; then everything closes and mrc unloads.  Titled cases (lib.sh).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_BUSYPOLL_TIMEOUT:-900}

PERF_PORT=18515		# mrc-perf server that sleeps
BUSY_PORT=18516		# mrc-perf server that busy polls
BUSY_US=10000		# MRC_DEV_BUSY_POLL_MAX

PY3=$(command -v /usr/bin/python3 python3 | head -n1)
# root's uid without any capability: may open the 0600 device, lacks
# CAP_NET_ADMIN
NOCAPS=(setpriv --inh-caps=-all --bounding-set=-all --no-new-privs)

# The checks, in Python, after the ABI (devmrc_abi.py).
PY_ABI=$(<"$(dirname "$0")/devmrc_abi.py")
read -r -d '' PY_CHECKS <<'EOF'
def bound():
    fd = dev(os.O_NONBLOCK)
    bind(fd, 0)
    return fd

def expect_err(e, f, *a):
    try:
        f(*a)
    except OSError as x:
        assert x.errno == e, "errno %d, expected %d" % (x.errno, e)
        return
    raise AssertionError("no error, expected errno %d" % e)

def opt():
    fd = bound()
    assert getopt(fd, BUSY_POLL) == 0, "default is not 0"
    setopt(fd, BUSY_POLL, 500)
    assert getopt(fd, BUSY_POLL) == 500
    setopt(fd, BUSY_POLL, 10000)
    assert getopt(fd, BUSY_POLL) == 10000
    expect_err(errno.EINVAL, setopt, fd, BUSY_POLL, 10001)
    assert getopt(fd, BUSY_POLL) == 10000, "EINVAL changed the value"
    setopt(fd, BUSY_POLL, 0)
    assert getopt(fd, BUSY_POLL) == 0

def nocap():
    fd = bound()
    expect_err(errno.EPERM, setopt, fd, BUSY_POLL, 1)
    assert getopt(fd, BUSY_POLL) == 0, "EPERM changed the value"

def nocap_lower(v):
    # the caller set it (with the capability) and passes the fd down
    fd = int(os.environ["MRC_BP_FD"])
    assert getopt(fd, BUSY_POLL) == int(v)
    setopt(fd, BUSY_POLL, int(v) // 2)
    assert getopt(fd, BUSY_POLL) == int(v) // 2

def held(v, *args):
    fd = bound()
    setopt(fd, BUSY_POLL, int(v))
    os.set_inheritable(fd, True)
    os.environ["MRC_BP_FD"] = str(fd)
    os.execvp(args[0], args)

def nowait():
    # O_NONBLOCK read and poll(0) do not wait, so they do not busy poll.
    fd = bound()
    setopt(fd, BUSY_POLL, 10000)
    expect_err(errno.EAGAIN, os.read, fd, 65536)
    p = select.poll()
    p.register(fd, select.POLLIN)
    assert p.poll(0) == []

def waits(ms):
    # A silent endpoint: poll() busy polls 10 ms, then sleeps the rest.
    fd = bound()
    setopt(fd, BUSY_POLL, 10000)
    p = select.poll()
    p.register(fd, select.POLLIN)
    t = time.monotonic()
    r = p.poll(int(ms))
    dt = (time.monotonic() - t) * 1000
    assert r == [], "a message on a silent endpoint: %r" % r
    assert dt >= int(ms) * 0.9, "poll returned after %.1f ms" % dt
    print("poll(%s ms) returned after %.1f ms" % (ms, dt))

def spin(secs):
    # Waits, busy polling, until SECS have passed (while a rail goes).
    fd = bound()
    setopt(fd, BUSY_POLL, 10000)
    p = select.poll()
    p.register(fd, select.POLLIN)
    end = time.monotonic() + float(secs)
    n = 0
    while time.monotonic() < end:
        p.poll(20)
        n += 1
    print("%d polls" % n)

globals()[sys.argv[1]](*sys.argv[2:])
EOF
PY=$PY_ABI$'\n'$PY_CHECKS

py() { "$PY3" -c "$PY" "$@"; }

perf_lat() {	# perf_lat OUT PORT [ARGS...]: mrc-perf lat 4 KiB x 300, JSON
	local out=$1 port=$2
	shift 2
	mrc-perf -c 2 -p "$port" lat -m 4096 -n 300 -j "$@" > "$out" &&
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; assert r[0]["iterations"] == 300' "$out"
}

lat_of() {	# lat_of FILE: "p50 / p99 us"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("p50 %.0f / p99 %.0f us" % (r["p50_us"], r["p99_us"]))' "$1" 2>/dev/null
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) pids=() k
	local -A e0

	case_title 'mrc-perf servers on node 2, one sleeping, one busy polling'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	ok "add peer node$o on both planes" peer_add "$o"
	chk_paths_active "$o" 16 60
	if is_node 2; then
		mrc-perf -s -p $PERF_PORT > /tmp/perf-server.log 2>&1 &
		pids+=($!)
		mrc-perf -s -p $BUSY_PORT --busy-poll > /tmp/busy-server.log 2>&1 &
		pids+=($!)
		wait_for 'mrc-perf server bound' 30 \
			grep -q server /tmp/perf-server.log
		wait_for 'busy-polling mrc-perf server bound' 30 \
			grep -q server /tmp/busy-server.log
	fi
	barrier servers-up 300

	case_title 'MRC_OPT_BUSY_POLL: default 0, 0..10000 us, raising needs CAP_NET_ADMIN'
	if is_node 1; then
		ok 'default 0; 500 and 10000 read back; 10001 EINVAL, value kept' \
			py opt
		ok 'without CAP_NET_ADMIN: raising it EPERM, value kept' \
			"${NOCAPS[@]}" "$PY3" -c "$PY" nocap
		ok 'without CAP_NET_ADMIN: lowering it works' \
			py held 800 "${NOCAPS[@]}" "$PY3" -c "$PY" nocap_lower 800
	fi

	case_title 'only a reader that waits busy polls, for as long as it asked'
	if is_node 1; then
		e0[busy_poll]=$(ev_stat busy_poll)
		e0[busy_hit]=$(ev_stat busy_hit)
		ok 'O_NONBLOCK read EAGAIN and poll(0) empty, busy poll set' \
			py nowait
		ok_eq 'they did not busy poll (busy_poll unchanged)' \
			"${e0[busy_poll]}" "$(ev_stat busy_poll)"
		ok 'poll(300 ms) on a silent endpoint returns empty after 300 ms' \
			py waits 300
		_chk_cmp 'it busy polled first' busy_poll \
			$(($(ev_stat busy_poll) - e0[busy_poll])) '>' 0
		ok_eq 'and found nothing (busy_hit unchanged)' \
			"${e0[busy_hit]}" "$(ev_stat busy_hit)"
	fi
	barrier abi-done 300

	case_title 'mrc-perf lat 4 KiB x 300: sleeping readers, then busy-polling ones'
	for k in busy_poll busy_cqe busy_hit rx_cqe tx_cqe tx_reap cq_work \
		deliver; do
		e0[$k]=$(ev_stat "$k")
	done
	barrier lat-before
	is_node 1 && ok 'mrc-perf lat, no busy polling' \
		perf_lat /tmp/lat.sleep $PERF_PORT
	barrier lat-sleep-done 300
	ok_eq "node$n: nothing busy polled (busy_poll unchanged)" \
		"${e0[busy_poll]}" "$(ev_stat busy_poll)"
	# The send CQ is reaped by whoever posts, right after (mrc/cq.c,
	# Lazy CQs): a send completion wakes no work item.
	local reap
	reap=$(($(ev_stat tx_reap) - e0[tx_reap]))
	diag "node$n: tx_reap $reap of $(($(ev_stat tx_cqe) - e0[tx_cqe])) send completions; cq_work $(($(ev_stat cq_work) - e0[cq_work])) for $(($(ev_stat deliver) - e0[deliver])) messages delivered"
	_chk_cmp "node$n: send completions reaped by their posters" tx_reap \
		"$reap" '>' 0
	for k in busy_poll busy_cqe busy_hit rx_cqe tx_cqe cq_work deliver; do
		e0[$k]=$(ev_stat "$k")
	done
	barrier lat-busy-before
	is_node 1 && ok 'mrc-perf lat --busy-poll, to the busy-polling server' \
		perf_lat /tmp/lat.busy $BUSY_PORT --busy-poll
	barrier lat-busy-done 300
	local hit cqe all
	hit=$(($(ev_stat busy_hit) - e0[busy_hit]))
	cqe=$(($(ev_stat busy_cqe) - e0[busy_cqe]))
	all=$(($(ev_stat rx_cqe) + $(ev_stat tx_cqe) - e0[rx_cqe] - e0[tx_cqe]))
	diag "node$n: busy_hit $hit, busy_cqe $cqe of $all completions"
	# the CQ work items that still ran, per message delivered here (what
	# busy polling saves; mrc/cq.c, Busy mode)
	diag "node$n: cq_work $(($(ev_stat cq_work) - e0[cq_work])) for $(($(ev_stat deliver) - e0[deliver])) messages delivered"
	# How many of the 300 a busy poll finds depends on the round trip
	# against the 10 ms window (several ms on a loaded TCG host): that
	# some are found is the property, the share is a diagnostic.
	_chk_cmp "node$n: readers found messages busy polling" busy_hit \
		"$hit" '>' 0
	_chk_cmp "node$n: busy pollers handled completions" busy_cqe \
		"$cqe" '>' 0
	if is_node 1; then
		diag "sleeping: $(lat_of /tmp/lat.sleep); busy polling: $(lat_of /tmp/lat.busy)"
	fi

	case_title 'a rail is deleted while a reader busy polls its CQ'
	if is_node 1; then
		py spin 6 > /tmp/spin.out 2>&1 &
		local spid=$!
		mrc_sleep 2
		ok 'rdma link delete rxe1 while the reader busy polls' \
			rdma link delete rxe1
		mrc_sleep 1
		ok 'rxe1 re-added' rdma link add rxe1 type rxe netdev eth1
		wait $spid
		ok_eq 'the reader went on and ended normally (exit status)' 0 $?
		diag "$(cat /tmp/spin.out)"
	fi
	barrier rail-done 300
	chk_paths_active "$o" 16 90

	case_title 'the servers stop, every endpoint closes, mrc unloads'
	if is_node 2; then
		kill "${pids[@]}" 2>/dev/null
		wait "${pids[@]}" 2>/dev/null
		ok 'servers gone, /dev/mrc endpoints closed' \
			test "$(cat /sys/module/mrc/refcnt)" = 0
	fi
	barrier servers-down
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
