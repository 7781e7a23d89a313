#!/usr/bin/env bash
# Benchmarks recorded in bench/RESULTS.md. Usage: bench/run.sh [build-dir]
#  1. energy-opt --energy-evaluate on synthetic trees of 10^4..10^6 elements:
#     wall time, peak RSS and MLIR's per-phase timing (parse+verify, the
#     pass, printing).
#  2. Google Benchmark of the calculus core.
set -euo pipefail
BUILD=${1:-build}
OPT=$BUILD/bin/energy-opt
TMP=${TMPDIR:-/tmp}/energy-bench
mkdir -p "$TMP"
here=$(dirname "$0")

echo "| elements | ops in tree | file | wall (s) | peak RSS (MiB) | parse+verify (s) | evaluate (s) | print (s) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 10000 100000 1000000; do
  f=$TMP/tree$n.mlir
  [ -s "$f" ] || python3 "$here/gen_tree.py" --elements $n --devices 8 --seed 1 > "$f"
  ops=$(grep -c "energy\.\(element\|idle\|seq\|par\|multi\)" "$f")
  size=$(du -h "$f" | cut -f1)
  out=$( { /usr/bin/time -f "TIME %e %M" "$OPT" --energy-evaluate -o /dev/null \
           -mlir-print-local-scope --mlir-timing "$f"; } 2>&1 )
  wall=$(echo "$out" | awk '/^TIME/{print $2}')
  rss=$(echo "$out" | awk '/^TIME/{printf "%.0f", $3/1024}')
  parse=$(echo "$out" | awk '/Parser$/{print $1}')
  eval=$(echo "$out" | awk '/EnergyEvaluate$/{print $1}')
  print=$(echo "$out" | awk '/Output$/{print $1}')
  echo "| $n | $ops | $size | $wall | $rss | $parse | $eval | $print |"
done
echo
# Issue 3: a 1F1B pipeline of 64 stages x 8192 microbatches (1,048,576 tasks)
# expanded, timed, lowered and evaluated by energy-opt.
cat > "$TMP/pipe1m.mlir" <<'MLIR'
sched.schedule @big {
  sched.pipeline @p {stages = 64, microbatches = 8192, schedule = "1f1b", device_kind = "A100-SXM4", static_power = 83.64, forward = #energy.sig<T = 10 ms, d = 2 J, sigma_T = 100 us, sigma_d = 20 mJ>, backward = #energy.sig<T = 20 ms, d = 4 J, sigma_T = 200 us, sigma_d = 40 mJ>}
}
MLIR
echo "pipeline 64 x 8192 (1F1B, 1,048,576 tasks), lowered from the generator:"
{ /usr/bin/time -f "TIME %e %M" "$OPT" "$TMP/pipe1m.mlir" \
    --sched-to-energy --energy-evaluate -o /dev/null \
    --mlir-timing; } 2>&1 | grep -E "Sched|Energy|Output|TIME"
echo "the same through 1,048,576 sched.task ops (--sched-expand first):"
{ /usr/bin/time -f "TIME %e %M" "$OPT" "$TMP/pipe1m.mlir" --sched-expand \
    --sched-to-energy --energy-evaluate -o /dev/null \
    --mlir-timing; } 2>&1 | grep -E "Sched|Energy|Output|TIME"
echo "Kineto import, synthetic trace of 10^6 trace events (250,000 GPU kernels with their launches and flows):"
[ -s "$TMP/k250k.json" ] || python3 "$here/gen_kineto.py" --events 250000 --seed 1 > "$TMP/k250k.json"
/usr/bin/time -f "TIME %e %M" "$BUILD/bin/energy-translate" --import-kineto \
  "$TMP/k250k.json" --static-power 80 --summary /dev/null -o /dev/null 2>&1 | grep TIME
echo "Kineto import, synthetic trace of 10^6 GPU events (4 x 10^6 trace events):"
[ -s "$TMP/k1m.json" ] || python3 "$here/gen_kineto.py" --events 1000000 --seed 1 > "$TMP/k1m.json"
/usr/bin/time -f "TIME %e %M" "$BUILD/bin/energy-translate" --import-kineto \
  "$TMP/k1m.json" --static-power 80 --summary /dev/null -o /dev/null 2>&1 | grep TIME
echo
"$BUILD/bench/calculus-bench" --benchmark_min_time=1 2>/dev/null | grep BM_ || \
  "$BUILD/bench/calculus-bench" | grep BM_
