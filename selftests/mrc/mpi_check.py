#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mpi_check.py - MPI collectives whose results are known (mpi.sh).

Run by mpirun, one or more ranks per node.  Each rank checks, for its own data:
allreduce (sum, small and 8 MiB), alltoall (each pair its own block),
bcast (from every root), a send to itself, and a ring exchange of
RING_MB MiB.  Prints one line per check, "ok NAME" or "FAIL NAME: why",
then "rank R HOST sent-at-least B" (the payload bytes the rank sent
by point-to-point and alltoall alone: a lower bound mpi.sh compares with
mrc's counters), and exits 1 if a check failed.

"mpi_check.py loop": a ring exchange of 4 MiB without end, printing
"loop N" after round N (mpi.sh kills a rank in the middle of it).
"""
import sys

import numpy as np
from mpi4py import MPI

RING_MB = 16


def loop():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    buf = np.full(1 << 20, rank, dtype=np.int32)
    got = np.empty_like(buf)
    n = 0
    while True:
        comm.Sendrecv(buf, dest=(rank + 1) % size, sendtag=9, recvbuf=got,
                      source=(rank - 1) % size, recvtag=9)
        n += 1
        if rank == 0:
            print(f"loop {n}", flush=True)


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    failed = 0
    sent = 0

    def check(name, good, why=""):
        nonlocal failed
        if good:
            print(f"ok rank {rank} {name}", flush=True)
        else:
            failed += 1
            print(f"FAIL rank {rank} {name}: {why}", flush=True)

    # allreduce: small (pickled) and 8 MiB of float64
    total = comm.allreduce(rank + 1, op=MPI.SUM)
    want = size * (size + 1) // 2
    check("allreduce(rank + 1) small", total == want, f"{total} != {want}")
    n = 1 << 20
    a = np.arange(n, dtype=np.float64) * (rank + 1)
    r = np.empty_like(a)
    comm.Allreduce(a, r, op=MPI.SUM)
    exp = np.arange(n, dtype=np.float64) * want
    check("Allreduce 8 MiB float64 sum", np.array_equal(r, exp),
          f"first difference at {int(np.argmax(r != exp))}")

    # alltoall: block j of rank i holds i * 1000 + j, 1 MiB per block
    blk = 1 << 18
    s = np.empty(size * blk, dtype=np.int32)
    for j in range(size):
        s[j * blk:(j + 1) * blk] = rank * 1000 + j
    d = np.empty_like(s)
    comm.Alltoall(s, d)
    good = all((d[j * blk:(j + 1) * blk] == j * 1000 + rank).all()
               for j in range(size))
    check("Alltoall 1 MiB blocks", good, "a block holds another pair's data")
    sent += (size - 1) * blk * 4

    # bcast from every root: pickled object and 4 MiB buffer
    for root in range(size):
        obj = comm.bcast({"root": root, "v": list(range(root, root + 10))}
                         if rank == root else None, root=root)
        check(f"bcast object from {root}",
              obj == {"root": root, "v": list(range(root, root + 10))},
              repr(obj)[:80])
        b = np.full(1 << 20, root + 7, dtype=np.int32) if rank == root \
            else np.zeros(1 << 20, dtype=np.int32)
        comm.Bcast(b, root=root)
        check(f"Bcast 4 MiB from {root}", (b == root + 7).all(),
              "wrong values")

    # to itself (the provider's local delivery)
    me = np.arange(1 << 16, dtype=np.int64) + rank
    back = np.empty_like(me)
    req = comm.Irecv(back, source=rank, tag=77)
    comm.Send(me, dest=rank, tag=77)
    req.Wait()
    check("send to itself 512 KiB", np.array_equal(me, back), "differs")

    # a ring: RING_MB MiB to the next rank, from the previous one
    ring = np.full(RING_MB << 18, rank, dtype=np.int32)
    got = np.empty_like(ring)
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    comm.Sendrecv(ring, dest=nxt, sendtag=5, recvbuf=got, source=prv,
                  recvtag=5)
    check(f"ring {RING_MB} MiB", (got == prv).all(), "wrong values")
    if nxt != rank:
        sent += ring.nbytes

    comm.Barrier()
    print(f"rank {rank} {MPI.Get_processor_name()} sent-at-least {sent}",
          flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["loop"]:
        loop()
    sys.exit(main())
