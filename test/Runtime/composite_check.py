"""Checks a signature DB's composite entries against its kernels' entries:
at every clock, T, d and their variances must be the counts-weighted sums of
the parts' (the calculus' seq of independent parts), to 1e-12 relative.
Usage: composite_check.py db.json COMPOSITE KEY=COUNT ..."""
import json
import sys

db = json.load(open(sys.argv[1]))
name = sys.argv[2]
parts = {k: int(n) for k, n in (a.split("=") for a in sys.argv[3:])}
by = {}
for e in db["entries"]:
    by[(e["key"], e["sm_mhz"])] = e
clocks = [e["sm_mhz"] for e in db["entries"] if e["key"] == name]
print("clocks", " ".join(str(c) for c in clocks))
for c in clocks:
    comp = by[(name, c)]
    want = {"T_s": 0.0, "d_J": 0.0, "varT": 0.0, "varD": 0.0}
    for k, n in parts.items():
        e = by[(k, c)]
        want["T_s"] += n * e["T_s"]
        want["d_J"] += n * e["d_J"]
        want["varT"] += n * e["sigma_T_s"] ** 2
        want["varD"] += n * e["sigma_d_J"] ** 2
    got = {"T_s": comp["T_s"], "d_J": comp["d_J"],
           "varT": comp["sigma_T_s"] ** 2, "varD": comp["sigma_d_J"] ** 2}
    for f in want:
        if abs(got[f] - want[f]) > 1e-12 * max(abs(want[f]), 1e-300):
            sys.exit("%s at %d MHz: %s = %r, parts give %r"
                     % (name, c, f, got[f], want[f]))
print("%s: %d composed entries, each the sum of its parts" % (name, len(clocks)))
