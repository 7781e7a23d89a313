#!/usr/bin/env python3
# Copied from the team's shared benchmark folder (shared/bench/); the model
# is unchanged, the arguments are checked (usage on -h or a bad argument).
"""Write a synthetic Perseus-format stage profile (stage,instruction,frequency,time,energy).

This is the profile on which Perseus's solver `lowtime` (v0.2.0, pure Python) was timed on this
machine kind (see ../docs/ANCHORS.md). Blocking (static) power for that comparison: 70 W.
Model: 73 SM clocks 1740..660 MHz in 15 MHz steps; time t(f) = t_max * ((1 - beta) + beta * fmax / f),
power p(f) = 75 W + 230 W * (f / fmax)^2.5, energy = t * p; forward t_max 0.0937 s, backward 0.2453 s,
per-stage multiplier 1 +- 0.02 (seeded), first stage +0.05, last stage +0.20.
Usage: synthetic_perseus_profile.py STAGES [SEED] > profile.csv
"""
import random, sys
FMAX, FMIN, FSTEP = 1740, 660, 15
BETA, P_STATIC, P_DYN, GAMMA = 0.85, 75.0, 230.0, 2.5
def main():
    args = sys.argv[1:]
    usage = (__doc__.strip().splitlines()[-1] +
             "\n(STAGES a positive integer, SEED a non-negative one)")
    if args and args[0] in ("-h", "--help"):
        print(usage)
        return
    if not 1 <= len(args) <= 2 or \
            not all(a.isascii() and a.isdigit() for a in args) or \
            int(args[0]) < 1:
        sys.exit(usage)
    stages = int(args[0]); seed = int(args[1]) if len(args) > 1 else 0
    random.seed(seed)
    mult = []
    for s in range(stages):
        m = 1.0 + random.uniform(-0.02, 0.02)
        if s == 0: m += 0.05
        if s == stages - 1: m += 0.20
        mult.append(m)
    print("stage,instruction,frequency,time,energy")
    for s in range(stages):
        for inst, tmax in (("forward", 0.0937), ("backward", 0.2453)):
            for f in range(FMAX, FMIN - 1, -FSTEP):
                t = tmax * mult[s] * ((1 - BETA) + BETA * FMAX / f)
                p = P_STATIC + P_DYN * (f / FMAX) ** GAMMA
                print(f"{s},{inst},{f},{t!r},{t * p!r}")
if __name__ == "__main__":
    main()
