"""The serving planner's SIMULATED SM clock on ML.ENERGY v3's H100 and B200
cells.

For each (task file, model, TP, GPU count, GPU) cell with at least 8
settings: `energy-prof serve-plan --clock-model sim:h100` (sim:b200) at the
SLO between the cell's middle measured p90 inter-token latencies; prints
the cap at the default clocks, the cap and clock chosen together, the
saving over the cap alone (where the power the model misses holds at every
clock or scales as the model's, whichever saves less; then the other), the
power the model misses per GPU at the highest clock, the slowdown of the
mean iteration and the power limit per GPU that holds the GPU about the
clock ("-" at the highest clock or outside the settable limits), then a
summary by GPU and architecture (bench/RESULTS.md, sessions 41-43).

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
        for gpu in ("H100", "B200"):
            if gpu in c["gpu_model"]:
                key = (gpu, c["model_id"], c["tensor_parallel"],
                       c["num_gpus"], c["architecture"].split()[0])
                cells[key].append(c["p90_itl_ms"])
    for (gpu, model, tp, gpus, arch), p90 in sorted(cells.items()):
        if len(p90) < 8:
            continue
        p = sorted(p90)
        slo = (p[len(p) // 2 - 1] * p[len(p) // 2]) ** 0.5
        out = subprocess.run(
            [prof, "serve-plan", path, "--serve-model", model, "--gpu", gpu,
             "--tp", str(tp), "--gpus", str(gpus), "--slo-p90-itl-ms",
             repr(slo), "--clock-model", "sim:" + gpu.lower()],
            capture_output=True, text=True, check=True).stdout
        plan = json.loads(out)
        k = plan["sm_clock"]
        rows.append((task, model, gpu + "/" + arch, plan["batch_cap"],
                     k["batch_cap"], k["sm_clock_mhz"],
                     k["saving_vs_batch_cap_alone"],
                     k["saving_vs_batch_cap_alone_high"],
                     k["power_model_misses_per_gpu_W"],
                     k["time_vs_highest_clock"], k["power_limit_W"]))
for r in rows:
    limit = "%3.0f W" % r[10] if r[10] else "    -"
    print("%-16s %-40s %-22s cap %5g -> %5g at %4d MHz  saving %4.1f %% "
          "(%4.1f %%)  missed %4.0f W  time x%.3f  limit %s" % (
              r[0], r[1][:40], r[2], r[3], r[4], r[5], 100 * r[6],
              100 * r[7], r[8], r[9], limit))
by = collections.defaultdict(list)
for r in rows:
    by[r[2]].append(r)
for arch, rs in sorted(by.items()):
    s = [r[6] for r in rs]
    other = [r[7] for r in rs]
    limits = [r[10] for r in rs if r[10]]
    print("%s: %d cells, %d-%d MHz, saving median %.1f %% (%.1f-%.1f %%; "
          "by the other account median %.1f %%, up to %.1f %%), power missed "
          "%.0f-%.0f W, slowdown %.0f-%.0f %%, power limit in %d (%s)" % (
              arch, len(rs), min(r[5] for r in rs), max(r[5] for r in rs),
              100 * statistics.median(s), 100 * min(s), 100 * max(s),
              100 * statistics.median(other), 100 * max(other),
              min(r[8] for r in rs), max(r[8] for r in rs),
              100 * (min(r[9] for r in rs) - 1),
              100 * (max(r[9] for r in rs) - 1), len(limits),
              "%.0f-%.0f W" % (min(limits), max(limits)) if limits else "-"))
