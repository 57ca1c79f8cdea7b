# SPDX-License-Identifier: GPL-2.0
#
# devmrc_abi.py - the /dev/mrc ABI for the VM tests' Python checks
# (ioctl numbers, options and structures of uapi/linux/mrc.h).  A test
# reads this file and puts it in front of its own checks (python3 -c), so
# that an unprivileged check needs no read access to the tree.
import errno, fcntl, os, select, struct, sys, time

MAGIC = 0xF7
def ioc(d, nr, size): return (d << 30) | (size << 16) | (MAGIC << 8) | nr
BIND = ioc(3, 1, 8)
SETOPT = ioc(1, 2, 16)
GETOPT = ioc(3, 3, 16)
STATS_SIZE = 8 + 13 * 8
STATS = ioc(3, 4, STATS_SIZE)
FLUSH = ioc(0, 5, 0)
RCVBUF, SNDWIN, PORT, NODE, CLASS, BUSY_POLL = 1, 2, 3, 4, 5, 6
STAT_NAMES = ("tx_msgs tx_bytes tx_done tx_failed tx_outstanding rx_msgs "
              "rx_bytes rx_dropped rx_dropped_bytes rx_queued_msgs "
              "rx_queued_bytes rx_next_len rx_busy").split()

def dev(flags=0): return os.open("/dev/mrc", os.O_RDWR | flags)

def bind(fd, port):
    b = bytearray(struct.pack("=IHH", 8, port, 0))
    fcntl.ioctl(fd, BIND, b)
    return struct.unpack("=IHH", b)[1]

def setopt(fd, opt, v): fcntl.ioctl(fd, SETOPT, struct.pack("=IIQ", 16, opt, v))

def getopt(fd, opt):
    b = bytearray(struct.pack("=IIQ", 16, opt, 0))
    fcntl.ioctl(fd, GETOPT, b)
    return struct.unpack("=IIQ", b)[2]

def stats(fd):
    b = bytearray(struct.pack("=Ii", STATS_SIZE, 0) + bytes(STATS_SIZE - 8))
    fcntl.ioctl(fd, STATS, b)
    v = struct.unpack("=Ii13Q", b)
    d = dict(zip(STAT_NAMES, v[2:]))
    d["last_error"] = v[1]
    return d

def send(fd, node, port, payload, version=1, extra=0, cls=None):
    """cls: send this one message in that class (MRC_DEV_SEND_F_CLASS)"""
    flags = 0 if cls is None else 1 | cls << 8
    return os.write(fd, struct.pack("=IIHHI", version, node, port, flags,
                                     len(payload) + extra) + payload)

def recv(fd, n=1 << 20):
    m = os.read(fd, n)
    node, port, flags, ln, _ = struct.unpack("=IHHII", m[:16])
    assert ln == len(m) - 16, (ln, len(m))
    return node, port, m[16:]

# The checks' helpers: the errno name a call fails with ("success" if it
# does not), and an exit with a message when a value is not the one
# expected.
def errno_of(f, *a):
    try:
        f(*a)
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    return "success"

def expect(what, want, got):
    if want != got:
        print("%s: expected %s, got %s" % (what, want, got), flush=True)
        sys.exit(1)
