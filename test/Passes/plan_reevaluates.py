"""The standing invariant of every plan: re-lowering and evaluating the
planned schedule gives the plan's own E and T. Reads `energy.plan` from the
planned IR and `energy.total` from its evaluated lowering; fails unless both
agree to 1e-9 relative.
Usage: plan_reevaluates.py planned.mlir evaluated.mlir"""
import re
import sys


def field(text, attr, name, path):
    m = re.search(attr + r" = \{([^}]*)\}", text)
    if not m:
        sys.exit("%s: no %s attribute" % (path, attr))
    f = re.search(r"(?:^|[ ,])" + name + r" = ([-+0-9.eE]+)", m.group(1))
    if not f:
        sys.exit("%s: %s has no %s" % (path, attr, name))
    return float(f.group(1))


planned, evaluated = (open(p).read() for p in sys.argv[1:3])
ok = True
for plan_name, total_name in (("E_J", "E_J"), ("T_s", "T_s")):
    claim = field(planned, "energy.plan", plan_name, sys.argv[1])
    got = field(evaluated, "energy.total", total_name, sys.argv[2])
    rel = abs(claim - got) / max(abs(claim), 1e-300)
    print("%s: plan %.12g, re-evaluated %.12g (rel %.1e)" % (plan_name, claim, got, rel))
    ok &= rel <= 1e-9
print("plan re-evaluates to its claim" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
