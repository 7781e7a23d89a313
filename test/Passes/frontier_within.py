"""Checks a thinned frontier against the full one: at every point (T, E) of
the full frontier, the best thinned point with a makespan <= T is within
the given relative error of E, and the thinned one is a subset.
Usage: frontier_within.py full.csv thinned.csv MAX_ERROR"""
import csv
import sys

full = [(float(r["time_s"]), float(r["energy_J"])) for r in csv.DictReader(open(sys.argv[1]))]
thin = [(float(r["time_s"]), float(r["energy_J"])) for r in csv.DictReader(open(sys.argv[2]))]
eps = float(sys.argv[3])
assert set(thin) <= set(full), "thinned points must be points of the full frontier"
assert len(thin) < len(full), "nothing was thinned (%d points)" % len(full)
worst = 0.0
for t, e in full:
    best = min((E for T, E in thin if T <= t * (1 + 1e-12)), default=float("inf"))
    worst = max(worst, best / e - 1)
if worst > eps:
    sys.exit("thinned frontier is %.4f%% above the full one" % (100 * worst))
print("%d of %d points; thinned frontier within %g%% of the full one at every makespan (worst %.4f%%)"
      % (len(thin), len(full), 100 * eps, 100 * worst))
