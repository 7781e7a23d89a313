//===- CalculusBench.cpp - throughput of the calculus core ----------------===//
//
// Composes pre-built signatures with the n-ary Composer, as the evaluate pass
// does, and reports elements per second.
//
//===----------------------------------------------------------------------===//

#include "calculus/Pipeline.h"
#include "calculus/Schedule.h"
#include "calculus/Signature.h"
#include "runtime/include/energy_rt.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <vector>

using namespace energy::calculus;

namespace {

std::vector<Signature> makeLeaves(size_t n, uint32_t devices) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> t(1e-5, 5e-3), d(1e-3, 0.9);
  std::vector<Signature> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    double T = t(gen), D = d(gen);
    out.push_back(Signature::measured(60, T, D, (T / 50) * (T / 50),
                                      (D / 40) * (D / 40),
                                      DeviceSet::single(i % devices)));
  }
  return out;
}

void BM_SeqFold(benchmark::State &state) {
  auto leaves = makeLeaves(state.range(0), 1);
  for (auto _ : state) {
    Composer c(Op::Seq);
    for (const Signature &s : leaves)
      c.add(s);
    benchmark::DoNotOptimize(c.result().E());
  }
  state.SetItemsProcessed(state.iterations() * leaves.size());
}
BENCHMARK(BM_SeqFold)->Arg(1 << 20);

void BM_ParFold(benchmark::State &state) {
  auto leaves = makeLeaves(state.range(0), 1);
  for (auto _ : state) {
    Composer c(Op::Par);
    for (const Signature &s : leaves)
      c.add(s);
    benchmark::DoNotOptimize(c.result().E());
  }
  state.SetItemsProcessed(state.iterations() * leaves.size());
}
BENCHMARK(BM_ParFold)->Arg(1 << 20);

// The shape of a training step: per device, a sequence of blocks that are
// single elements or 3-wide pars; devices joined with multi.
void BM_MixedTree(benchmark::State &state) {
  const uint32_t devices = 8;
  auto leaves = makeLeaves(state.range(0), 1);
  for (auto _ : state) {
    Composer m(Op::Multi);
    size_t perDev = leaves.size() / devices, i = 0;
    for (uint32_t dv = 0; dv < devices; ++dv) {
      Composer s(Op::Seq);
      size_t end = i + perDev;
      while (i < end) {
        Signature x = leaves[i++];
        x.devices = DeviceSet::single(dv);
        if (i % 4 == 0 && i + 2 < end) {
          Composer p(Op::Par);
          p.add(x);
          for (int k = 0; k < 2; ++k) {
            Signature y = leaves[i++];
            y.devices = x.devices;
            p.add(y);
          }
          s.add(p.result());
        } else {
          s.add(x);
        }
      }
      m.add(s.result());
    }
    benchmark::DoNotOptimize(m.result().E());
  }
  state.SetItemsProcessed(state.iterations() * leaves.size());
}
BENCHMARK(BM_MixedTree)->Arg(1 << 20);

// The schedule path without MLIR: build a 1F1B pipeline of stages x
// microbatches x 2 tasks, time it, lower it and compose the tree.
void BM_PipelineSchedule(benchmark::State &state) {
  PipelineSpec spec;
  spec.kind = PipelineKind::OneFOneB;
  spec.stages = 64;
  spec.microbatches = state.range(0);
  spec.staticPowerPerGpu = 83.64;
  spec.forward.assign(64, {10e-3, 2, 1e-8, 4e-4});
  spec.backward.assign(64, {20e-3, 4, 4e-8, 1.6e-3});
  double build = 0, timing = 0, lower = 0, eval = 0;
  for (auto _ : state) {
    Schedule sched;
    std::vector<PipelineTaskInfo> info;
    std::string err;
    auto t0 = std::chrono::steady_clock::now();
    buildPipeline(spec, sched, info, err);
    auto t1 = std::chrono::steady_clock::now();
    std::vector<double> start;
    std::vector<uint32_t> cycle;
    computeStartTimes(sched, start, cycle);
    auto t2 = std::chrono::steady_clock::now();
    LoweredTree tree = lowerSchedule(sched, start);
    auto t3 = std::chrono::steady_clock::now();
    CompositionError cerr;
    benchmark::DoNotOptimize(evaluateLowered(sched, tree, cerr).E());
    auto t4 = std::chrono::steady_clock::now();
    build += std::chrono::duration<double>(t1 - t0).count();
    timing += std::chrono::duration<double>(t2 - t1).count();
    lower += std::chrono::duration<double>(t3 - t2).count();
    eval += std::chrono::duration<double>(t4 - t3).count();
  }
  double n = state.iterations();
  state.counters["build_s"] = build / n;
  state.counters["timing_s"] = timing / n;
  state.counters["lower_s"] = lower / n;
  state.counters["evaluate_s"] = eval / n;
  state.SetItemsProcessed(state.iterations() * 64 * state.range(0) * 2);
}
BENCHMARK(BM_PipelineSchedule)->Arg(8192)->Unit(benchmark::kMillisecond);

// The C API's begin/end pair on the simulated device (no flushing).
void BM_CApiRegion(benchmark::State &state) {
  if (er_init("sim:a100") != 0) {
    state.SkipWithError(er_last_error());
    return;
  }
  for (auto _ : state) {
    er_begin("region");
    er_end("region");
  }
  er_shutdown();
}
BENCHMARK(BM_CApiRegion);

} // namespace

BENCHMARK_MAIN();
