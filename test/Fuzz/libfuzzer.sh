#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, clang-22) of the runtime's file
# readers and of the convex frontier: builds one target per reader from
# test/Fuzz/readers_fuzz.cpp (and `convex` from test/Fuzz/convex_fuzz.cpp)
# with the reader's own sources instrumented (-fsanitize=fuzzer,address,
# undefined, no recovery) and LLVM Support linked statically, seeds each
# from the repository's example files (and ../shared/data's ML.ENERGY
# files, read in place, where present), and runs each for SECONDS. Exits
# non-zero on any finding (crash, sanitizer report, leak, timeout, a
# round trip that differs); the finding's input is left in BUILD/fuzz (add
# it to test/Fuzz/regressions/TARGET/ once fixed: every run replays those).
#
# Usage: test/Fuzz/libfuzzer.sh BUILD_DIR SECONDS [db|plan|fleet|mlenergy|convex ...]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1/fuzz" && cd "$1/fuzz" && pwd)
secs=$2
shift 2
targets=${*:-db plan fleet mlenergy convex}
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
    db) n=1; srcs=(runtime/db/SignatureDb.cpp runtime/db/SignatureDbWriter.cpp)
        seeds=("$src"/examples/data/h200/*.json "$src"/test/Runtime/Inputs/*db*.json) ;;
    plan) n=2; srcs=(runtime/plan/Plan.cpp)
          seeds=("$src"/test/Runtime/Inputs/plan-*.json) ;;
    fleet) n=3; srcs=(runtime/formats/Fleet.cpp calculus/Routing.cpp
                      calculus/RoutingMonteCarlo.cpp)
           seeds=("$src"/examples/routing/*.json) ;;
    mlenergy) n=4; srcs=(runtime/formats/MlEnergy.cpp
                         calculus/models/ServingValidation.cpp
                         calculus/models/LinearFit.cpp calculus/models/TokenLaw.cpp)
              seeds=()
              if [ -d "$shared/mlenergy-leaderboard-v3" ]; then
                mapfile -t seeds < <(find "$shared/mlenergy-leaderboard-v3" -name '*.json' -size -64k | head -20)
              fi ;;
    convex) n=5; main=test/Fuzz/convex_fuzz.cpp
            srcs=(calculus/ConvexFrontier.cpp); seeds=() ;;
    *) echo "unknown target $t (db, plan, fleet, mlenergy, convex)" >&2; exit 2 ;;
  esac
  bin="$out/fuzz-$t"
  objs=()
  for s in "${srcs[@]}"; do objs+=("$src/$s"); done
  "$CXX" "${flags[@]}" -DENERGY_FUZZ_TARGET=$n "$src/$main" \
    "${objs[@]}" "${libs[@]}" "${syslibs[@]}" -o "$bin"
  corpus="$out/corpus-$t" seeddir="$out/seeds-$t"
  rm -rf "$seeddir" && mkdir -p "$corpus" "$seeddir"
  # Inputs of earlier findings (test/Fuzz/regressions/TARGET) are seeds too,
  # so each is replayed first.
  for f in "${seeds[@]}" "$src"/test/Fuzz/regressions/"$t"/*; do
    [ -f "$f" ] && cp "$f" "$seeddir/"
  done
  echo "== fuzz-$t: ${#seeds[@]} seeds, ${secs} s"
  if ! (cd "$out" && "$bin" -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        "$corpus" "$seeddir" 2>&1 | tail -12); then
    echo "== fuzz-$t: FINDING (input in $out)" >&2
    rc=1
  fi
done
exit $rc
