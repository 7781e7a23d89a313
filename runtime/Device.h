//===- Device.h - GPU backends for measurement ------------------*- C++ -*-===//
//
// The runtime never links MLIR: it lives inside training and serving
// processes. A Device reports identity, clocks, an energy counter, power
// and temperature, runs kernels and (only with explicit opt-in) changes
// clocks. Backends: a simulated device (SimDevice.h) and NVML loaded at run
// time (Nvml.h).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_DEVICE_H
#define RUNTIME_DEVICE_H

#include <cstdint>
#include <string>
#include <vector>

namespace energy {
namespace rt {

/// A kernel the runtime can launch: its work and memory traffic, which the
/// simulated device turns into time and power; real backends launch the
/// matching CUDA microbenchmark.
struct KernelSpec {
  std::string key;
  double flops = 0; ///< floating-point operations
  double bytes = 0; ///< DRAM bytes moved
};

class Device {
public:
  virtual ~Device() = default;
  virtual std::string identity() const = 0;
  virtual std::vector<int> supportedSmClocks() const = 0; ///< MHz, descending
  virtual int currentSmClock() const = 0;
  /// Changes the SM clock; callers hold a ClockGuard (explicit opt-in).
  virtual bool setSmClock(int mhz, std::string &err) = 0;
  virtual bool resetSmClock(std::string &err) = 0;
  /// Cumulative energy counter in millijoules (as NVML reports it).
  virtual uint64_t energyCounterMilliJoules() = 0;
  virtual double temperature() = 0;
  /// Wall clock of the device, seconds.
  virtual double now() = 0;
  /// Runs a kernel to completion; returns its duration in seconds.
  virtual double run(const KernelSpec &k) = 0;
  /// Runs a kernel `reps` times back to back; returns the total time.
  virtual double runRepeated(const KernelSpec &k, unsigned reps) {
    double total = 0;
    for (unsigned i = 0; i < reps; ++i)
      total += run(k);
    return total;
  }
  /// Stays idle for `seconds`.
  virtual void idle(double seconds) = 0;
};

/// Restores the device's default clocks when it goes out of scope (normal
/// return, early error returns, exceptions) and, while alive, on SIGINT and
/// SIGTERM: a signal handler resets every guarded device, then re-raises the
/// signal with its default action.
class ClockGuard {
public:
  explicit ClockGuard(Device &d);
  ~ClockGuard();
  ClockGuard(const ClockGuard &) = delete;
  ClockGuard &operator=(const ClockGuard &) = delete;

private:
  Device &dev;
};

} // namespace rt
} // namespace energy

#endif // RUNTIME_DEVICE_H
