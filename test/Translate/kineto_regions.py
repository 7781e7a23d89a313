"""Region tasks of a one-rank Kineto trace, computed independently of the
importer (docs/SCHED.md, --regions) by brute force over the raw JSON.

Usage: kineto_regions.py [--step N] TRACE REGEX IMPORTED.mlir

With --step N, only torch.profiler's step N counts (--profiler-step): the
GPU events whose launch lies inside the CPU range ProfilerStep#N (on any
thread of its process, from its begin up to its end, the end excluded)
and the matching ranges that begin inside it.

Each GPU event (kernel, memcpy, memset; not an NCCL kernel) is joined to
its launch (the first CUDA runtime / driver call with its
`args.correlation`); every CPU range (user_annotation, cpu_op, operator)
whose name matches REGEX is tested against the launch: on the launch's own
thread the innermost open one (the latest start; the shorter at one start)
owns it; on a thread with no matching range at all, the one open then on
another thread of the process (of several threads' open at once, none).
Each range with events is a region from its first event's start to its
last one's end, on the stream that ran most of its time (of streams tied,
the one whose first event started first), numbered by its begin among the
process's matching ranges of its name, with how many those are (the most
of any process of the rank). Times
are us after the trace's
earliest GPU event. REGEX is read by Python's re (the patterns given here
mean the same in POSIX extended syntax).

Prints "OK <n> regions, <m> other tasks, <k> regions without tasks" when
IMPORTED.mlir's `kind "region"` tasks are exactly these (name, start,
duration, stream, occurrence, begins), its other tasks are exactly the
events no region took (by their traceEvents index), and its device's
`regions_without_tasks` are exactly the names none of whose ranges took an
event (each with its begins, the most of any process), else the
differences.
"""
import gzip
import json
import re
import sys

args = sys.argv[1:]
step = None
if args[0] == "--step":
    step, args = int(args[1]), args[2:]
trace, pattern, mlir = args[0], re.compile(args[1]), args[2]
raw = open(trace, "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
data = json.loads(raw)
events = data["traceEvents"] if isinstance(data, dict) else data
GPU = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}


def cat(e):
    return str(e.get("cat", "")).lower()


gpu = [(i, e) for i, e in enumerate(events)
       if e.get("ph") == "X" and cat(e) in GPU]
launch = {}
for e in events:
    c = e.get("args", {}).get("correlation") if isinstance(
        e.get("args"), dict) else None
    if e.get("ph") == "X" and cat(e) in ("cuda_runtime", "cuda_driver",
                                         "runtime") and c is not None:
        launch.setdefault(c, e)
ranges = [(i, e) for i, e in enumerate(events)
          if e.get("ph") == "X"
          and cat(e) in ("user_annotation", "cpu_op", "operator")
          and pattern.search(e["name"])]
if step is not None:
    [s] = [e for e in events if e.get("ph") == "X"
           and cat(e) in ("user_annotation", "cpu_op", "operator")
           and e["name"] == "ProfilerStep#%d" % step]

    def in_step(e):
        return (e["pid"] == s["pid"] and float(s["ts"]) <= float(e["ts"])
                < float(s["ts"]) + float(s["dur"]))
    gpu = [(i, e) for i, e in gpu
           if launch.get(e.get("args", {}).get("correlation")) is not None
           and in_step(launch[e["args"]["correlation"]])]
    ranges = [(i, e) for i, e in ranges if in_step(e)]
origin = min(float(e["ts"]) for _, e in gpu)
threads_with_ranges = {(e["pid"], e["tid"]) for _, e in ranges}


def nccl(e):
    return cat(e) == "kernel" and e["name"].startswith("nccl")


