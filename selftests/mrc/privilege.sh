#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Privilege and isolation boundaries, each tried by a process that lacks
# the privilege and expecting the refusal:
#  - netlink: config set, peer add, peer del need CAP_NET_ADMIN (EPERM,
#    with mrcctl's "needs CAP_NET_ADMIN"), for user nobody and for root
#    without the capability; nothing changed; reading stays open; the sysfs
#    knobs are not writable by nobody.
#  - /dev/mrc is 0600 root by default: nobody's open() is EACCES.  Then,
#    as an operator's udev rule would (Documentation/mrc/devmrc.rst), the
#    device is opened to everyone (0666) and:
#  - ports below 1024 need CAP_NET_BIND_SERVICE (EACCES for nobody and for
#    root without it; root with it binds);
#  - a port held by root's endpoint cannot be taken by nobody (EADDRINUSE)
#    and nobody's endpoint receives none of root's messages, while its own
#    arrive;
#  - memory per endpoint: nobody cannot raise RCVBUF past 256 MiB; an
#    endpoint whose receive queue is full holds new messages back at
#    their sender (none dropped) while another endpoint on the node
#    receives everything (in another class); the dev_sndbuf_mb knob
#    bounds the bytes one endpoint has in flight (EAGAIN beyond, one
#    message always fits alone) without blocking another endpoint; the
#    dev_mem_mb knob bounds what all endpoints of the node hold together
#    (new messages wait at their sender, writes fail with ENOBUFS).
# Written as titled cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_PRIVILEGE_TIMEOUT:-600}

ECHO_PORT=7000
PY3=$(command -v /usr/bin/python3 python3 | head -n1)
# root (uid 0) without one capability: the check is on the capability.
ROOT_WITHOUT() {	# ROOT_WITHOUT CAP CMD...
	local cap=$1
	shift
	setpriv --inh-caps=-"$cap" --bounding-set=-"$cap" "$@"
}

# The checks, in Python, after the ABI and its helpers (devmrc_abi.py).
PY_ABI=$(<"$(dirname "$0")/devmrc_abi.py")
read -r -d '' PY_CHECKS <<'EOF'
def readable(fd, t=30):
    p = select.poll()
    p.register(fd, select.POLLIN)
    return bool(p.poll(t * 1000))

def drop_to_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)

def echo_server(port):
    fd = dev()
    bind(fd, port)
    setopt(fd, RCVBUF, 256 << 20)
    print("echo on", port, flush=True)
    while True:
        node, sport, data = recv(fd, 65 << 20)
        if data.startswith(b"BURST "):
            # BURST N SIZE [CLASS]
            a = data.split()
            cls = int(a[3]) if len(a) > 3 else None
            for i in range(int(a[1])):
                send(fd, node, sport, bytes([i & 0xff]) * int(a[2]), cls=cls)
        elif data.startswith(b"SINK"):
            pass
        else:
            send(fd, node, sport, data)

def holder(port, ctl):
    # Root on node 2: takes one message on PORT (RCVBUF 4096), so that
    # what follows waits at its sender, until DRAIN arrives on CTL; then
    # reads PORT up to END and prints how many came, each checked.
    fd, c = dev(), dev()
    bind(fd, port)
    bind(c, ctl)
    setopt(fd, RCVBUF, 4096)
    print("holding on", port, flush=True)
    expect("control message", b"DRAIN", recv(c)[2])
    n = 0
    while True:
        data = recv(fd, 2 << 20)[2]
        if data == b"END":
            break
        expect("held message %d" % n, hold_payload(n), data)
        n += 1
    print("held", n, flush=True)

def hold_payload(i):
    return struct.pack("=I", i) + bytes([i & 0xff]) * ((1 << 20) - 4)

def cgroup_file(name):
    with open("/proc/self/cgroup") as f:
        path = f.read().strip().split("::")[1]
    with open("/sys/fs/cgroup%s/%s" % (path, name)) as f:
        return f.read()

