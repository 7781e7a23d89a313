"""The standing invariant of every plan: re-lowering and evaluating the
planned schedule gives the plan's own E and T. Reads `energy.plan` from the
planned IR and `energy.total` from its evaluated lowering; fails unless both
agree to 1e-9 relative, or the plan's time is past its own limit.

Files written with -split-input-file are compared chunk by chunk (split at
`// -----`); every chunk must hold a plan. Where the plan's clock switches
were emitted as tasks (--energy-emit-dvfs), the lowering includes them and
is compared with the plan's E_with_switches_J and T_with_switches_s.

Usage: plan_reevaluates.py planned.mlir evaluated.mlir"""
import re
import sys

SPLIT = re.compile(r"^// -----\s*$", re.M)


def field(text, attr, name, where):
    m = re.search(attr + r" = \{([^}]*)\}", text)
    if not m:
        sys.exit("%s: no %s attribute" % (where, attr))
    f = re.search(r"(?:^|[ ,])" + name + r" = ([-+0-9.eE]+)", m.group(1))
    if not f:
        sys.exit("%s: %s has no %s" % (where, attr, name))
    return float(f.group(1))


paths = sys.argv[1:3]
planned, evaluated = (SPLIT.split(open(p).read()) for p in paths)
if len(planned) != len(evaluated):
    sys.exit("%s has %d chunks, %s has %d" % (paths[0], len(planned), paths[1],
                                              len(evaluated)))
ok = True
for i, (plan, ev) in enumerate(zip(planned, evaluated)):
    where = [p if len(planned) == 1 else "%s (chunk %d)" % (p, i + 1)
             for p in paths]
    switched = 'kind "dvfs-switch"' in plan
    for plan_name, total_name in (("E_J", "E_J"), ("T_s", "T_s")):
        if switched:
            plan_name = plan_name.replace("_", "_with_switches_", 1)
        claim = field(plan, "energy.plan", plan_name, where[0])
        got = field(ev, "energy.total", total_name, where[1])
        rel = abs(claim - got) / max(abs(claim), 1e-300)
        print("%s: plan %s %.12g, re-evaluated %.12g (rel %.1e)" %
              (where[0], plan_name, claim, got, rel))
        ok &= rel <= 1e-9
    # And it keeps its own limit (with its switches where they run).
    limit = field(plan, "energy.plan", "limit_T_s", where[0])
    T = field(plan, "energy.plan",
              "T_with_switches_s" if switched else "T_s", where[0])
    if T > limit * (1 + 1e-12):
        print("%s: plan T %.12g past its limit %.12g" % (where[0], T, limit))
        ok = False
    # Where the limit holds the expected makespan, so does the plan, unless
    # even the fastest configuration averages past it (then it is planned).
    if re.search(r'limit_on = "expected"', plan):
        mean = field(plan, "energy.plan", "expected_T_s", where[0])
        m = re.search(r"fastest_expected_T_s = ([-+0-9.eE]+)", plan)
        fastest = float(m.group(1)) if m else field(
            plan, "energy.plan", "fastest_T_s", where[0])
        if mean > max(limit, fastest) * (1 + 1e-12):
            print("%s: plan E[T] %.12g past its limit %.12g" %
                  (where[0], mean, limit))
            ok = False
print("plan re-evaluates to its claim" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
