"""A profile across power limits that chooses one for the rest of the job
(ENERGY_RT_POWER_LIMIT_CHOICE, as Zeus's GlobalPowerLimitOptimizer does),
checked from the DB the same sweep wrote: each limit's iteration by hand
(the regions run one after another on a simulated device in virtual time,
so an iteration is the sum of their times, and of their s T + d), the
choice by hand from those rows (the least energy within the slowdown of
the fastest row, or the least eta E + (1 - eta) MAXPOWER T), and the limit
in force after the sweep read from the simulator's mirror
(ENERGY_RT_SIM_STATE, FILE.power).
In a job of several ranks (WORLD_SIZE, RANK) rank r's work is r + 1 times
rank 0's, and the job's row at a limit is its ranks' energy summed and
their slowest time, read from every rank's DB.
Usage: profile_caps_choice.py OUT_DIR ITERATIONS (the environment names
the limits, the objective and the mirror)."""
import json
import os
import re
import sys
import time

import energy_rt

out, n = sys.argv[1], int(sys.argv[2])
world, rank = int(os.environ.get("WORLD_SIZE", 1)), energy_rt.rank()
scale = 1 + max(rank, 0)
for _ in range(n):
    with energy_rt.region("fwd"):
        energy_rt.sim_run(5e12 * scale, 1e9)
    with energy_rt.region("bwd"):
        energy_rt.sim_run(1e13 * scale, 2e9)
    energy_rt.step()
mirror = os.environ["ENERGY_RT_SIM_STATE"].replace("%r", str(max(rank, 0)))
in_force = float(open(mirror + ".power").read())
energy_rt.flush(os.path.join(out, "choice-%r.json"))
# The job goes on under the chosen limit, its regions recorded again: the
# chosen limit's entries hold the sweep's runs and every later one.
env = os.environ
limits = env["ENERGY_RT_PROFILE_POWER_LIMITS"].split(",")
per = int(env.get("ENERGY_RT_PROFILE_ITERATIONS", 3))
swept = int(env.get("ENERGY_RT_PROFILE_WARMUP", 2)) + len(limits) * (
    int(env.get("ENERGY_RT_PROFILE_SETTLE", 1)) + per)
own = json.load(open(os.path.join(out, "choice-%d.json" % max(rank, 0))))
for e in own["entries"]:
    want = per + (n - swept if e["context"]["power_limit_W"] == in_force else 0)
    assert e["runs"] == want, (e["key"], e["context"], e["runs"], want)
rows = {}
for r in range(world):
    path = os.path.join(out, "choice-%d.json" % r)
    deadline = time.time() + 120
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.05)
    per = {}
    for e in json.load(open(path))["entries"]:
        row = per.setdefault(e["context"]["power_limit_W"], [0.0, 0.0])
        row[0] += e["T_s"]
        row[1] += e["s_W"] * e["T_s"] + e["d_J"]
    for w, (t, e) in per.items():
        row = rows.setdefault(w, [0.0, 0.0])
        row[0] = max(row[0], t)
        row[1] += e
objective = dict(kv.split("=") for kv in
                 re.split("[, ]+", os.environ["ENERGY_RT_POWER_LIMIT_CHOICE"]))
if "max-slowdown" in objective:
    fastest = min(t for t, _ in rows.values())
    limit = float(objective["max-slowdown"])
    best = min((e, w) for w, (t, e) in rows.items()
               if t <= fastest * (1 + limit / 100))[1]
else:
    eta, top = float(objective.get("eta", 0.5)), float(objective["max-power"])
    best = min((eta * e + (1 - eta) * top * t, w)
               for w, (t, e) in rows.items())[1]
for w in sorted(rows, reverse=True):
    print("%g W: %.6f s, %.6f J" % (w, rows[w][0], rows[w][1]))
print("chosen by hand %g W, in force %g W" % (best, in_force))
assert best == in_force, (best, in_force)
print("choice ok")
