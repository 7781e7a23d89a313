#!/usr/bin/env python3
"""What in-process profiling adds to an iteration's host time, beyond the
clock changes: the same loop (8 stage regions and an energy_rt.step() per
iteration, no work charged) run in two processes on the simulated A100, one
without profiling and one with ENERGY_RT_PROFILE_CLOCKS=every:4 (21
clocks, each held for a 21st of the run, so that every timed iteration is
profiled; the simulated clock change itself is free). Best of 5 timed runs each.
Usage: PYTHONPATH=build/python python3 bench/profile_overhead.py [ITERATIONS]"""
import os
import subprocess
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
job = r'''
import sys, time, energy_rt
m = energy_rt.Monitor(device="sim:a100")
names = ["stage%d.%s" % (s, k) for s in range(4) for k in ("forward", "backward")]
n = int(sys.argv[1])
best = float("inf")
for rep in range(5):
    t0 = time.perf_counter()
    for it in range(n):
        for name in names:
            m.begin_window(name)
            m.end_window(name)
        energy_rt.step()
    best = min(best, (time.perf_counter() - t0) / n)
print("%.3f" % (best * 1e6))
'''
results = {}
for name, extra in (("off", {}),
                    ("on", {"ENERGY_RT_PROFILE_CLOCKS": "every:4",
                            "ENERGY_RT_ALLOW_CLOCK_CHANGES": "1",
                            "ENERGY_RT_PROFILE_WARMUP": "1",
                            # the sweep (21 clocks) spans all 5 x n iterations
                            "ENERGY_RT_PROFILE_ITERATIONS": str(max(1, 5 * n // 21))})):
    env = dict(os.environ, **extra)
    env.pop("ENERGY_RT_PROFILE_CLOCKS", None) if name == "off" else None
    out = subprocess.run([sys.executable, "-c", job, str(n)], env=env,
                         capture_output=True, text=True, check=True).stdout
    results[name] = float(out)
print("iteration (8 regions + step): %.2f us without profiling, %.2f us with "
      "(%+.2f us, %+.1f %%)" % (results["off"], results["on"],
                                results["on"] - results["off"],
                                100 * (results["on"] / results["off"] - 1)))
