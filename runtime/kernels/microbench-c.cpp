//===- microbench-c.cpp - the CUDA microbenchmarks behind a C ABI
//----------===//
//
// Part of the prepared GPU check (test/gpu/check.sh): libenergy_microbench.so
// lets test/gpu/python_check.py run the same kernels as capi-check from
// Python (ctypes), inside energy_rt windows. Read-only on the GPU.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Microbenchmarks.h"

#include <chrono>
#include <cstring>
#include <string>

using namespace energy::rt;

namespace {
thread_local std::string lastError;

int fail(const std::string &err) {
  lastError = err;
  return -1;
}

bool lookup(const char *name, Microbenchmark &which, size_t &size) {
  // capi-check's sizes: 0.55 ms and 0.28 ms per invocation on an H200.
  if (name && !std::strcmp(name, "fma")) {
    which = Microbenchmark::Fma;
    size = 20000;
    return true;
  }
  if (name && !std::strcmp(name, "copy")) {
    which = Microbenchmark::Copy;
    size = size_t(512) << 20;
    return true;
  }
  return false;
}
} // namespace

extern "C" {

/// Creates the CUDA context and the kernels' buffers (call before the
/// energy_rt Monitor, so that it measures the ready device's static power).
int emb_init(void) {
  std::string err;
  if (!cudaDeviceUsable(0, err))
    return fail(err);
  for (const char *k : {"fma", "copy"}) {
    Microbenchmark which;
    size_t size;
    double secs;
    bool reused;
    lookup(k, which, size);
    if (!runMicrobenchmarkChained(which, size, false, secs, reused, err))
      return fail(err);
  }
  return 0;
}

/// Runs kernel `name` ("fma" | "copy") back to back for `seconds` of wall
/// time; `calls` gets the number of invocations.
int emb_run(const char *name, double seconds, unsigned *calls) {
  Microbenchmark which;
  size_t size;
  if (!lookup(name, which, size))
    return fail(std::string("unknown kernel '") + (name ? name : "") +
                "' (fma, copy)");
  unsigned n = 0;
  auto t0 = std::chrono::steady_clock::now();
  std::string err;
  double secs;
  bool reused;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
             .count() < seconds) {
    if (!runMicrobenchmarkChained(which, size, false, secs, reused, err))
      return fail(err);
    ++n;
  }
  if (calls)
    *calls = n;
  return 0;
}

const char *emb_last_error(void) { return lastError.c_str(); }
}
