#!/usr/bin/env python3
"""Generates a synthetic `energy` tree with N leaf elements (benchmarks).

Shape: one energy.multi over D devices; each device is an energy.seq of
blocks; a block is an element, an idle, a par of 2-4 elements (later
starters get an idle prefix inside a nested seq), or a nested seq of 2-3
elements. Signatures carry uncertainty. Deterministic for a given seed.

  bench/gen_tree.py --elements 1000000 --devices 8 --seed 1 > tree.mlir
"""
import argparse
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, required=True)
    ap.add_argument("--devices", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.elements < args.devices or args.devices < 1:
        sys.exit("gen_tree.py: need at least one element per device")
    rng = random.Random(args.seed)
    out = []
    w = out.append
    for d in range(args.devices):
        w(f'energy.device @gpu{d} kind "A100-SXM4" static {50 + d} W\n')
    w("energy.multi @step {\n")
    per_dev = args.elements // args.devices
    extra = args.elements - per_dev * args.devices
    n = 0
    for d in range(args.devices):
        budget = per_dev + (1 if d < extra else 0)
        dev = f"@gpu{d}"
        w(f"  energy.seq @dev{d} {{\n")

        def elem(indent):
            nonlocal n
            t = rng.randint(10, 5000)
            e = rng.randint(1, 900)
            w(f"{indent}energy.element @e{n} on {dev} sig <T = {t} us, "
              f"d = {e} mJ, sigma_T = {t // 50 + 1} us, sigma_d = {e // 40 + 1} mJ>\n")
            n += 1

        while budget > 0:
            r = rng.random()
            if r < 0.5 or budget < 4:
                elem("    ")
                budget -= 1
            elif r < 0.6:
                w(f"    energy.idle on {dev} for {rng.randint(1, 300)} us\n")
            elif r < 0.85:
                k = rng.randint(2, 4)
                w("    energy.par {\n")
                for i in range(k):
                    if i and rng.random() < 0.5:
                        w("      energy.seq {\n")
                        w(f"        energy.idle on {dev} for {rng.randint(1, 200)} us\n")
                        elem("        ")
                        w("      }\n")
                    else:
                        elem("      ")
                w("    }\n")
                budget -= k
            else:
                k = rng.randint(2, 3)
                w("    energy.seq {\n")
                for _ in range(k):
                    elem("      ")
                w("    }\n")
                budget -= k
        w("  }\n")
    w("}\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
