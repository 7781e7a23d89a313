//===- Characterize.h - The characterization protocol -----------*- C++ -*-===//
//
// The paper's sections 3.4 and 5.2, on any Device:
//  1. null context: stream 2 x kL2FlushBytes through the L2 (the flush
//     kernel), then idle until the temperature is within `band` of the
//     idle temperature; each measurement records this context (L2
//     flushed, entry temperature, power limit) for the signature DB;
//  2. static power: the ready device's draw at the operating point, over
//     whole counter periods;
//  3. windows: the energy counter updates every ~100 ms, so a kernel is
//     repeated inside a window of at least `window` seconds aligned to
//     counter updates, and per-invocation values are reported;
//  4. n independent runs: mean and variance of T and of d = E - s T.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_CHARACTERIZE_H
#define RUNTIME_CHARACTERIZE_H

#include "runtime/Device.h"

#include <limits>
#include <string>
#include <vector>

namespace energy {
namespace rt {

struct ProtocolOptions {
  unsigned runs = 10;
  double window = 1.0;       ///< s of repeated invocations per run
  double band = 0.5;         ///< K around the idle temperature
  double staticWindow = 2.0; ///< s of idle to measure static power
  double maxCooldown = 600;  ///< s
};

struct Measurement {
  std::string key;
  int smMhz = 0;
  double s = 0, T = 0, d = 0; ///< W, s, J per invocation
  double varT = 0, varD = 0;
  unsigned runs = 0;
  /// The context of the runs (docs/SIGNATURE-DB.md): L2 state ("" when not
  /// known), temperature when the runs began (NaN: not read), power limit
  /// (0: not read).
  std::string l2;
  double entryTemperature = std::numeric_limits<double>::quiet_NaN();
  double powerLimit = 0;
  double defaultPowerLimit = 0; ///< the device's default limit then
  /// How the entry was obtained where it differs from the DB's method
  /// ("composed": the calculus' seq of other entries); "" otherwise.
  std::string method;
};

/// Static power at the current clock, from the counter over whole periods.
bool measureStaticPower(Device &dev, const ProtocolOptions &opts, double &s,
                        std::string &err);

/// Brings the device back to its null context (idle temperature band).
bool nullContext(Device &dev, const ProtocolOptions &opts, std::string &err);

/// Characterizes one kernel at the current clock.
bool characterize(Device &dev, const KernelSpec &k, const ProtocolOptions &opts,
                  Measurement &out, std::string &err);

/// Characterizes `consumer` warm: right after `producer`, whose data it
/// reuses (the L2 holding it). The protocol measures producer-consumer pairs
/// repeated in each window and the producer alone (cold), and reports the
/// difference -- the consumer's per-invocation signature in that context
/// (`l2 = "warm"`); variances add.
bool characterizeWarm(Device &dev, const KernelSpec &consumer,
                      const KernelSpec &producer, const ProtocolOptions &opts,
                      Measurement &out, std::string &err);

/// Measures a sequence of kernels run back to back as one composite (for
/// the deviation test): total energy per repetition and its variance;
/// `busyT`, when given, receives the mean busy time per repetition.
bool measureSequence(Device &dev, const std::vector<KernelSpec> &seq,
                     const ProtocolOptions &opts, double &E, double &varE,
                     std::string &err, double *busyT = nullptr);

/// Measures a set of kernels run concurrently (one stream each) as one
/// composite, for the deviation test against their `par` composition;
/// `busyT`, when given, receives the mean makespan per repetition.
bool measureConcurrent(Device &dev, const std::vector<KernelSpec> &set,
                       const ProtocolOptions &opts, double &E, double &varE,
                       std::string &err, double *busyT = nullptr);

/// The sweep of `energy-prof characterize`: every kernel (and, for one
/// that reuses another's data, its warm entry where the device runs it on
/// that data; else a line in `warnings`) at every SM clock of `clocks`
/// (empty: the current one) and every power limit of `limits` (empty: the
/// one in force), appended to `entries` in that order. A sweep that
/// changes settings holds a ClockGuard, which restores them on every path.
/// False with `err` at the first failure.
bool characterizeSweep(Device &dev, const std::vector<KernelSpec> &kernels,
                       const std::vector<int> &clocks,
                       const std::vector<double> &limits,
                       const ProtocolOptions &opts,
                       std::vector<Measurement> &entries,
                       std::vector<std::string> &warnings, std::string &err);

/// Writes measurements as a version-1 signature DB (docs/SIGNATURE-DB.md).
/// `generator`: the JSON object runtime/Version.h's generatorJson makes
/// ("" writes none).
std::string signatureDbJson(const std::string &device,
                            const std::vector<Measurement> &entries,
                            const std::string &method,
                            const std::string &generator = "");

} // namespace rt
} // namespace energy

#endif // RUNTIME_CHARACTERIZE_H
