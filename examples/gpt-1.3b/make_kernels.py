#!/usr/bin/env python3
"""The kernels of a GPT-style 1.3 B-parameter decoder, split into 4 pipeline
stages, as an `energy-prof characterize` kernels file (docs/SIGNATURE-DB.md).

Model (Megatron-LM's 1.3 B configuration): 24 layers, hidden h = 2048, 16
heads, FFN 4h, vocabulary V = 50257 (12 L h^2 + V h = 1.31e9 parameters),
sequence s = 2048, micro-batch b = 4, bf16 (2 bytes per value). Stages hold 6
layers each; stage 0 adds the embedding, stage 3 the final layer norm, the LM
head and the cross-entropy.

Counts per kernel (Narayanan et al., SC'21, eq. 2 for the GEMMs; FlashAttention
(Dao et al., 2022) for attention):
- GEMM [m, k] x [k, n]: 2 m k n FLOP; bytes: read both operands, write the
  result. Backward = input gradient + weight gradient: twice the FLOP, reads
  and writes the three tensors twice.
- causal attention forward: 2 * 2 b s^2 h / 2 FLOP (QK^T and PV, half the
  matrix); bytes: read Q, K, V, write O. Backward: 2.5x the FLOP (five
  matrix products instead of two), reads Q, K, V, O, dO, writes dQ, dK, dV.
- element-wise (layer norm, residual add, GeLU): bytes read + written, a few
  FLOP per element; backward reads the saved input and the gradient.
- stage-to-stage transfer: the activation (forward) or its gradient
  (backward), b s h values, read and written once (a device copy of the
  size the P2P send moves).

Each stage's forward and backward pass is a composite: the sequence of its
kernels, composed by `energy-prof characterize` with the calculus' seq.

Usage: make_kernels.py > kernels.json
"""
import json

L, H, HEADS, V = 24, 2048, 16, 50257
S, B, BYTES = 2048, 4, 2
STAGES = 4
TOK = B * S  # tokens per micro-batch


def gemm(m, k, n):
    return 2.0 * m * k * n, BYTES * (m * k + k * n + m * n)


def kernels():
    k = {}
    act = TOK * H  # values in one activation

    def add(key, flops, nbytes):
        k[key] = {"key": key, "flops": float(flops), "bytes": float(nbytes)}

    for name, (m, kk, n) in {"qkv": (TOK, H, 3 * H), "proj": (TOK, H, H),
                             "fc1": (TOK, H, 4 * H), "fc2": (TOK, 4 * H, H),
                             "lmhead": (TOK, H, V)}.items():
        f, b = gemm(m, kk, n)
        add(name + ".fwd", f, b)
        add(name + ".bwd", 2 * f, 2 * b)
    attn_f = 2.0 * B * S * S * H  # causal: half of 4 b s^2 h
    add("attn.fwd", attn_f, BYTES * 4 * act)
    add("attn.bwd", 2.5 * attn_f, BYTES * 8 * act)
    add("ln.fwd", 8 * act, BYTES * 2 * act)
    add("ln.bwd", 12 * act, BYTES * 3 * act)
    add("add.fwd", act, BYTES * 3 * act)
    add("add.bwd", act, BYTES * 3 * act)
    add("gelu.fwd", 8 * 4 * act, BYTES * 2 * 4 * act)
    add("gelu.bwd", 12 * 4 * act, BYTES * 3 * 4 * act)
    add("embed.fwd", act, BYTES * 2 * act)  # gather + position add
    add("embed.bwd", act, BYTES * 3 * act)  # scatter-add into the table
    add("xent.fwd", 5.0 * TOK * V, BYTES * TOK * V + 4 * TOK)
    add("xent.bwd", 3.0 * TOK * V, BYTES * 2 * TOK * V)
    add("p2p", 0.0, 2 * BYTES * act)  # read + write one activation
    return list(k.values())


def stage_sequences(stage):
    layer_f = ["ln.fwd", "qkv.fwd", "attn.fwd", "proj.fwd", "add.fwd",
               "ln.fwd", "fc1.fwd", "gelu.fwd", "fc2.fwd", "add.fwd"]
    layer_b = [x.replace(".fwd", ".bwd") for x in reversed(layer_f)]
    per = L // STAGES
    fwd, bwd = [], []
    if stage == 0:
        fwd.append("embed.fwd")
    fwd += layer_f * per
    if stage == STAGES - 1:
        fwd += ["ln.fwd", "lmhead.fwd", "xent.fwd"]
        bwd += ["xent.bwd", "lmhead.bwd", "ln.bwd"]
    else:
        fwd.append("p2p")  # send the activation to the next stage
    bwd += layer_b * per
    if stage == 0:
        bwd.append("embed.bwd")
    else:
        bwd.append("p2p")  # send the gradient to the previous stage
    return fwd, bwd


def run_lengths(seq):
    out = []
    for x in seq:
        if out and out[-1][0] == x:
            out[-1][1] += 1
        else:
            out.append([x, 1])
    return [x if n == 1 else [x, n] for x, n in out]


def main():
    entries = kernels()
    for st in range(STAGES):
        fwd, bwd = stage_sequences(st)
        entries.append({"key": f"stage{st}.forward", "sequence": run_lengths(fwd)})
        entries.append({"key": f"stage{st}.backward", "sequence": run_lengths(bwd)})
    print("[")
    print(",\n".join("  " + json.dumps(e) for e in entries))
    print("]")


if __name__ == "__main__":
    main()
