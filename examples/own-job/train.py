"""A training job that is not a pipeline, measured by region.

One process trains a small MLP (CPU tensors) with SGD and momentum. Each
iteration is three regions -- `stage0.forward`, `stage0.backward` (both
through energy_rt.torch.Stage, which names them) and `optimizer`
(energy_rt.torch.optimizer_step) -- inside an `iteration` window, then
energy_rt.step(). On a simulated device (ENERGY_RT_DEVICE=sim:a100) the
modules' and the optimizer's work is charged to it, counted from the
tensors' shapes (python/energy_rt/torch.py); on a GPU the kernels run and
the counter sees them.

    --plan FILE     follow a clock file (energy-prof plan-clocks), opt-in
                    with ENERGY_RT_ALLOW_CLOCK_CHANGES=1
    --report FILE   the mean energy and time of an iteration after the
                    first two, as JSON
    --flop-scale K  multiplies the FLOPs charged to a simulated device
                    (default 64): the model is small enough for two CPU
                    cores, and the scaled work gives the simulated A100 a
                    GPU-sized model's compute-bound passes, whose time
                    depends on the clock (unscaled, every pass is
                    memory-bound and the lowest clock costs no time). A
                    stand-in: say so where you report results.
"""
import argparse
import json

import torch

import energy_rt
import energy_rt.torch as ert

parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=12)
parser.add_argument("--plan")
parser.add_argument("--report")
parser.add_argument("--flop-scale", type=float, default=64.0)
args = parser.parse_args()
scale = (args.flop_scale, 1.0)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(),
                            torch.nn.Linear(1024, 256))
monitor = energy_rt.Monitor()
stage = ert.Stage(model, 0, work_scale=scale, monitor=monitor)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
if args.plan:
    energy_rt.load_plan(args.plan)
x, y = torch.randn(128, 256), torch.randn(128, 256)
iterations = []
for i in range(args.iterations):
    monitor.begin_window("iteration")
    loss = torch.nn.functional.mse_loss(stage(x), y)
    optimizer.zero_grad()
    stage.backward(loss)
    ert.optimizer_step(optimizer, work_scale=scale, monitor=monitor)
    it = monitor.end_window("iteration")
    energy_rt.step()
    iterations.append(it)
kept = iterations[2:] or iterations
mean_E = sum(m.total_energy for m in kept) / len(kept)
mean_T = sum(m.time for m in kept) / len(kept)
print("iteration: %.6f J, %.6f ms (mean of %d)" % (mean_E, mean_T * 1e3,
                                                   len(kept)))
if args.report:
    with open(args.report, "w") as f:
        json.dump({"E_J": mean_E, "T_s": mean_T, "iterations": len(kept)}, f)
