#!/usr/bin/env python3
"""Generates a synthetic Kineto (PyTorch profiler) trace for benchmarks.

N GPU events on one rank: kernels on 4 compute streams plus memcpy/memset,
every 50th kernel an NCCL AllReduce on its own stream, each launched by a
cuda_runtime CPU event with an ac2g flow pair, like real traces. Events on
one stream never overlap. Deterministic for a seed. With --regions K, the
kernels, copies and sets run on one stream (no NCCL kernels: a
collective is never a region's), and every K launches are
inside a user_annotation range (stage0.forward and stage0.backward in
turn), as record_function writes them (energy-translate --regions).

  bench/gen_kineto.py --events 1000000 --seed 1 > trace.json
  bench/gen_kineto.py --events 1000000 --regions 20 > regions.json
"""
import argparse
import json
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--regions", type=int, default=0, metavar="K")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    out.write('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", '
              '"rank": 0, "world_size": 1}, "deviceProperties": [{"id": 0, '
              '"name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": [\n')
    stream_end = {}
    t = 1_000_000
    first = True
    for i in range(args.events):
        r = rng.random()
        if i % 50 == 49 and not args.regions:
            cat, name, stream = "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 20
        elif r < 0.05:
            cat, name, stream = "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 7
        elif r < 0.07:
            cat, name, stream = "gpu_memset", "Memset (Device)", 7
        else:
            cat, name, stream = "kernel", f"kernel_{rng.randint(0, 200)}", 7 + rng.randint(0, 3)
        if args.regions and stream != 20:
            stream = 7
        dur = rng.randint(1, 400)
        t += rng.randint(0, 30)
        ts = max(t, stream_end.get(stream, 0))
        stream_end[stream] = ts + dur
        sep = "" if first else ",\n"
        first = False
        out.write(f'{sep}{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", '
                  f'"pid": 1, "tid": 1, "ts": {ts - 5}, "dur": 4, "args": {{"correlation": {i}}}}}')
        out.write(f',\n{{"ph": "s", "id": {i}, "pid": 1, "tid": 1, "ts": {ts - 5}, "cat": "ac2g", "name": "ac2g"}}')
        out.write(f',\n{{"ph": "f", "id": {i}, "pid": 0, "tid": {stream}, "ts": {ts}, "cat": "ac2g", "name": "ac2g", "bp": "e"}}')
        out.write(f',\n{{"ph": "X", "cat": "{cat}", "name": {json.dumps(name)}, "pid": 0, '
                  f'"tid": {stream}, "ts": {ts}, "dur": {dur}, "args": {{"device": 0, '
                  f'"stream": {stream}, "correlation": {i}}}}}')
        if args.regions:
            # The range holds its launches' starts (each at ts - 5).
            if i % args.regions == 0:
                lo = hi = ts - 5
            lo, hi = min(lo, ts - 5), max(hi, ts - 5)
            if i % args.regions == args.regions - 1 or i == args.events - 1:
                k = i // args.regions
                out.write(f',\n{{"ph": "X", "cat": "user_annotation", "name": '
                          f'"stage0.{("forward", "backward")[k % 2]}", "pid": 1, '
                          f'"tid": 1, "ts": {lo}, "dur": {hi - lo}}}')
    out.write("\n]}\n")


if __name__ == "__main__":
    main()
