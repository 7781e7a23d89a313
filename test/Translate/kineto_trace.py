"""Writes a small one-rank Kineto trace from one line per event (standard
input to standard output), for the --regions tests:

  R NAME TID TS DUR        a user_annotation CPU range (pid 1)
  G NAME STREAM TS DUR     a gpu_user_annotation (the GPU's pid 2)
  L CORR TID TS            a cudaLaunchKernel call with that correlation id
  K NAME STREAM TS DUR CORR  a kernel on that stream (pid 2)
  F s|f ID STREAM TS       a flow's start or end on a stream (pid 2)

Times in us."""
import json
import sys

events = []
for line in sys.stdin:
    p = line.split()
    if not p:
        continue
    if p[0] == "R":
        events.append({"ph": "X", "cat": "user_annotation", "name": p[1],
                       "pid": 1, "tid": int(p[2]), "ts": float(p[3]),
                       "dur": float(p[4])})
    elif p[0] == "G":
        events.append({"ph": "X", "cat": "gpu_user_annotation", "name": p[1],
                       "pid": 2, "tid": int(p[2]), "ts": float(p[3]),
                       "dur": float(p[4])})
    elif p[0] == "L":
        events.append({"ph": "X", "cat": "cuda_runtime",
                       "name": "cudaLaunchKernel", "pid": 1, "tid": int(p[2]),
                       "ts": float(p[3]), "dur": 1,
                       "args": {"correlation": int(p[1])}})
    elif p[0] == "K":
        events.append({"ph": "X", "cat": "kernel", "name": p[1], "pid": 2,
                       "tid": int(p[2]), "ts": float(p[3]), "dur": float(p[4]),
                       "args": {"stream": int(p[2]), "correlation": int(p[5])}})
    elif p[0] == "F":
        e = {"ph": p[1], "cat": "cuda_sync", "id": int(p[2]), "pid": 2,
             "tid": int(p[3]), "ts": float(p[4])}
        if p[1] == "f":
            e["bp"] = "e"
        events.append(e)
    else:
        sys.exit("unknown event line: " + line.strip())
json.dump({"traceEvents": events}, sys.stdout)