regions, taken = {}, set()
for gi, g in gpu:
    if nccl(g):
        continue
    l = launch.get(g.get("args", {}).get("correlation"))
    if l is None:
        continue
    t = float(l["ts"])

    def is_open(e):
        return float(e["ts"]) <= t <= float(e["ts"]) + float(e["dur"])
    if (l["pid"], l["tid"]) in threads_with_ranges:
        inside = [(float(e["ts"]), -float(e["dur"]), i) for i, e in ranges
                  if e["pid"] == l["pid"] and e["tid"] == l["tid"]
                  and is_open(e)]
        owner = max(inside)[2] if inside else None
    else:
        per_thread = {}
        for i, e in ranges:
            if e["pid"] == l["pid"] and is_open(e):
                key = (float(e["ts"]), -float(e["dur"]), i)
                per_thread[e["tid"]] = max(per_thread.get(e["tid"], key), key)
        owner = (list(per_thread.values())[0][2] if len(per_thread) == 1
                 else None)
    if owner is not None:
        regions.setdefault(owner, []).append(g)
        taken.add(gi)
occurrence = {}
for i, e in ranges:
    occurrence[i] = sum(1 for j, o in ranges
                        if o["pid"] == e["pid"] and o["name"] == e["name"]
                        and (float(o["ts"]), j) < (float(e["ts"]), i))
def most_begins(name):
    """A name's begins: the most of any process of the rank."""
    per_pid = {}
    for _, o in ranges:
        if o["name"] == name:
            per_pid[o["pid"]] = per_pid.get(o["pid"], 0) + 1
    return max(per_pid.values())


expected = set()
for i, gs in regions.items():
    start = min(float(g["ts"]) for g in gs)
    end = max(float(g["ts"]) + float(g["dur"]) for g in gs)
    busy, first = {}, {}
    for g in gs:
        s = g["args"]["stream"]
        busy[s] = busy.get(s, 0) + float(g["dur"])
        first[s] = min(first.get(s, float("inf")), float(g["ts"]))
    stream = max(busy, key=lambda s: (busy[s], -first[s]))
    begins = most_begins(events[i]["name"])
    expected.add((events[i]["name"], round(start - origin, 3),
                  round(end - start, 3), stream, occurrence[i], begins))
kept = {gi for gi, g in gpu if gi not in taken and not nccl(g)}
# Names none of whose ranges took an event: no task, their begins (the
# most of any process) kept on the device.
with_task = {events[i]["name"] for i in regions}
idle = {e["name"]: most_begins(e["name"]) for _, e in ranges
        if e["name"] not in with_task and e["name"]}

UNIT = {"s": 1e6, "ms": 1e3, "us": 1.0, "ns": 1e-3}
got, others, got_idle = set(), set(), {}
for line in open(mlir):
    d = re.search(r'regions_without_tasks = \{(.*)\}\}?$', line)
    if d:
        for m in re.finditer(r'(?:"((?:[^"\\]|\\.)*)"|([\w.]+)) = (\d+) : i64',
                             d.group(1)):
            name = m.group(1) if m.group(1) is not None else m.group(2)
            got_idle[name.encode().decode("unicode_escape")] = int(m.group(3))
    m = re.search(r'sched.task @r\d+_e(\d+) .*stream (\d+) '
                  r'(?:after \[[^\]]*\] )?kind "(\w+)" '
                  r'\{(?:begins = (\d+) : i64, )?name = "(.*?)"'
                  r'(?:, occurrence = (\d+) : i64)?\} '
                  r'start ([-0-9.e]+) (s|ms|us|ns) '
                  r'(?:for|sig <T =) ([-0-9.e]+) (s|ms|us|ns)', line)
    if not m:
        continue
    if m.group(3) != "region":
        others.add(int(m.group(1)))
        continue
    got.add((m.group(5), round(float(m.group(7)) * UNIT[m.group(8)], 3),
             round(float(m.group(9)) * UNIT[m.group(10)], 3),
             int(m.group(2)), int(m.group(6)), int(m.group(4))))
if got == expected and expected and others == kept and got_idle == idle:
    print("OK %d regions, %d other tasks, %d regions without tasks"
          % (len(got), len(others), len(idle)))
else:
    for x in sorted(set(idle.items()) ^ set(got_idle.items())):
        print("regions without tasks differ:", x,
              "expected" if x in idle.items() else "got")
    for x in sorted(expected - got):
        print("missing", x)
    for x in sorted(got - expected):
        print("unexpected", x)
    for x in sorted(kept - others):
        print("missing event", x)
    for x in sorted(others - kept):
        print("unexpected event", x)
    if not expected:
        print("no regions expected")
