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

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace energy {
namespace rt {

/// A device's power-limit settings in watts (NVML's power management limit).
struct PowerLimits {
  double minW = 0, maxW = 0; ///< the range the driver accepts
  double defaultW = 0;       ///< restored by resetPowerLimit
  double currentW = 0;
};

/// Bytes at least as large as the L2 of current GPUs (A100 40 MB,
/// H100/H200 50 MB); the null context streams twice this through it.
constexpr double kL2FlushBytes = 64e6;

/// A kernel the runtime can launch: its work and memory traffic, which the
/// simulated device turns into time and power; real backends launch the
/// matching CUDA microbenchmark.
struct KernelSpec {
  std::string key;
  double flops = 0; ///< floating-point operations
  double bytes = 0; ///< DRAM bytes moved (cold: nothing resident in L2)
  /// The key of a kernel whose data this one reads: when that kernel ran
  /// last, part of `bytes` can come from L2 instead of DRAM.
  std::string reuses = {};
};

/// A device's supported SM clocks for a diagnostic: "210-1410 MHz in 15 MHz
/// steps" when evenly spaced, else the list ("1980, 1755, 1530 MHz"; the
/// first 12 and a count).
inline std::string describeClocks(const std::vector<int> &clocks) {
  if (clocks.empty())
    return "no settable SM clocks";
  std::vector<int> c(clocks);
  std::sort(c.begin(), c.end());
  bool even = c.size() > 2;
  for (size_t i = 2; i < c.size() && even; ++i)
    even = c[i] - c[i - 1] == c[1] - c[0];
  if (even)
    return std::to_string(c.front()) + "-" + std::to_string(c.back()) +
           " MHz in " + std::to_string(c[1] - c[0]) + " MHz steps";
  std::string out;
  for (size_t i = c.size(); i-- > 0 && c.size() - i <= 12;)
    out += (out.empty() ? "" : ", ") + std::to_string(c[i]);
  if (c.size() > 12)
    out += " and " + std::to_string(c.size() - 12) + " more";
  return out + " MHz";
}

/// An exclusive claim on a device's settings: a lock (flock(2)) on a file
/// named after the device, held while a ClockGuard holds the device. The
/// kernel drops it when its process ends however it ends (SIGKILL too) and
/// sees it from any PID namespace, so two processes that check at the same
/// moment cannot both go ahead (heldByAnotherProcess, RestoreRecord.h).
struct DeviceClaim {
  std::atomic<int> fd{-1}; // read by a sampler's thread (claimedElsewhere)
  DeviceClaim() = default;
  DeviceClaim(const DeviceClaim &) = delete;
  DeviceClaim &operator=(const DeviceClaim &) = delete;
  ~DeviceClaim() { release(); }
  void release();
};

class Device {
public:
  virtual ~Device() = default;
  /// Taken by heldByAnotherProcess when the device is free; released when
  /// the ClockGuard holding the device ends (or with the device).
  mutable DeviceClaim claim;
  virtual std::string identity() const = 0;
  /// A name that opens this device again in another process ("cuda:0",
  /// "sim:a100-sxm4"), for restore records (RestoreRecord.h); empty when
  /// it cannot be reopened.
  virtual std::string reopenName() const { return ""; }
  /// Simulated devices: the files that mirror their clock and power limit
  /// (their "hardware" state outside the process); empty otherwise.
  virtual std::string clockMirror() const { return ""; }
  virtual std::string powerMirror() const { return ""; }
  /// Called by the backends once a clock or power limit change succeeded
  /// (a ClockGuard writes its restore record there: a change that failed,
  /// or none at all, leaves no record behind). NVML: right after the
  /// driver call, so a SIGKILL between the two loses the record; the
  /// simulated device calls it before its mirror shows the change.
  std::function<void(Device &)> onChanged;
  /// What this process changed, set by the backends when a change succeeds
  /// (before onChanged): a ClockGuard restores only those -- never a
  /// setting another tool or an administrator made (a power cap of 500 W
  /// stays 500 W after a clock-only plan) -- and the power limit to the one
  /// in force before this process first changed it.
  bool clockChanged = false, powerLimitChanged = false;
  /// The power limit before this process's first change (W); 0: unknown
  /// (the default is restored).
  double priorPowerLimitW = 0;
  /// True for the simulated model (its time is virtual: no wall-clock
  /// energy to read).
  virtual bool simulated() const { return false; }
  /// Whether a kernel's `reuses` really runs on the producer's data (so a
  /// warm characterization means something).
  virtual bool runsOnReusedData() const { return false; }
  virtual std::vector<int> supportedSmClocks() const = 0; ///< MHz, descending
  virtual int currentSmClock() const = 0;
  /// Changes the SM clock; callers hold a ClockGuard (explicit opt-in).
  virtual bool setSmClock(int mhz, std::string &err) = 0;
  virtual bool resetSmClock(std::string &err) = 0;
  /// Power-limit range, default and current value; false (with `err`)
  /// where the backend cannot report them.
  virtual bool powerLimits(PowerLimits &out, std::string &err) const = 0;
  /// Sets the power limit; callers hold a ClockGuard (explicit opt-in).
  virtual bool setPowerLimit(double watts, std::string &err) = 0;
  /// Back to the power limit in force before this process first changed it
  /// (priorPowerLimitW), or to the default where that is unknown.
  virtual bool resetPowerLimit(std::string &err) = 0;
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
  /// Runs the kernels concurrently (one stream each) to completion;
  /// returns the set's makespan, or -1 where the backend cannot.
  virtual double runConcurrent(const std::vector<KernelSpec> &) { return -1; }
  /// Stays idle for `seconds`.
  virtual void idle(double seconds) = 0;
};

/// Restores the device's default clocks and its power limit (what this
/// process changed of them: Device::clockChanged, powerLimitChanged) when it
/// goes out of scope (normal return, early error returns, exceptions) and,
/// while alive, on every signal whose default action ends the process (INT,
/// TERM, HUP, QUIT, ABRT, SEGV, BUS, FPE, ILL, PIPE, ALRM, USR1, USR2, XCPU,
/// XFSZ): a handler resets every guarded device, then calls the handler the
/// application had installed, or re-raises with the default action (the
/// exit status is the program's own). A signal the application ignores is
/// left alone. SIGKILL and power loss cannot be caught. Only in the
/// process that made the guard: a forked child (which inherits the guard,
/// the table and the handler) never resets its parent's settings.
class ClockGuard {
public:
  explicit ClockGuard(Device &d);
  ~ClockGuard();
  ClockGuard(const ClockGuard &) = delete;
  ClockGuard &operator=(const ClockGuard &) = delete;

  /// The holder reset the device to its defaults itself (a probe that set
  /// a clock and reset it, a sweep's end): a signal the program handles
  /// then has nothing to reset and counts no reset (signalResetCount).
  void atDefaults();

private:
  Device &dev;
  int pid;       ///< the process that made the guard
  int slot = -1; ///< its place in the table of guarded devices
};

/// True while restoreGuardedDevices runs (the signal handlers' restore):
/// backends then report failures with write(2) and build no strings (no
/// allocation in a signal handler).
bool inSignalRestore();

/// Resets every device currently held by a ClockGuard (clocks and power
/// limits), as the signal handler does. For callers that install their own
/// handlers (run-plan forwards the first signal to its child and restores
/// on a second one).
void restoreGuardedDevices();

/// How many times a signal handler has reset the guarded devices. A signal
/// the program handles (a checkpoint trigger's SIGUSR1, Python's SIGINT)
/// resets them before its handler runs, and they stay guarded: the program
/// may go on, and its runtime must then know that the clocks it set are
/// gone (a run across a reset has no one clock; a planned clock is set
/// again).
unsigned long long signalResetCount();

/// The last stop signal (TERM, INT, HUP, QUIT) a ClockGuard's handler
/// passed on to the program's own handler since the previous call (0:
/// none), cleared. C code that blocks
/// for long (the adaptive profile's wait for the other ranks) checks it and
/// returns, so that a handler that only records the signal for later --
/// Python's -- can run.
int takeChainedSignal();

} // namespace rt
} // namespace energy

#endif // RUNTIME_DEVICE_H
