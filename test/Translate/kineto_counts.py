#!/usr/bin/env python3
"""Independent count over Kineto traces, for checking energy-translate.

Reads the raw JSON (no code shared with the importer) and prints, per rank,
the line energy-translate --import-kineto writes to its summary.
"""
import gzip
import json
import sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset"}


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def fmt(x):
    return str(int(x)) if float(x).is_integer() else repr(float(x))


rows = []
for i, path in enumerate(sys.argv[1:]):
    doc = load(path)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    rank = i
    if isinstance(doc, dict) and "distributedInfo" in doc:
        rank = doc["distributedInfo"].get("rank", i)
    kernels = nccl = memcpy = memset = cpu = launch = other = 0
    first, last = None, None
    for e in events:
        ph, cat = e.get("ph"), (e.get("cat") or "").lower()
        if ph == "X" and cat in GPU:
            if cat == "kernel":
                kernels += 1
                if e.get("name", "").startswith("nccl"):
                    nccl += 1
            elif cat == "gpu_memcpy":
                memcpy += 1
            else:
                memset += 1
            s, t = e["ts"], e["ts"] + e["dur"]
            first = s if first is None else min(first, s)
            last = t if last is None else max(last, t)
        elif ph in ("s", "f", "t"):
            if cat == "ac2g":
                launch += 1
        elif ph in ("X", "B", "E", "i", "I"):
            cpu += 1
        else:
            other += 1
    span = 0 if first is None else last - first
    rows.append((rank, f"rank {rank}: {kernels} kernels ({nccl} collective), "
                       f"{memcpy} memcpy, {memset} memset; makespan {fmt(span)} us; "
                       f"skipped {cpu} CPU-side events, {launch} launch flows, "
                       f"{other} other"))
for _, line in sorted(rows):
    print(line)
