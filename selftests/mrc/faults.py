#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Systematic fault injection into the system calls that drive mrc
# (faults.sh).  The kernel's fail-nth (CONFIG_FAULT_INJECTION,
# Documentation/fault-injection/fault-injection.rst) makes the Nth
# allocation of one task fail: this process arms it just before one
# system call and disarms it just after, so only that call's allocations
# fail: mrc's own, and those of the kernel code it calls (ib_core,
# rdma_rxe, netlink, the module loader).  Each mode measures how many
# allocations the call makes, then fails each of them in turn (or an even
# sample of POINTS of them) and checks after every call that the state is
# what the call reported:
#
#   modload KO POINTS     finit_module(mrc.ko), then rmmod: loaded exactly
#                         when it said so; every rail either usable or
#                         accounted for (stats/rail_alloc_failed,
#                         stats/ud_create_failed); rmmod works; the RDMA
#                         resources (rdma res) back to their baseline.
#   peeradd NODE KEYFILE ADDR...
#                         PEER_ADD over generic netlink: the peer exists
#                         exactly when the acknowledgment said 0; deleted
#                         again after each call.
#   send NODE PORT OUT    /dev/mrc writes: each either takes the whole
#                         message or fails with an errno, nothing between;
#                         the accepted ones all complete (tx_done); their
#                         ids go to file OUT, then an END message.
#   recv PORT OUT         the receiving side: every message intact; the
#                         ids in arrival order to file OUT.
#
# One JSON line on stdout sums a run up; the lines that break a rule go to
# stderr, and the exit status is 1 if there is one.
import ctypes, errno, json, os, socket, struct, subprocess, sys, time

exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "devmrc_abi.py")).read())

FAIL_NTH = "/proc/thread-self/fail-nth"
BIG = 10 ** 7
violations = []


def bad(what):
    violations.append(what)
    print("violation:", what, file=sys.stderr, flush=True)


def ename(e):
    return errno.errorcode.get(e, str(e)) if e else "0"


class Nth:
    """The calling thread's fail-nth: arm(n) before a call, injected()
    after it (True if the Nth allocation was reached and failed).  With
    FAULTS_DRY=1 nothing is injected and every call counts as making 3
    allocations: the modes run a few clean calls, to check this tool on a
    kernel without fault injection."""

    def __init__(self):
        self.dry = os.environ.get("FAULTS_DRY") == "1"
        if not self.dry:
            self.fd = os.open(FAIL_NTH, os.O_RDWR)

    def arm(self, n):
        self.n = n
        if not self.dry:
            os.pwrite(self.fd, b"%d" % n, 0)

    def injected(self):
        if self.dry:
            return False, max(self.n - 3, 1)
        left = int(os.pread(self.fd, 32, 0))
        os.pwrite(self.fd, b"0", 0)
        return left == 0, left


