"""The demo plan against its baseline, from first principles: the frontier's
fastest point is no slower than the baseline (every stage at its highest
clock, evaluated independently by --energy-evaluate), the plan is within 1 %
of the fastest point, and it uses at least 5 % less energy than the baseline.
Usage: demo_plan_check.py planned.mlir evaluated-baseline.mlir"""
import re
import sys

planned, baseline = (open(p).read() for p in sys.argv[1:3])
plan = dict((k, float(v)) for k, v in re.findall(
    r"(\w+) = ([-+0-9.eE]+) : f64", re.search(r"energy\.plan = \{([^}]*)\}",
                                               planned).group(1)))
total = dict((k, float(v)) for k, v in re.findall(
    r"(\w+) = ([-+0-9.eE]+) : f64", re.search(r"energy\.total = \{([^}]*)\}",
                                               baseline).group(1)))
yes = lambda c: "yes" if c else "NO"
print("fastest <= baseline:", yes(plan["fastest_T_s"] <= total["T_s"] * (1 + 1e-12)))
print("plan within 1% of fastest:", yes(plan["T_s"] <= plan["fastest_T_s"] * 1.01))
print("saving > 5%:", yes(plan["E_J"] < 0.95 * total["E_J"]))
