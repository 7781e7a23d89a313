#!/usr/bin/env python3
"""Mutation fuzzing of every input path: a crash (signal), a hang (over 30 s),
an internal error (LLVM ERROR, an assertion or stack dump, a sanitizer
report) fails; a clean diagnostic (exit 1) or success (exit 0) passes.

  fuzz_inputs.py TOOL_DIR SRC_DIR WORK_DIR [ITERATIONS [SEED]]

SEED defaults to a fixed value, so that CI runs the same inputs every time
(a landing never fails by chance); a campaign over fresh seeds is run
before each stop and recorded in bench/RESULTS.md, and each finding becomes
a fixed-seed regression test.

Seeds: the bundled IR (and Python-style numbers and hour units), the GPT
demo's kernels file (with composites) and pipeline, a Kineto trace, the Perseus CSV, a measurements JSON,
a signature DB (merge), an EnergyLens fit CSV, a FLOP/byte model file, the
serving example, a DVFS plan (run-plan --dry-run), pipelines lowered from
the generator, a pipeline with its closing synchronization's spread, planned schedules with switch costs, context trees
through reduction, and the routing fleet as a file and in the IR.
Mutations (seeded, reproducible): byte flips, deletions, duplications,
truncation, splicing in tokens that parsers special-case.
"""
import os
import random
import subprocess
import sys

tools, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 150
seed_value = int(sys.argv[5]) if len(sys.argv) > 5 else 20261129
rng = random.Random(seed_value)
INTERNAL = [b"LLVM ERROR", b"PLEASE submit a bug report", b"Stack dump:",
            b"Assertion", b"AddressSanitizer", b"UndefinedBehaviorSanitizer",
            b"LeakSanitizer", b"runtime error:", b"terminate called"]
os.makedirs(work, exist_ok=True)

TOKENS = [b"-", b"1e999", b"nan", b"ms", b"kg", b"<", b">", b"{", b"}", b"[",
          b"]", b",", b'"', b"\\u12", b"@", b"energy.par", b"sched.task",
          b"0", b"-1", b"\x00", b"\xff", b"99999999999999999999"]


def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(5)
        if not data:
            data += rng.choice(TOKENS)
            continue
        i = rng.randrange(len(data))
        if op == 0:
            data[i] = rng.randrange(256)
        elif op == 1:
            del data[i:i + rng.randint(1, 16)]
        elif op == 2:
            j = rng.randrange(len(data))
            data[i:i] = data[j:j + rng.randint(1, 32)]
        elif op == 3:
            del data[i:]
        else:
            data[i:i] = rng.choice(TOKENS)
    return bytes(data)


def seed(path):
    with open(path, "rb") as f:
        return f.read()


kineto = (b'{"distributedInfo": {"rank": 0}, "deviceProperties": [{"name": "A40"}],'
          b' "traceEvents": [{"ph": "X", "cat": "kernel", "name": "gemm", "ts": 10,'
          b' "dur": 5, "args": {"stream": 7}}, {"ph": "X", "cat": "kernel", "name":'
          b' "ncclKernel_AllReduce(x)", "ts": 20, "dur": 3, "args": {"stream": 9}},'
          b' {"ph": "s", "id": 1, "cat": "cuda_sync", "ts": 12, "tid": 7},'
          b' {"ph": "f", "id": 1, "cat": "cuda_sync", "ts": 20, "tid": 9}]}')
