"""Checks the profiled DB from first principles: per region one entry per
swept clock with the recorded iterations' runs (neither the warm-up nor
the iteration after the sweep is among them: the profile holds the swept
clocks only), a
compute-bound region's time grows as 1/clock (the simulated A100's roofline,
runtime/SimDevice.h) to within 3 % (the simulator's run-to-run noise), and
its dynamic energy falls with the clock.
Usage: profile_check.py db.json CLOCKS (highest first: 1410,1005,705)"""
import json
import sys

db = json.load(open(sys.argv[1]))
swept = [int(c) for c in sys.argv[2].split(",")]
top = swept[0]
by = {}
for e in db["entries"]:
    by.setdefault(e["key"], {})[e["sm_mhz"]] = e
for key in ("stage0.forward", "stage0.backward"):
    clocks = by[key]
    assert sorted(clocks) == sorted(swept), (key, sorted(clocks))
    assert [clocks[c]["runs"] for c in swept] == [2] * len(swept), key
    t = {c: clocks[c]["T_s"] for c in clocks}
    for c in swept[1:]:
        ratio = t[c] / t[top]
        assert abs(ratio / (top / c) - 1) < 0.03, (key, c, ratio)
    # Lower clocks run at lower voltage: less dynamic energy for the same
    # work (the model's Ceff u V(f)^2 f), never zero.
    d = [clocks[c]["d_J"] for c in swept]
    assert all(x > 0 for x in d) and d == sorted(d, reverse=True), (key, d)
    print("%s: %s" % (key, ", ".join("%d MHz %.4f s" % (c, t[c]) for c in sorted(t, reverse=True))))
print("profile ok")
