//===- capi-check.cpp - the C API on a real GPU ---------------------------===//
//
// Part of the prepared GPU check (test/gpu/check.sh); read-only on the GPU.
// A user program as the C API expects one: it runs its own kernels (here
// the FMA and copy microbenchmarks, back to back for about a second) inside
// er_begin/er_end regions on "cuda:0", then reports each region's energy,
// time and mean power from NVML's energy counter, the cost of an
// er_begin/er_end pair on the real driver, and flushes a rank shard.
// Exits 1 when a region's mean power is implausible (outside the card's
// ready draw .. power limit) or the regions of one kernel disagree by more
// than 5 %; 2 when the C API fails.
//
//===----------------------------------------------------------------------===//

#include "runtime/include/energy_rt.h"
#include "runtime/kernels/Microbenchmarks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace energy::rt;

namespace {
double wall() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int apiFailed(const char *what) {
  std::fprintf(stderr, "capi-check: %s: %s\n", what, er_last_error());
  return 2;
}
} // namespace

int main(int argc, char **argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: capi-check [SHARD_PATH]\n");
    return 2;
  }
  const char *shard = argc > 1 ? argv[1] : nullptr;
  // As a training process would: the CUDA context exists (and the
  // buffers) before er_init measures the ready device's static power.
  {
    double secs;
    bool reused;
    std::string err;
    if (!cudaDeviceUsable(0, err)) {
      std::fprintf(stderr, "capi-check: %s\n", err.c_str());
      return 2;
    }
    if (!runMicrobenchmarkChained(Microbenchmark::Fma, 1000, false, secs,
                                  reused, err)) {
      std::fprintf(stderr, "capi-check: %s\n", err.c_str());
      return 2;
    }
  }
  if (er_init("cuda:0") != 0)
    return apiFailed("er_init");
  struct Work {
    const char *name;
    Microbenchmark which;
    size_t size;
  };
  // The gpu-check sizes: 0.55 ms and 0.28 ms per invocation on an H200.
  std::vector<Work> work = {{"fma", Microbenchmark::Fma, 20000},
                            {"copy", Microbenchmark::Copy, 512u << 20}};
  std::printf("%-6s %6s %8s %10s %10s %12s\n", "region", "run", "calls",
              "E (J)", "T (s)", "P (W)");
  bool bad = false;
  for (const Work &w : work) {
    std::vector<double> powers;
    double prevE = 0, prevT = 0;
    unsigned totalCalls = 0;
    for (int run = 0; run < 5; ++run) {
      double secs;
      bool reused;
      std::string err;
      if (!runMicrobenchmarkChained(w.which, w.size, false, secs, reused,
                                    err)) { // allocate, warm up
        std::fprintf(stderr, "capi-check: %s\n", err.c_str());
        return 2;
      }
      if (er_begin(w.name) != 0)
        return apiFailed("er_begin");
      unsigned calls = 0;
      for (double t0 = wall(); wall() - t0 < 1.0; ++calls)
        runMicrobenchmarkChained(w.which, w.size, false, secs, reused, err);
      if (er_end(w.name) != 0)
        return apiFailed("er_end");
      double E, T;
      unsigned count;
      if (er_result(w.name, &E, &T, &count) != 0)
        return apiFailed("er_result");
      totalCalls += calls;
      double dE = E - prevE, dT = T - prevT;
      prevE = E;
      prevT = T;
      powers.push_back(dE / dT);
      std::printf("%-6s %6d %8u %10.3f %10.4f %12.1f\n", w.name, run, calls, dE,
                  dT, dE / dT);
    }
    auto [lo, hi] = std::minmax_element(powers.begin(), powers.end());
    double mean = 0;
    for (double p : powers)
      mean += p / powers.size();
    std::printf("%-6s mean power %.1f W, spread %.2f %%, %.5f J per call "
                "(launch gaps included)\n",
                w.name, mean, 100 * (*hi - *lo) / mean, prevE / totalCalls);
    if (*lo < 50 || *hi > 1000 || (*hi - *lo) > 0.05 * mean) {
      std::printf("%-6s: implausible or inconsistent region powers\n", w.name);
      bad = true;
    }
  }
  // The cost of a region on the real driver: begin/end only take the time
  // (the energy counter is polled on the runtime's thread, Sampler.h).
  // Up to 10^6 pairs or 2 s.
  int pairs = 0;
  double t0 = wall(), elapsed = 0;
  for (; pairs < 1000000 && (pairs % 1024 || (elapsed = wall() - t0) < 2.0);
       ++pairs)
    if (er_begin("empty") != 0 || er_end("empty") != 0)
      return apiFailed("er_begin/er_end");
  elapsed = wall() - t0;
  std::printf("er_begin + er_end on cuda:0: %.3f us per pair (%d pairs)\n",
              1e6 * elapsed / pairs, pairs);
  double Ee, Te;
  unsigned ne;
  t0 = wall();
  if (er_result("empty", &Ee, &Te, &ne) != 0)
    return apiFailed("er_result");
  std::printf("er_result waited %.1f ms for the counter; the %u empty "
              "regions: %.3f J over %.4f s\n",
              1e3 * (wall() - t0), ne, Ee, Te);
  if (shard) {
    if (er_flush(shard) != 0)
      return apiFailed("er_flush");
    std::printf("shard: %s (rank %d)\n", shard, er_rank());
  }
  er_shutdown();
  return bad ? 1 : 0;
}