# Our own export's fields: the generator, the device's static power, a
# slice's task, energy and kind, and dependency flows naming their tasks.
own_export = (
    b'{"generator": {"tool": "energy-translate --export-perfetto"},'
    b' "deviceProperties": [{"id": 0, "name": "A100", "static_power_W": 60}],'
    b' "traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "pid": 0,'
    b' "tid": 0, "ts": 0, "dur": 1000, "args": {"task": "a", "stream": 0, "d_J": 0.2,'
    b' "kind": "forward"}}, {"ph": "X", "cat": "gpu_memcpy", "name": "b",'
    b' "pid": 0, "tid": 1, "ts": 0, "dur": 0, "args": {"task": "b", "stream": 1, "d_J": 0,'
    b' "kind": "memcpy"}}, {"ph": "X", "cat": "kernel", "name": "c", "pid": 0,'
    b' "tid": 0, "ts": 1500, "dur": 750, "args": {"task": "c", "stream": 0,'
    b' "d_J": 0.05}},'
    b' {"ph": "s", "cat": "dependency", "name": "dependency", "id": 1, "pid": 0,'
    b' "tid": 0, "ts": 500, "args": {"dependency": "finish_to_start",'
    b' "lag_s": 0.0005, "delay_sigma_s": 0.0001, "from": "a", "to": "c"}},'
    b' {"ph": "f", "bp": "e", "cat": "dependency", "name": "dependency",'
    b' "id": 1, "pid": 0, "tid": 0, "ts": 1500}, {"ph": "s", "cat":'
    b' "dependency", "name": "dependency", "id": 2, "pid": 0, "tid": 1,'
    b' "ts": 0, "args": {"dependency": "start_to_start", "lag_s": 0,'
    b' "from": "b", "to": "c"}}, {"ph": "f", "bp": "e", "cat": "dependency",'
    b' "name": "dependency", "id": 2, "pid": 0, "tid": 0, "ts": 1500}]}')
measured = b'{"attention": {"E_J": 3.32, "sigma_E_J": 0.01}, "overlap": {"runs_J": [2.2, 2.3]}}'
cases = [
    ("ir", seed(os.path.join(src, "examples", "attention-tp2.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "--energy-evaluate",
                "--canonicalize", "-o", os.devnull]),
    ("sched", seed(os.path.join(src, "test", "Dialect", "Sched", "ops.mlir")),
     ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "--sched-expand",
                "-o", os.devnull]),
    ("kineto", kineto, ".json",
     lambda f: [os.path.join(tools, "energy-translate"), "--import-kineto", f,
                "--static-power", "50", "--summary", os.devnull, "-o",
                os.devnull]),
    ("kineto-regions",
     seed(os.path.join(src, "test", "Translate", "Inputs", "regions.json")),
     ".json",
     lambda f: [os.path.join(tools, "energy-translate"), "--import-kineto", f,
                "--static-power", "50", "--regions", "^stage", "--summary",
                os.devnull, "-o", os.devnull]),
    ("kineto-step",
     seed(os.path.join(src, "test", "Translate", "Inputs", "regions.json")),
     ".json",
     lambda f: [os.path.join(tools, "energy-translate"), "--import-kineto", f,
                "--static-power", "50", "--regions", "^stage",
                "--profiler-step", "0", "--summary", os.devnull, "-o",
                os.devnull]),
    ("own-export", own_export, ".json",
     lambda f: [os.path.join(tools, "energy-translate"), "--import-kineto", f,
                "--summary", os.devnull, "-o", os.devnull]),
    ("profile", subprocess.run(
        [sys.executable, os.path.join(src, "bench",
                                      "synthetic_perseus_profile.py"), "2"],
        check=True, capture_output=True).stdout[:2000],
     ".csv",
     lambda f: [os.path.join(tools, "energy-translate"),
                "--import-stage-profile", f, "--microbatches", "2",
                "--device", "A40", "-o", os.devnull]),
    ("measured", measured, ".json",
     lambda f: [os.path.join(tools, "energy-opt"),
                os.path.join(src, "examples", "attention-tp2.mlir"),
                "--energy-check-deviation=measured=" + f, "-o", os.devnull]),
]
db = (b'{"version": 1, "device": "sim:A100", "entries": [{"key": "gemm", '
      b'"sm_mhz": 1410, "s_W": 60, "T_s": 0.001, "d_J": 0.2, "sigma_T_s": 1e-6,'
      b' "sigma_d_J": 1e-3, "runs": 5, "method": "simulated", "context": {"l2": '
      b'"flushed", "entry_temperature_C": 41.5, "power_limit_W": 400}}, {"key": "gemm",'
      b' "sm_mhz": 1005, "s_W": 55, "T_s": 0.0014, "d_J": 0.15, "sigma_T_s": 0,'
      b' "sigma_d_J": 0, "runs": 5, "method": "simulated"}]}')
lens_csv = b"input_tokens,max_tokens,batch,tp,pp,e,cell\n" + b"".join(
    b"%d,%d,%d,%d,%d,%f,c%d\n" % (b * 128, 64 * (1 + i % 2), b, tp, 1 + i % 3,
                                   10.0 + b + tp + i, i)
    for i, (b, tp) in enumerate((b, tp) for b in (1, 2, 4, 8) for tp in (1, 2, 4)))
