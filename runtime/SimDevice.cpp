//===- SimDevice.cpp - A simulated GPU with a physical model --------------===//

#include "runtime/SimDevice.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

namespace energy {
namespace rt {

SimDevice::SimDevice(SimGpu params, uint64_t seed)
    : p(std::move(params)), clock(p.fmaxMhz), limit(p.tdp), theta(p.ambient),
      gen(seed) {}

std::string SimDevice::identity() const {
  return "sim:" + p.name + " (simulated)";
}

std::string SimDevice::reopenName() const {
  std::string n = "sim:";
  for (char c : p.name)
    n += char(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

std::vector<int> SimDevice::supportedSmClocks() const { return p.clocks(); }

bool SimDevice::setSmClock(int mhz, std::string &err) {
  auto clocks = supportedSmClocks();
  if (std::find(clocks.begin(), clocks.end(), mhz) == clocks.end()) {
    err = "unsupported SM clock " + std::to_string(mhz) + " MHz; " +
          identity() + " supports " + describeClocks(clocks);
    return false;
  }
  clock = mhz;
  clockChanged = true;
  // The record first, then the mirror (the simulated card's own state):
  // whoever sees the change also finds the record.
  if (onChanged)
    onChanged(*this);
  publishClock();
  return true;
}

bool SimDevice::resetSmClock(std::string &) {
  clock = p.fmaxMhz;
  publishClock();
  return true;
}

bool SimDevice::powerLimits(PowerLimits &out, std::string &) const {
  out = {p.minPowerLimit, p.tdp, p.tdp, limit};
  return true;
}

bool SimDevice::setPowerLimit(double watts, std::string &err) {
  if (!(watts >= p.minPowerLimit && watts <= p.tdp)) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "power limit %g W outside [%g, %g] W", watts,
                  p.minPowerLimit, p.tdp);
    err = buf;
    return false;
  }
  if (!powerLimitChanged) {
    priorPowerLimitW = limit;
    powerLimitChanged = true;
  }
  limit = watts;
  if (onChanged)
    onChanged(*this);
  publishPowerLimit();
  return true;
}

bool SimDevice::resetPowerLimit(std::string &) {
  limit = priorPowerLimitW > 0 ? priorPowerLimitW : p.tdp;
  publishPowerLimit();
  return true;
}

// Async-signal-safe: open/write/close only, no allocation.
static void publishInt(const std::string &path, long value) {
  if (path.empty())
    return;
  char buf[24];
  int n = 0;
  long v = value;
  char rev[24];
  do {
    rev[n++] = char('0' + v % 10);
    v /= 10;
  } while (v && n < 20);
  for (int i = 0; i < n; ++i)
    buf[i] = rev[n - 1 - i];
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return;
  ssize_t written = ::write(fd, buf, n);
  (void)written;
  ::close(fd);
}

void SimDevice::publishClock() const { publishInt(clockStateFile, clock); }

void SimDevice::publishPowerLimit() const {
  publishInt(powerLimitStateFile, std::lround(limit));
}

double SimDevice::staticPower() const {
  double s = p.staticRef;
  if (thermalCoupling)
    s *= std::max(0.0, 1 + p.leakage * (theta - p.ambient));
  return s;
}

double SimDevice::timeAt(const KernelSpec &k, int mhz) const {
  return p.kernelTime(k.flops, k.bytes, mhz);
}

double SimDevice::dynamicEnergyAt(const KernelSpec &k, int mhz) const {
  return p.kernelDynamicEnergy(k.flops, k.bytes, mhz);
}

int SimDevice::effectiveClock(const KernelSpec &k) const {
  for (int f = clock; f > p.fminMhz; f -= p.stepMhz)
    if (staticPower() + dynamicEnergyAt(k, f) / timeAt(k, f) <= limit)
      return f;
  return p.fminMhz;
}

double SimDevice::modelTime(const KernelSpec &k) const {
  return timeAt(k, effectiveClock(k));
}

double SimDevice::modelDynamicEnergy(const KernelSpec &k) const {
  return dynamicEnergyAt(k, effectiveClock(k));
}

void SimDevice::advance(double dt, double dynamicPower) {
  if (dt <= 0)
    return;
  // Static power follows the temperature; integrate the RC relaxation in
  // closed form over the step (power taken at the step's start for the
  // thermal target).
  double tau = p.resistance * p.capacitance;
  double s0 = p.staticRef;
  double target = p.ambient + (staticPower() + dynamicPower) * p.resistance;
  double decay = std::exp(-dt / tau);
  double staticEnergy = s0 * dt;
  if (thermalCoupling) {
    double integralTheta = target * dt + (theta - target) * tau * (1 - decay);
    staticEnergy = s0 * (dt + p.leakage * (integralTheta - p.ambient * dt));
  }
  double before = energy, t0 = time;
  energy += staticEnergy + dynamicPower * dt;
  time += dt;
  theta = target + (theta - target) * decay;
  // The visible counter updates at period boundaries (linear within step).
  double lastBoundary = std::floor(time / p.counterPeriod) * p.counterPeriod;
  if (lastBoundary > t0 && lastBoundary > lastUpdate) {
    double frac = (lastBoundary - t0) / dt;
    double atBoundary = before + frac * (energy - before);
    visibleMilliJoules = uint64_t(std::floor(atBoundary * 1000));
    lastUpdate = lastBoundary;
  }
}

uint64_t SimDevice::energyCounterMilliJoules() {
  synchronize();
  return visibleMilliJoules;
}

KernelSpec SimDevice::asRun(const KernelSpec &k) const {
  KernelSpec eff = k;
  if (cacheResidency && !k.reuses.empty() && k.reuses == residentKey)
    eff.bytes = std::max(0.0, k.bytes - residentBytes);
  return eff;
}

void SimDevice::leaveResident(const KernelSpec &k) {
  residentKey = k.key;
  residentBytes = std::min(k.bytes, p.l2Bytes);
}

void SimDevice::setRealTime(double wallPerSimSecond) {
  realScale = wallPerSimSecond > 0 ? wallPerSimSecond : 0;
  realWall0 = std::chrono::steady_clock::now();
  realTime0 = time;
}

void SimDevice::catchUp() {
  if (realScale <= 0)
    return;
  std::chrono::duration<double> wall =
      std::chrono::steady_clock::now() - realWall0;
  double target = realTime0 + wall.count() / realScale;
  if (target > time)
    busy(target - time, 0);
}

void SimDevice::synchronize() {
  if (realScale <= 0)
    return;
  auto until =
      realWall0 +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>((time - realTime0) * realScale));
  waitUntil(until);
  catchUp();
}

void SimDevice::waitUntil(std::chrono::steady_clock::time_point until) {
  // Like cudaDeviceSynchronize, return when the work ends, not a timer
  // tick after it: a VM's sleeps overshoot by about 1 % of their length
  // (a 30 ms sleep by 0.5-0.7 ms on a 2-core VM), which catchUp() would
  // add to the region that synchronizes as idle time the model does not
  // have. Sleep half the remaining time while more than 200 us remain,
  // then yield until the deadline.
  using namespace std::chrono;
  constexpr auto spin = microseconds(200);
  for (auto now = steady_clock::now(); now < until; now = steady_clock::now()) {
    auto left = until - now;
    if (left > spin)
      std::this_thread::sleep_for(left / 2);
    else
      std::this_thread::yield();
  }
}

double SimDevice::run(const KernelSpec &k) {
  catchUp();
  std::normal_distribution<double> n01(0, 1);
  KernelSpec eff = asRun(k);
  double T = modelTime(eff) * std::max(0.5, 1 + p.timeNoise * n01(gen));
  double d =
      modelDynamicEnergy(eff) * std::max(0.5, 1 + p.powerNoise * n01(gen));
  busy(T, T > 0 ? d / T : 0);
  leaveResident(k);
  return T;
}

void SimDevice::busy(double seconds, double dynamicPower) {
  // Steps of a quarter counter period keep the counter and the thermal
  // state accurate over long kernels and idles.
  double left = seconds;
  while (left > 0) {
    double dt = std::min(left, p.counterPeriod / 4);
    advance(dt, dynamicPower);
    left -= dt;
  }
}

double SimDevice::runRepeated(const KernelSpec &k, unsigned reps) {
  if (reps <= 1)
    return reps ? run(k) : 0;
  catchUp();
  std::normal_distribution<double> n01(0, 1);
  double root = std::sqrt(double(reps));
  // The first invocation finds what the last kernel left; the others find
  // their own data (a hit only for a kernel that reuses itself).
  KernelSpec first = asRun(k);
  leaveResident(k);
  KernelSpec rest = asRun(k);
  double T = (modelTime(first) + (reps - 1) * modelTime(rest)) *
             std::max(0.5, 1 + p.timeNoise / root * n01(gen));
  double d =
      (modelDynamicEnergy(first) + (reps - 1) * modelDynamicEnergy(rest)) *
      std::max(0.5, 1 + p.powerNoise / root * n01(gen));
  busy(T, T > 0 ? d / T : 0);
  return T;
}

double SimDevice::modelConcurrentTime(const std::vector<KernelSpec> &ks) const {
  double longest = 0, compute = 0, memory = 0;
  for (const KernelSpec &k : ks) {
    int f = effectiveClock(k);
    longest = std::max(longest, timeAt(k, f));
    compute += k.flops / (p.peakFlops * f / p.fmaxMhz);
    memory += k.bytes / p.memBandwidth;
  }
  if (!contention)
    return longest;
  return std::max(longest, std::max(compute, memory) + p.launchOverhead);
}

double SimDevice::runConcurrent(const std::vector<KernelSpec> &ks) {
  if (ks.empty())
    return 0;
  catchUp();
  std::normal_distribution<double> n01(0, 1);
  double T =
      modelConcurrentTime(ks) * std::max(0.5, 1 + p.timeNoise * n01(gen));
  double d = 0;
  for (const KernelSpec &k : ks)
    d += modelDynamicEnergy(k) * std::max(0.5, 1 + p.powerNoise * n01(gen));
  busy(T, T > 0 ? d / T : 0);
  residentKey.clear(); // a mix of the set's data
  residentBytes = 0;
  return T;
}

void SimDevice::idle(double seconds) {
  catchUp();
  busy(seconds, 0);
  synchronize();
}

} // namespace rt
} // namespace energy