def points(total, want):
    """1..total, or an even sample of `want` of them (first and last
    included)."""
    if total <= want:
        return list(range(1, total + 1))
    return sorted({1 + (i * (total - 1)) // (want - 1) for i in range(want)})


def summary(**kw):
    kw["violations"] = len(violations)
    print(json.dumps(kw), flush=True)
    sys.exit(1 if violations else 0)


# ------------------------------------------------------------- modload

libc = ctypes.CDLL(None, use_errno=True)
SYS_finit_module = 313


def finit(fd):
    r = libc.syscall(SYS_finit_module, fd, b"", 0)
    return 0 if r == 0 else ctypes.get_errno()


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def mod_loaded():
    try:
        with open("/sys/module/mrc/initstate") as f:
            return f.read().strip() == "live"
    except OSError:
        return False


def res_summary():
    # "0: rxe0: pd 1 cq 2 qp 1 cm_id 0 mr 0 ctx 0 srq 0": per device
    return sorted(run("rdma", "res", "show").stdout.split("\n"))


def read_int(path):
    with open(path) as f:
        return int(f.read())


def rails_check(n, devices):
    """After a load that reported success: every port either a rail
    (usable, or in state error counted in ud_create_failed) or counted in
    rail_alloc_failed."""
    base = "/sys/kernel/mrc"
    names = sorted(os.listdir(base + "/rails"))
    alloc_failed = read_int(base + "/stats/rail_alloc_failed")
    ud_failed = read_int(base + "/stats/ud_create_failed")
    errors = 0
    for r in names:
        with open("%s/rails/%s/state" % (base, r)) as f:
            st = f.read().strip()
        if st == "error":
            errors += 1
            continue
        qpns = open("%s/rails/%s/qpns" % (base, r)).read().split()
        if not qpns:
            bad("point %d: rail %s in state %s without queue pairs"
                % (n, r, st))
    if len(names) + alloc_failed != devices:
        bad("point %d: %d rails + %d rail_alloc_failed != %d ports"
            % (n, len(names), alloc_failed, devices))
    if errors != ud_failed:
        bad("point %d: %d rails in state error, ud_create_failed %d"
            % (n, errors, ud_failed))
    return len(names) - errors


def modload(ko, want):
    nth = Nth()
    devices = len([d for d in os.listdir("/sys/class/infiniband")])
    base = res_summary()
    fd = os.open(ko, os.O_RDONLY)
    # How many allocations a whole load makes.
    nth.arm(BIG)
    err = finit(fd)
    _, left = nth.injected()
    total = BIG - left
    if err or not mod_loaded():
        bad("a load without faults failed: %s" % ename(err))
        summary(mode="modload", total=total)
    run("rmmod", "mrc")
    pts = points(total, int(want))
    out = {"injected": 0, "loaded": 0, "usable_rails": 0, "errors": {}}
    for i, n in enumerate(pts):
        nth.arm(n)
        err = finit(fd)
        inj, _ = nth.injected()
        out["injected"] += inj
        loaded = mod_loaded()
        if bool(err) == loaded:
            bad("point %d: finit_module said %s, module %s"
                % (n, ename(err), "live" if loaded else "absent"))
        if err:
            out["errors"][ename(err)] = out["errors"].get(ename(err), 0) + 1
        if loaded:
            out["loaded"] += 1
            out["usable_rails"] += rails_check(n, devices)
            r = run("rmmod", "mrc")
            if r.returncode:
                bad("point %d: rmmod mrc: %s" % (n, r.stderr.strip()))
                break
        # Resources go back (restrack counts are synchronous, but a
        # failed load may leave its module's exit to finish).
        t0 = time.monotonic()
        while res_summary() != base and time.monotonic() - t0 < 5:
            time.sleep(0.2)
        now = res_summary()
        if now != base:
            bad("point %d: RDMA resources %s, baseline %s"
                % (n, now, base))
            break
        if (i + 1) % 25 == 0:
            print("# %d of %d points" % (i + 1, len(pts)),
                  file=sys.stderr, flush=True)
    summary(mode="modload", total=total, points=len(pts), **out)


# ------------------------------------------------------------- netlink

NLMSG_ERROR = 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLA_F_NESTED = 1 << 15
NETLINK_GENERIC = 16
# uapi/linux/mrc_netlink.h
MRC_GENL_VERSION = 2
MRC_CMD_PEER_ADD, MRC_CMD_PEER_DEL = 8, 9
MRC_A_PEER = 3
MRC_PEER_A_NODE, MRC_PEER_A_ADDRS, MRC_PEER_A_ADDR = 1, 2, 3
MRC_PEER_A_KEY = 12


def nla(t, data):
    pad = (4 - len(data) % 4) % 4
    return struct.pack("=HH", 4 + len(data), t) + data + b"\0" * pad


def nest(t, *attrs):
    return nla(t | NLA_F_NESTED, b"".join(attrs))


class Genl:
    def __init__(self, family):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.s.settimeout(5)
        self.seq = 0
        self.fam = None
        err, attrs = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
                                  nla(CTRL_ATTR_FAMILY_NAME,
                                      family.encode() + b"\0"))
        if err:
            raise OSError(err, "family " + family)
        self.fam = struct.unpack("=H", attrs[CTRL_ATTR_FAMILY_ID][:2])[0]

    def send(self, typ, cmd, version, payload):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, 0) + payload
        hdr = struct.pack("=IHHII", 16 + len(body), typ,
                          NLM_F_REQUEST | NLM_F_ACK, self.seq, 0)
        self.s.send(hdr + body)

    def answer(self):
        """(errno, attributes of the reply) for the last request; errno
        None if no acknowledgment came."""
        attrs = {}
        while True:
            try:
                m = self.s.recv(65536)
            except OSError:
                # No answer (timeout), or the kernel could not queue one
                # (ENOBUFS: the acknowledgment's own allocation failed).
                return None, attrs
            off = 0
            while off + 16 <= len(m):
                ln, typ, _, seq, _ = struct.unpack_from("=IHHII", m, off)
                if seq == self.seq:
                    if typ == NLMSG_ERROR:
                        return -struct.unpack_from("=i", m, off + 16)[0], attrs
                    a = off + 20
                    while a + 4 <= off + ln:
                        alen, at = struct.unpack_from("=HH", m, a)
                        attrs[at & 0x3fff] = m[a + 4:a + alen]
                        a += (alen + 3) & ~3
                off += (ln + 3) & ~3

    def request(self, typ, cmd, version, payload):
        self.send(typ, cmd, version, payload)
        return self.answer()


def peer_exists(node):
    r = run("mrcctl", "-j", "peer", "show")
    return any(p.get("node") == node for p in json.loads(r.stdout or "[]"))


