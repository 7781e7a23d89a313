#!/usr/bin/env python3
"""Synthetic decode measurements with known Token-Energy Law coefficients
(alpha 0.9, beta 1.1 J/GB, P_tau 400 W, c 0.05 J) and 2 % seeded noise."""
import math
import random

rng = random.Random(3)
Mw, K = 15e9, 57344
print("q_w,q_kv,tau,e,cell")
for B in [1, 2, 4, 8, 16, 32]:
    for L in [512, 2048, 8192]:
        for rep in range(5):
            tau = 0.004 / math.sqrt(B) * (1 + 0.2 * rep)
            qw, qkv = Mw / (1e9 * B), K * (L + 1) / 1e9
            e = 0.9 * qw + 1.1 * qkv + 400 * tau + 0.05
            print(f"{qw},{qkv},{tau},{e * (1 + 0.02 * rng.gauss(0, 1))},B{B}_L{L}")
