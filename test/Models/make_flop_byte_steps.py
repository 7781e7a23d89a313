"""Measured-looking prefill and decode steps for `energy-prof fit --model
flop-byte` (test/Models/flop-byte-fit.test), from the accounting in
docs/MODELS.md written out here on its own: prefill of n_i tokens: FLOPs =
2 P N + a sum n_i (n_i + 1) / 2, bytes = f (M_w + K N); decode of B outputs
attending L records: FLOPs = 2 P B + a L, bytes = f (M_w + K (B + L));
d = J_flop FLOPs + J_byte bytes, times (1 + noise) with noise ~ N(0, sd).

usage: make_flop_byte_steps.py SD SEED [MODEL.json] > steps.csv
(MODEL.json: a flop-byte model file whose structure -- P, a, M_w, K, f --
the steps run; its coefficients are not read.)"""
import json
import random
import sys

P, A, MW, K, F = 7e9, 524288, 1.5e10, 131072, 1.0
if len(sys.argv) > 3:
    m = json.load(open(sys.argv[3]))
    P, A, MW, K, F = (m["parameters"], m["attention_flops_per_pair"],
                      m["weight_bytes"], m["kv_bytes_per_token"],
                      m["memory_factor"])
J_FLOP, J_BYTE = 0.5e-12, 8e-12
sd, seed = float(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
print("tokens,token_squares,batch,history,d,cell")
for cell in range(10):
    for _ in range(6):
        # A prefill of a few prompts, then a decode iteration.
        prompts = [rng.randint(16, 4096) for _ in range(rng.randint(1, 8))]
        n = sum(prompts)
        sq = sum(p * p for p in prompts)
        flops = 2 * P * n + A * (sq + n) / 2
        bytes_ = F * (MW + K * n)
        d = (J_FLOP * flops + J_BYTE * bytes_) * (1 + rng.gauss(0, sd))
        print(f"{n},{sq},0,0,{d!r},c{cell}")
        b = rng.randint(1, 64)
        hist = b * rng.randint(100, 8000)
        flops = 2 * P * b + A * hist
        bytes_ = F * (MW + K * (b + hist))
        d = (J_FLOP * flops + J_BYTE * bytes_) * (1 + rng.gauss(0, sd))
        print(f"0,0,{b},{hist},{d!r},c{cell}")