def memcg(peer, full, drained):
    # Nobody, in a cgroup of 32 MiB: 1 MiB sends to node 2's holder stay
    # outstanding (charged to this cgroup) until one does not fit: it
    # must fail with ENOMEM, the process must live, and once node 2 reads,
    # every accepted one completes and the memory comes back.
    drop_to_nobody()
    fd = dev(os.O_NONBLOCK)
    bind(fd, 0)
    k, err = 0, "none"
    while k < 64:
        err = errno_of(send, fd, peer, 7001, hold_payload(k))
        if err != "success":
            break
        k += 1
    cur = int(cgroup_file("memory.current"))
    print("accepted", k, "then", err, "memory.current", cur >> 20, "MiB",
          flush=True)
    expect("a send past the cgroup's limit", "ENOMEM", err)
    expect("accepted 4..32 MiB first", True, 4 <= k <= 32)
    expect("memory.current holds them", True, cur >= k << 20)
    open(full, "w").close()
    while not os.path.exists(drained):
        time.sleep(0.2)
    t = time.time()
    while stats(fd)["tx_outstanding"] and time.time() - t < 120:
        time.sleep(0.2)
    st = stats(fd)
    after = int(cgroup_file("memory.current"))
    print("done", st["tx_done"], "failed", st["tx_failed"],
          "memory.current", after >> 20, "MiB", flush=True)
    expect("every accepted send done, none failed", (k, 0),
           (st["tx_done"], st["tx_failed"]))
    # The process's own pages (page cache it reads again) may come back
    # meanwhile: up to 8 MiB of them.
    expect("their memory uncharged", True,
           after <= cur - (k << 20) + (8 << 20))
    events = cgroup_file("memory.events")
    expect("no OOM kill in the cgroup", True, "oom_kill 0" in events)

