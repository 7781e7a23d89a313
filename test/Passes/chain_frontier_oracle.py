"""A chain of N tasks on one device (static 10 W), each of two options of
whole milliseconds, and its exact time-energy frontier by dynamic
programming over the chain's total milliseconds (an oracle independent of
the series-parallel decomposition).

  chain_frontier_oracle.py gen N OUT.mlir
  chain_frontier_oracle.py check N FRONTIER.csv
"""
import csv
import random
import sys

STATIC_W = 10.0


def chain(n):
    rng = random.Random(1)
    tasks = []
    for _ in range(n):
        fast = rng.randint(5, 20)
        slow = fast + rng.randint(1, 8)
        d_fast = round(rng.uniform(1, 3), 4)
        d_slow = round(d_fast * rng.uniform(0.5, 0.9), 4)
        tasks.append(((fast, d_fast), (slow, d_slow)))
    return tasks


def gen(n, out):
    lines = ["sched.schedule @s {", '  sched.device @g kind "X" static 10 W']
    for i, ((t1, d1), (t2, d2)) in enumerate(chain(n)):
        after = f" after [@t{i - 1}]" if i else ""
        lines.append(
            f"  sched.task @t{i} on @g{after} sig <T = {t1} ms, d = {d1} J> "
            f"options [#energy.option<sm_mhz = 1400, T = {t1} ms, d = {d1} J>, "
            f"#energy.option<sm_mhz = 900, T = {t2} ms, d = {d2} J>]")
    lines.append("}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def oracle(n):
    """Pareto (T s, E J), fastest first: E = static power x T + sum of d."""
    tasks = chain(n)
    base = sum(t1 for (t1, _), _ in tasks)
    best = [0.0]  # best[x]: least dynamic energy with x ms beyond the fastest
    inf = float("inf")
    for (t1, d1), (t2, d2) in tasks:
        extra = t2 - t1
        grown = [inf] * (len(best) + extra)
        for x, d in enumerate(best):
            if d + d1 < grown[x]:
                grown[x] = d + d1
            if d + d2 < grown[x + extra]:
                grown[x + extra] = d + d2
        best = grown
    points, least = [], inf
    for x, d in enumerate(best):
        energy = STATIC_W * (base + x) / 1000 + d
        if energy < least:
            least = energy
            points.append(((base + x) / 1000, energy))
    return points


def check(n, path):
    with open(path) as f:
        got = [(float(r["time_s"]), float(r["energy_J"]))
               for r in csv.DictReader(f)]
    want = oracle(n)
    assert len(got) == len(want), f"{len(got)} points, the oracle {len(want)}"
    for (t, e), (wt, we) in zip(got, want):
        assert abs(t - wt) <= 1e-9 * wt and abs(e - we) <= 1e-9 * we, \
            f"({t} s, {e} J) against the oracle's ({wt} s, {we} J)"
    print(f"{len(got)} points, each the oracle's")


if __name__ == "__main__":
    mode, n = sys.argv[1], int(sys.argv[2])
    gen(n, sys.argv[3]) if mode == "gen" else check(n, sys.argv[3])
