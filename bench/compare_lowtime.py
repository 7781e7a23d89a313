#!/usr/bin/env python3
"""Compares our frontier (CSV time_s,energy_J) with a lowtime run (JSON).

At every time lowtime reached, our best energy at that time or faster is
compared with lowtime's total energy (effective + stages x time x blocking).
  bench/compare_lowtime.py ours.csv lowtime.json
"""
import bisect
import csv
import json
import sys

ours = sorted((float(r["time_s"]), float(r["energy_J"]))
              for r in csv.DictReader(open(sys.argv[1])))
lt = json.load(open(sys.argv[2]))
times = [t for t, _ in ours]
best_prefix, b = [], float("inf")
for _, e in ours:
    b = min(b, e)
    best_prefix.append(b)
rows = []
for t, total, _ in lt["frontier_sampled"]:
    i = bisect.bisect_right(times, t + 1e-9) - 1
    if i < 0:
        continue
    rows.append((t, total, best_prefix[i], (best_prefix[i] - total) / total))
worse = max(r[3] for r in rows)
better = min(r[3] for r in rows)
print(f"{len(rows)} lowtime points compared; ours - lowtime in "
      f"[{100 * better:.2f}%, {100 * worse:.2f}%] of lowtime's energy")
t_min, e_min, _ = lt["frontier_last"][0]
i = bisect.bisect_right(times, t_min + 1e-9) - 1
ours_at = best_prefix[i] if i >= 0 else float("nan")
print(f"at lowtime's minimum time {t_min:.2f} s: lowtime {e_min:.1f} J, "
      f"ours {ours_at:.1f} J")
