"""A job whose regions are named after the DB's keys, following a
`plan-clocks --by-key` file: it begins one device's tasks in the plan's
start order, each as the region of its `db_key`, for several iterations
(step() between), and checks that every begin ran at its own task's
planned clock (plan.json's `sm_mhz`, read independently of the clock file).

    by_key_job.py plan.json DEVICE clocks.txt ITERATIONS
"""
import json
import sys

import energy_rt

plan_json, device, clocks, iterations = sys.argv[1:5]
plan = json.load(open(plan_json))
(dev,) = [d for s in plan["schedules"] for d in s["devices"]
          if d["device"] == device]
tasks = [t for t in dev["tasks"] if t.get("kind") != "dvfs-switch"]
assert all("db_key" in t for t in tasks), "a task without a DB key"
energy_rt.load_plan(clocks)
checked = 0
for it in range(int(iterations)):
    for t in tasks:
        with energy_rt.region(t["db_key"]):
            energy_rt.sim_run(1e9, 1e6)
            mhz = energy_rt.sm_clock()[0]
        if t["sm_mhz"] is not None:
            assert mhz == t["sm_mhz"], (it, t["task"], mhz, t["sm_mhz"])
            checked += 1
    energy_rt.step()
clocks_used = sorted({t["sm_mhz"] for t in tasks if t["sm_mhz"]})
print("by-key plan followed: %d begins at their tasks' clocks (%s MHz)"
      % (checked, ", ".join(map(str, clocks_used))))
