"""Checks an --export-perfetto trace: the Chrome JSON trace format (a
traceEvents list of complete "X" slices, "C" counters, "M" metadata and
"s"/"f" flow pairs with the fields Perfetto and chrome://tracing read; each
flow starts inside a slice and ends where one starts, on its own process
and thread), and that each device's
power counter, integrated over time, and its cumulative energy counter both
give the device's energy, which sum to the evaluated total (`energy.total`
of the lowered schedule) to 1e-9.
Usage: perfetto_check.py trace.json evaluated.mlir"""
import json
import re
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
assert isinstance(events, list) and events, "traceEvents must be a list"
slices = counters = 0
power, energy = {}, {}
flows = {}
for e in events:
    ph = e["ph"]
    assert isinstance(e["pid"], int), e
    if ph == "X":
        slices += 1
        assert isinstance(e["name"], str) and isinstance(e["tid"], int), e
        assert e["ts"] >= 0 and e["dur"] >= 0, e
    elif ph == "C":
        counters += 1
        ((key, value),) = e["args"].items()
        if e["name"] in ("planned SM clock", "baseline SM clock"):
            assert key == "MHz" and value > 0, e
            continue
        (power if e["name"] == "power" else energy).setdefault(
            e["pid"], []).append((e["ts"], value))
    elif ph in ("s", "f"):
        flows.setdefault(e["id"], {})[ph] = e
    else:
        assert ph == "M" and e["name"] == "process_name", e
spans = [(e["pid"], e["tid"], e["ts"], e["ts"] + e["dur"]) for e in events
         if e["ph"] == "X"]
for fid, pair in flows.items():
    assert set(pair) == {"s", "f"}, ("a flow needs one start and one end", fid)
    s, f = pair["s"], pair["f"]
    assert s["cat"] == f["cat"] and f.get("bp") == "e", pair
    assert any(p == s["pid"] and t == s["tid"] and a <= s["ts"] <= b
               for p, t, a, b in spans), ("flow start in no slice", s)
    assert any(p == f["pid"] and t == f["tid"] and a == f["ts"]
               for p, t, a, b in spans), ("flow end at no slice's start", f)
    assert s["ts"] <= f["ts"], pair
total = 0.0
for pid, steps in power.items():
    steps.sort()
    integral = sum(p * (t1 - t0) for (t0, p), (t1, _) in zip(steps, steps[1:])) * 1e-6
    last = max(energy[pid])[1]
    # Zero-length tasks add energy without power; the counter holds them.
    assert last >= integral * (1 - 1e-12), (pid, integral, last)
    total += last
text = open(sys.argv[2]).read()
want = float(re.search(r"energy\.total = \{E_J = ([-+0-9.eE]+)", text).group(1))
rel = abs(total - want) / want
print("%d slices, %d counter samples, %d flows, %d devices; counters give "
      "%.12g J, evaluated %.12g J (rel %.1e)"
      % (slices, counters, len(flows), len(power), total, want, rel))
sys.exit(0 if rel <= 1e-9 else 1)
