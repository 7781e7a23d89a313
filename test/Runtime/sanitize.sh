#!/usr/bin/env bash
# The runtime under sanitizers (no MLIR): its GoogleTest suites (the
# simulated device, characterization, the C API with signals, forks and
# threads, the sampler, the signature DB) built from source with clang-22
# twice -- ASan + UBSan without recovery (leak detection on), and TSan --
# and run. The C API's concurrency tests are the ones TSan runs (forking
# tests are left out there: TSan does not support fork after threads).
# Exits non-zero on any failure or sanitizer report.
#
# Usage: test/Runtime/sanitize.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1/sanitize" && cd "$1/sanitize" && pwd)
CXX=${CXX_SANITIZE:-clang++-22}
LLVM_CONFIG=${LLVM_CONFIG:-/usr/lib/llvm-22/bin/llvm-config}
# Version.inc as the main build writes it.
cmake -DSRC="$src" -DOUT="$out/Version.inc" \
  -DVERSION="$(sed -n 's/^project(.* VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" \
  -P "$src/cmake/version.cmake"
runtime=(runtime/CApi.cpp runtime/Characterize.cpp runtime/Guard.cpp
         runtime/MetricsServer.cpp runtime/RestoreRecord.cpp runtime/Sampler.cpp
         runtime/Nvml.cpp runtime/SimDevice.cpp runtime/AtomicFile.cpp
         runtime/Version.cpp runtime/db/SignatureDbWriter.cpp
         runtime/db/SignatureDb.cpp calculus/Signature.cpp
         calculus/PowerCap.cpp calculus/models/SimGpu.cpp)
tests=(test/Unit/RuntimeTest.cpp test/Unit/SamplerTest.cpp
       test/Unit/SignatureDbTest.cpp)
libs=("$("$LLVM_CONFIG" --libdir)/libLLVMSupport.a"
      "$("$LLVM_CONFIG" --libdir)/libLLVMDemangle.a"
      /usr/lib/x86_64-linux-gnu/libgtest_main.a /usr/lib/x86_64-linux-gnu/libgtest.a
      -lpthread -ldl -lrt -lm)
for lib in z zstd; do
  so=$(ls /usr/lib/x86_64-linux-gnu/lib$lib.so /usr/lib/x86_64-linux-gnu/lib$lib.so.1 2>/dev/null | head -1 || true)
  [ -n "$so" ] && libs+=("$so")
done
files=()
for f in "${runtime[@]}" "${tests[@]}"; do files+=("$src/$f"); done
common=(-O1 -g -std=c++17 -I"$src" -I"$out" -I"$("$LLVM_CONFIG" --includedir)"
        -fno-omit-frame-pointer)
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
rc=0
echo "== ASan + UBSan"
"$CXX" "${common[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all \
  "${files[@]}" "${libs[@]}" -o "$out/runtime-asan"
ENERGY_RT_STATE_DIR="$state" ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
  UBSAN_OPTIONS=print_stacktrace=1 "$out/runtime-asan" --gtest_brief=1 || rc=1
echo "== TSan"
"$CXX" "${common[@]}" -fsanitize=thread "${files[@]}" "${libs[@]}" \
  -o "$out/runtime-tsan"
ENERGY_RT_STATE_DIR="$state" TSAN_OPTIONS=halt_on_error=1 \
  "$out/runtime-tsan" --gtest_brief=1 \
  --gtest_filter='CApi.SameNameInManyThreads:CApi.RegionsAccumulateAndFlushPerRank:CApi.FollowsAPlanRegionByRegion:EnergySampler.*:CounterTimeline.*:SimDevice.RealTime*' || rc=1
# The real NVML path (dlopen, the sampler thread, the C API's sampled
# counter) on the driver's test double, under both.
fake="$out/fake-nvml"
mkdir -p "$fake"
clang-22 -O1 -g -shared -fPIC "$src/test/Runtime/FakeNvml/FakeNvml.c" \
  -o "$fake/libnvidia-ml.so.1"
for san in asan tsan; do
  if [ $san = asan ]; then
    flags=(-fsanitize=address,undefined -fno-sanitize-recover=all)
  else
    flags=(-fsanitize=thread)
  fi
  echo "== NVML path, $san"
  "$CXX" "${common[@]}" "${flags[@]}" "$src/test/Runtime/FakeNvml/NvmlTest.cpp" \
    "${files[@]:0:${#runtime[@]}}" "${libs[@]}" -o "$out/nvml-$san"
  # As test/Runtime/nvml-fake.test runs them: 2 ms driver calls, then
  # nested regions on a counter that updates every 20 ms.
  export ENERGY_RT_STATE_DIR="$state" LD_LIBRARY_PATH="$fake" \
    TSAN_OPTIONS=halt_on_error=1 ASAN_OPTIONS=detect_leaks=1
  FAKE_NVML_CALL_US=2000 "$out/nvml-$san" --gtest_brief=1 \
    --gtest_filter='Nvml.*' || rc=1
  FAKE_NVML_UPDATE_MS=20 "$out/nvml-$san" --gtest_brief=1 \
    --gtest_filter='Nvml.CApiNestedRegions*' || rc=1
  unset LD_LIBRARY_PATH
done
exit $rc
