//===- Characterize.cpp - The characterization protocol -------------------===//

#include "runtime/Characterize.h"
#include "runtime/Progress.h"
#include "runtime/RestoreRecord.h"
#include "runtime/db/SignatureDb.h"

#include <algorithm>
#include <optional>

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

namespace energy {
namespace rt {

namespace {
/// Idles in small steps until the visible counter changes: the next read
/// is aligned with an update. Returns the counter value and time then.
bool alignToCounter(Device &dev, uint64_t &mj, double &t, std::string &err) {
  uint64_t start = dev.energyCounterMilliJoules();
  for (int i = 0; i < 100000; ++i) {
    dev.idle(1e-3);
    uint64_t now = dev.energyCounterMilliJoules();
    if (now != start) {
      mj = now;
      t = dev.now();
      return true;
    }
  }
  err = "the energy counter never updated";
  return false;
}

void meanVar(const std::vector<double> &x, double &mean, double &var) {
  mean = 0;
  for (double v : x)
    mean += v;
  mean /= x.size();
  var = 0;
  for (double v : x)
    var += (v - mean) * (v - mean);
  var = x.size() > 1 ? var / (x.size() - 1) : 0;
}
} // namespace

bool nullContext(Device &dev, const ProtocolOptions &opts, std::string &err) {
  // Evict the L2: stream a buffer larger than any current GPU's L2 (A100
  // 40 MB, H100/H200 50 MB) through it. Backends without kernels
  // (plain NVML) cannot, and report -1.
  dev.run(KernelSpec{"flush", 0, 2 * kL2FlushBytes});
  // Idle until the temperature settles within the band: it changes by less
  // than `band` over a further second.
  double waited = 0, prev = dev.temperature();
  while (waited < opts.maxCooldown) {
    dev.idle(1.0);
    waited += 1.0;
    double now = dev.temperature();
    if (std::fabs(now - prev) < opts.band / 10)
      return true;
    prev = now;
  }
  err = "the device did not settle to its idle temperature within " +
        std::to_string(opts.maxCooldown) + " s";
  return false;
}

bool measureStaticPower(Device &dev, const ProtocolOptions &opts, double &s,
                        std::string &err) {
  uint64_t e0, e1;
  double t0, t1;
  if (!alignToCounter(dev, e0, t0, err))
    return false;
  dev.idle(opts.staticWindow);
  if (!alignToCounter(dev, e1, t1, err))
    return false;
  s = (double(e1 - e0) * 1e-3) / (t1 - t0);
  return true;
}

namespace {
/// What the protocol's windows measure: static power, the entry
/// temperature, and per-repetition busy times and dynamic energies.
struct Windows {
  double s = 0, entryTemperature = 0;
  std::vector<double> T, d;
};

/// The protocol after the null context: static power, then `probe` (a
/// warm-up whose time sets how many repetitions fill a window; < 0: the
/// backend cannot run it), then n runs, each `repeat(reps)` (returning its
/// busy time) inside counter-aligned windows; the window's energy less
/// static power over the window is dynamic.
bool measureWindows(Device &dev, const ProtocolOptions &opts,
                    const std::function<double()> &probe,
                    const std::function<double(unsigned)> &repeat, Windows &w,
                    std::string &err) {
  if (!nullContext(dev, opts, err))
    return false;
  if (!measureStaticPower(dev, opts, w.s, err))
    return false;
  w.entryTemperature = dev.temperature();
  double estimate = probe();
  if (estimate < 0) {
    err = dev.identity() + ": the backend cannot run these kernels";
    return false;
  }
  unsigned reps =
      std::max(1u, unsigned(std::ceil(opts.window / std::max(estimate, 1e-9))));
  for (unsigned r = 0; r < opts.runs; ++r) {
    uint64_t e0, e1;
    double t0, t1;
    if (!alignToCounter(dev, e0, t0, err))
      return false;
    double busy = repeat(reps);
    if (!alignToCounter(dev, e1, t1, err))
      return false;
    double E = double(e1 - e0) * 1e-3;
    w.T.push_back(busy / reps);
    w.d.push_back((E - w.s * (t1 - t0)) / reps);
  }
  return true;
}

/// The measurement's context for the signature DB.
void recordContext(Device &dev, const std::string &l2, double entryTemperature,
                   Measurement &out) {
  out.smMhz = dev.currentSmClock();
  out.l2 = l2;
  out.entryTemperature = entryTemperature;
  PowerLimits limits;
  std::string ignored;
  if (dev.powerLimits(limits, ignored)) {
    out.powerLimit = limits.currentW;
    out.defaultPowerLimit = limits.defaultW;
  }
}
} // namespace

bool characterize(Device &dev, const KernelSpec &k, const ProtocolOptions &opts,
                  Measurement &out, std::string &err) {
  if (opts.runs < 2) {
    err = "need at least two runs for a variance";
    return false;
  }
  Windows w;
  if (!measureWindows(
          dev, opts, [&] { return dev.run(k); },
          [&](unsigned reps) { return dev.runRepeated(k, reps); }, w, err))
    return false;
  out.key = k.key;
  out.s = w.s;
  recordContext(dev, "flushed", w.entryTemperature, out);
  meanVar(w.T, out.T, out.varT);
  meanVar(w.d, out.d, out.varD);
  out.runs = opts.runs;
  return true;
}

bool characterizeWarm(Device &dev, const KernelSpec &consumer,
                      const KernelSpec &producer, const ProtocolOptions &opts,
                      Measurement &out, std::string &err) {
  Measurement prod;
  if (!characterize(dev, producer, opts, prod, err))
    return false;
  Windows w;
  auto pair = [&] {
    double t = dev.run(producer); // in this order: the consumer reuses
    return t + dev.run(consumer);
  };
  if (!measureWindows(
          dev, opts, pair,
          [&](unsigned reps) {
            double busy = 0;
            for (unsigned k = 0; k < reps; ++k)
              busy += pair();
            return busy;
          },
          w, err))
    return false;
  double pairT, pairVarT, pairD, pairVarD;
  meanVar(w.T, pairT, pairVarT);
  meanVar(w.d, pairD, pairVarD);
  out.key = consumer.key;
  out.s = w.s;
  out.T = std::max(0.0, pairT - prod.T);
  out.d = std::max(0.0, pairD - prod.d);
  out.varT = pairVarT + prod.varT;
  out.varD = pairVarD + prod.varD;
  out.runs = opts.runs;
  recordContext(dev, "warm", w.entryTemperature, out);
  return true;
}

namespace {
/// Measures `once` (which runs the composite and returns its busy time) as
/// one element: null context, static power, n aligned runs, each repeating
/// the composite back to back for at least `window` seconds (as for single
/// kernels, so the counter's period and resolution are amortized);
/// per-repetition energies.
bool measureComposite(Device &dev, const ProtocolOptions &opts,
                      const std::function<double()> &once, double &E,
                      double &varE, std::string &err, double *busyT) {
  if (!nullContext(dev, opts, err))
    return false;
  double s;
  if (!measureStaticPower(dev, opts, s, err))
    return false;
  double probe = once(); // its length sets the repetitions
  if (probe < 0) {
    err = dev.identity() + ": the backend cannot run this composite";
    return false;
  }
  unsigned reps =
      std::max(1u, unsigned(std::ceil(opts.window / std::max(probe, 1e-9))));
  if (!nullContext(dev, opts, err))
    return false;
  std::vector<double> Es;
  double busyTotal = 0;
  for (unsigned r = 0; r < opts.runs; ++r) {
    uint64_t e0, e1;
    double t0, t1;
    if (!alignToCounter(dev, e0, t0, err))
      return false;
    double busy = 0;
    for (unsigned k = 0; k < reps; ++k) {
      double t = once();
      if (t < 0) {
        err = dev.identity() + ": the backend cannot run this composite";
        return false;
      }
      busy += t;
    }
    if (!alignToCounter(dev, e1, t1, err))
      return false;
    // Subtract the idle tail after the composites at the static power.
    double idleTail = (t1 - t0) - busy;
    Es.push_back((double(e1 - e0) * 1e-3 - s * idleTail) / reps);
    busyTotal += busy;
  }
  meanVar(Es, E, varE);
  if (busyT)
    *busyT = busyTotal / (double(opts.runs) * reps);
  return true;
}
} // namespace

bool measureSequence(Device &dev, const std::vector<KernelSpec> &seq,
                     const ProtocolOptions &opts, double &E, double &varE,
                     std::string &err, double *busyT) {
  return measureComposite(
      dev, opts,
      [&] {
        double busy = 0;
        for (const KernelSpec &k : seq) {
          double t = dev.run(k);
          if (t < 0)
            return -1.0;
          busy += t;
        }
        return busy;
      },
      E, varE, err, busyT);
}

bool measureConcurrent(Device &dev, const std::vector<KernelSpec> &set,
                       const ProtocolOptions &opts, double &E, double &varE,
                       std::string &err, double *busyT) {
  return measureComposite(
      dev, opts, [&] { return dev.runConcurrent(set); }, E, varE, err, busyT);
}

std::string signatureDbJson(const std::string &device,
                            const std::vector<Measurement> &entries,
                            const std::string &method,
                            const std::string &generator) {
  SignatureDb db;
  db.device = device;
  db.generator = generator;
  for (const Measurement &m : entries) {
    DbEntry e;
    e.key = m.key;
    e.smMhz = m.smMhz;
    e.s = m.s;
    e.T = m.T;
    e.d = m.d;
    e.sigmaT = std::sqrt(m.varT);
    e.sigmaD = std::sqrt(m.varD);
    e.runs = m.runs;
    e.method = m.method.empty() ? method : m.method;
    e.l2 = m.l2;
    if (std::isfinite(m.entryTemperature))
      e.entryTemperature = m.entryTemperature;
    if (m.powerLimit > 0)
      e.powerLimit = m.powerLimit;
    if (m.defaultPowerLimit > 0)
      e.defaultPowerLimit = m.defaultPowerLimit;
    db.entries.push_back(std::move(e));
  }
  return writeSignatureDb(db);
}

bool characterizeSweep(Device &dev, const std::vector<KernelSpec> &kernels,
                       const std::vector<int> &clocks,
                       const std::vector<double> &limits,
                       const ProtocolOptions &opts,
                       std::vector<Measurement> &entries,
                       std::vector<std::string> &warnings, std::string &err) {
  // Only a sweep that changes settings takes the guard (which restores
  // the defaults on every path, and records the device for `energy-prof
  // restore`): a measurement at the current clock leaves the card as it
  // found it, whatever it was set to.
  std::optional<ClockGuard> guard;
  if (!clocks.empty() || !limits.empty()) {
    if (heldByAnotherProcess(dev, err))
      return false;
    guard.emplace(dev);
  }
  std::vector<int> sweep = clocks;
  if (sweep.empty())
    sweep.push_back(dev.currentSmClock());
  progress::Line line("characterize " + dev.identity());
  line.phase(std::to_string(sweep.size()) + " clocks x " +
             std::to_string(kernels.size()) + " kernels");
  for (size_t ci = 0; ci < sweep.size(); ++ci) {
    int mhz = sweep[ci];
    line.update(double(ci) / double(sweep.size()),
                std::to_string(mhz) + " MHz");
    if (mhz != dev.currentSmClock() && !dev.setSmClock(mhz, err))
      return false;
    // Each limit is an operating point of its own (Zeus's knob); none
    // given: the limit in force.
    for (size_t i = 0; i < std::max<size_t>(limits.size(), 1); ++i) {
      if (!limits.empty() && !dev.setPowerLimit(limits[i], err))
        return false;
      for (const KernelSpec &k : kernels) {
        Measurement m;
        if (!characterize(dev, k, opts, m, err)) {
          err = k.key + ": " + err;
          return false;
        }
        entries.push_back(m);
        // A kernel that reuses another's data: also its warm signature,
        // where the backend really runs it on the producer's data.
        if (k.reuses.empty())
          continue;
        if (!dev.runsOnReusedData()) {
          warnings.push_back(dev.identity() + " does not run '" + k.key +
                             "' on '" + k.reuses +
                             "''s data; no warm entry (cold only)");
          continue;
        }
        auto producer = std::find_if(
            kernels.begin(), kernels.end(),
            [&](const KernelSpec &p) { return p.key == k.reuses; });
        if (producer == kernels.end()) {
          err = k.key + ": reuses '" + k.reuses + "', which is not a kernel";
          return false;
        }
        Measurement warm;
        if (!characterizeWarm(dev, k, *producer, opts, warm, err)) {
          err = k.key + " (warm): " + err;
          return false;
        }
        entries.push_back(warm);
      }
    }
  }
  return true;
}

} // namespace rt
} // namespace energy
