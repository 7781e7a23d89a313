"""1F1B pipeline training under torchrun, measured with energy_rt.

    /usr/bin/python3 -m torch.distributed.run --nproc_per_node 4 train.py \
        --iterations 5 --out run.json [--plan-dir DIR]

Each rank runs one stage (gloo, CPU tensors) with real 1F1B: warm-up
forwards, then one forward and one backward per step, then the remaining
backwards, activations and gradients sent with point-to-point
isend/irecv (every receive posted at the iteration's start).
Every stage pass is a region (energy_rt.torch.Stage); every iteration is
a region between two barriers, so it spans the whole pipeline's makespan on
every rank (the optimizer step follows it, outside: the schedule has no
task for it); each iteration also records how far apart the ranks left the
first barrier and how long the second took after its last arrival (the
window's time that no task of the schedule accounts for). energy_rt.step() ends each iteration (the profiler's clock
sweep moves on there, under `energy-prof profile`).

--plan-dir DIR: rank s loads DIR/stage<s>.txt (`energy-prof plan-clocks
--by-key`: a line per begin of stage<s>.forward / .backward in an
iteration, the regions named as they were profiled), so each microbatch's
pass runs at its planned clock. --out: rank 0 writes
JSON there, on the host's monotonic clock (the ranks of one machine):
"iterations", each iteration's time, every rank's energy and its
barriers; for messages whose receiver was already waiting,
"p2p_latencies_s" (send to receipt, every iteration) and "p2p_edges_s"
([seconds, DB key, MHz]: the sending pass's region end to the receiving
pass's region begin, with the sending pass's key and clock); and
"pass_gaps_s" ({DB key: {MHz: [seconds]}}: the host's gap after each pass
but a rank's last, the device idle between two regions that no receive's
wait explains, by the pass's key and clock). Edges and gaps skip the
first (warm-up) iteration. A region's begin and end on the host's clock
are estimates: a call's time outside its region is split half before,
half after.
On a simulated device, ENERGY_RT_SIM_REALTIME=1 puts it on the wall clock,
so the pipeline's bubbles and waits are real.
"""
import argparse
import collections
import json
import os
import sys
import time

import torch
import torch.distributed as dist

import energy_rt
import energy_rt.torch as ert

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import CONFIG, StageModule  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--iterations", type=int, required=True)
ap.add_argument("--microbatches", type=int, default=8)
ap.add_argument("--flop-scale", type=float, default=7e6)
ap.add_argument("--byte-scale", type=float, default=2.6e5)
ap.add_argument("--plan-dir")
ap.add_argument("--out")
args = ap.parse_args()

torch.set_num_threads(1)
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
cfg = CONFIG
M, mbs, L, d = args.microbatches, cfg["microbatch_size"], cfg["seq"], cfg["d"]

monitor = energy_rt.Monitor()
stage = ert.Stage(StageModule(rank, world, cfg), rank,
                  work_scale=(args.flop_scale, args.byte_scale), monitor=monitor)
if args.plan_dir:
    energy_rt.load_plan(os.path.join(args.plan_dir, "stage%d.txt" % rank))
opt = torch.optim.SGD(stage.parameters(), lr=1e-3)
gen = torch.Generator().manual_seed(7)
first, last = rank == 0, rank == world - 1


def batch():
    ids = torch.randint(0, cfg["vocab"], (M, mbs, L + 1), generator=gen)
    return ids[:, :, :-1], ids[:, :, 1:]


def post_receives():
    """Every receive of the iteration, posted up front (as pipeline engines
    overlap their P2P): a message is taken in as soon as it is sent, not
    when this rank gets round to asking for it. Tags keep activations and
    gradients, and microbatches, apart."""
    acts = [] if first else [
        (lambda t: (t, dist.irecv(t, rank - 1, tag=m)))(torch.empty(mbs, L, d))
        for m in range(M)]
    grads = [] if last else [
        (lambda t: (t, dist.irecv(t, rank + 1, tag=M + m)))(torch.empty(mbs, L, d))
        for m in range(M)]
    return acts, grads


# Point-to-point timing, for the latency the schedule's model takes
# (`p2p_latency`): when each message was sent (its pass had ended), and when
# its receiver began to wait for it and got it; and, for the edge the
# schedule holds, when the sending pass's region ended and the receiving
# pass's region began (`consumed`). The clock is the host's monotonic one,
# shared by the ranks of one machine.
sent, received, consumed = {}, {}, {}


def receive(key, handle):
    t0 = time.perf_counter()
    handle.wait()
    received[key] = (t0, time.perf_counter())
    waited[0] += received[key][1] - t0


# The host's gap after each of this rank's passes but the last: the device
# idles from one pass's region end to the next one's region begin, less
# what the host spent blocked in a receive (the schedule's dependency and
# its p2p_latency account for that). On the host's clock: the time after
# the region within the pass's call, the time between the two calls less
# the receive's wait, and the time before the next region within its
# call. A call's time outside its region is known, not its split into
# before and after: half of each is taken. Kept with the pass's DB key
# and clock: the gap differs between stages and kinds (the first stage
# receives no activation, the last no gradient), and grows as the clock
# falls (bench/RESULTS.md, session 30).
waited, passes = [0.0], []


# A pass on the host's clock: its call's start and end, its region's time,
# the receive waits so far, its clock and its DB key.
Pass = collections.namedtuple(
    "Pass", "began ended region_s waits_before mhz key")


