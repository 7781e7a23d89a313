//===- CudaDevice.cpp - NVML counters with CUDA microbenchmark kernels ----===//

#include "runtime/kernels/CudaDevice.h"
#include "runtime/Nvml.h"
#include "runtime/kernels/Microbenchmarks.h"

#include <cmath>

namespace energy {
namespace rt {

namespace {
/// The kernel's key names the microbenchmark by prefix ("fma", "copy",
/// "gemm", "attention", "flush"); its flops or bytes give the size. False
/// for any other key.
bool benchmarkFor(const KernelSpec &k, Microbenchmark &which, size_t &size) {
  auto is = [&](const char *prefix) { return k.key.rfind(prefix, 0) == 0; };
  if (is("fma")) {
    which = Microbenchmark::Fma;
    size = size_t(k.flops / (1024.0 * 256 * 4));
  } else if (is("copy")) {
    which = Microbenchmark::Copy;
    size = size_t(k.bytes / 2);
  } else if (is("gemm")) {
    which = Microbenchmark::Gemm;
    size = size_t(std::cbrt(k.flops / 2));
  } else if (is("attention")) {
    which = Microbenchmark::Attention;
    size = size_t(std::cbrt(k.flops / 4));
  } else if (is("flush")) {
    which = Microbenchmark::FlushL2;
    size = size_t(k.bytes);
  } else {
    return false;
  }
  return true;
}

/// NVML for identity, clocks and the energy counter; CUDA for the kernels.
class CudaDevice : public Device {
public:
  explicit CudaDevice(std::unique_ptr<Device> base) : nvml(std::move(base)) {}
  std::string identity() const override { return nvml->identity(); }
  std::vector<int> supportedSmClocks() const override {
    return nvml->supportedSmClocks();
  }
  int currentSmClock() const override { return nvml->currentSmClock(); }
  bool setSmClock(int mhz, std::string &err) override {
    return nvml->setSmClock(mhz, err);
  }
  bool resetSmClock(std::string &err) override {
    return nvml->resetSmClock(err);
  }
  bool powerLimits(PowerLimits &out, std::string &err) const override {
    return nvml->powerLimits(out, err);
  }
  bool setPowerLimit(double watts, std::string &err) override {
    return nvml->setPowerLimit(watts, err);
  }
  bool resetPowerLimit(std::string &err) override {
    return nvml->resetPowerLimit(err);
  }
  uint64_t energyCounterMilliJoules() override {
    return nvml->energyCounterMilliJoules();
  }
  double temperature() override { return nvml->temperature(); }
  double now() override { return nvml->now(); }
  /// A kernel that `reuses` the one that ran last reads that kernel's
  /// output in place (chained runs), so its warm characterization measures
  /// real L2 residency.
  bool runsOnReusedData() const override { return true; }
  /// The kernel's key names the microbenchmark ("fma", "copy", "gemm",
  /// "attention", "flush"); its flops or bytes give the size.
  double run(const KernelSpec &k) override {
    Microbenchmark which;
    size_t size;
    if (!benchmarkFor(k, which, size))
      return -1;
    double seconds = -1;
    std::string err;
    bool reused = false;
    bool chained = !k.reuses.empty() && k.reuses == lastKey;
    lastKey = k.key;
    if (!runMicrobenchmarkChained(which, size, chained, seconds, reused, err))
      return -1;
    return seconds;
  }
  double runConcurrent(const std::vector<KernelSpec> &ks) override {
    std::vector<std::pair<Microbenchmark, size_t>> set;
    for (const KernelSpec &k : ks) {
      Microbenchmark which;
      size_t size;
      if (!benchmarkFor(k, which, size))
        return -1;
      set.emplace_back(which, size);
    }
    double seconds = -1;
    std::string err;
    if (!runMicrobenchmarksConcurrently(set, seconds, err))
      return -1;
    return seconds;
  }
  void idle(double seconds) override { nvml->idle(seconds); }

private:
  std::unique_ptr<Device> nvml;
  std::string lastKey; ///< the kernel that ran last (its output is kept)
};
} // namespace

bool cudaCanRun(const KernelSpec &k, std::string &err) {
  Microbenchmark which;
  size_t size;
  if (benchmarkFor(k, which, size))
    return true;
  err = "kernel '" + k.key +
        "': the CUDA backend runs the microbenchmarks, "
        "named by the key's prefix: fma, copy, gemm, attention or flush";
  return false;
}

std::unique_ptr<Device> openCudaDevice(unsigned index, std::string &err) {
  // CUDA numbers the visible GPUs, NVML all of them.
  unsigned nvmlIndex = 0;
  if (!nvmlIndexOfCuda(index, nvmlIndex, err))
    return nullptr;
  std::unique_ptr<Device> nvml = openNvmlDevice(nvmlIndex, err);
  if (!nvml)
    return nullptr;
  // NVML without a CUDA device behind it (no GPU, or a driver mismatch):
  // say so now rather than as a failed kernel in the middle of a protocol.
  std::string why;
  if (!cudaDeviceUsable(index, why)) {
    err = nvml->identity() + ": " + why;
    return nullptr;
  }
  return std::make_unique<CudaDevice>(std::move(nvml));
}

} // namespace rt
} // namespace energy
