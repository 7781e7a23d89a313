"""How much of the closed loop's longer measured iteration the point-to-point
latency's jitter explains (examples/torch-pipeline, README "Profile and plan
your own job").

    latency_jitter_mc.py WORK_DIR SCHEDULE.mlir... [--runs N]

WORK_DIR is closed_loop.py's work folder (its `profile-run.json` holds the
profile's latency samples); each SCHEDULE is an expanded schedule of the
job (e.g. WORK_DIR/planned.mlir, or pipeline.mlir filled and expanded for
the baseline). For each: its makespan with every cross-stage `delay` at the
profile's mean latency, and the mean and sd over N Monte Carlo iterations
(default 3000, seeded) with each cross-stage delay drawn independently from
the measured latencies. Tasks on one device run in their listed order (the
1F1B order), durations as the signatures say; a collective (the pipeline's
closing `sync`) waits for every device it spans. The difference of the means
is the expected lengthening from the jitter alone (E[max] over
near-critical paths exceeds the max of the means).
"""
import json
import os
import random
import re
import sys

UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def load(path):
    """Tasks and collectives (a pipeline's closing `sync`) in listed order:
    name -> (devices, T, dependencies, delay)."""
    tasks, order = {}, []
    for line in open(path):
        m = re.search(r"sched\.(?:task @(\w+) on @(\w+)|collective @(\w+) on "
                      r"\[([^\]]*)\])(.*?)sig <T = ([0-9.e+-]+) (\w+)", line)
        if not m:
            continue
        name = m.group(1) or m.group(3)
        devs = [m.group(2)] if m.group(1) else [
            d.strip().lstrip("@") for d in m.group(4).split(",")]
        mid, t, unit = m.group(5), m.group(6), m.group(7)
        after = re.search(r"after \[([^\]]*)\]", mid)
        deps = [d.strip().lstrip("@") for d in after.group(1).split(",")] if after else []
        delay = re.search(r"delay ([0-9.e+-]+) (\w+)", mid)
        tasks[name] = (devs, float(t) * UNITS[unit], deps,
                       float(delay.group(1)) * UNITS[delay.group(2)] if delay else 0.0)
        order.append(name)
    return tasks, order


def main():
    args = sys.argv[1:]
    runs = 3000
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    work, schedules = args[0], args[1:]
    samples = json.load(open(os.path.join(work, "profile-run.json")))["p2p_latencies_s"]
    mean = sum(samples) / len(samples)
    for path in schedules:
        tasks, order = load(path)
        prev, last = {}, {}
        for n in order:
            prev[n] = [last[d] for d in tasks[n][0] if d in last]
            for d in tasks[n][0]:
                last[d] = n
        # A topological order over dependencies and each device's order.
        succ = {n: [] for n in order}
        indeg = dict.fromkeys(order, 0)
        for n in order:
            for p in tasks[n][2] + prev[n]:
                succ[p].append(n)
                indeg[n] += 1
        topo = [n for n in order if indeg[n] == 0]
        for n in topo:
            for s in succ[n]:
                indeg[s] -= 1
                if indeg[s] == 0:
                    topo.append(s)
        assert len(topo) == len(order), "a cycle in " + path

        def makespan(latency):
            finish = {}
            for n in topo:
                _, t, deps, delay = tasks[n]
                start = max([finish[p] for p in prev[n]], default=0.0)
                for d in deps:
                    start = max(start, finish[d] + (latency() if delay > 0 else 0.0))
                finish[n] = start + t
            return max(finish.values())

        fixed = makespan(lambda: mean)
        rng = random.Random(1)
        mc = [makespan(lambda: rng.choice(samples)) for _ in range(runs)]
        m = sum(mc) / runs
        sd = (sum((x - m) ** 2 for x in mc) / (runs - 1)) ** 0.5
        print("%s: constant latency %.4f s; jittered %.4f s +- %.2f ms (sd), "
              "+%.2f ms (%d runs, %d latency samples)" % (
                  os.path.basename(path), fixed, m, 1e3 * sd, 1e3 * (m - fixed),
                  runs, len(samples)))


main()
