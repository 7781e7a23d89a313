#!/usr/bin/env python3
"""The discrete time-energy tradeoff at one deadline as a MILP, for outside
solvers (an oracle for docs/FRONTIER.md's certificates, never our solver).

  bench/milp_at_deadline.py EXPANDED.mlir DEADLINE_S QUANTUM_S OUT.lp \
      [HIGHS_SECONDS]

EXPANDED.mlir: a schedule after `energy-opt --sched-expand` (tasks with
`options`, finish-to-start `after` lists, devices with static power; lags,
releases and start-to-start edges are refused). Each option's time is
floored to QUANTUM_S (0: exact) as the frontier pass does, each task's
options reduced to their (T, d) Pareto set. The model (CPLEX LP format,
read by glpsol --lp, cbc and HiGHS):

  minimize   P M + sum_ik d_ik x_ik        (P: the devices' static power)
  subject to sum_k x_ik = 1                 (one option per task)
             s_j >= s_i + sum_k T_ik x_ik   (dependencies and stream order)
             M >= s_i + sum_k T_ik x_ik,  M <= DEADLINE_S,  x binary

With HIGHS_SECONDS the same model is also solved by HiGHS (scipy's
`milp`, Debian's python3-scipy) for at most that long, and its best
solution and bound are printed. Its LP relaxation is the convex relaxation docs/FRONTIER.md describes (each
task's options replaced by their lower convex hull). bench/RESULTS.md runs
it through cbc and HiGHS to tell the relaxation's integrality gap from the
heuristic's loss.
"""
import math
import re
import sys

UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9,
         "J": 1.0, "mJ": 1e-3, "kJ": 1e3, "MJ": 1e6}


def fail(msg):
    sys.exit("milp_at_deadline.py: " + msg)


def main():
    if len(sys.argv) not in (5, 6):
        fail("usage: milp_at_deadline.py EXPANDED.mlir DEADLINE_S QUANTUM_S "
             "OUT.lp [HIGHS_SECONDS]")
    src, deadline, quantum, out = (sys.argv[1], float(sys.argv[2]),
                                   float(sys.argv[3]), sys.argv[4])
    tasks, index, stream, power = [], {}, {}, 0.0
    for row, line in enumerate(open(src), 1):
        m = re.search(r"sched\.device @(\w+) .*static ([0-9.e+-]+) (\w*)W",
                      line)
        if m:
            power += float(m.group(2)) * {"": 1, "k": 1e3, "m": 1e-3}[
                m.group(3)]
            continue
        if "sched.collective" in line:
            fail("%s:%d: collectives are not modelled" % (src, row))
        if "sched.task" not in line:
            continue
        m = re.search(r"sched\.task @([\w.]+) on @(\w+)(.*?) options \[(.*)\]",
                      line)
        if not m:
            fail("%s:%d: a task without options (expand and fill first)" %
                 (src, row))
        name, device, middle, options = m.groups()
        if re.search(r"\b(lag|release|start)\b", middle):
            fail("%s:%d: lags, releases and start-to-start edges are not "
                 "modelled" % (src, row))
        after = re.search(r"after \[([^\]]*)\]", middle)
        deps = [d.strip().lstrip("@") for d in after.group(1).split(",")
                if d.strip()] if after else []
        best = {}
        for o in re.finditer(r"T = ([0-9.e+-]+) (\w+), d = ([0-9.e+-]+) "
                             r"(\w+)", options):
            T = float(o.group(1)) * UNITS[o.group(2)]
            d = float(o.group(3)) * UNITS[o.group(4)]
            if quantum > 0:
                T = math.floor(T / quantum + 1e-9) * quantum
            best[T] = min(best.get(T, math.inf), d)
        pareto, least = [], math.inf
        for T in sorted(best):
            if best[T] < least - 1e-12:
                pareto.append((T, best[T]))
                least = best[T]
        if not pareto:
            fail("%s:%d: @%s: no option read" % (src, row, name))
        index[name] = len(tasks)
        stream.setdefault(device, []).append(len(tasks))
        tasks.append((name, deps, pareto))
    if not tasks:
        fail(src + ": no tasks")
    edges = []
    for i, (name, deps, _) in enumerate(tasks):
        for d in deps:
            if d not in index:
                fail("%s: @%s: unknown dependency @%s" % (src, name, d))
            edges.append((index[d], i))
    for lane in stream.values():
        edges += list(zip(lane, lane[1:]))

    def duration(i, sign):
        return " ".join("%s %.9f x%d_%d" % (sign, T, i, k)
                        for k, (T, _) in enumerate(tasks[i][2]))

    lines = ["Minimize", " obj: %.10f M" % power + "".join(
        " + %.10f x%d_%d" % (d, i, k) for i, t in enumerate(tasks)
        for k, (_, d) in enumerate(t[2])), "Subject To"]
    for i, t in enumerate(tasks):
        lines.append(" one%d: " % i + " + ".join(
            "x%d_%d" % (i, k) for k in range(len(t[2]))) + " = 1")
    for e, (a, b) in enumerate(edges):
        lines.append(" dep%d: s%d - s%d %s >= 0" % (e, b, a, duration(a, "-")))
    for i in range(len(tasks)):
        lines.append(" end%d: M - s%d %s >= 0" % (i, i, duration(i, "-")))
    lines += ["Bounds", " M <= %.9f" % deadline, "Binary"]
    lines += [" x%d_%d" % (i, k) for i, t in enumerate(tasks)
              for k in range(len(t[2]))]
    lines.append("End")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d tasks, %d binaries, %d precedence rows, static power %.2f W" % (
        len(tasks), sum(len(t[2]) for t in tasks), len(edges), power))
    if len(sys.argv) == 6:
        highs(tasks, edges, power, deadline, float(sys.argv[5]))


