//===- ScheduleTest.cpp - timing and lowering of scheduled DAGs -----------===//
//
// The lowering is checked against interval accounting (CALCULUS.md section
// 6): sum over devices of s_dev * makespan + sum of d -- an independent
// computation that never looks at the tree.
//
//===----------------------------------------------------------------------===//

#include "calculus/Schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace energy::calculus;

namespace {

/// Counts element nodes per (task, device) and checks the tree's shape.
std::map<std::pair<uint32_t, uint32_t>, int>
countElements(const LoweredTree &tree) {
  std::map<std::pair<uint32_t, uint32_t>, int> count;
  for (const LoweredNode &n : tree.nodes)
    if (n.kind == LoweredNode::Element)
      ++count[{n.task, n.device}];
  return count;
}

Schedule randomSchedule(std::mt19937_64 &gen, bool fixedTimes) {
  std::uniform_int_distribution<int> devs(1, 64), streams(1, 4);
  std::uniform_real_distribution<double> u(0, 1);
  Schedule s;
  int nDev = devs(gen), nStreams = streams(gen);
  for (int i = 0; i < nDev; ++i)
    s.devices.push_back({20 + 480 * u(gen)});
  int nTasks = 1 + int(u(gen) * 6 * nDev);
  for (int t = 0; t < nTasks; ++t) {
    ScheduleTask task;
    task.devices.push_back(uint32_t(u(gen) * nDev) % nDev);
    // Some collectives over 2-4 distinct devices.
    if (nDev > 1 && u(gen) < 0.1) {
      int k = std::min(nDev, 2 + int(u(gen) * 3));
      while (int(task.devices.size()) < k) {
        uint32_t d = uint32_t(u(gen) * nDev) % nDev;
        if (std::find(task.devices.begin(), task.devices.end(), d) ==
            task.devices.end())
          task.devices.push_back(d);
      }
    }
    task.stream = uint32_t(u(gen) * nStreams) % nStreams;
    task.duration = u(gen) < 0.05 ? 0 : 1e-4 + u(gen) * 0.05;
    task.d = u(gen) * 20;
    task.varT = 1e-8 * u(gen);
    task.varD = 0.01 * u(gen);
    if (fixedTimes) {
      task.fixedStart = u(gen) * 0.3; // arbitrary overlaps, even on a stream
    } else if (t > 0) {
      int deps = int(u(gen) * 3);
      for (int k = 0; k < deps; ++k) {
        Dependency dep{uint32_t(u(gen) * t) % uint32_t(t)};
        if (u(gen) < 0.2) {
          dep.startToStart = true;
          dep.lag = u(gen) * 0.01;
        }
        task.deps.push_back(dep);
      }
    }
    s.tasks.push_back(task);
  }
  return s;
}

TEST(Lowering, EqualsIntervalAccountingOnRandomSchedules) {
  std::mt19937_64 gen(31337);
  int cases = 0;
  for (int i = 0; i < 1500; ++i) {
    bool fixed = i % 3 == 2;
    Schedule s = randomSchedule(gen, fixed);
    std::vector<double> start;
    std::vector<uint32_t> cycle;
    ASSERT_TRUE(computeStartTimes(s, start, cycle));

    // Timing from first principles: dependencies and stream order hold.
    if (!fixed) {
      std::map<std::pair<uint32_t, uint32_t>, double> streamEnd;
      for (uint32_t t = 0; t < s.tasks.size(); ++t) {
        for (const Dependency &dep : s.tasks[t].deps) {
          double need = dep.startToStart
                            ? start[dep.pred] + dep.lag
                            : start[dep.pred] + s.tasks[dep.pred].duration;
          EXPECT_GE(start[t], need - 1e-12);
        }
        for (uint32_t dev : s.tasks[t].devices) {
          auto key = std::make_pair(dev, s.tasks[t].stream);
          auto it = streamEnd.find(key);
          if (it != streamEnd.end())
            EXPECT_GE(start[t], it->second - 1e-12);
          streamEnd[key] = start[t] + s.tasks[t].duration;
        }
      }
    }

    LoweredTree tree = lowerSchedule(s, start);
    CompositionError err;
    Signature sig = evaluateLowered(s, tree, err);
    ASSERT_FALSE(err) << err.message;
    double expected = intervalAccountingEnergy(s, start);
    EXPECT_LE(std::fabs(sig.E() - expected), 1e-9 * std::max(1.0, expected))
        << "case " << i << ": tree " << sig.E() << " vs intervals " << expected;
    EXPECT_NEAR(sig.T, tree.makespan, 1e-12);

    // Every task appears exactly once on each of its devices.
    auto count = countElements(tree);
    size_t shares = 0;
    for (uint32_t t = 0; t < s.tasks.size(); ++t)
      for (uint32_t dev : s.tasks[t].devices) {
        EXPECT_EQ((count[{t, dev}]), 1) << "task " << t << " device " << dev;
        ++shares;
      }
    EXPECT_EQ(count.size(), shares);
    ++cases;
  }
  EXPECT_GE(cases, 1000);
}

// The paper's 2-stage, 2-microbatch 1F1B pipeline with a data-parallel
// all-reduce overlapping the last backward (CALCULUS.md section 6).
TEST(Lowering, PaperTwoStagePipeline) {
  Schedule s;
  s.devices = {{60}, {60}};
  const double F = 1, B = 2, AR = 0.8, lag = 0.5;
  auto task = [&](uint32_t dev, uint32_t stream, double dur,
                  std::vector<Dependency> deps) {
    ScheduleTask t;
    t.devices = {dev};
    t.stream = stream;
    t.duration = dur;
    t.d = 10 * dur;
    t.deps = std::move(deps);
    s.tasks.push_back(t);
    return uint32_t(s.tasks.size() - 1);
  };
  // Stage 0: F1 F2 B1 B2 (warm-up 1); stage 1: F1 B1 F2 B2.
  uint32_t f01 = task(0, 0, F, {});
  uint32_t f02 = task(0, 0, F, {});
  uint32_t f11 = task(1, 0, F, {{f01}});
  uint32_t b11 = task(1, 0, B, {{f11}});
  uint32_t f12 = task(1, 0, F, {{f02}});
  uint32_t b12 = task(1, 0, B, {{f12}});
  uint32_t b01 = task(0, 0, B, {{b11}});
  uint32_t b02 = task(0, 0, B, {{b12}});
  task(0, 1, AR, {{b02, true, lag}});
  task(1, 1, AR, {{b12, true, lag}});
  std::vector<double> start;
  std::vector<uint32_t> cycle;
  ASSERT_TRUE(computeStartTimes(s, start, cycle));
  EXPECT_EQ(start[b01], 4);
  EXPECT_EQ(start[b02], 7);
  EXPECT_EQ(start[b12], 5);
  LoweredTree tree = lowerSchedule(s, start);
  // dev0: F1 (x) F2 (x) i (x) B1 (x) i (x) (B2 (+) (i (x) AR))
  const LoweredNode &dev0 = tree.nodes[tree.children[tree.nodes[0].firstChild]];
  ASSERT_EQ(dev0.numChildren, 6u);
  std::vector<LoweredNode::Kind> kinds;
  for (uint32_t i = 0; i < dev0.numChildren; ++i)
    kinds.push_back(tree.nodes[tree.children[dev0.firstChild + i]].kind);
  EXPECT_EQ(kinds,
            (std::vector<LoweredNode::Kind>{
                LoweredNode::Element, LoweredNode::Element, LoweredNode::Idle,
                LoweredNode::Element, LoweredNode::Idle, LoweredNode::Par}));
  // dev1: i (x) F1 (x) B1 (x) F2 (x) (B2 (+) (i (x) AR)) (x) i
  const LoweredNode &dev1 =
      tree.nodes[tree.children[tree.nodes[0].firstChild + 1]];
  kinds.clear();
  for (uint32_t i = 0; i < dev1.numChildren; ++i)
    kinds.push_back(tree.nodes[tree.children[dev1.firstChild + i]].kind);
  EXPECT_EQ(kinds,
            (std::vector<LoweredNode::Kind>{
                LoweredNode::Idle, LoweredNode::Element, LoweredNode::Element,
                LoweredNode::Element, LoweredNode::Par, LoweredNode::Idle}));
  CompositionError err;
  Signature sig = evaluateLowered(s, tree, err);
  ASSERT_FALSE(err);
  // Makespan 9 s: dev0's B2 ends at 9. Interval accounting by hand.
  double d = 10 * (4 * F + 4 * B + 2 * AR);
  EXPECT_NEAR(sig.E(), 120 * 9 + d, 1e-9);
}

TEST(Timing, ReportsDependencyCycles) {
  Schedule s;
  s.devices = {{1}};
  for (int i = 0; i < 3; ++i) {
    ScheduleTask t;
    t.devices = {0};
    t.stream = i;
    t.duration = 1;
    s.tasks.push_back(t);
  }
  s.tasks[0].deps = {{2}};
  s.tasks[1].deps = {{0}};
  s.tasks[2].deps = {{1}};
  std::vector<double> start;
  std::vector<uint32_t> cycle;
  EXPECT_FALSE(computeStartTimes(s, start, cycle));
  std::sort(cycle.begin(), cycle.end());
  EXPECT_EQ(cycle, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(findDependencyCycle(s).size(), 3u);
}

TEST(Timing, StreamOrderAgainstDependencyIsADeadlock) {
  // Task 1 is after task 0 on stream 0, but task 0 waits for task 1.
  Schedule s;
  s.devices = {{1}};
  ScheduleTask a, b;
  a.devices = b.devices = {0};
  a.duration = b.duration = 1;
  a.deps = {{1}};
  s.tasks = {a, b};
  std::vector<double> start;
  std::vector<uint32_t> cycle;
  EXPECT_FALSE(computeStartTimes(s, start, cycle));
  EXPECT_EQ(cycle.size(), 2u);
  EXPECT_TRUE(findDependencyCycle(s).empty()); // explicit deps alone: acyclic
}

// The sampled makespan against closed forms: the expected maximum of k
// independent normals (k = 2: mu + sigma / sqrt(pi); k = 3: mu + 3 sigma /
// (2 sqrt(pi)), the order statistics of the normal), sums along a chain,
// and a transfer's jittered delay; nothing varying gives the point makespan
// exactly, with no samples.
TEST(SampledMakespan, AgainstClosedForms) {
  auto forkJoin = [](int k, double sd) {
    Schedule s;
    ScheduleTask a;
    a.devices = {0};
    a.duration = 1;
    s.devices.push_back({10});
    s.tasks.push_back(a);
    for (int i = 0; i < k; ++i) {
      s.devices.push_back({10});
      ScheduleTask b;
      b.devices = {uint32_t(i + 1)};
      b.duration = 2;
      b.varT = sd * sd;
      b.deps = {{0}};
      s.tasks.push_back(b);
    }
    return s;
  };
  const double sd = 0.1, rootPi = std::sqrt(M_PI);
  for (auto [k, factor] : {std::pair{2, 1 / rootPi}, {3, 1.5 / rootPi}}) {
    MakespanDistribution m;
    ASSERT_TRUE(sampleMakespan(forkJoin(k, sd), 4000, 7, m));
    EXPECT_EQ(m.makespan, 3.0);
    EXPECT_EQ(m.samples, 4000u);
    double exact = 3 + factor * sd;
    EXPECT_NEAR(m.mean, exact, 4 * m.stdError) << k << " parallel";
    EXPECT_GT(m.mean, 3 + 0.5 * factor * sd); // the effect is resolved
  }
  // A chain of 10 on one device: the mean is the sum, the variance adds
  Schedule chain;
  chain.devices = {{5}};
  for (int i = 0; i < 10; ++i) {
    ScheduleTask t;
    t.devices = {0};
    t.duration = 1;
    t.varT = 0.01;
    chain.tasks.push_back(t);
  }
  MakespanDistribution m;
  ASSERT_TRUE(sampleMakespan(chain, 4000, 3, m));
  // (exact: the chain is its own critical path, the control variate)
  EXPECT_DOUBLE_EQ(m.mean, 10);
  EXPECT_DOUBLE_EQ(m.sigma, std::sqrt(0.1));
  // A delay that varies: a -> b across devices, lag 0.5 +- 0.1.
  Schedule hop;
  hop.devices = {{5}, {5}};
  ScheduleTask a, b;
  a.devices = {0};
  b.devices = {1};
  a.duration = b.duration = 1;
  Dependency dep{0};
  dep.lag = 0.5;
  dep.varLag = 0.01;
  b.deps = {dep};
  hop.tasks = {a, b};
  ASSERT_TRUE(sampleMakespan(hop, 4000, 5, m));
  EXPECT_EQ(m.makespan, 2.5);
  EXPECT_NEAR(m.mean, 2.5, 4 * m.stdError);
  EXPECT_NEAR(m.sigma, 0.1, 0.01);
  // Nothing varies: exact, unsampled.
  for (ScheduleTask &t : chain.tasks)
    t.varT = 0;
  ASSERT_TRUE(sampleMakespan(chain, 4000, 3, m));
  EXPECT_EQ(m.samples, 0u);
  EXPECT_EQ(m.mean, 10.0);
  EXPECT_EQ(m.sigma, 0.0);
}

// Seeded and a cycle refused; on random schedules the mean is never below
// the point makespan by more than its error when durations only vary
// symmetrically (Jensen: the makespan is convex in the durations).
TEST(SampledMakespan, SeededJensenAndCycles) {
  std::mt19937_64 gen(11);
  for (int i = 0; i < 30; ++i) {
    Schedule s = randomSchedule(gen, false);
    for (ScheduleTask &t : s.tasks)
      t.varT = std::pow(0.1 * t.duration, 2);
    MakespanDistribution a, b;
    ASSERT_TRUE(sampleMakespan(s, 300, 42, a));
    ASSERT_TRUE(sampleMakespan(s, 300, 42, b));
    EXPECT_EQ(a.mean, b.mean);
    EXPECT_GE(a.mean, a.makespan - 4 * a.stdError - 1e-12);
    std::vector<double> start;
    std::vector<uint32_t> cycle;
    ASSERT_TRUE(computeStartTimes(s, start, cycle));
    double lo = INFINITY, hi = -INFINITY;
    for (size_t t = 0; t < s.tasks.size(); ++t) {
      lo = std::min(lo, start[t]);
      hi = std::max(hi, start[t] + s.tasks[t].duration);
    }
    EXPECT_DOUBLE_EQ(a.makespan, hi - lo);
  }
  Schedule s;
  s.devices = {{1}};
  ScheduleTask a, b;
  a.devices = b.devices = {0};
  a.duration = b.duration = 1;
  a.varT = 0.1;
  a.deps = {{1}};
  s.tasks = {a, b};
  MakespanDistribution m;
  EXPECT_FALSE(sampleMakespan(s, 100, 1, m));
}

} // namespace