def timed_pass(run, kind):
    """run() (the pass), recorded; returns what run() returns."""
    began = time.perf_counter()
    waits = waited[0]
    out = run()
    ended = time.perf_counter()
    m = getattr(stage, "last_" + kind)
    passes.append(Pass(began, ended, m.time, waits, m.clock_mhz,
                       "stage%d.%s" % (rank, kind)))
    return out


def outside(p):
    return p.ended - p.began - p.region_s


def pass_gaps():
    return [(p.key, p.mhz, (outside(p) + outside(q)) / 2 +
             (q.began - p.ended) - (q.waits_before - p.waits_before))
            for p, q in zip(passes, passes[1:])]


def send(key, tensor, dst, tag, sends):
    # With the sending pass's region end, DB key and clock.
    p = passes[-1]
    sent[key] = (time.perf_counter(), p.ended - outside(p) / 2, p.key, p.mhz)
    sends.append(dist.isend(tensor, dst, tag=tag))


def region_began(key):
    p = passes[-1]
    consumed[key] = p.began + outside(p) / 2


def forward(m, inputs, targets, acts, saved, sends):
    if first:
        x = inputs[m]
    else:
        x, handle = acts[m]
        receive(("F", rank, m), handle)
        x.requires_grad_()
    out = timed_pass(
        lambda: stage(x, targets[m] if last else None, microbatch=m),
        "forward")
    if not first:
        region_began(("F", rank, m))
    if not last:
        send(("F", rank + 1, m), out.detach(), rank + 1, m, sends)
    saved.append((x, out))


def backward(m, grads, saved, sends):
    x, out = saved.pop(0)
    grad = None
    if not last:
        grad, handle = grads[m]
        receive(("B", rank, m), handle)
    timed_pass(lambda: stage.backward(out, grad, microbatch=m), "backward")
    if not last:
        region_began(("B", rank, m))
    if not first:
        send(("B", rank - 1, m), x.grad, rank - 1, M + m, sends)


records, hops = [], []
for it in range(args.iterations):
    sent.clear()
    received.clear()
    consumed.clear()
    inputs, targets = batch()
    opt.zero_grad()
    saved, sends = [], []
    acts, grads = post_receives()
    dist.barrier()
    began = time.perf_counter()
    passes.clear()
    monitor.begin_window("iteration")
    warm = min(world - rank - 1, M)
    for m in range(warm):
        forward(m, inputs, targets, acts, saved, sends)
    for i in range(M - warm):
        forward(warm + i, inputs, targets, acts, saved, sends)
        backward(i, grads, saved, sends)
    for i in range(M - warm, M):
        backward(i, grads, saved, sends)
    for s in sends:
        s.wait()
    arrived = time.perf_counter()
    dist.barrier()
    left = time.perf_counter()
    meas = monitor.end_window("iteration")
    opt.step()
    energy_rt.step()
    records.append([meas.time, meas.total_energy, meas.clock_mhz,
                    (began, arrived, left)])
    hops.append((dict(sent), dict(received), pass_gaps(), dict(consumed)))

gathered = [None] * world
dist.all_gather_object(gathered, (records, hops))
if rank == 0 and args.out:
    # What the window holds besides the schedule's tasks (the host's
    # monotonic clock, shared by the ranks): how far apart the ranks left
    # the first barrier, and how long the last rank to reach the second
    # waited in it until every rank had left.
    def sync(i):
        b = [g[0][i][3] for g in gathered]
        return {"start_skew_s": max(x[0] for x in b) - min(x[0] for x in b),
                "end_barrier_s": max(x[2] for x in b) - max(x[1] for x in b)}
    iters = [dict({"time_s": max(g[0][i][0] for g in gathered),
                   "energy_J": [g[0][i][1] for g in gathered]}, **sync(i))
             for i in range(args.iterations)]
    # Latency samples: messages whose receiver was already waiting when they
    # were sent (a message that arrived first says nothing about the link):
    # send to receipt, and the edge from the sending pass's region end to
    # the receiving pass's region begin with the sending pass's DB key and
    # clock (after the first, warm-up, iteration).
    latencies, edges = [], []
    for i in range(args.iterations):
        sent_all, got_all, began_all = {}, {}, {}
        for g in gathered:
            sent_all.update(g[1][i][0])
            got_all.update(g[1][i][1])
            began_all.update(g[1][i][3])
        for key, (t_sent, ended, db_key, mhz) in sent_all.items():
            if key in got_all and got_all[key][0] <= t_sent:
                latencies.append(got_all[key][1] - t_sent)
                if i > 0 and key in began_all:
                    edges.append([began_all[key] - ended, db_key, mhz])
    # The host's gaps after passes, every rank's, by the DB key and clock
    # of the pass before each, after the first (warm-up) iteration.
    gaps = {}
    for i in range(1, args.iterations):
        for g in gathered:
            for key, mhz, gap in g[1][i][2]:
                gaps.setdefault(key, {}).setdefault(str(mhz), []).append(gap)
    with open(args.out, "w") as f:
        json.dump({"ranks": world, "microbatches": M, "iterations": iters,
                   "p2p_latencies_s": latencies, "p2p_edges_s": edges,
                   "pass_gaps_s": gaps,
                   "device": monitor.device}, f, indent=1)
dist.destroy_process_group()