def highs(tasks, edges, power, deadline, seconds):
    """The model above, solved by HiGHS: variables x (binaries, task-major),
    s (starts), M."""
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_matrix
    offset, nx = [], 0
    for t in tasks:
        offset.append(nx)
        nx += len(t[2])
    n = len(tasks)
    M = nx + n
    c = np.zeros(M + 1)
    c[M] = power
    for i, t in enumerate(tasks):
        for k, (_, d) in enumerate(t[2]):
            c[offset[i] + k] = d
    rows = n + len(edges) + n
    A = lil_matrix((rows, M + 1))
    lo, hi = np.zeros(rows), np.full(rows, np.inf)

    def minus_duration(r, i):
        for k, (T, _) in enumerate(tasks[i][2]):
            A[r, offset[i] + k] -= T
    for i, t in enumerate(tasks):
        for k in range(len(t[2])):
            A[i, offset[i] + k] = 1
        hi[i] = lo[i] = 1
    for e, (a, b) in enumerate(edges):
        r = n + e
        A[r, nx + b], A[r, nx + a] = 1, -1
        minus_duration(r, a)
    for i in range(n):
        r = n + len(edges) + i
        A[r, M], A[r, nx + i] = 1, -1
        minus_duration(r, i)
    upper = np.full(M + 1, np.inf)
    upper[:nx], upper[M] = 1, deadline
    integrality = np.zeros(M + 1)
    integrality[:nx] = 1
    res = milp(c, constraints=LinearConstraint(A.tocsr(), lo, hi),
               integrality=integrality, bounds=Bounds(np.zeros(M + 1), upper),
               options={"time_limit": seconds, "mip_rel_gap": 1e-6})
    print("HiGHS: %s; best %s J, bound %s J" % (
        res.message, "none" if res.x is None else "%.3f" % res.fun,
        "%.3f" % res.mip_dual_bound if getattr(res, "mip_dual_bound", None)
        is not None else "none"))


if __name__ == "__main__":
    main()
