//===- Sampler.cpp - energy over time from a stepping counter -------------===//

#include "runtime/Sampler.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace energy {
namespace rt {

double CounterTimeline::at(double t) const {
  auto hi = std::lower_bound(pts.begin(), pts.end(), t,
                             [](const std::pair<double, uint64_t> &p,
                                double v) { return p.first < v; });
  if (hi == pts.begin())
    return double(hi->second);
  auto lo = hi - 1;
  double w = (t - lo->first) / (hi->first - lo->first);
  return double(lo->second) + w * (double(hi->second) - double(lo->second));
}

bool CounterTimeline::energy(double a, double b, double &joules) const {
  if (pts.size() < 2 || a > b || a < pts.front().first || b > pts.back().first)
    return false;
  joules = (at(b) - at(a)) * 1e-3;
  return true;
}

double CounterTimeline::coveredUntil() const {
  return pts.empty() ? -std::numeric_limits<double>::infinity()
                     : pts.back().first;
}

void CounterTimeline::dropBefore(double t) {
  while (pts.size() > 1 && pts[1].first <= t)
    pts.pop_front();
}

void EnergySampler::pollOnce() {
  bool foreign = heldElsewhere && heldElsewhere();
  foreignNow.store(foreign);
  if (foreign)
    nForeign.fetch_add(1);
  double t0 = dev.now();
  uint64_t mj = dev.energyCounterMilliJoules();
  double t = 0.5 * (t0 + dev.now());
  nReads.fetch_add(1);
  bool isChange = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    // The counter only grows: a smaller value is a failed read (the NVML
    // backend reports 0 then), skipped.
    if (any && mj < lastMj)
      return;
    if (!any) {
      timeline.add(t, mj); // the curve starts at the first reading
      any = true;
      isChange = true;
    } else if (mj != lastMj) {
      timeline.add(0.5 * (lastRead + t), mj);
      isChange = true;
    }
    lastRead = t;
    lastMj = mj;
    if (isChange) {
      covered.store(timeline.coveredUntil(), std::memory_order_release);
      timeline.dropBefore(std::min(keep.load(), t - kHistoryHorizon));
    }
  }
  if (isChange) {
    noteSmClock(dev.currentSmClock());
    changed.notify_all();
  }
}

void EnergySampler::start() {
  if (worker.joinable())
    return;
  stopping = false;
  worker = std::thread([this] {
    auto next = std::chrono::steady_clock::now();
    while (!stopping.load()) {
      pollOnce();
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(period));
      std::unique_lock<std::mutex> lock(mu);
      changed.wait_until(lock, next, [this] { return stopping.load(); });
    }
  });
}

void EnergySampler::stop() {
  if (!worker.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
  }
  changed.notify_all();
  worker.join();
}

bool EnergySampler::energy(double a, double b, double &joules,
                           std::string &err) const {
  std::lock_guard<std::mutex> lock(mu);
  if (timeline.energy(a, b, joules))
    return true;
  err = timeline.coveredUntil() < b
            ? "the energy counter has not changed since the region's end yet"
            : "a region began before the energy counter's first reading";
  return false;
}

bool EnergySampler::waitCovered(double t, double timeout, std::string &err) {
  std::unique_lock<std::mutex> lock(mu);
  if (changed.wait_for(lock, std::chrono::duration<double>(timeout),
                       [&] { return timeline.coveredUntil() >= t; }))
    return true;
  err = "the energy counter did not change within " + std::to_string(timeout) +
        " s of a region's end";
  return false;
}

void EnergySampler::dropBefore(double t) {
  std::lock_guard<std::mutex> lock(mu);
  timeline.dropBefore(t);
}

size_t EnergySampler::points() const {
  std::lock_guard<std::mutex> lock(mu);
  return timeline.size();
}

} // namespace rt
} // namespace energy