flop_byte = (b'{"version": 1, "model": "flop-byte", "parameters": 7e9, '
             b'"attention_flops_per_pair": 524288, "weight_bytes": 1.4e10, '
             b'"kv_bytes_per_token": 524288, "joules_per_flop": 5e-13, '
             b'"joules_per_byte": 8e-12, "memory_factor": 1, "relative_sigma": 0.1, '
             b'"coefficient_covariance": [2.5e-27, 0, 0, 6.4e-25], "clocks": {"sm_mhz": '
             b'[1980, 1080], "fmax_mhz": 1980, "fmin_mhz": 210, "vmin": 0.7, '
             b'"vmax": 1.05, "peak_flops": 9.89e14}}')
serve = seed(os.path.join(src, "examples", "serve", "chat-7b.mlir"))
cases += [
    ("db", db, ".json",
     lambda f: [os.path.join(tools, "energy-prof"), "merge", f, "-o",
                os.devnull]),
    ("kernels", seed(os.path.join(src, "examples", "gpt-1.3b",
                                  "kernels.json"))[:4000] + b"]", ".json",
     lambda f: [os.path.join(tools, "energy-prof"), "characterize",
                "--device", "sim:a100", "--kernels", f, "--runs", "2",
                "--clocks", "1410,1005", "--allow-clock-changes", "-o",
                os.devnull]),
    ("composite", b'[{"key": "a", "flops": 1e9, "bytes": 1e6}, {"key": "b", '
                  b'"flops": 0, "bytes": 2e8}, {"key": "c", "sequence": '
                  b'[["a", 3], "b", ["a", 1000000]]}]', ".json",
     lambda f: [os.path.join(tools, "energy-prof"), "measure-composite",
                "--device", "sim:a100", "--kernels", f, "--sequence", "a,b",
                "--name", "x", "--runs", "2", "-o", os.devnull]),
    ("numbers", b'energy.device @g kind "A100" static 5E+2 W\nenergy.seq @s {\n'
                b'  energy.element @a on @g sig <T = 1e-06 s, d = 2e6 J>\n'
                b'  energy.element @b on @g sig <T = 1.5 min, d = 1 kWh, '
                b'sigma_d = 0.5 Wh>\n}\n', ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f,
                "--energy-evaluate=summary=true", "-o", os.devnull]),
    ("db-pipeline", seed(os.path.join(src, "test", "Passes",
                                      "pipeline-db.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "--sched-expand",
                "--sched-to-energy", "-o", os.devnull]),
    ("lens", lens_csv, ".csv",
     lambda f: [os.path.join(tools, "energy-prof"), "fit", "--model",
                "energylens", "--data", f, "-o", os.devnull]),
    ("model", flop_byte, ".json",
     lambda f: [os.path.join(tools, "energy-opt"),
                os.path.join(src, "examples", "serve", "chat-7b.mlir"),
                "--sched-expand", "--energy-fill-signatures=model=" + f,
                "-o", os.devnull]),
    ("plan", seed(os.path.join(src, "test", "Runtime", "Inputs",
                               "plan-two-gpus.json")), ".json",
     lambda f: [os.path.join(tools, "energy-prof"), "run-plan", f,
                "--device", "sim:a100", "--mode", "timeline", "--dry-run"]),
    ("serve", serve, ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "--sched-expand",
                "--sched-to-energy", "-o", os.devnull]),
    # Pipelines lowered straight from the generator, and planned.
    ("pipeline", seed(os.path.join(src, "test", "Passes",
                                   "sched-to-energy-direct.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "-split-input-file",
                "--sched-to-energy", "--energy-evaluate", "-o", os.devnull]),
    # A pipeline with latency, a closing synchronization and its spread,
    # expanded and evaluated.
    ("pipeline-sync", seed(os.path.join(src, "test", "Passes",
                                        "pipeline-sync-sigma.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "--sched-expand",
                "--sched-to-energy", "--energy-evaluate", "-o", os.devnull]),
    # Planning with switch costs, releases and series-parallel frontiers.
    ("plan-ir", seed(os.path.join(src, "test", "Passes",
                                  "energy-plan-switches.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "-split-input-file",
                "--energy-plan=max-slowdown=25", "--energy-emit-dvfs",
                "-o", os.devnull]),
    # The power cap chosen with the clocks: every cap planned on a copy
    # of the schedule, the best kept.
    ("plan-caps", seed(os.path.join(src, "test", "Passes",
                                    "energy-plan-choose-cap.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "-split-input-file",
                "--energy-plan=max-slowdown=25 choose-power-cap=true "
                "summary=true", "-o", os.devnull]),
    # Fleet files for the routing model (the horizon and runs are capped
    # from the command line so that every mutant runs in milliseconds).
    ("fleet", seed(os.path.join(src, "examples", "routing", "fleet.json")),
     ".json",
     lambda f: [os.path.join(tools, "energy-prof"), "route", f, "--runs", "2",
                "--horizon", "200", "-o", os.devnull]),
    # The fleet in the IR: routed, expanded, simulated on the endpoints'
    # evaluated energies.
    ("fleet-ir", seed(os.path.join(src, "examples", "routing", "fleet.mlir")),
     ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "--energy-route",
                "--sched-expand",
                "--energy-route-simulate=energies=evaluated runs=2 horizon=200",
                "-o", os.devnull]),
    # ML.ENERGY-format measurements (v3 layout, made here) through the
    # held-out validation.
    ("mlenergy", b'{"task": "t", "configurations": [' + b", ".join(
        b'{"model_id": "m", "architecture": "Dense Transformer", "gpu_model":'
        b' "H100", "weight_precision": "bfloat16", "total_params_billions": 8,'
        b' "activated_params_billions": 8, "num_gpus": 1, "tensor_parallel": 1,'
        b' "data_parallel": 1, "expert_parallel": 1, "max_num_seqs": %d, '
        b'"avg_batch_size": %f, "avg_output_len": 500, "avg_power_watts": %f,'
        b' "energy_per_token_joules": %f, "output_throughput_tokens_per_sec": '
        b'%f, "median_itl_ms": %f, "p90_itl_ms": %f}' % (
            b, 0.95 * b, (0.05 + 3.0 / b) * 80.0 * b / (1 + 0.01 * b),
            0.05 + 3.0 / b, 80.0 * b / (1 + 0.01 * b),
            10 + 0.1 * b, 12 + 0.12 * b) for b in (8, 16, 32, 64, 128, 256,
                                                   512, 1024)) + b"]}",
     ".json",
     lambda f: [os.path.join(tools, "energy-prof"), "validate-serving", f,
                "-o", os.devnull]),
    # The HTML report of a planned recorded schedule (the exporter's own
    # reading of plans, frontiers and clocks).
    ("report", seed(os.path.join(src, "test", "Passes",
                                 "energy-plan-recorded.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-translate"), "--export-report", f,
                "-o", os.devnull]),
    # Contexts, reduction (wrapping what fails) and evaluation.
    ("contexts", seed(os.path.join(src, "test", "Passes",
                                   "energy-context.mlir")), ".mlir",
     lambda f: [os.path.join(tools, "energy-opt"), f, "-split-input-file",
                "--energy-propagate-context", "--energy-reduce",
                "--energy-evaluate", "-o", os.devnull]),
]
crashes = 0
runs = 0
for name, data, ext, cmd in cases:
    for k in range(iterations):
        path = os.path.join(work, f"{name}-{k}{ext}")
        with open(path, "wb") as f:
            f.write(mutate(data))
        runs += 1
        try:
            p = subprocess.run(cmd(path), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=30)
        except subprocess.TimeoutExpired:
            crashes += 1
            print(f"HANG {name} #{k} (seed {seed_value}): over 30 s: {path}")
            continue
        internal = [m for m in INTERNAL if m in p.stderr]
        if p.returncode not in (0, 1) or internal:
            crashes += 1
            why = (f"exit {p.returncode}" if p.returncode not in (0, 1)
                   else "internal error " + internal[0].decode())
            print(f"CRASH {name} #{k} (seed {seed_value}): {why}: {path}")
            print(p.stderr.decode(errors="replace")[-2000:])
        else:
            os.remove(path)
print(f"seed {seed_value}: {runs} mutated inputs, {crashes} crashes")
sys.exit(1 if crashes else 0)
