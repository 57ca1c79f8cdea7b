#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mpi_cut.py - an allreduce loop to cut a plane under (mpi_cut.sh, bench/mpi).

"mpi_cut.py loop ITERS MIB [PROGRESS]": run by mpirun. ITERS allreduces
(sum) of MIB MiB of float64; iteration I reduces (arange(n) + I) * (rank
+ 1), so every iteration's exact result is known and differs from the
previous one. Every rank checks every result. Rank 0 prints, per
iteration, "iter I END_MS SECONDS" (END_MS: wall clock in ms when it
ended, to set beside the time the plane was cut); with PROGRESS, rank 0
also writes each of these lines to that file at once (mpirun forwards a
rank's output seconds late under TCG: the test times its cut from this
file). Each rank prints "FAIL rank R iter I: ..." for a wrong result,
then "rank R HOST iters N bad B sent-at-least S" (S: MIB MiB per
iteration, the least any rank sends in an allreduce of that size: every
element of its array must leave it), and exits 1 if a result was wrong.

"mpi_cut.py report FILE CUT_MS": reads the "iter" lines of a loop's
output, prints a table of every iteration's time marked before / CUT /
after (the iteration that was under way when the plane went down at
CUT_MS is "CUT"), then "summary BEFORE_MEDIAN CUT_SECONDS AFTER_MEDIAN
WORST LOST ITERS_AFTER": the median iteration time before and after, the
cut iteration's time, the longest iteration from the cut on, the time
lost (the cut iteration's time, plus every later iteration's, less the
median before times their number: negative when the loop runs faster
after the cut), and how many iterations ended after the cut.  CUT_MS 0:
no cut, all "before".
"""
import sys
import time


def loop(iters, mib, progress=None):
    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n = (mib << 20) // 8
    scale = size * (size + 1) // 2
    base = np.arange(n, dtype=np.float64)
    r = np.empty_like(base)
    bad = 0
    prog = open(progress, "w") if progress and rank == 0 else None
    for i in range(iters):
        a = (base + i) * (rank + 1)
        comm.Barrier()
        t = time.perf_counter()
        comm.Allreduce(a, r, op=MPI.SUM)
        t = time.perf_counter() - t
        want = (base + i) * scale
        if not np.array_equal(r, want):
            bad += 1
            print(f"FAIL rank {rank} iter {i}: first difference at "
                  f"{int(np.argmax(r != want))}", flush=True)
        if rank == 0:
            line = f"iter {i} {int(time.time() * 1000)} {t:.4f}"
            print(line, flush=True)
            if prog:
                prog.write(line + "\n")
                prog.flush()
    comm.Barrier()
    print(f"rank {rank} {MPI.Get_processor_name()} iters {iters} bad {bad} "
          f"sent-at-least {iters * n * 8}", flush=True)
    return 1 if bad else 0


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else 0.0


def report(path, cut_ms):
    its = []
    with open(path) as f:
        for line in f:
            a = line.split()
            if len(a) == 4 and a[0] == "iter":
                its.append((int(a[1]), int(a[2]), float(a[3])))
    before, after, cut = [], [], None
    print("iteration  seconds  phase")
    for i, end, secs in its:
        if not cut_ms or end < cut_ms:
            phase = "before"
            before.append(secs)
        elif cut is None:
            phase = "CUT"
            cut = secs
        else:
            phase = "after"
            after.append(secs)
        print(f"{i:9d}  {secs:7.3f}  {phase}")
    mb = median(before)
    lost = 0.0
    if cut is not None:
        lost = cut + sum(after) - mb * (1 + len(after))
    n_after = len(after) + (cut is not None)
    worst = max(after + ([cut] if cut is not None else []), default=0.0)
    print(f"summary {mb:.3f} {cut if cut is not None else 0:.3f} "
          f"{median(after):.3f} {worst:.3f} {lost:.3f} {n_after}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "loop":
        sys.exit(loop(int(sys.argv[2]), int(sys.argv[3]),
                      sys.argv[4] if len(sys.argv) == 5 else None))
    if len(sys.argv) == 4 and sys.argv[1] == "report":
        sys.exit(report(sys.argv[2], int(sys.argv[3])))
    print(f"usage: {sys.argv[0]} loop ITERS MIB [PROGRESS]"
          " | report FILE CUT_MS", file=sys.stderr)
    sys.exit(2)
