"""The serving planner's SIMULATED SM clock on ML.ENERGY v3's H100 cells.

For each (task file, model, TP, GPU count) cell with at least 8 settings:
`energy-prof serve-plan --clock-model sim:h100` at the SLO between the
cell's middle measured p90 inter-token latencies; prints the cap at the
default clocks, the cap and clock chosen together, the model's saving over
the cap alone, the slowdown of the mean iteration and the power limit per
GPU that holds the GPU about the clock ("-" outside the settable limits),
then a summary by architecture (bench/RESULTS.md, sessions 41-42).

    python3 bench/serving_clock_table.py build/bin/energy-prof ../shared/data
"""
import collections
import json
import statistics
import subprocess
import sys

prof, data = sys.argv[1], sys.argv[2]
rows = []
for task in ("lm-arena-chat", "gpqa", "sourcegraph-fim"):
    path = "%s/mlenergy-leaderboard-v3/%s.json" % (data, task)
    cells = collections.defaultdict(list)
    for c in json.load(open(path))["configurations"]:
        if "H100" in c["gpu_model"]:
            key = (c["model_id"], c["tensor_parallel"], c["num_gpus"],
                   c["architecture"].split()[0])
            cells[key].append(c["p90_itl_ms"])
    for (model, tp, gpus, arch), p90 in sorted(cells.items()):
        if len(p90) < 8:
            continue
        p = sorted(p90)
        slo = (p[len(p) // 2 - 1] * p[len(p) // 2]) ** 0.5
        out = subprocess.run(
            [prof, "serve-plan", path, "--serve-model", model, "--gpu", "H100",
             "--tp", str(tp), "--gpus", str(gpus), "--slo-p90-itl-ms",
             repr(slo), "--clock-model", "sim:h100"],
            capture_output=True, text=True, check=True).stdout
        plan = json.loads(out)
        k = plan["sm_clock"]
        rows.append((task, model, arch, plan["batch_cap"], k["batch_cap"],
                     k["sm_clock_mhz"], k["saving_vs_batch_cap_alone"],
                     k["time_vs_highest_clock"], k["power_limit_W"],
                     k["mean_power_per_gpu_W"]))
for r in rows:
    limit = "%3.0f W" % r[8] if r[8] else "    -"
    print("%-16s %-45s %-7s cap %5g -> %5g at %4d MHz  saving %4.1f %%  "
          "time x%.3f  limit %s" % (r[0], r[1][:45], r[2], r[3], r[4], r[5],
                                    100 * r[6], r[7], limit))
by = collections.defaultdict(list)
for r in rows:
    by[r[2]].append(r)
for arch, rs in sorted(by.items()):
    s = [r[6] for r in rs]
    limits = [r[8] for r in rs if r[8]]
    print("%s: %d cells, %d-%d MHz, saving median %.1f %% (%.1f-%.1f %%), "
          "slowdown %.0f-%.0f %%, power limit in %d (%s)" % (
              arch, len(rs), min(r[5] for r in rs), max(r[5] for r in rs),
              100 * statistics.median(s), 100 * min(s), 100 * max(s),
              100 * (min(r[7] for r in rs) - 1),
              100 * (max(r[7] for r in rs) - 1), len(limits),
              "%.0f-%.0f W" % (min(limits), max(limits)) if limits else "-"))