def check(name, peer):
    if name == "open":
        expect("open", "EACCES", errno_of(dev))
    elif name == "lowport":
        fd = dev()
        expect("bind 80", "EACCES", errno_of(bind, fd, 80))
        expect("bind 1023", "EACCES", errno_of(bind, fd, 1023))
        expect("bind 1024", 1024, bind(fd, 1024))
    elif name == "lowport_ok":
        expect("bind 80 with CAP_NET_BIND_SERVICE", 80, bind(dev(), 80))
    elif name == "isolation":
        # Root's endpoint holds port 7100; a child drops to nobody.
        a = dev()
        bind(a, 7100)
        r, w = os.pipe()
        r2, w2 = os.pipe()
        pid = os.fork()
        if pid == 0:
            drop_to_nobody()
            b = dev(os.O_NONBLOCK)
            expect("nobody binds root's port", "EADDRINUSE",
                   errno_of(bind, b, 7100))
            bind(b, 0)
            os.write(w2, b"r")
            os.read(r, 1)		# root's messages have come back
            expect("nobody got none of root's", "EAGAIN",
                   errno_of(os.read, b, 1 << 20))
            expect("nobody's rx_msgs", 0, stats(b)["rx_msgs"])
            send(b, peer, 7000, b"nobody's own")
            expect("own reply readable", True, readable(b))
            expect("own reply", (peer, 7000, b"nobody's own"), recv(b))
            os._exit(0)
        os.read(r2, 1)
        for i in range(5):
            send(a, peer, 7000, b"root %d" % i)
        for i in range(5):
            expect("root readable", True, readable(a))
            expect("root's reply", (peer, 7000, b"root %d" % i), recv(a))
        os.write(w, b"g")
        _, st = os.waitpid(pid, 0)
        expect("nobody's checks", 0, st)
        time.sleep(0.3)
        expect("root got nothing of nobody's", 5, stats(a)["rx_msgs"])
    elif name == "rcvbuf":
        drop_to_nobody()
        full, other = dev(), dev()
        bind(full, 0)
        bind(other, 0)
        expect("RCVBUF 512 MiB", "EINVAL",
               errno_of(setopt, full, RCVBUF, 512 << 20))
        setopt(full, RCVBUF, 4096)
        # The other endpoint's messages come in the latency class: those
        # of the same class from the same node would wait behind the full
        # endpoint's (one ordered lane per node and class).
        # Past RCVBUF only what was admitted before the queue showed
        # full (messages in flight together: msg_rx.c, Back-pressure), so
        # a burst longer than that.
        send(full, peer, 7000, b"BURST 20 3000")
        send(other, peer, 7000, b"BURST 3 3000 1")
        t = time.time()
        while time.time() - t < 30:
            sf, so = stats(full), stats(other)
            if sf["rx_busy"] >= 1 and so["rx_msgs"] >= 3:
                break
            time.sleep(0.1)
        expect("full endpoint: only what was in flight queued, the rest "
               "held back, none dropped", (True, True, 0),
               (1 <= sf["rx_queued_msgs"] <= 4, sf["rx_busy"] >= 1,
                sf["rx_dropped"]))
        expect("other endpoint: all 3", (3, 0),
               (so["rx_msgs"], so["rx_dropped"]))
        for i in range(20):
            expect("full endpoint: message %d after reading" % i,
                   bytes([i]) * 3000, recv(full)[2])
        expect("full endpoint: all 20, none dropped", (20, 0),
               (stats(full)["rx_msgs"], stats(full)["rx_dropped"]))
    elif name == "devmem":
        # dev_mem_mb 64 on this node (set by the caller): 24 x 4 MiB for
        # one endpoint fill the node's budget; the rest wait at the
        # sender, a write from another endpoint fails with ENOBUFS, and
        # once read, everything arrived and writes go again.
        drop_to_nobody()
        a, b = dev(), dev()
        bind(a, 0)
        bind(b, 0)
        setopt(a, RCVBUF, 256 << 20)
        size = 4 << 20
        send(a, peer, 7000, b"BURST 24 %d" % size)
        t = time.time()
        while time.time() - t < 300:
            st = stats(a)
            if st["rx_busy"] >= 1:
                break
            time.sleep(0.2)
        time.sleep(1)
        st = stats(a)
        q = st["rx_queued_bytes"]
        expect("held back at 64 MiB (%d MiB queued, rx_busy %d)" %
               (q >> 20, st["rx_busy"]), True,
               st["rx_busy"] >= 1 and 60 << 20 <= q <= (64 << 20) + 3 * size)
        expect("another endpoint's 8 MiB write", "ENOBUFS",
               errno_of(send, b, peer, 7000, b"x" * (8 << 20)))
        for i in range(24):
            expect("readable", True, bool(readable(a, 120)))
            expect("message %d intact" % i, bytes([i]) * size,
                   recv(a, size + 16)[2])
        expect("none dropped", 0, stats(a)["rx_dropped"])
        send(b, peer, 7000, b"after")
        expect("then the other endpoint's write goes", True,
               bool(readable(b)) and recv(b)[2] == b"after")
    elif name in ("sndbuf", "sndbuf_default"):
        # With dev_sndbuf_mb 1: a 1 MiB message in flight leaves no room.
        drop_to_nobody()
        a, b = dev(os.O_NONBLOCK), dev(os.O_NONBLOCK)
        bind(a, 0)
        bind(b, 0)
        big = b"SINK" + bytes((1 << 20) - 4)
        eagain = held = 0
        for i in range(5):
            done = stats(a)["tx_done"]
            expect("1 MiB alone", 1 << 20, send(a, peer, 7000, big)
                   - 16)
            e = errno_of(send, a, peer, 7000, b"SINK more")
            if e == "EAGAIN":
                eagain += 1
                p = select.poll()
                p.register(a, select.POLLOUT)
                ev = p.poll(0)
                # The 1 MiB may complete between the write and the poll:
                # then POLLOUT is right, and tx_done counts it (a
                # completion is counted before its room is given back).
                gone = stats(a)["tx_done"] > done
                expect("no POLLOUT while the 1 MiB is in flight", True,
                       not ev or gone)
                held += not ev
                # Another endpoint is not held back by this one.
                expect("other endpoint sends", 16 + 4 + 1000,
                       send(b, peer, 7000, b"SINK" + bytes(1000)))
            else:
                expect("second write", "success", e)
            fcntl.ioctl(a, FLUSH)
        fcntl.ioctl(b, FLUSH)
        if name == "sndbuf":
            expect("EAGAIN and no POLLOUT seen with 1 MiB in flight "
                   "(of 5)", True, held > 0)
            # Above the cap, alone: always accepted.
            expect("4 MiB alone", 4 << 20,
                   send(a, peer, 7000, b"SINK" + bytes((4 << 20) - 4)) - 16)
            fcntl.ioctl(a, FLUSH)
        else:
            expect("no EAGAIN at the default 256 MiB", 0, eagain)
        s = stats(a)
        expect("all sent, none failed", (0, 0),
               (s["tx_outstanding"], s["tx_failed"]))
        print("EAGAIN in", eagain, "of 5, POLLOUT held back in", held)
    else:
        print("unknown check", name)
        sys.exit(2)

if sys.argv[1] == "echo":
    echo_server(int(sys.argv[2]))
elif sys.argv[1] == "holder":
    holder(7001, 7002)
