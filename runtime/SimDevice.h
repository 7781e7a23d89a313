//===- SimDevice.h - A simulated GPU with a physical model ------*- C++ -*-===//
//
// SIMULATED: a documented model, not a measurement. Time is virtual (no
// sleeping), so characterization runs in milliseconds of wall time.
//
//  - Real time (setRealTime(k); the C API's ENERGY_RT_SIM_REALTIME=k): the
//    model lives on the wall clock instead, k wall seconds per simulated
//    second, and kernels behave like launches on one CUDA stream: run()
//    queues the kernel and returns at once; it starts when the previous
//    one ends or at the (scaled) wall time of the call, whichever is later,
//    and lasts its modelled time. Wall time in which nothing is queued (the
//    host's own work, a blocking receive from another rank, a barrier) is
//    idle at static power. Reading the device (now(), its energy, its
//    counter) first waits until the queued kernels have finished, like
//    torch.cuda.synchronize(); idle() queues the idle time and waits for
//    it. Host work overlaps the kernels it launched, as on a GPU, and a
//    multi-process job sees its real pipeline bubbles and waits.
//  - The kernels' physics (V-f curve, roofline time, switching and memory
//    power) and the parameter sets: calculus/models/SimGpu.h. Here the
//    static power follows the temperature: static(theta) = staticRef (1 +
//    leakage (theta - ambient)) when thermal coupling is on, staticRef
//    otherwise; idle draws static(theta).
//  - Thermal RC: theta relaxes towards ambient + P R with tau = R C.
//  - Energy counter: integrates power exactly, but the readable value
//    updates only every `counterPeriod` seconds and in 1 mJ steps (NVML's
//    total-energy counter behaves this way on recent GPUs).
//  - Noise: seeded Gaussian jitter on each kernel's time and power (the
//    runtime seeds it by the rank or ENERGY_RT_SIM_SEED, which the Python
//    package sets to a worker process's pid).
//  - L2 residency (switch `cacheResidency`): after a kernel runs, up to
//    l2Bytes of its data stay resident; a kernel that `reuses` the last
//    kernel's data reads min(resident, bytes) from L2 instead of DRAM (no
//    DRAM time or energy for those bytes). The flush kernel evicts. Off,
//    every kernel reads all its bytes from DRAM (the null context).
//  - Concurrent kernels (runConcurrent): dynamic energy is per unit of work
//    (C V^2 f per cycle, a fixed energy per byte), so it adds. With
//    `contention` off, each kernel runs as if alone and the set takes the
//    longest kernel's time (the context-free algebra's assumption); with it
//    on, the kernels share the SMs and HBM bandwidth as a fluid: the set
//    takes max(sum of compute times, sum of memory times, longest kernel).
//  - Power limit: like the driver's power capping at steady state, a kernel
//    whose power at the set clock exceeds the limit runs at the highest
//    supported clock at or below it whose power fits (fmin if none does).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_SIMDEVICE_H
#define RUNTIME_SIMDEVICE_H

#include "calculus/models/SimGpu.h"
#include "runtime/Device.h"

#include <chrono>
#include <random>

namespace energy {
namespace rt {

using calculus::SimGpu;
using calculus::simGpuFor;
using calculus::simGpuForDevice;

class SimDevice : public Device {
public:
  SimDevice(SimGpu p, uint64_t seed);