def peeradd(node, keyfile, *addrs):
    node = int(node)
    nth = Nth()
    nl = Genl("mrc")
    key = open(keyfile, "rb").read() if keyfile != "-" else b""
    req = nest(MRC_A_PEER, nla(MRC_PEER_A_NODE, struct.pack("=I", node)),
               nest(MRC_PEER_A_ADDRS,
                    *[nla(MRC_PEER_A_ADDR, socket.inet_aton(a))
                      for a in addrs]),
               *([nla(MRC_PEER_A_KEY, key)] if key else []))
    delete = nest(MRC_A_PEER, nla(MRC_PEER_A_NODE, struct.pack("=I", node)))

    def one(n):
        nth.arm(n)
        try:
            nl.send(nl.fam, MRC_CMD_PEER_ADD, MRC_GENL_VERSION, req)
            serr = 0
        except OSError as e:
            serr = e.errno
        inj, left = nth.injected()
        # A failed sendmsg() never reached mrc; no answer says nothing.
        err, _ = nl.answer() if not serr else (serr, None)
        there = peer_exists(node)
        if err == 0 and not there:
            bad("point %d: PEER_ADD acknowledged, no peer %d" % (n, node))
        if err is not None and err != 0 and there:
            bad("point %d: PEER_ADD failed with %s, yet peer %d exists"
                % (n, ename(err), node))
        if there:
            derr, _ = nl.request(nl.fam, MRC_CMD_PEER_DEL, MRC_GENL_VERSION,
                                 delete)
            if derr:
                bad("point %d: PEER_DEL: %s" % (n, ename(derr)))
        return inj, left, err

    inj, left, err = one(BIG)
    total = BIG - left
    if err:
        bad("PEER_ADD without faults: %s" % ename(err))
    out = {"injected": 0, "added": 0, "errors": {}}
    for n in range(1, total + 1):
        inj, _, err = one(n)
        out["injected"] += inj
        if err == 0:
            out["added"] += 1
        else:
            k = ename(err) if err is not None else "no answer"
            out["errors"][k] = out["errors"].get(k, 0) + 1
    summary(mode="peeradd", total=total, points=total, **out)


# ------------------------------------------------------------- /dev/mrc

SIZES = (1, 4096, 65536, 1 << 20)


def body(i, size):
    # id, then a byte pattern derived from it: checkable on arrival
    head = struct.pack("=I", i)
    pat = bytes((i + k) & 0xff for k in range(251))
    return (head + pat * (size // 251 + 1))[:max(size, 4)]


def send_(node, port, outfile):
    node, port = int(node), int(port)
    nth = Nth()
    fd = dev()
    bind(fd, 0)
    ids, i = [], 0
    out = {"injected": 0, "accepted": 0, "errors": {}}

    def one(n):
        nonlocal i
        i += 1
        p = body(i, SIZES[i % len(SIZES)])
        nth.arm(n)
        try:
            r = send(fd, node, port, p)
            err = 0
        except OSError as e:
            r, err = -1, e.errno
        inj, left = nth.injected()
        if err == 0:
            if r != len(p) + 16:
                bad("message %d: write returned %d of %d" % (i, r, len(p) + 16))
            ids.append(i)
        else:
            out["errors"][ename(err)] = out["errors"].get(ename(err), 0) + 1
        return inj, left

    # A send of each size without faults: the most allocations any takes.
    total = 0
    for _ in SIZES:
        _, left = one(BIG)
        total = max(total, BIG - left)
    for n in range(1, total + 1):
        for _ in SIZES:		# each size fails at its Nth allocation
            inj, _ = one(n)
            out["injected"] += inj
    out["accepted"] = len(ids)
    t0 = time.monotonic()
    while stats(fd)["tx_outstanding"] and time.monotonic() - t0 < 120:
        time.sleep(0.1)
    st = stats(fd)
    if st["tx_done"] != len(ids) or st["tx_failed"]:
        bad("%d accepted, tx_done %d, tx_failed %d"
            % (len(ids), st["tx_done"], st["tx_failed"]))
    with open(outfile, "w") as f:
        f.write(" ".join(map(str, ids)) + "\n")
    send(fd, node, port, b"END")
    while stats(fd)["tx_outstanding"] and time.monotonic() - t0 < 120:
        time.sleep(0.1)
    summary(mode="send", total=total, points=total * len(SIZES),
            sent=i, tx_done=st["tx_done"], **out)


def recv_(port, outfile):
    fd = dev()
    bind(fd, int(port))
    print("bound", file=sys.stderr, flush=True)
    ids = []
    while True:
        _, _, p = recv(fd, 2 << 20)
        if p == b"END":
            break
        i = struct.unpack("=I", p[:4])[0]
        if p != body(i, len(p)) or len(p) not in SIZES + (4,):
            bad("message %d (%d bytes) damaged" % (i, len(p)))
        ids.append(i)
    with open(outfile, "w") as f:
        f.write(" ".join(map(str, ids)) + "\n")
    summary(mode="recv", received=len(ids))


if __name__ == "__main__":
    modes = {"modload": modload, "peeradd": peeradd, "send": send_,
             "recv": recv_}
    modes[sys.argv[1]](*sys.argv[2:])
