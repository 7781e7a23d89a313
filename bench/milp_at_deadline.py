#!/usr/bin/env python3
"""The discrete time-energy tradeoff at one deadline as a MILP, for outside
solvers (an oracle for docs/FRONTIER.md's certificates, never our solver).

  bench/milp_at_deadline.py EXPANDED.mlir DEADLINE_S QUANTUM_S OUT.lp \
      [HIGHS_SECONDS]

EXPANDED.mlir: a schedule after `energy-opt --sched-expand` (tasks with
`options`, finish-to-start `after` lists without delays, one stream per
device, devices with static power; delays, start-to-start edges
(`with`), releases, recorded starts, streams and collectives are refused,
not modelled). Each option's time is
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
         "J": 1.0, "mJ": 1e-3, "uJ": 1e-6, "nJ": 1e-9, "kJ": 1e3, "MJ": 1e6}


def fail(msg):
    sys.exit("milp_at_deadline.py: " + msg)


def main():
    if len(sys.argv) not in (5, 6):
        fail("usage: milp_at_deadline.py EXPANDED.mlir DEADLINE_S QUANTUM_S "
             "OUT.lp [HIGHS_SECONDS]")
    src, out = sys.argv[1], sys.argv[4]
    try:
        deadline, quantum = float(sys.argv[2]), float(sys.argv[3])
    except ValueError:
        fail("DEADLINE_S and QUANTUM_S must be numbers")
    if not (deadline > 0 and math.isfinite(deadline)):
        fail("DEADLINE_S must be a positive number of seconds")
    if not (quantum >= 0 and math.isfinite(quantum)):
        fail("QUANTUM_S must be 0 or a positive number of seconds")
    try:
        text = open(src).read().splitlines()
    except OSError as e:
        fail("%s: %s" % (src, e.strerror))
    tasks, index, stream, power = [], {}, {}, 0.0
    # Operating sets printed once as aliases (`#opset3 = [...]`) that the
    # tasks name (`options #opset3`); --mlir-print-local-scope writes them
    # inline.
    aliases = dict(re.findall(r"^(#opset\d*) = \[(.*)\]\s*$", "\n".join(text),
                              re.M))
    for row, line in enumerate(text, 1):
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
        m = re.search(r"sched\.task @([\w.]+) on @(\w+)(.*?) options "
                      r"(?:\[(.*)\]|(#opset\d*)\b)", line)
        if not m or (m.group(5) and m.group(5) not in aliases):
            fail("%s:%d: a task without options (expand and fill first)" %
                 (src, row))
        name, device, middle = m.group(1), m.group(2), m.group(3)
        options = m.group(4) if m.group(4) is not None else aliases[m.group(5)]
        for word, what in (("delay", "a dependency's delay"),
                           ("with", "a start-to-start edge"),
                           ("lag", "a start-to-start lag"),
                           ("release", "a release"),
                           ("start", "a recorded start (a timed schedule)"),
                           ("stream", "a stream other than the device's")):
            if re.search(r"\b%s\b" % word, middle):
                fail("%s:%d: @%s: %s is not modelled" % (src, row, name, what))
        after = re.search(r"after \[([^\]]*)\]", middle)
        deps = [d.strip().lstrip("@") for d in after.group(1).split(",")
                if d.strip()] if after else []
        best = {}
        for o in re.finditer(r"T = ([0-9.e+-]+) (\w+), d = ([0-9.e+-]+) "
                             r"(\w+)", options):
            if o.group(2) not in UNITS or o.group(4) not in UNITS:
                fail("%s:%d: @%s: unknown unit in an option" % (src, row, name))
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

    # The fastest makespan (every task at its fastest option): below it
    # the model has no solution.
    finish = [0.0] * len(tasks)
    succs = [[] for _ in tasks]
    indegree = [0] * len(tasks)
    for a, b in edges:
        succs[a].append(b)
        indegree[b] += 1
    ready = [i for i in range(len(tasks)) if indegree[i] == 0]
    start, done = [0.0] * len(tasks), 0
    while ready:  # Kahn: earliest starts at the fastest options
        a = ready.pop()
        done += 1
        finish[a] = start[a] + tasks[a][2][0][0]
        for b in succs[a]:
            start[b] = max(start[b], finish[a])
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    if done != len(tasks):
        fail(src + ": the dependencies and device order form a cycle")
    if deadline < max(finish) * (1 - 1e-12):
        fail("DEADLINE_S %.9g s is below the fastest makespan %.9g s" % (
            deadline, max(finish)))
    # The objective, a term per line (LP readers limit line lengths).
    lines = ["Minimize", " obj: %.10f M" % power] + [
        " + %.10f x%d_%d" % (d, i, k) for i, t in enumerate(tasks)
        for k, (_, d) in enumerate(t[2])] + ["Subject To"]
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
    try:
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")
    except OSError as e:
        fail("%s: %s" % (out, e.strerror))
    print("%d tasks, %d binaries, %d precedence rows, static power %.2f W" % (
        len(tasks), sum(len(t[2]) for t in tasks), len(edges), power))
    if len(sys.argv) == 6:
        highs(tasks, edges, power, deadline, float(sys.argv[5]))


def highs(tasks, edges, power, deadline, seconds):
    """The model above, solved by HiGHS: variables x (binaries, task-major),
    s (starts), M."""
    try:
        import numpy as np
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import lil_matrix
    except ImportError:
        fail("HIGHS_SECONDS needs scipy >= 1.9 (Debian's python3-scipy)")
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
