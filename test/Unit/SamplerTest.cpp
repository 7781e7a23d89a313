//===- SamplerTest.cpp - energy from a stepping, slow-to-read counter -----===//
//
// Expected energies are power x time by hand; the counter is a model of
// NVML's (it steps every 100 ms) over a power profile the test chooses.
//
//===----------------------------------------------------------------------===//

#include "runtime/Sampler.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace energy::rt;

namespace {

TEST(CounterTimeline, InterpolatesBetweenChanges) {
  // 100 W for 0.3 s, then 300 W: the counter at 0.1 s steps.
  CounterTimeline tl;
  tl.add(0.0, 1000);
  tl.add(0.1, 1000 + 10000);
  tl.add(0.2, 1000 + 20000);
  tl.add(0.3, 1000 + 30000);
  tl.add(0.4, 1000 + 60000);
  double J = 0;
  ASSERT_TRUE(tl.energy(0.05, 0.25, J));
  EXPECT_NEAR(J, 100 * 0.2, 1e-9);
  ASSERT_TRUE(tl.energy(0.25, 0.35, J));
  EXPECT_NEAR(J, 100 * 0.05 + 300 * 0.05, 1e-9);
  ASSERT_TRUE(tl.energy(0.1, 0.1, J));
  EXPECT_EQ(J, 0);
  // Past the last change, or before the first: not covered yet.
  EXPECT_FALSE(tl.energy(0.35, 0.45, J));
  EXPECT_FALSE(tl.energy(-0.1, 0.2, J));
  EXPECT_FALSE(tl.energy(0.2, 0.1, J));
  // Forgetting keeps the point a query from 0.25 needs.
  tl.dropBefore(0.25);
  EXPECT_EQ(tl.size(), 3u);
  ASSERT_TRUE(tl.energy(0.25, 0.35, J));
  EXPECT_NEAR(J, 20, 1e-9);
  EXPECT_FALSE(tl.energy(0.15, 0.35, J));
  EXPECT_EQ(tl.coveredUntil(), 0.4);
}

/// A device whose clock the test sets and whose counter steps every
/// `update` s, integrating a power profile (NVML's behaviour, measured on
/// an H200: 100.0 ms).
class SteppingCounter : public Device {
public:
  double t = 0;
  double update = 0.1;
  double power(double at) const { return at < 1.0 ? 150 : 450; }
  double joulesUntil(double at) const {
    return at < 1.0 ? 150 * at : 150 + 450 * (at - 1.0);
  }
  std::string identity() const override { return "stepping counter"; }
  std::vector<int> supportedSmClocks() const override { return {1980}; }
  int currentSmClock() const override { return 1980; }
  bool setSmClock(int, std::string &) override { return false; }
  bool resetSmClock(std::string &) override { return true; }
  bool powerLimits(PowerLimits &, std::string &) const override {
    return false;
  }
  bool setPowerLimit(double, std::string &) override { return false; }
  bool resetPowerLimit(std::string &) override { return true; }
  bool failNextRead = false;
  uint64_t energyCounterMilliJoules() override {
    if (failNextRead) { // what the NVML backend returns on an error
      failNextRead = false;
      return 0;
    }
    double lastUpdate = std::floor(t / update) * update;
    return uint64_t(std::llround(1e3 * joulesUntil(lastUpdate)));
  }
  double temperature() override { return 30; }
  double now() override { return t; }
  double run(const KernelSpec &) override { return -1; }
  void idle(double s) override { t += s; }
};

TEST(EnergySampler, RegionEnergyFromPolledSteps) {
  SteppingCounter dev;
  EnergySampler sampler(dev, 0.01);
  // Polls every 10 ms of device time for 2 s.
  for (int i = 0; i <= 200; ++i) {
    dev.t = 0.01 * i + 0.003;
    dev.failNextRead = i % 7 == 3; // failed reads are skipped
    sampler.pollOnce();
  }
  // A change is placed within half the gap between successful reads of
  // the update (5 ms; 10 ms after a failed read): at most 10 ms x P of
  // error at each end of a region.
  double J = 0;
  std::string err;
  ASSERT_TRUE(sampler.energy(0.123, 0.456, J, err)) << err;
  EXPECT_NEAR(J, 150 * 0.333, 2 * 0.01 * 150);
  // Across the step from 150 to 450 W.
  ASSERT_TRUE(sampler.energy(0.75, 1.55, J, err)) << err;
  EXPECT_NEAR(J, 150 * 0.25 + 450 * 0.55, 0.01 * 150 + 0.01 * 450 + 1e-6);
  // A region shorter than one update still gets its share of the power,
  // not a 0 or a whole 45 J step as direct reads would (the placement
  // errors change the slope by at most 20 ms / 100 ms).
  ASSERT_TRUE(sampler.energy(1.201, 1.204, J, err)) << err;
  EXPECT_NEAR(J, 450 * 0.003, 0.2 * 450 * 0.003);
  EXPECT_EQ(sampler.smClock(), 1980);
  // Past the last update: no answer without waiting, and a stalled counter
  // is an error after the timeout (a real wait of 20 ms).
  EXPECT_FALSE(sampler.energy(1.9, 2.5, J, err));
  EXPECT_FALSE(sampler.waitCovered(2.5, 0.02, err));
  EXPECT_NE(err.find("did not change"), std::string::npos) << err;
  EXPECT_EQ(sampler.reads(), 201u);
  EXPECT_EQ(sampler.points(), 21u); // the first reading and 20 updates
}

TEST(EnergySampler, HistoryIsKeptForRegionsAndTheHorizonOnly) {
  // 10 minutes of 100 ms updates polled every 50 ms: with no region the
  // curve keeps its last kHistoryHorizon seconds (and the point before),
  // not 6,000 points; a region open from 120 s keeps what it needs.
  SteppingCounter dev;
  EnergySampler sampler(dev, 0.05);
  const double H = EnergySampler::kHistoryHorizon;
  auto pollUntil = [&](double end) {
    for (; dev.t < end; dev.t += 0.05)
      sampler.pollOnce();
  };
  pollUntil(120);
  EXPECT_LE(sampler.points(), size_t(H / 0.1) + 2);
  EXPECT_GE(sampler.points(), size_t(H / 0.1) - 2);
  sampler.keepFrom(120.0);
  pollUntil(600);
  EXPECT_GE(sampler.points(), size_t(480 / 0.1) - 2);
  double J = 0;
  std::string err;
  ASSERT_TRUE(sampler.energy(120.0, 599.0, J, err)) << err;
  EXPECT_NEAR(J, 450 * 479, 2 * 0.05 * 450); // a poll period at each end
  // The region resolved: back to the horizon at the next change.
  sampler.setKeepFrom(std::numeric_limits<double>::infinity());
  pollUntil(601);
  EXPECT_LE(sampler.points(), size_t(H / 0.1) + 2);
}

TEST(EnergySampler, ThreadPollsUntilStopped) {
  // The thread's readings, not the test's: the counter below never
  // changes after the first, so the curve stays one point.
  SteppingCounter dev;
  dev.update = 1e9;
  EnergySampler sampler(dev, 0.001);
  sampler.start();
  while (sampler.reads() < 5)
    std::this_thread::yield();
  sampler.stop();
  unsigned long long n = sampler.reads();
  EXPECT_GE(n, 5u);
  EXPECT_EQ(sampler.points(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(sampler.reads(), n); // stopped
}

} // namespace
