#!/usr/bin/env bash
# The prepared GPU check: run on a machine with an NVIDIA GPU, from the
# repository root. Read-only on the GPU (never changes clocks, power limits
# or any other setting). Builds what it needs, characterizes the CUDA
# microbenchmarks at the current clocks through NVML's energy counter,
# measures a sequential composite and compares it with the composed
# prediction (Eq. 23). Prints a table; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-gpu}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
ninja -C "$BUILD" gpu-check >/dev/null
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv || true
"$BUILD/bin/gpu-check"
