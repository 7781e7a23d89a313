"""The predicted and measured savings of examples/own-job's power-limit
plan (own-job-power-limits.test): the iteration's regions run one after
another, so at each limit T is the sum of their times and E the sum of
their s T + d (interval accounting of a chain), s the static power
examples/own-job/iteration.mlir declares for its device.
Usage: own-job-power-limits.test.py OUTPUT_DIR ITERATION.mlir"""
import json
import re
import sys

d = sys.argv[1]
s = float(re.search(r"static (\S+) W", open(sys.argv[2]).read()).group(1))
db = json.load(open(d + "/caps.json"))
plan = json.load(open(d + "/capped.json"))["schedules"][0]
cap = plan["devices"][0]["power_cap_W"]
rows = {}
for e in db["entries"]:
    if e["key"] in ("stage0.forward", "stage0.backward", "optimizer"):
        row = rows.setdefault(e["context"]["power_limit_W"], [0.0, 0.0])
        row[0] += e["T_s"]
        row[1] += s * e["T_s"] + e["d_J"]
base, capped = rows[max(rows)], rows[cap]
assert abs(capped[1] / plan["plan"]["E_J"] - 1) < 1e-9, (capped, plan)
# The least energy within 20 % of the fastest row, by hand.
fastest = min(r[0] for r in rows.values())
best = min((r[1], w) for w, r in rows.items() if r[0] <= 1.2 * fastest)[1]
assert best == cap, (best, cap, rows)
b = json.load(open(d + "/baseline.json"))
q = json.load(open(d + "/capped-run.json"))
pred = 100 * (1 - capped[1] / base[1])
meas = 100 * (1 - q["E_J"] / b["E_J"])
print("predicted %.2f %% measured %.2f %%" % (pred, meas))
assert pred > 0.5, pred
assert abs(pred - meas) <= 1, (pred, meas)
assert q["T_s"] <= capped[0] * 1.01, (q["T_s"], capped[0])
