//===- ConvexFrontierTest.cpp - the convex relaxation from first principles
//-===//
//
// The relaxation's frontier (calculus/ConvexFrontier.h) on cases solved by
// hand, against brute force over the discrete options (the relaxation is a
// lower bound), and its optimal schedules checked for feasibility and for
// complementary slackness (their hull cost equals the bound). The oracle
// against an independent LP solver is test/Oracles/ConvexGlpkTest.cpp.

#include "calculus/ConvexFrontier.h"
#include "calculus/DagFrontier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace energy::calculus;

namespace {

/// The hull's value at t (linear between vertices), t in [fastest, slowest].
double hullAt(const ConvexHull &h, double t) {
  if (t >= h.T.front())
    return h.d.front();
  for (size_t k = 1; k < h.T.size(); ++k)
    if (t >= h.T[k])
      return h.d[k - 1] +
             (h.d[k] - h.d[k - 1]) * (h.T[k - 1] - t) / (h.T[k - 1] - h.T[k]);
  return h.d.back();
}

// Two tasks in a chain, a: (T, d) in {(1, 10), (2, 5)}, b: {(1, 10), (3, 4)}.
// By hand: at D = 2 both are fast (20 J); at 3, a slow and b fast (15; b at
// 2 on its hull would cost 7 + 10 = 17); at 4, a slow and b half-way (5 + 7
// = 12); at 5 both slow (9). Side by side (no arc): D = 1: 20, D = 2: a
// slow, b on its hull at 2 (5 + 7 = 12), D = 3: 9.
TEST(ConvexFrontier, TwoTasksByHand) {
  ConvexProblem chain;
  chain.tasks = {ConvexHull({1, 2}, {10, 5}), ConvexHull({1, 3}, {10, 4})};
  chain.arcs = {{0, 1, false, 0}};
  ConvexFrontier cf;
  std::string err;
  ASSERT_TRUE(convexFrontier(chain, {}, nullptr, 0, cf, err)) << err;
  EXPECT_TRUE(cf.complete);
  EXPECT_DOUBLE_EQ(cf.fastest, 2);
  EXPECT_DOUBLE_EQ(cf.breakpoints.front().L, 5);
  EXPECT_NEAR(cf.lowerBound(2, 0), 20, 1e-12);
  EXPECT_NEAR(cf.lowerBound(3, 0), 15, 1e-12);
  EXPECT_NEAR(cf.lowerBound(4, 0), 12, 1e-12);
  EXPECT_NEAR(cf.lowerBound(5, 0), 9, 1e-12);
  // Static power P adds P x M at the best M <= D. The relaxation's C(M)
  // falls at 5 J/s from 2 to 3 s and at 3 J/s from 3 to 5 s: at P = 2 the
  // best stays at M = 5 (9 + 10 = 19), at P = 4 it is M = 3 (15 + 12 = 27
  // against 12 + 16 at 4 and 20 + 8 at 2).
  EXPECT_NEAR(cf.lowerBound(5, 2), 19, 1e-12);
  EXPECT_NEAR(cf.lowerBound(5, 4), 27, 1e-12);

  ConvexProblem side = chain;
  side.arcs.clear();
  ASSERT_TRUE(convexFrontier(side, {}, nullptr, 0, cf, err)) << err;
  EXPECT_NEAR(cf.lowerBound(1, 0), 20, 1e-12);
  EXPECT_NEAR(cf.lowerBound(2, 0), 12, 1e-12);
  EXPECT_NEAR(cf.lowerBound(3, 0), 9, 1e-12);
}

// Lags and releases shift the path: a start-to-start lag of 0.5 and a
// release of 1 on a single fast-only task make the fastest makespan 2.5.
TEST(ConvexFrontier, LagsAndReleases) {
  ConvexProblem pb;
  pb.tasks = {ConvexHull({1, 2}, {10, 5}), ConvexHull({1}, {3})};
  pb.arcs = {{0, 1, /*startToStart=*/true, 0.5}};
  pb.release = {0, 1.5};
  ConvexFrontier cf;
  std::string err;
  ASSERT_TRUE(convexFrontier(pb, {}, nullptr, 0, cf, err)) << err;
  EXPECT_DOUBLE_EQ(cf.fastest, 2.5); // task 1 from its release, 1 s
  // Task 0 may then take 2 s for free: 5 + 3.
  EXPECT_NEAR(cf.lowerBound(2.5, 0), 8, 1e-12);
}

// Nearly collinear options make a price segment narrower than the
// max-flow can see (1e-13 W here): it must not freeze its task. A: (T, d)
// in {(2, 4), (3, 2 + 1e-13), (4, 1), (5, 0)}, B: {(1, 100), (6, 0)}, side
// by side, P = 0. By hand: at D = 2, A at 2 s (4 J) and B at 2 s on its
// hull (80 J): 84 J; at D = 2.5, A at 2.5 (3 J) and B at 2.5 (70 J): 73 J.
TEST(ConvexFrontier, NarrowPriceSegments) {
  ConvexProblem pb;
  pb.tasks = {ConvexHull({2, 3, 4, 5}, {4, 2 + 1e-13, 1, 0}),
              ConvexHull({1, 6}, {100, 0})};
  ASSERT_EQ(pb.tasks[0].T.size(), 4u); // all four on the hull
  ConvexFrontier cf;
  std::string err;
  ASSERT_TRUE(convexFrontier(pb, {}, nullptr, 0, cf, err)) << err;
  EXPECT_TRUE(cf.complete);
  EXPECT_NEAR(cf.lowerBound(2, 0), 84, 1e-9);
  EXPECT_NEAR(cf.lowerBound(2.5, 0), 73, 1e-9);
  // No tasks: nothing to run.
  ConvexProblem none;
  ASSERT_TRUE(convexFrontier(none, {}, nullptr, 0, cf, err)) << err;
  EXPECT_TRUE(cf.complete);
  EXPECT_EQ(cf.lowerBound(0, 0), 0);
}

TEST(ConvexFrontier, RejectsMalformedProblems) {
  ConvexFrontier cf;
  std::string err;
  ConvexProblem empty;
  empty.tasks = {ConvexHull()};
  EXPECT_FALSE(convexFrontier(empty, {}, nullptr, 0, cf, err));
  EXPECT_NE(err.find("empty hull"), std::string::npos);
  ConvexProblem cycle;
  cycle.tasks = {ConvexHull({1}, {1}), ConvexHull({1}, {1})};
  cycle.arcs = {{0, 1, false, 0}, {1, 0, false, 0}};
  EXPECT_FALSE(convexFrontier(cycle, {}, nullptr, 0, cf, err));
  EXPECT_NE(err.find("cycle"), std::string::npos);
  ConvexProblem range = cycle;
  range.arcs = {{0, 7, false, 0}};
  EXPECT_FALSE(convexFrontier(range, {}, nullptr, 0, cf, err));
  ConvexProblem concave;
  concave.tasks = {ConvexHull()};
  concave.tasks[0].T = {3, 2, 1}; // slopes 5, then 1: not a lower hull
  concave.tasks[0].d = {0, 5, 6};
  EXPECT_FALSE(convexFrontier(concave, {}, nullptr, 0, cf, err));
  EXPECT_NE(err.find("not convex"), std::string::npos);
  ConvexProblem nan = cycle;
  nan.arcs = {{0, 1, false, NAN}};
  EXPECT_FALSE(convexFrontier(nan, {}, nullptr, 0, cf, err));
}

// On random small schedules: the bound never exceeds the discrete optimum
// (brute force, via the exact frontier), and each reported schedule is
// feasible with makespan <= its level and costs exactly the bound there
// (strong duality, read through complementary slackness).
TEST(ConvexFrontier, BoundsBruteForceAndSchedulesAreOptimal) {
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(0, 1);
  int schedulesChecked = 0;
  for (int c = 0; c < 60; ++c) {
    Schedule s;
    int n = 3 + int(g() % 6), devs = 1 + int(g() % 2);
    for (int d = 0; d < devs; ++d)
      s.devices.push_back({double(g() % 4)});
    std::vector<std::vector<Option>> opts(n);
    ConvexProblem pb;
    for (int t = 0; t < n; ++t) {
      ScheduleTask task;
      task.devices = {uint32_t(g() % devs)};
      task.stream = 0;
      for (int k = 0; k < t; ++k)
        if (g() % 4 == 0)
          task.deps.push_back({uint32_t(k)});
      s.tasks.push_back(task);
      int k = 2 + int(g() % 3);
      for (int i = 0; i < k; ++i)
        opts[t].push_back({1 + 9 * u(g), 30 * u(g), 0});
    }
    // The relaxation of the same schedule: hulls of each task's Pareto
    // options, dependency and stream-order arcs.
    for (int t = 0; t < n; ++t) {
      std::vector<Option> o = opts[t];
      std::sort(o.begin(), o.end(),
                [](const Option &a, const Option &b) { return a.T < b.T; });
      std::vector<double> T, d;
      for (const Option &x : o)
        if (d.empty() || x.d < d.back()) {
          T.push_back(x.T);
          d.push_back(x.d);
        }
      pb.tasks.push_back(ConvexHull(T, d));
      for (const Dependency &dep : s.tasks[t].deps)
        pb.arcs.push_back({dep.pred, uint32_t(t), false, 0});
    }
    std::vector<int> lastOn(devs, -1);
    for (int t = 0; t < n; ++t) {
      int dev = int(s.tasks[t].devices[0]);
      if (lastOn[dev] >= 0)
        pb.arcs.push_back({uint32_t(lastOn[dev]), uint32_t(t), false, 0});
      lastOn[dev] = t;
    }
    double P = 0;
    for (const ScheduleDevice &d : s.devices)
      P += d.staticPower;

    std::vector<DagPoint> exact;
    std::string err;
    DagFrontierResult how;
    ASSERT_TRUE(dagFrontier(s, opts, {}, exact, err, &how)) << err;
    ASSERT_TRUE(how.exact);

    std::vector<double> levels;
    for (int k = 0; k <= 8; ++k)
      levels.push_back(exact.back().T -
                       (exact.back().T - exact.front().T) * k / 8.0);
    std::vector<std::pair<double, std::vector<double>>> seen;
    ConvexFrontier cf;
    ASSERT_TRUE(convexFrontier(
        pb, levels,
        [&](double L, const std::vector<double> &dur) {
          seen.push_back({L, dur});
        },
        0, cf, err))
        << err;
    ASSERT_TRUE(cf.complete);
    EXPECT_NEAR(cf.fastest, exact.front().T, 1e-9);
    for (const DagPoint &p : exact)
      EXPECT_LE(cf.lowerBound(p.T, P), p.E * (1 + 1e-12) + 1e-12)
          << "case " << c << " at T = " << p.T;
    for (auto &[L, dur] : seen) {
      // Feasible: the longest path under these durations is within L.
      std::vector<double> finish(n, 0);
      double makespan = 0, cost = 0;
      for (int t = 0; t < n; ++t) {
        const ConvexHull &h = pb.tasks[t];
        EXPECT_GE(dur[t], h.T.back() - 1e-12);
        EXPECT_LE(dur[t], h.T.front() + 1e-12);
        double start = 0;
        for (const ConvexArc &a : pb.arcs)
          if (a.to == uint32_t(t))
            start = std::max(start, finish[a.from]);
        finish[t] = start + dur[t];
        makespan = std::max(makespan, finish[t]);
        cost += hullAt(h, dur[t]);
      }
      EXPECT_LE(makespan, L * (1 + 1e-9) + 1e-12) << "case " << c;
      // Optimal: its hull cost is the relaxation's value at L without
      // static power (C(L), non-increasing, so the best M <= L is L).
      EXPECT_NEAR(cost, cf.lowerBound(L, 0), 1e-9 * cost + 1e-9)
          << "case " << c << " at L = " << L;
      ++schedulesChecked;
    }
  }
  EXPECT_GT(schedulesChecked, 100);
}

} // namespace
