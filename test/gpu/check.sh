#!/usr/bin/env bash
# The prepared GPU check: run on a machine with an NVIDIA GPU, from the
# repository root. Read-only on the GPU (never changes clocks, power limits
# or any other setting). Builds what it needs, characterizes the CUDA
# microbenchmarks at the current clocks through NVML's energy counter,
# measures a sequential and a concurrent composite and compares each with
# the composed prediction (Eq. 23). Prints a table; exits 1 when the
# sequential composite deviates (null contexts: it must compose) or the
# concurrent pair deviates without contention to explain it (the pair no
# longer than its longer kernel), 2 when a measurement fails. Arguments
# are passed to gpu-check (`--db FILE` writes the measured signatures).
# Then capi-check runs the C API inside a user
# program (regions around kernels on cuda:0; SHARD names its rank shard),
# and test/gpu/python_check.py the Python API (energy_rt.Monitor windows
# around the same kernels, through libenergy_microbench.so), compared with
# capi-check's powers.
#
# With CMake it builds through CMake (targets gpu-check, capi-check, the
# kernels library, libenergy_rt and energy-prof where LLVM is found), with
# -DENERGY_ENABLE_MLIR=OFF where MLIR 22 is not installed; on a bare CUDA
# machine (nvcc and g++ only) it compiles the runtime, the kernels and the
# calculus' Signature.cpp directly with nvcc -- gpu-check needs nothing
# else -- and libenergy_rt.so.0 beside the Python package, taking the
# runtime's sources from runtime/CMakeLists.txt (one list).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-gpu}
MLIR_DIR=${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# CMake where it is found and configures (it needs Eigen3 for the
# calculus); else nvcc directly.
cmake_ok=0
if command -v cmake >/dev/null && command -v ninja >/dev/null; then
  cmake_ok=1
  if [ ! -f "$BUILD/build.ninja" ]; then
    if [ -d "$MLIR_DIR" ]; then
      cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
        -DCMAKE_CUDA_COMPILER="$NVCC" -DMLIR_DIR="$MLIR_DIR" \
        -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null || cmake_ok=0
    else
      cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_COMPILER="$NVCC" -DENERGY_ENABLE_MLIR=OFF >/dev/null ||
        cmake_ok=0
    fi
    if [ $cmake_ok = 0 ]; then
      echo "check.sh: CMake could not configure $BUILD; building with nvcc directly" >&2
      rm -rf "$BUILD"
    fi
  fi
fi
if [ $cmake_ok = 1 ]; then
  targets="gpu-check capi-check energy_microbench energy-python"
  if grep -q '^build bin/energy-prof:' "$BUILD/build.ninja"; then
    targets="$targets energy-prof"
  fi
  # shellcheck disable=SC2086
  ninja -C "$BUILD" $targets >/dev/null
else
  mkdir -p "$BUILD/obj" "$BUILD/bin"
  # Version.inc as cmake/version.cmake writes it (cmake runs it where
  # present; else the version from CMakeLists.txt and git's revision).
  if command -v cmake >/dev/null; then
    cmake -DSRC="$PWD" -DOUT="$BUILD/Version.inc" \
      -DVERSION="$(sed -n 's/^project(.* VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" \
      -P cmake/version.cmake
  else
    printf '#define ENERGY_VERSION "%s"\n#define ENERGY_GIT_REVISION "%s"\n' \
      "$(sed -n 's/^project(.* VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" \
      "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" >"$BUILD/Version.inc"
  fi
  # The sources of runtime/CMakeLists.txt's STATIC libraries, by name.
  sources() {
    for t in "$@"; do
      awk -v t="$t" '
        $0 ~ "add_library\\(" t " STATIC" { on = 1 }
        on { for (i = 1; i <= NF; ++i) if ($i ~ /\.(cpp|cu)\)?$/) {
               f = $i; sub(/\)$/, "", f); print "runtime/" f } }
        on && /\)/ { on = 0 }' runtime/CMakeLists.txt
    done
  }
  # The runtime (EnergyRuntime and what it links).
  RTLIB=$(sources EnergyRuntime EnergyAtomicFile EnergyVersion \
    EnergySignatureDbWriter)
  RT="$(sources EnergyKernels) $RTLIB"
  if [ -z "$RTLIB" ] || ! echo "$RT" | grep -q Microbenchmarks.cu; then
    echo "check.sh: cannot read the runtime's sources from runtime/CMakeLists.txt" >&2
    exit 2
  fi
  NVFLAGS="-O2 -std=c++17 -I. -I$BUILD -gencode arch=compute_80,code=sm_80
           -gencode arch=compute_90,code=sm_90"
  # shellcheck disable=SC2086
  "$NVCC" $NVFLAGS runtime/kernels/gpu-check.cpp calculus/Signature.cpp $RT \
    -ldl -o "$BUILD/bin/gpu-check" &
  # shellcheck disable=SC2086
  "$NVCC" $NVFLAGS runtime/kernels/capi-check.cpp $RT \
    -ldl -o "$BUILD/bin/capi-check"
  wait $!
  # The Python API's check: the kernels as a library, the runtime as
  # libenergy_rt.so.0 beside the package (as the CMake build lays it out).
  mkdir -p "$BUILD/lib" "$BUILD/python/energy_rt"
  # shellcheck disable=SC2086
  "$NVCC" $NVFLAGS -shared -Xcompiler -fPIC runtime/kernels/microbench-c.cpp \
    runtime/kernels/Microbenchmarks.cu -o "$BUILD/lib/libenergy_microbench.so" &
  # shellcheck disable=SC2086
  "$NVCC" $NVFLAGS -shared -Xcompiler -fPIC $RTLIB -ldl \
    -o "$BUILD/python/energy_rt/libenergy_rt.so.0"
  wait $!
  cp python/energy_rt/*.py "$BUILD/python/energy_rt/"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv || true
# CHECKS="gpu capi" (default; plus the Python check, and energy-prof where
# one is built or given) or any of gpu, capi, python, prof alone.
CHECKS=${CHECKS:-gpu capi}
rc=0 crc=0
if [[ " $CHECKS " == *" gpu "* ]]; then
  "$BUILD/bin/gpu-check" "$@" || rc=$?
fi
# The C API inside a user program: regions on cuda:0, a rank shard.
if [[ " $CHECKS " == *" capi "* ]]; then
  SHARD=${SHARD:-$BUILD/capi-rank%r.json}
  RANK=${RANK:-0} "$BUILD/bin/capi-check" "$SHARD" | tee "$BUILD/capi-check.out" || crc=$?
fi
# The Python API on cuda:0 (energy_rt.Monitor windows around the same
# kernels), against capi-check's powers from this run.
pyrc=0
if [[ " $CHECKS " == *" python "* ]] || [[ "$CHECKS" == "gpu capi" ]]; then
  if [ -f "$BUILD/lib/libenergy_microbench.so" ] &&
     [ -f "$BUILD/python/energy_rt/libenergy_rt.so.0" ] && [ -f "$BUILD/capi-check.out" ]; then
    PYTHONPATH="$BUILD/python" python3 test/gpu/python_check.py \
      "$BUILD/lib/libenergy_microbench.so" "$BUILD/capi-check.out" || pyrc=$?
  else
    echo "python check: not built (libenergy_microbench.so, libenergy_rt.so.0) or no capi-check output"
    pyrc=2
  fi
fi
# energy-prof on cuda:0 (probe, and characterize at the current clock: no
# --clocks, nothing changed). It needs LLVM to build, not to run: on a
# machine without MLIR, pass a prebuilt one as ENERGY_PROF (build/bin/
# energy-prof from a machine that has it; it links LLVM Support statically).
prc=0
PROF=${ENERGY_PROF:-$BUILD/bin/energy-prof}
if [[ " $CHECKS " == *" prof "* ]] || { [[ "$CHECKS" == "gpu capi" ]] && [ -x "$PROF" ]; }; then
  KERNELS=$(mktemp)
  printf '%s\n' '[{"key": "fma", "flops": 20971520000, "bytes": 0},' \
    ' {"key": "copy", "flops": 0, "bytes": 1073741824},' \
    ' {"key": "gemm", "flops": 17179869184, "bytes": 50331648}]' >"$KERNELS"
  { "$PROF" probe --device cuda:0 &&
    "$PROF" characterize --device cuda:0 --kernels "$KERNELS" --runs 3 \
      -o "${PROF_DB:-$BUILD/energy-prof-cuda0.json}" &&
    cat "${PROF_DB:-$BUILD/energy-prof-cuda0.json}"; } || prc=$?
  rm -f "$KERNELS"
fi
echo "gpu-check exit $rc, capi-check exit $crc, python check exit $pyrc, energy-prof exit $prc"
worst=$(( rc > crc ? rc : crc ))
worst=$(( worst > pyrc ? worst : pyrc ))
exit $(( worst > prc ? worst : prc ))
