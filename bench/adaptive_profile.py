"""In-job profiling across clocks: the adaptive sweep against Perseus's
full one, on the simulated A100 (a documented physical model).

Usage: adaptive_profile.py BUILD_DIR WORK_DIR

The job: a 4-stage pipeline's stage passes as regions (stage<i>.forward /
.backward, each a kernel of its own FLOP/byte mix, charged to the simulated
device), one iteration per er_step. Profiled twice with `energy-prof
profile`: every clock from 1410 down to 855 MHz (Perseus's default range,
38 clocks) and `--adaptive --max-clocks 7`, 3 iterations per clock after 1
warm-up. Each DB fills the same 1F1B schedule (8 microbatches), which is
planned at several slowdowns; the adaptive plan's energy is compared with
the full sweep's and with a sweep of all 81 clocks, and the iterations each
sweep needed are counted.
"""
import json
import os
import re
import subprocess
import sys

build, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
B = os.path.join(build, "bin")
env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
job = os.path.join(work, "job.py")
with open(job, "w") as f:
    f.write('''import sys
import energy_rt
# (FLOP, byte) per pass: stages differ, backward ~2x forward.
mix = [(4e12, 2e9), (6e12, 1e9), (3e12, 4e9), (8e12, 3e9)]
for it in range(int(sys.argv[1])):
    for s, (fl, by) in enumerate(mix):
        with energy_rt.region(f"stage{s}.forward"):
            energy_rt.sim_run(fl, by)
    for s, (fl, by) in reversed(list(enumerate(mix))):
        with energy_rt.region(f"stage{s}.backward"):
            energy_rt.sim_run(2 * fl, 2 * by)
    energy_rt.step()
''')
perseus = list(range(1410, 854, -15))
runs = {}
for name, args, iters in (
        ("full", ["--clocks", ",".join(map(str, perseus))], 1 + 3 * len(perseus)),
        ("all", ["--all-clocks"], 1 + 3 * 81),
        ("adaptive", ["--adaptive", "--max-clocks", "7"], 1 + 3 * 7)):
    db = os.path.join(work, name + ".json")
    subprocess.run([os.path.join(B, "energy-prof"), "profile", "--device",
                    "sim:a100", *args, "--iterations-per-clock", "3",
                    "--warmup", "1", "--allow-clock-changes", "-o", db, "--",
                    sys.executable, job, str(iters)], check=True, env=env,
                   capture_output=True)
    clocks = sorted({e["sm_mhz"] for e in json.load(open(db))["entries"]},
                    reverse=True)
    runs[name] = (db, iters, clocks)
pipe = os.path.join(work, "pipeline.mlir")
with open(pipe, "w") as f:
    f.write('sched.schedule @p {\n  sched.pipeline @train {stages = 4, '
            'microbatches = 8, schedule = "1f1b", device_kind = "A100-SXM4", '
            'static_power = 60.0, forward_db = [' +
            ", ".join(f'"stage{i}.forward"' for i in range(4)) +
            '], backward_db = [' +
            ", ".join(f'"stage{i}.backward"' for i in range(4)) + ']}\n}\n')


def plan(db, slowdown):
    r = subprocess.run(
        [os.path.join(B, "energy-opt"), pipe, f"--energy-fill-signatures=db={db}",
         "--sched-expand", f"--energy-plan=max-slowdown={slowdown}", "-o",
         os.devnull, "--mlir-print-op-on-diagnostic=false"],
        capture_output=True, text=True, check=True)
    out = subprocess.run(
        [os.path.join(B, "energy-opt"), pipe, f"--energy-fill-signatures=db={db}",
         "--sched-expand", f"--energy-plan=max-slowdown={slowdown}"],
        capture_output=True, text=True, check=True).stdout
    m = re.search(r"energy\.plan = \{E_J = ([0-9.e+-]+)", out)
    t = re.search(r"T_s = ([0-9.e+-]+)", out[m.start():])
    return float(m.group(1)), float(t.group(1))


print(f"full sweep: {len(runs['full'][2])} clocks, {runs['full'][1]} iterations; "
      f"adaptive: {len(runs['adaptive'][2])} clocks {runs['adaptive'][2]}, "
      f"{runs['adaptive'][1]} iterations ({runs['adaptive'][1] / runs['full'][1]:.3f} "
      f"of the full sweep)")
worst = {"full": 0, "all": 0}
for sl in (1, 3, 5, 10, 20):
    ef, tf = plan(runs["full"][0], sl)
    eall, tall = plan(runs["all"][0], sl)
    ea, ta = plan(runs["adaptive"][0], sl)
    worst["full"] = max(worst["full"], ea / ef - 1)
    worst["all"] = max(worst["all"], ea / eall - 1)
    print(f"max-slowdown {sl:>2} %: Perseus range {ef:.3f} J in {tf:.4f} s, "
          f"all 81 clocks {eall:.3f} J in {tall:.4f} s, adaptive {ea:.3f} J "
          f"in {ta:.4f} s ({100 * (ea / ef - 1):+.3f} % / "
          f"{100 * (ea / eall - 1):+.3f} %)")
print(f"adaptive plan above the Perseus-range sweep's by at most "
      f"{100 * worst['full']:+.3f} %, above the all-clocks sweep's by at most "
      f"{100 * worst['all']:+.3f} %")
