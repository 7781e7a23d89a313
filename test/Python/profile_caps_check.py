"""Checks a profile across power limits from first principles, against a
profile across every clock of the same job on the same simulated device.
Under a power limit the simulated A100 runs each kernel at the highest
clock whose power fits under it (runtime/SimDevice.h, effectiveClock), so
each region's entry under a limit W must have
  - the default clock as its sm_mhz, `power_limit_W` = W in its context
    and the default limit beside it, and the recorded runs only (neither
    the warm-up nor a limit's settling iterations);
  - a mean power s + d / T at most W (3 %: the simulator's run-to-run
    noise);
  - the time and dynamic energy of the all-clocks profile's entry at the
    highest clock whose mean power fits under W (3 %), or its entry at the
    highest clock where W does not bind.
Usage: profile_caps_check.py caps.json clocks.json LIMITS RUNS"""
import json
import sys

caps = json.load(open(sys.argv[1]))
clocks = json.load(open(sys.argv[2]))
limits = [float(w) for w in sys.argv[3].split(",")]
runs = int(sys.argv[4])


def power(e):
    return e["s_W"] + e["d_J"] / e["T_s"]


by_clock = {}
for e in clocks["entries"]:
    by_clock.setdefault(e["key"], {})[e["sm_mhz"]] = e
by_cap = {}
for e in caps["entries"]:
    ctx = e.get("context", {})
    assert "power_limit_W" in ctx, e
    assert ctx["default_power_limit_W"] == 400, e
    by_cap.setdefault(e["key"], {})[ctx["power_limit_W"]] = e
for key in ("stage0.forward", "stage0.backward"):
    entries = by_cap[key]
    assert sorted(entries) == sorted(limits), (key, sorted(entries))
    sweep = by_clock[key]
    top = max(sweep)
    for w in limits:
        e = entries[w]
        assert e["sm_mhz"] == top, (key, w, e["sm_mhz"])
        assert e["runs"] == runs, (key, w, e["runs"])
        assert power(e) <= w * 1.03, (key, w, power(e))
        fits = [c for c in sweep if power(sweep[c]) <= w]
        ref = sweep[max(fits)]
        for field in ("T_s", "d_J"):
            assert abs(e[field] / ref[field] - 1) < 0.03, (
                key, w, field, e[field], max(fits), ref[field])
        print("%s: %g W: %.4f s, %.1f W (as %d MHz: %.4f s, %.1f W)" % (
            key, w, e["T_s"], power(e), max(fits), ref["T_s"],
            power(ref)))
print("power-limit profile ok")
