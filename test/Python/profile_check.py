"""Checks the profiled DB from first principles: per region one entry per
swept clock with the recorded iterations' runs (the warm-up is not among
them; the default clock also counts the iteration after the sweep), and a
compute-bound region's time grows as 1/clock (the simulated A100's roofline,
runtime/SimDevice.h) to within 3 % (the simulator's run-to-run noise).
Usage: profile_check.py db.json"""
import json
import sys

db = json.load(open(sys.argv[1]))
by = {}
for e in db["entries"]:
    by.setdefault(e["key"], {})[e["sm_mhz"]] = e
for key in ("stage0.forward", "stage0.backward"):
    clocks = by[key]
    assert sorted(clocks) == [705, 1005, 1410], (key, sorted(clocks))
    assert [clocks[c]["runs"] for c in (1410, 1005, 705)] == [3, 2, 2], key
    t = {c: clocks[c]["T_s"] for c in clocks}
    for c in (1005, 705):
        ratio = t[c] / t[1410]
        assert abs(ratio / (1410 / c) - 1) < 0.03, (key, c, ratio)
    print("%s: %s" % (key, ", ".join("%d MHz %.4f s" % (c, t[c]) for c in sorted(t, reverse=True))))
print("profile ok")
