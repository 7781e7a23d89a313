//===- Sampler.h - energy over time from a stepping counter -----*- C++ -*-===//
//
// NVML's total-energy counter changes in steps (every 100.0 ms on an H200,
// examples/data/h200/README.md) and a read costs milliseconds on some
// drivers (an er_begin/er_end pair reading it directly took 6.75 ms there).
// So regions do not read it at their boundaries: a background thread polls
// it, keeps the instants where it changed, and a region's energy is read off
// the piecewise-linear curve through them -- constant power between two
// updates, which is all the counter can tell. A direct read at a boundary
// would be up to one update period stale; the curve is not.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_SAMPLER_H
#define RUNTIME_SAMPLER_H

#include "runtime/Device.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace energy {
namespace rt {

/// The counter's curve: (time s, counter mJ) where it changed, increasing.
class CounterTimeline {
public:
  /// A change seen at time `t` (after the last point's time).
  void add(double t, uint64_t mj) { pts.emplace_back(t, mj); }
  /// Joules over [a, b] by linear interpolation; false where [a, b] is not
  /// inside the curve (b past the last change: wait for the next update).
  bool energy(double a, double b, double &joules) const;
  /// The last change's time (-infinity when empty).
  double coveredUntil() const;
  /// Forgets changes before `t` that no later query needs (keeps the last
  /// point at or before `t`).
  void dropBefore(double t);
  size_t size() const { return pts.size(); }

private:
  /// The counter at time `t` (inside the curve), in mJ.
  double at(double t) const;
  std::deque<std::pair<double, uint64_t>> pts;
};

/// Polls a device's energy counter (and, at each change, its SM clock).
/// `pollOnce` is one reading; `start` runs it every `period` seconds on a
/// thread until `stop` or destruction. A reading's time is the midpoint of
/// the call; a change is placed halfway between the reading that saw it and
/// the one before (error at most half a period plus the read's duration).
class EnergySampler {
public:
  EnergySampler(Device &device, double periodS)
      : dev(device), period(periodS) {}
  ~EnergySampler() { stop(); }
  EnergySampler(const EnergySampler &) = delete;
  EnergySampler &operator=(const EnergySampler &) = delete;

  void pollOnce();
  void start();
  void stop();
  /// Joules over [a, b] (device time), never waiting; false with `err`
  /// when the counter has not changed since `b` yet, or [a, b] starts
  /// before the first reading.
  bool energy(double a, double b, double &joules, std::string &err) const;
  /// Waits up to `timeout` seconds of wall time for a change after `t`;
  /// false with `err` when none comes (a stalled counter).
  bool waitCovered(double t, double timeout, std::string &err);
  /// The last change's time, without the lock (-infinity before any).
  double coveredUntil() const {
    return covered.load(std::memory_order_acquire);
  }
  /// See CounterTimeline::dropBefore.
  void dropBefore(double t);
  /// The earliest time a region still needs (its start; infinity: none).
  /// Each poll drops the history before it and before its horizon (the
  /// last kHistoryHorizon seconds are kept whatever it says, so that a
  /// region beginning while a poll trims finds its start): the history no
  /// longer grows while nothing is measured (16 bytes a counter change).
  /// keepFrom lowers it; setKeepFrom sets it (the runtime, after resolving
  /// its pending runs).
  void keepFrom(double t) {
    double cur = keep.load();
    while (t < cur && !keep.compare_exchange_weak(cur, t))
      ;
  }
  void setKeepFrom(double t) { keep.store(t); }
  static constexpr double kHistoryHorizon = 60;
  /// Polled with the counter: whether another process holds the device's
  /// settings now (RestoreRecord.h's claim); `foreignPolls` counts the
  /// polls that found one, so a run during which another process changed
  /// the clocks is told from one that ran at one clock.
  std::function<bool()> heldElsewhere;
  unsigned long long foreignPolls() const { return nForeign.load(); }
  bool heldElsewhereAtLastPoll() const { return foreignNow.load(); }
  /// The SM clock read at the last change (or set through `noteSmClock`).
  int smClock() const { return clock.load(std::memory_order_relaxed); }
  void noteSmClock(int mhz) { clock.store(mhz, std::memory_order_relaxed); }
  size_t points() const;
  unsigned long long reads() const { return nReads.load(); }

private:
  Device &dev;
  double period;
  mutable std::mutex mu;
  std::condition_variable changed;
  CounterTimeline timeline;
  bool any = false;
  double lastRead = 0;
  uint64_t lastMj = 0;
  std::atomic<double> covered{-1e300};
  std::atomic<double> keep{std::numeric_limits<double>::infinity()};
  std::atomic<int> clock{0};
  std::atomic<unsigned long long> nReads{0}, nForeign{0};
  std::atomic<bool> foreignNow{false};
  std::atomic<bool> stopping{false};
  std::thread worker;
};

} // namespace rt
} // namespace energy

#endif // RUNTIME_SAMPLER_H
