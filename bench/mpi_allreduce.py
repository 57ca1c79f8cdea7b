#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mpi_allreduce.py - time MPI_Allreduce (sum of float64) over 8 B .. MAX.

Run by mpirun (bench/mpi).  For each size (powers of 4 from 8 bytes),
REPS allreduces after one warm-up, each timed between barriers; rank 0
prints "BYTES MEDIAN MIN SLOWEST" per size (seconds: its own median and
least time, and the longest time any rank saw).  Every result is checked
(the sum of the ranks' known arrays); a wrong one exits 1.
"""
import sys
import time

import numpy as np
from mpi4py import MPI


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 16 << 20
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    want_scale = size * (size + 1) / 2
    nbytes = 8
    while nbytes <= top:
        n = nbytes // 8
        a = np.arange(n, dtype=np.float64) * (rank + 1)
        r = np.empty_like(a)
        times = []
        for i in range(reps + 1):
            comm.Barrier()
            t = time.perf_counter()
            comm.Allreduce(a, r, op=MPI.SUM)
            t = time.perf_counter() - t
            if i:
                times.append(t)
        tmax = comm.allreduce(max(times), op=MPI.MAX)
        if not np.array_equal(r, np.arange(n, dtype=np.float64) * want_scale):
            print(f"rank {rank}: wrong allreduce result at {nbytes} B",
                  flush=True)
            return 1
        times.sort()
        if rank == 0:
            print(f"{nbytes} {times[len(times) // 2]:.6f} {times[0]:.6f} "
                  f"{tmax:.6f}", flush=True)
        nbytes *= 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
