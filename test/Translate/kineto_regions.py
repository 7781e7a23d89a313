"""Region tasks of a Kineto trace, computed independently of the importer.

Usage: kineto_regions.py TRACE REGEX IMPORTED.mlir

From the raw JSON by brute force: each GPU event (kernel, memcpy, memset;
not an NCCL kernel) whose launch (the CUDA runtime call with its
`args.correlation`) lies inside a CPU range (user_annotation, cpu_op) whose
name matches REGEX on the launch's thread belongs to the innermost such
range (the latest start; the shorter at one start), else to the latest
started such range open then on another thread of its process; each range with events
is a region from its first event's start to its last one's end, on the
stream that ran most of its time. Times are us after the earliest GPU
event. Prints "OK <n> regions" when the importer's `kind "region"` tasks in
IMPORTED.mlir are exactly these (name, start, duration, stream), else the
differences.
"""
import gzip
import json
import re
import sys

trace, pattern, mlir = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3]
raw = open(trace, "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
events = json.loads(raw)["traceEvents"]
GPU = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
gpu = [e for e in events
       if e.get("ph") == "X" and e.get("cat", "").lower() in GPU]
origin = min(float(e["ts"]) for e in gpu)
launch = {}
for e in events:
    if e.get("ph") == "X" and e.get("cat", "").lower() in (
            "cuda_runtime", "cuda_driver", "runtime"):
        c = e.get("args", {}).get("correlation")
        if c is not None and c not in launch:
            launch[c] = e
ranges = [(i, e) for i, e in enumerate(events)
          if e.get("ph") == "X"
          and e.get("cat", "").lower() in ("user_annotation", "cpu_op")
          and pattern.search(e["name"])]
regions = {}
for g in gpu:
    if g.get("cat", "").lower() == "kernel" and g["name"].startswith("nccl"):
        continue
    l = launch.get(g.get("args", {}).get("correlation"))
    if l is None:
        continue
    t = float(l["ts"])
    def open_at(same_thread):
        return [(float(e["ts"]), -float(e["dur"]), i)
                for i, e in ranges
                if e["pid"] == l["pid"]
                and (e["tid"] == l["tid"]) == same_thread
                and float(e["ts"]) <= t <= float(e["ts"]) + float(e["dur"])]
    # Its own thread's innermost range, else the latest started open on
    # another thread of its process.
    inside = open_at(True) or open_at(False)
    if inside:
        regions.setdefault(max(inside)[2], []).append(g)
expected = set()
for i, gs in regions.items():
    start = min(float(g["ts"]) for g in gs)
    end = max(float(g["ts"]) + float(g["dur"]) for g in gs)
    busy = {}
    for g in gs:
        busy[g["args"]["stream"]] = busy.get(g["args"]["stream"], 0) + \
            float(g["dur"])
    first = min(gs, key=lambda g: float(g["ts"]))["args"]["stream"]
    stream = max(busy, key=lambda s: (busy[s], s == first))
    expected.add((events[i]["name"], round(start - origin, 3),
                  round(end - start, 3), stream))

UNIT = {"s": 1e6, "ms": 1e3, "us": 1.0, "ns": 1e-3}
got = set()
for line in open(mlir):
    m = re.search(r'stream (\d+) kind "region" \{name = "(.*)"\} start '
                  r'([-0-9.e]+) (s|ms|us|ns) for ([-0-9.e]+) (s|ms|us|ns)',
                  line)
    if m:
        got.add((m.group(2),
                 round(float(m.group(3)) * UNIT[m.group(4)], 3),
                 round(float(m.group(5)) * UNIT[m.group(6)], 3),
                 int(m.group(1))))
if got == expected and expected:
    print("OK %d regions" % len(got))
else:
    for x in sorted(expected - got):
        print("missing", x)
    for x in sorted(got - expected):
        print("unexpected", x)
    if not expected:
        print("no regions expected")
