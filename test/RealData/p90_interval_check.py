"""Recomputes serve-plan's p90 interval at an unmeasured cap from the data:
the 2.5 % and 97.5 % quantiles (linear between order statistics) of
log(measured / interpolated) p90 at every interior cap of every cell, each
interpolated linearly in the cap between its neighbours (the worst p90 of a
cap's runs), and compares with the answer's `ci95_p90_itl_ms`.
Usage: p90_interval_check.py DATA.json ANSWER.json"""
import json
import math
import sys

data = json.load(open(sys.argv[1]))
answer = json.load(open(sys.argv[2]))
cells = {}
for c in data["configurations"]:
    if c.get("p90_itl_ms") is None or c["p90_itl_ms"] <= 0:
        continue
    key = (c["model_id"], c["gpu_model"], c["tensor_parallel"],
           c.get("expert_parallel", 1), c.get("data_parallel", 1),
           c["num_gpus"])
    caps = cells.setdefault(key, {})
    cap = c["max_num_seqs"]
    caps[cap] = max(caps.get(cap, 0), c["p90_itl_ms"])
errors = []
for caps in cells.values():
    pts = sorted(caps.items())
    for k in range(1, len(pts) - 1):
        (a, la), (x, lx), (b, lb) = pts[k - 1], pts[k], pts[k + 1]
        errors.append(math.log(lx / (la + (x - a) / (b - a) * (lb - la))))
errors.sort()


def quantile(q):
    at = q * (len(errors) - 1)
    i = int(at)
    return errors[i] + (at - i) * (errors[min(i + 1, len(errors) - 1)] - errors[i])


p90 = answer["predicted_p90_itl_ms"]
lo, hi = answer["ci95_p90_itl_ms"]
want = (p90 * math.exp(quantile(0.025)), p90 * math.exp(quantile(0.975)))
ok = abs(lo - want[0]) <= 1e-9 * want[0] and abs(hi - want[1]) <= 1e-9 * want[1]
print("%d errors; interval [%.4f, %.4f] ms, by hand [%.4f, %.4f]: %s" % (
    len(errors), lo, hi, want[0], want[1], "agree" if ok else "DIFFER"))
