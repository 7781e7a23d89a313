#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, clang-22) of the file readers that
# need no MLIR (signature DBs, plans, fleets, ML.ENERGY files, Kineto
# traces, kernels files, CSVs, model files), of the convex frontier and of
# the IR:
# builds one target per reader from test/Fuzz/readers_fuzz.cpp (`convex` from
# test/Fuzz/convex_fuzz.cpp) with the reader's own sources instrumented
# (-fsanitize=fuzzer,address,undefined, no recovery) and LLVM Support linked
# statically; `ir` (test/Fuzz/ir_fuzz.cpp) instruments the energy and sched
# dialects (parsers, verifiers, printers) and links them with BUILD's
# passes and Debian's libMLIR. Seeds come from the repository's example
# files (each `// -----` split of the IR tests its own seed; ../shared/data's
# ML.ENERGY files read in place, where present); each runs for SECONDS. Exits
# non-zero on any finding (crash, sanitizer report, leak, timeout, a
# round trip that differs); the finding's input is left in BUILD/fuzz (add
# it to test/Fuzz/regressions/TARGET/ once fixed: every run replays those).
#
# Usage: test/Fuzz/libfuzzer.sh BUILD_DIR SECONDS [db|plan|fleet|mlenergy|convex|kineto|kernels|csv|model|ir ...]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
out=$(mkdir -p "$1/fuzz" && cd "$1/fuzz" && pwd)
secs=$2
shift 2
targets=${*:-db plan fleet mlenergy convex kineto kernels csv model ir}
CXX=${CXX_FUZZ:-clang++-22}
LLVM_CONFIG=${LLVM_CONFIG:-/usr/lib/llvm-22/bin/llvm-config}
flags=(-O1 -g -std=c++17 -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -I"$src" -I"$("$LLVM_CONFIG" --includedir)"
       -I/usr/include/eigen3)
libs=("$("$LLVM_CONFIG" --libdir)/libLLVMSupport.a"
      "$("$LLVM_CONFIG" --libdir)/libLLVMDemangle.a")
# What LLVM Support needs (as energy-prof links it: the zstd runtime
# library, with or without its -dev package).
syslibs=(-lrt -ldl -lm -lpthread)
for lib in z zstd z3; do
  so=$(ls /usr/lib/x86_64-linux-gnu/lib$lib.so /usr/lib/x86_64-linux-gnu/lib$lib.so.1 2>/dev/null | head -1 || true)
  [ -n "$so" ] && syslibs+=("$so")