elif sys.argv[1] == "memcg":
    memcg(int(sys.argv[2]), sys.argv[3], sys.argv[4])
elif sys.argv[1] == "send":
    # send NODE PORT TEXT [CLASS]
    fd = dev()
    bind(fd, 0)
    send(fd, int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].encode(),
         cls=int(sys.argv[5]) if len(sys.argv) > 5 else None)
else:
    check(sys.argv[1], int(sys.argv[2]))
EOF
PY=$PY_ABI$'\n'$PY_CHECKS

knob() { cat "/sys/kernel/mrc/$1"; }

netlink_checks() {
	local mrcctl addr5 who
	local eperm='Operation not permitted (needs CAP_NET_ADMIN)'
	mrcctl=$(command -v mrcctl)
	addr5="$(node_ip 5 0),$(node_ip 5 1)"
	for who in nobody root-without-cap; do
		local -a run
		if [ $who = nobody ]; then
			run=("${UNPRIV[@]}")
		else
			run=(ROOT_WITHOUT net_admin)
		fi
		chk_refused "$who: config set probe_ms refused (EPERM, CAP_NET_ADMIN)" \
			"$eperm" "${run[@]}" "$mrcctl" config set probe_ms 300
		chk_refused "$who: config set dev_sndbuf_mb refused" \
			"$eperm" "${run[@]}" "$mrcctl" config set dev_sndbuf_mb 1
		chk_refused "$who: peer add refused" \
			"$eperm" "${run[@]}" "$mrcctl" peer add 5 addr "$addr5"
		chk_refused "$who: peer del refused" \
			"$eperm" "${run[@]}" "$mrcctl" peer del 2
	done
	ok_eq 'probe_ms unchanged' 250 "$(knob probe_ms)"
	ok_eq 'dev_sndbuf_mb unchanged' 256 "$(knob dev_sndbuf_mb)"
	chk_refused 'peer 5 not added: "no such peer"' 'no such peer' \
		mrcctl peer show 5
	ok 'peer 2 still there' mrcctl peer show 2
	ok 'nobody may read: config show' "${UNPRIV[@]}" "$mrcctl" config show
	ok 'nobody may read: rail show' "${UNPRIV[@]}" "$mrcctl" rail show
	ok 'nobody may read: peer show' "${UNPRIV[@]}" "$mrcctl" peer show
	chk_refused 'nobody cannot write a sysfs knob' 'Permission denied' \
		"${UNPRIV[@]}" sh -c 'echo 300 > /sys/kernel/mrc/probe_ms'
	ok_eq 'probe_ms still unchanged' 250 "$(knob probe_ms)"
}

py() { "$PY3" -c "$PY" "$@"; }

