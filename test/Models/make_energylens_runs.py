#!/usr/bin/env python3
"""Synthetic inference-run energies from EnergyLens Eq. 4 with known
parameters and 2 % seeded noise (two repeats per configuration cell).

  make_energylens_runs.py            -> CSV on stdout
  make_energylens_runs.py --check M  -> every fitted parameter in model file
                                        M within 3 standard errors of truth
"""
import json
import math
import random
import sys

NAMES = ["alpha_p", "beta_p", "eps_p", "gamma1_p", "gamma2_p", "alpha_d",
         "beta_d", "eps_d", "gamma1_d", "gamma2_d", "delta_1", "delta_2"]
TRUTH = [0.02, 0.6, 0.5, -0.2, 0.1, 0.5, 0.9, 2.0, 0.3, 0.15, 3.0, 5.0]


def energy(p, n_in, n_out, b, tp, pp):
    pre = p[0] * n_in / (b ** p[1] + p[2]) * tp ** p[3] * pp ** p[4]
    dec = p[5] * n_out / (b ** p[6] + p[7]) * tp ** p[8] * pp ** p[9]
    return pre + dec + p[10] * tp + p[11] * pp


if len(sys.argv) == 3 and sys.argv[1] == "--check":
    model = json.load(open(sys.argv[2]))
    cov = model["covariance"]
    bad = 0
    for i, name in enumerate(NAMES):
        fit, se = model["coefficients"][name], math.sqrt(cov[i * 12 + i])
        z = (fit - TRUTH[i]) / se
        if abs(z) > 3:
            print(f"{name}: fitted {fit:g} +- {se:g}, truth {TRUTH[i]:g}")
            bad += 1
    print("all 12 parameters within 3 standard errors" if not bad else
          f"{bad} parameters outside 3 standard errors")
    sys.exit(1 if bad else 0)

rng = random.Random(11)
print("input_tokens,max_tokens,batch,tp,pp,e,cell")
for b in [1, 2, 4, 8, 16, 32, 64]:
    for prompt in [128, 1024]:
        for out in [64, 512]:
            for tp in [1, 2, 4, 8]:
                for pp in [1, 2, 4]:
                    for rep in range(2):
                        e = energy(TRUTH, b * prompt, out, b, tp, pp)
                        e *= 1 + 0.02 * rng.gauss(0, 1)
                        print(f"{b * prompt},{out},{b},{tp},{pp},{e},"
                              f"b{b}_i{prompt}_o{out}_t{tp}_p{pp}")
