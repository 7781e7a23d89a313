//===- gpu-check.cpp - the prepared GPU check -----------------------------===//
//
// Read-only on the GPU: it never changes clocks, power limits or any other
// setting. Characterizes the microbenchmarks at the card's current clocks
// through NVML's energy counter, measures a sequential and a concurrent
// composite of them, compares each with the composed prediction (Eq. 23)
// and prints a table.
// Exits non-zero when a check fails.
//
//===----------------------------------------------------------------------===//

#include "calculus/Signature.h"
#include "runtime/Characterize.h"
#include "runtime/kernels/CudaDevice.h"
#include "runtime/kernels/Microbenchmarks.h"

#include <cmath>
#include <cstdio>

using namespace energy;
using namespace energy::rt;

int main() {
  std::string err;
  std::unique_ptr<Device> dev = openCudaDevice(0, err);
  if (!dev) {
    std::fprintf(stderr, "gpu-check: %s\n", err.c_str());
    return 2;
  }
  std::printf("device: %s, SM clock %d MHz (not changed); gemm: %s\n",
              dev->identity().c_str(), dev->currentSmClock(),
              gemmImplementation());
  std::vector<KernelSpec> kernels = {
      {"fma", 1024.0 * 256 * 4 * 20000, 0},
      {"copy", 0, 2.0 * 512 * 1024 * 1024},
      {"gemm", 2.0 * 2048 * 2048 * 2048, 0},
      {"attention", 4.0 * 1024 * 1024 * 1024, 0},
  };
  ProtocolOptions opts;
  opts.runs = 5;
  opts.window = 0.5;
  opts.maxCooldown = 60;
  std::vector<Measurement> ms;
  std::printf("%-10s %10s %12s %12s %10s\n", "kernel", "s (W)", "T (ms)",
              "d (J)", "sigma_d");
  for (const KernelSpec &k : kernels) {
    Measurement m;
    if (!characterize(*dev, k, opts, m, err)) {
      std::fprintf(stderr, "gpu-check: %s: %s\n", k.key.c_str(), err.c_str());
      return 2;
    }
    std::printf("%-10s %10.2f %12.4f %12.5f %10.5f\n", k.key.c_str(), m.s,
                m.T * 1e3, m.d, std::sqrt(m.varD));
    ms.push_back(m);
  }
  // A sequential composite: every kernel once, back to back.
  calculus::Composer c(calculus::Op::Seq);
  for (const Measurement &m : ms)
    c.add(calculus::Signature::measured(m.s, m.T, m.d, m.varT, m.varD,
                                        calculus::DeviceSet::single(0)));
  double E, varE;
  if (!measureSequence(*dev, kernels, opts, E, varE, err)) {
    std::fprintf(stderr, "gpu-check: composite: %s\n", err.c_str());
    return 2;
  }
  const calculus::Signature &pred = c.result();
  bool fails = calculus::deviates(pred.E(), pred.varE, E, varE, 0.95);
  std::printf("sequential composite: predicted %.4f J +- %.4f, measured %.4f "
              "J +- %.4f: %s\n",
              pred.E(), pred.sigmaE(), E, std::sqrt(varE),
              fails ? "DEVIATES (Eq. 23)" : "consistent");
  // A concurrent composite: the compute-bound FMA loop next to the
  // bandwidth-bound copy, one stream each, against their par composition.
  calculus::Composer p(calculus::Op::Par);
  std::vector<KernelSpec> pair = {kernels[0], kernels[1]};
  for (size_t i = 0; i < pair.size(); ++i)
    p.add(calculus::Signature::measured(ms[i].s, ms[i].T, ms[i].d, ms[i].varT,
                                        ms[i].varD,
                                        calculus::DeviceSet::single(0)));
  double Ep, varEp;
  if (!measureConcurrent(*dev, pair, opts, Ep, varEp, err)) {
    std::fprintf(stderr, "gpu-check: concurrent composite: %s\n", err.c_str());
    return 2;
  }
  const calculus::Signature &pp = p.result();
  bool failsPar = calculus::deviates(pp.E(), pp.varE, Ep, varEp, 0.95);
  std::printf("concurrent composite (fma | copy): predicted %.4f J +- %.4f, "
              "measured %.4f J +- %.4f: %s\n",
              pp.E(), pp.sigmaE(), Ep, std::sqrt(varEp),
              failsPar ? "DEVIATES (Eq. 23: contention)" : "consistent");
  // Warm data (informational: the L2 effect is the hardware's to show). A
  // 16 MB copy whose consumer copies its output again: characterized cold
  // (after the L2 flush) and warm (right after its producer, reading the
  // producer's output in place).
  KernelSpec producer{"copy-l2", 0, 2.0 * 16 * 1024 * 1024};
  KernelSpec consumer{"copy-l2-next", 0, 2.0 * 16 * 1024 * 1024, "copy-l2"};
  Measurement cold, warm;
  if (!characterize(*dev, consumer, opts, cold, err) ||
      !characterizeWarm(*dev, consumer, producer, opts, warm, err)) {
    std::fprintf(stderr, "gpu-check: warm characterization: %s\n",
                 err.c_str());
    return 2;
  }
  std::printf("16 MB copy reading its producer's output: cold %.4f ms / "
              "%.5f J, warm %.4f ms / %.5f J (informational)\n",
              cold.T * 1e3, cold.d, warm.T * 1e3, warm.d);
  return fails || failsPar ? 1 : 0;
}