  std::string identity() const override;
  std::string reopenName() const override;
  std::string clockMirror() const override { return clockStateFile; }
  std::string powerMirror() const override { return powerLimitStateFile; }
  bool simulated() const override { return true; }
  bool runsOnReusedData() const override { return true; }
  std::vector<int> supportedSmClocks() const override;
  int currentSmClock() const override { return clock; }
  bool setSmClock(int mhz, std::string &err) override;
  bool resetSmClock(std::string &err) override;
  bool powerLimits(PowerLimits &out, std::string &err) const override;
  bool setPowerLimit(double watts, std::string &err) override;
  bool resetPowerLimit(std::string &err) override;
  uint64_t energyCounterMilliJoules() override;
  /// The model's exact cumulative energy (J), before the counter's 100 ms
  /// update period and 1 mJ steps: what the C API's regions read on a
  /// simulated device, which has no polled counter curve (virtual time).
  /// And the time at the same instant (one real-time catch-up).
  void exactEnergyAndTime(double &joules, double &seconds) {
    synchronize();
    joules = energy;
    seconds = time;
  }
  double temperature() override { return theta; }
  double now() override {
    synchronize();
    return time;
  }
  double run(const KernelSpec &k) override;
  /// Back-to-back invocations in one step: the sum of `reps` independent
  /// noisy invocations (mean reps T, standard deviation sqrt(reps) sigma).
  double runRepeated(const KernelSpec &k, unsigned reps) override;
  void idle(double seconds) override;

  double runConcurrent(const std::vector<KernelSpec> &ks) override;

  /// Switches to real time from now on, `wallPerSimSecond` (> 0) wall
  /// seconds per simulated second (see the header comment).
  void setRealTime(double wallPerSimSecond);
  bool realTime() const { return realScale > 0; }

  /// Mechanism switches (ground truth for the contexts issue).
  bool thermalCoupling = false;
  bool contention = false; ///< SM and HBM sharing between concurrent kernels
  bool cacheResidency = false; ///< reused data served from L2

  /// Mirror the SM clock into this file (tests of restore-on-signal watch it
  /// from another process, like a GPU's clocks outlive the process that set
  /// them). Written with plain system calls.
  std::string clockStateFile;
  /// The same for the power limit (whole watts).
  std::string powerLimitStateFile;

  /// The model's noise-free values at the current clock (throttled by the
  /// power limit) and ambient temperature, for tests: kernel time and
  /// dynamic energy.
  double modelTime(const KernelSpec &k) const;
  double modelDynamicEnergy(const KernelSpec &k) const;
  /// The clock a kernel actually runs at under the power limit.
  int effectiveClock(const KernelSpec &k) const;
  /// The noise-free makespan of a concurrent set (the model above).
  double modelConcurrentTime(const std::vector<KernelSpec> &ks) const;
  double staticPower() const;
  const SimGpu &params() const { return p; }

private:
  double timeAt(const KernelSpec &k, int mhz) const;
  double dynamicEnergyAt(const KernelSpec &k, int mhz) const;
  /// Each setting's mirror is written when that setting changes only (a
  /// restore of the power limit leaves another holder's clock).
  void publishClock() const;
  void publishPowerLimit() const;
  void advance(double seconds, double dynamicPower);
  /// The kernel as it runs now: its DRAM bytes less what L2 holds for it.
  KernelSpec asRun(const KernelSpec &k) const;
  void leaveResident(const KernelSpec &k);
  void busy(double seconds, double dynamicPower);
  /// Real time: the wall time the device has fallen behind, as idle time.
  void catchUp();
  /// Real time: returns once the wall clock reaches the simulated time
  /// (every queued kernel has ended), then catches up.
  void synchronize();
  /// Returns no earlier than the wall time `until`, without a long sleep's
  /// timer overshoot (late only by the run queue's delay).
  static void waitUntil(std::chrono::steady_clock::time_point until);

  SimGpu p;
  int clock;
  double limit;            // W
  std::string residentKey; // whose data the L2 holds
  double residentBytes = 0;
  double theta, time = 0, energy = 0; // J, exact
  double lastUpdate = 0;
  uint64_t visibleMilliJoules = 0;
  std::mt19937_64 gen;
  double realScale = 0, realTime0 = 0; // wall s per sim s; sim time at switch
  std::chrono::steady_clock::time_point realWall0;
};

} // namespace rt
} // namespace energy

#endif // RUNTIME_SIMDEVICE_H