done
shared=$(cd "$src/.." && pwd)/shared/data
rc=0
for t in $targets; do
  main=test/Fuzz/readers_fuzz.cpp
  case $t in
    db) n=1; srcs=(runtime/db/SignatureDb.cpp runtime/db/SignatureDbWriter.cpp
                    runtime/AtomicFile.cpp)
        seeds=("$src"/examples/data/h200/*.json "$src"/test/Runtime/Inputs/*db*.json) ;;
    plan) n=2; srcs=(runtime/plan/Plan.cpp calculus/models/KnownDevice.cpp)
          seeds=("$src"/test/Runtime/Inputs/plan-*.json) ;;
    fleet) n=3; srcs=(runtime/formats/Fleet.cpp calculus/Routing.cpp runtime/AtomicFile.cpp
                      calculus/RoutingMonteCarlo.cpp calculus/Random.cpp)
           seeds=("$src"/examples/routing/*.json) ;;
    mlenergy) n=4; srcs=(runtime/formats/MlEnergy.cpp runtime/AtomicFile.cpp
                         calculus/models/ServingValidation.cpp
                         calculus/models/LinearFit.cpp calculus/models/TokenLaw.cpp
                         calculus/models/SimGpu.cpp)
              seeds=()
              if [ -d "$shared/mlenergy-leaderboard-v3" ]; then
                mapfile -t seeds < <(find "$shared/mlenergy-leaderboard-v3" -name '*.json' -size -64k | head -20)
              fi ;;
    convex) n=5; main=test/Fuzz/convex_fuzz.cpp
            srcs=(calculus/ConvexFrontier.cpp); seeds=() ;;
    kineto) n=7; srcs=(translate/KinetoTrace.cpp translate/JsonScanner.cpp runtime/AtomicFile.cpp
                       dialect/Energy/Units.cpp)
            mapfile -t seeds < <(cd "$src" && ls test/Translate/Inputs/*.json 2>/dev/null | sed "s|^|$src/|")
            seeds+=("$out/kineto-seed.json")
            python3 "$src/bench/gen_kineto.py" --events 60 --seed 1 > "$out/kineto-seed.json"
            [ -f "$shared/kineto/hta_sampled_rank-0.json.gz" ] &&
              seeds+=("$shared/kineto/hta_sampled_rank-0.json.gz") ;;
    kernels) n=8; srcs=(runtime/formats/Kernels.cpp runtime/AtomicFile.cpp)
             mapfile -t seeds < <(cd "$src" && git ls-files 'examples/*kernels*.json' 'test/*kernels*.json' 2>/dev/null | sed "s|^|$src/|") ;;
    csv) n=9; srcs=(runtime/formats/Csv.cpp runtime/AtomicFile.cpp)
         mapfile -t seeds < <(cd "$src" && git ls-files '*.csv' 2>/dev/null | grep -v '^bench/lowtime' | sed "s|^|$src/|")
         for f in "$shared"/perseus/stage_profile_bloom+a40_bf16.csv; do
           [ -f "$f" ] && seeds+=("$f")
         done ;;
    model) n=10; srcs=(runtime/formats/ModelFile.cpp calculus/models/TokenLaw.cpp
                       calculus/models/EnergyLens.cpp calculus/models/FlopByte.cpp
                       calculus/models/LinearFit.cpp)
           mapfile -t seeds < <(cd "$src" && git ls-files 'examples/*model*.json' 'test/*model*.json' 'examples/*.json' 2>/dev/null | grep -i "model\|law\|flop\|lens" | sed "s|^|$src/|") ;;
    ir) n=6; main=test/Fuzz/ir_fuzz.cpp
        mapfile -t srcs < <(cd "$src" && ls dialect/Energy/*.cpp dialect/Sched/*.cpp)
        seeds=() ;;
    *) echo "unknown target $t (db, plan, fleet, mlenergy, convex, kineto, kernels, csv, model, ir)" >&2; exit 2 ;;
  esac
  bin="$out/fuzz-$t"
  if [ "$t" = ir ]; then
    # The dialects instrumented (one object each, two at a time), the
    # passes and the rest of the project from BUILD as they are, MLIR and
    # LLVM as Debian ships them (uninstrumented: ASAN_OPTIONS below).
    irflags=("${flags[@]}" -fno-sanitize=vptr,function -I"$build"
             -D_GLIBCXX_USE_CXX11_ABI=1 -D__STDC_CONSTANT_MACROS
             -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS)
    mkdir -p "$out/obj-ir"
    objs=() pids=()
    for s in "${srcs[@]}" "$main"; do
      o="$out/obj-ir/$(echo "$s" | tr / _).o"
      objs+=("$o")
      "$CXX" "${irflags[@]}" -c "$src/$s" -o "$o" &
      pids+=($!)
      if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    for p in "${pids[@]}"; do wait "$p"; done
    "$CXX" -fsanitize=fuzzer,address,undefined "${objs[@]}" \
      "$build/passes/libEnergyPasses.a" "$build/dialect/Sched/libSchedDialect.a" \
      "$build/runtime/libEnergySignatureDb.a" "$build/runtime/libEnergyFormats.a" \
      "$build/runtime/libEnergySignatureDbWriter.a" "$build/runtime/libEnergyAtomicFile.a" \
      "$build/runtime/libEnergyVersion.a" "$build/calculus/libEnergyCalculus.a" \
      -L"$("$LLVM_CONFIG" --libdir)" -Wl,-rpath,"$("$LLVM_CONFIG" --libdir)" \
      -lMLIR -lLLVM -lpthread -o "$bin"
    # Every IR test and example, each `// -----` split its own seed.
    seeds=()
    mkdir -p "$out/split-ir" && rm -f "$out/split-ir"/*
    (cd "$src" && git ls-files '*.mlir' 2>/dev/null || find test examples -name '*.mlir') |
      while read -r f; do
        awk -v base="$out/split-ir/$(echo "$f" | tr / _)" \
          'BEGIN{k=0} /^\/\/ -----/{k++; next} {print > (base "." k)}' "$src/$f"
      done
    seeds=("$out"/split-ir/*)
  else
    objs=()
    for s in "${srcs[@]}"; do objs+=("$src/$s"); done
    "$CXX" "${flags[@]}" -DENERGY_FUZZ_TARGET=$n "$src/$main" \
      "${objs[@]}" "${libs[@]}" "${syslibs[@]}" -o "$bin"
  fi
  corpus="$out/corpus-$t" seeddir="$out/seeds-$t"
  rm -rf "$seeddir" && mkdir -p "$corpus" "$seeddir"
  # Inputs of earlier findings (test/Fuzz/regressions/TARGET) are seeds too,
  # so each is replayed first.
  for f in "${seeds[@]}" "$src"/test/Fuzz/regressions/"$t"/*; do
    [ -f "$f" ] && cp "$f" "$seeddir/"
  done
  echo "== fuzz-$t: ${#seeds[@]} seeds, ${secs} s"
  if ! (cd "$out" && ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0 \
        "$bin" -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        "$corpus" "$seeddir" 2>&1 | tail -12); then
    echo "== fuzz-$t: FINDING (input in $out)" >&2
    rc=1
  fi
done
exit $rc
