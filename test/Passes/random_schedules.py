#!/usr/bin/env python3
"""Seeded random schedules for the standing invariants' lit tests.

  random_schedules.py COUNT SEED [MIN_TASKS MAX_TASKS] [--jitter] > schedules.mlir

COUNT `sched.schedule`s separated by `// -----` (for -split-input-file):
1-3 devices of 20-120 W, 3-12 tasks (or MIN_TASKS-MAX_TASKS: some 30 are
past enumeration and series-parallel, the heuristic sweeps' ground), each
after up to two earlier tasks
(sometimes with a delay) and sometimes released late, with 1-4 operating
points whose times (7-60 ms, not multiples of a round quantum) grow as
their dynamic energies fall; each task's `sig` is its fastest option.
--jitter: every option's time varies (sigma_T 2-15 % of it) and so does
every delay (delay_sigma up to half of it).
--caps: every option is measured at three power caps, 300, 200 and 150 W
(lower caps slow it by up to 40 % and save up to 25 % of its dynamic
energy, or cost up to 5 % more), as a DB characterized with --power-limits
fills them; one task in 20 lacks the 150 W ones."""
import random
import sys

jitter = "--jitter" in sys.argv
caps = "--caps" in sys.argv
args = [a for a in sys.argv[1:] if a not in ("--jitter", "--caps")]
count, seed = int(args[0]), int(args[1])
lo, hi = (int(args[2]), int(args[3])) if len(args) > 3 else (3, 12)
rng = random.Random(seed)
chunks = []
for k in range(count):
    lines = ["sched.schedule @s%d {" % k]
    devices = rng.randint(1, 3)
    for d in range(devices):
        lines.append('  sched.device @g%d kind "X" static %d W'
                     % (d, rng.randint(20, 120)))
    tasks = rng.randint(lo, hi)
    for t in range(tasks):
        preds = sorted(set(rng.randrange(t) for _ in range(rng.randint(0, 2))
                           if t > 0))
        after = ""
        if preds:
            after = " after [%s]" % ", ".join("@t%d" % p for p in preds)
            if rng.random() < 0.3:
                delay = rng.uniform(0.1, 5)
                after += " delay %.3f ms" % delay
                if jitter:
                    after += " delay_sigma %.3f ms" % (delay * rng.uniform(0, 0.5))
        release = (" release %.3f ms" % rng.uniform(1, 40)
                   if rng.random() < 0.15 else "")
        T = rng.uniform(7, 30)
        d = rng.uniform(1, 8)
        spread = rng.uniform(0.02, 0.15) if jitter else 0
        sigma = lambda T: ", sigma_T = %.4f ms" % (spread * T) if jitter else ""
        sig = "sig <T = %.4f ms, d = %.4f J%s>" % (T, d, sigma(T))
        options = []
        clocks = []
        for j in range(rng.randint(1, 4)):
            clocks.append((1400 - 200 * j, T, d))
            T *= rng.uniform(1.05, 1.5)
            d *= rng.uniform(0.6, 0.95)
        if not caps:
            for mhz, T, d in clocks:
                options.append("#energy.option<sm_mhz = %d, T = %.4f ms, d = %.4f J%s>"
                               % (mhz, T, d, sigma(T)))
        else:
            for cap in (300, 200, 150)[:2 if rng.random() < 0.05 else 3]:
                slow = 1 if cap == 300 else rng.uniform(1.0, 1.4)
                save = 1 if cap == 300 else rng.uniform(0.75, 1.05)
                for mhz, T, d in clocks:
                    options.append("#energy.option<sm_mhz = %d, power_cap = %d W, "
                                   "T = %.4f ms, d = %.4f J%s>"
                                   % (mhz, cap, T * slow, d * save, sigma(T)))
        lines.append("  sched.task @t%d on @g%d%s%s %s options [%s]" % (
            t, rng.randrange(devices), after, release, sig,
            ", ".join(options)))
    lines.append("}")
    chunks.append("\n".join(lines))
print("\n// -----\n".join(chunks))
