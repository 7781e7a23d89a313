"""Checks a profile across power limits and clocks (every limit with every
clock under it) from first principles, against a profile across every
clock of the same job at the default limit on the same simulated device.
With the clock locked at c under a limit W the simulated A100 runs each
kernel at the highest clock at or below c whose power fits under W
(runtime/SimDevice.h: the driver's capping at steady state), so each
region's entry at (W, c) must have
  - sm_mhz = c, `power_limit_W` = W in its context, and the recorded runs
    only (neither the warm-up nor a pair's settling iterations);
  - a mean power s + d / T at most W (3 %: the simulator's run-to-run
    noise), or that of the lowest clock where none fits;
  - the time and dynamic energy of the all-clocks profile's entry at the
    highest clock at or below c whose mean power fits under W (3 %).
Usage: profile_grid_check.py grid.json clocks.json LIMITS CLOCKS RUNS"""
import json
import sys

grid = json.load(open(sys.argv[1]))
clocks = json.load(open(sys.argv[2]))
limits = [float(w) for w in sys.argv[3].split(",")]
locked = [int(c) for c in sys.argv[4].split(",")]
runs = int(sys.argv[5])


def power(e):
    return e["s_W"] + e["d_J"] / e["T_s"]


by_clock = {}
for e in clocks["entries"]:
    by_clock.setdefault(e["key"], {})[e["sm_mhz"]] = e
at = {}
for e in grid["entries"]:
    ctx = e.get("context", {})
    assert "power_limit_W" in ctx, e
    at.setdefault(e["key"], {})[(ctx["power_limit_W"], e["sm_mhz"])] = e
for key in ("stage0.forward", "stage0.backward"):
    entries = at[key]
    want = sorted((w, c) for w in limits for c in locked)
    assert sorted(entries) == want, (key, sorted(entries))
    sweep = by_clock[key]
    for w, c in want:
        e = entries[(w, c)]
        assert e["runs"] == runs, (key, w, c, e["runs"])
        fits = [f for f in sweep if f <= c and power(sweep[f]) <= w]
        ref = sweep[max(fits) if fits else min(sweep)]
        assert power(e) <= max(w, power(ref)) * 1.03, (key, w, c, power(e))
        for field in ("T_s", "d_J"):
            assert abs(e[field] / ref[field] - 1) < 0.03, (
                key, w, c, field, e[field], ref["sm_mhz"], ref[field])
        print("%s: %g W, %d MHz: %.4f s, %.1f W (runs as %d MHz)" % (
            key, w, c, e["T_s"], power(e), ref["sm_mhz"]))
print("power-limit and clock profile ok")