# Send memory is charged to the sender's memory cgroup: nobody's process
# in a cgroup of 32 MiB sends 1 MiB messages that node 2's holder keeps
# waiting (the checks: memcg() above), then root tells the holder to read.
memcg_case() {
	local cg=/sys/fs/cgroup/mrc-memcg out=/tmp/memcg.out pid

	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	ok 'memory controller for child cgroups' \
		sh -c 'echo +memory > /sys/fs/cgroup/cgroup.subtree_control'
	mkdir -p $cg && echo 32M > $cg/memory.max
	ok_eq 'cgroup memory.max 32 MiB' $((32 << 20)) "$(cat $cg/memory.max)"
	chmod 0666 /dev/mrc
	rm -f /tmp/memcg.full /tmp/memcg.drained
	sh -c 'echo $$ > '$cg'/cgroup.procs && exec "$@"' sh \
		"$PY3" -c "$PY" memcg 2 /tmp/memcg.full /tmp/memcg.drained \
		> $out 2>&1 &
	pid=$!
	wait_for 'the cgroup is full' 300 test -e /tmp/memcg.full
	# DRAIN in the latency class: in the held messages' class it would
	# wait behind them (one ordered lane per node, class and port bucket).
	ok 'DRAIN to the holder (root, outside the cgroup)' \
		py send 2 7002 DRAIN 1
	ok 'END after the held messages, in their lane' py send 2 7001 END
	: > /tmp/memcg.drained
	wait $pid
	ok_eq 'nobody: ENOMEM past the limit, alive, all accepted done, memory back' \
		0 "$?"
	diag "$(tr '\n' ' ' < $out)"
	ok_eq 'node 2 received exactly the accepted ones, intact' \
		"$(sed -n 's/^accepted \([0-9]*\) .*/\1/p' $out)" "$(get held 300)"
	chmod 0600 /dev/mrc
	rmdir $cg
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) pid

	case_title 'both nodes up; node 2 runs an echo endpoint on /dev/mrc'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	ok "add peer node$o on both planes" peer_add "$o"
	chk_paths_active "$o" 16 60

	if is_node 2; then
		"$PY3" -c "$PY" echo $ECHO_PORT > /tmp/echo.log 2>&1 &
		pid=$!
		wait_for 'echo endpoint bound' 30 grep -q echo /tmp/echo.log
		"$PY3" -c "$PY" holder > /tmp/holder.log 2>&1 &
		wait_for 'holder bound' 30 grep -q holding /tmp/holder.log
		# What it held, for node 1's memcg case, once it is done.
		( for _ in $(seq 1800); do
			grep -q '^held' /tmp/holder.log && break
			sleep 0.5
		  done
		  put held "$(sed -n 's/^held //p' /tmp/holder.log)" ) &
	fi
	barrier servers-up 300

	# Node 1 tries every boundary; node 2's echo endpoint answers.
	case_title 'netlink changes need CAP_NET_ADMIN; reading stays open'
	if is_node 1; then
		netlink_checks
	fi

	case_title '/dev/mrc is 0600 root: nobody cannot open it'
	if is_node 1; then
		ok_eq '/dev/mrc is 0600 root' 600:root \
			"$(stat -c %a:%U /dev/mrc)"
		ok 'nobody: open /dev/mrc is EACCES' \
			"${UNPRIV[@]}" "$PY3" -c "$PY" open 2
		chmod 0666 /dev/mrc	# what a udev rule MODE="0666" does
	fi

	case_title '/dev/mrc opened to all: ports below 1024 need CAP_NET_BIND_SERVICE'
	if is_node 1; then
		ok 'nobody: bind 80 / 1023 EACCES, 1024 works' \
			"${UNPRIV[@]}" "$PY3" -c "$PY" lowport 2
		ok 'root without CAP_NET_BIND_SERVICE: bind 80 / 1023 EACCES' \
			ROOT_WITHOUT net_bind_service "$PY3" -c "$PY" lowport 2
		ok 'root with CAP_NET_BIND_SERVICE binds 80' py lowport_ok 2
	fi

	case_title "nobody cannot take root's port nor read root's messages"
	if is_node 1; then
		ok "nobody cannot take root's port nor read root's messages" \
			py isolation 2
	fi

	case_title 'memory per endpoint: RCVBUF cap, full queue, dev_sndbuf_mb, dev_mem_mb'
	if is_node 1; then
		ok 'nobody: RCVBUF capped at 256 MiB; a full queue holds senders back, another endpoint gets all' \
			py rcvbuf 2
		ok 'dev_sndbuf_mb 256 (default): 1 MiB in flight leaves room' \
			py sndbuf_default 2
		ok 'mrcctl config set dev_sndbuf_mb 1' \
			mrcctl config set dev_sndbuf_mb 1
		ok 'dev_sndbuf_mb 1: EAGAIN with 1 MiB in flight, no POLLOUT, other endpoint unaffected, one message always fits' \
			py sndbuf 2
		ok 'dev_sndbuf_mb back to 256' \
			mrcctl config set dev_sndbuf_mb 256
		ok 'mrcctl config set dev_mem_mb 64' \
			mrcctl config set dev_mem_mb 64
		ok 'dev_mem_mb 64: the node holds 64 MiB for all endpoints, the rest waits, ENOBUFS for writes' \
			py devmem 2
		_chk_cmp 'counted' dev_mem_full "$(ev_stat dev_mem_full)" '>' 0
		ok 'dev_mem_mb back to 1024' mrcctl config set dev_mem_mb 1024
		chmod 0600 /dev/mrc
	fi

	case_title 'nobody in a memory cgroup of 32 MiB: sends that do not fit fail with ENOMEM, no OOM kill'
	if is_node 1; then
		memcg_case
	fi
	barrier checks-done 600

	case_title 'every endpoint closed, mrc unloads'
	if is_node 2; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		diag "$(cat /tmp/echo.log)"
	fi
	wait_for 'endpoints closed' 30 \
		sh -c '[ "$(cat /sys/module/mrc/refcnt)" = 0 ]'
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
