//===- RoutingTest.cpp - the routing model against closed forms ----------===//
//
// Closed forms (reflection principle, Harrison's reflected-BM rates) against
// Monte Carlo, the aggregate moments against per-task simulation, the myopic
// LP against brute force, the crossover of the paper's Figure 4, and the
// variance-aware policy against the static and myopic ones.
//
//===----------------------------------------------------------------------===//

#include "calculus/Routing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace energy::calculus::routing;

namespace {

constexpr double kPi = 3.14159265358979323846;

Fleet twoModels(double supply) {
  Fleet f;
  f.models = {{"small", 10, 3, 0, 0.6, 1}, {"large", 20, 6, 0, 0.8, 1}};
  f.tasksPerSlot = 4;
  f.supplyJ = {supply};
  return f;
}

McResult mc(const Fleet &f, const std::vector<std::vector<double>> &splits,
            uint64_t horizon, unsigned runs, bool perTask = false,
            std::vector<uint64_t> checkpoints = {}) {
  McSettings st;
  st.horizon = horizon;
  st.runs = runs;
  st.seed = 20261201;
  st.perTask = perTask;
  st.checkpoints = std::move(checkpoints);
  McResult out;
  std::string err;
  EXPECT_TRUE(simulate(f, splits, st, out, err)) << err;
  return out;
}

TEST(Routing, NormalGeneratorIsStandardNormal) {
  // Kolmogorov-Smirnov against Phi (critical value 1.63 / sqrt(n) at 1 %),
  // the first four moments, and the tail beyond the ziggurat's base layer
  // (r = 3.4426) and beyond 4.5, where a wrong tail would show.
  const size_t n = 2000000;
  std::vector<double> z = standardNormals(20261201, n);
  double m1 = 0, m2 = 0, m4 = 0;
  size_t beyondR = 0, beyond45 = 0;
  for (double x : z) {
    m1 += x;
    m2 += x * x;
    m4 += x * x * x * x;
    beyondR += std::abs(x) > 3.442619855899;
    beyond45 += std::abs(x) > 4.5;
  }
  EXPECT_NEAR(m1 / n, 0, 4 / std::sqrt(double(n)));
  EXPECT_NEAR(m2 / n, 1, 4 * std::sqrt(2.0 / n));
  EXPECT_NEAR(m4 / n, 3, 4 * std::sqrt(96.0 / n));
  auto tail = [](double x) { return std::erfc(x / std::sqrt(2.0)); };
  double eR = tail(3.442619855899) * n, e45 = tail(4.5) * n;
  EXPECT_NEAR(double(beyondR), eR, 4 * std::sqrt(eR));
  EXPECT_NEAR(double(beyond45), e45, 4 * std::sqrt(e45) + 1);
  std::sort(z.begin(), z.end());
  double ks = 0;
  for (size_t i = 0; i < n; i += 97) {
    double cdf = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
    ks = std::max(ks, std::max(std::abs(cdf - double(i) / n),
                               std::abs(cdf - double(i + 1) / n)));
  }
  EXPECT_LT(ks, 1.63 / std::sqrt(double(n)));
}

TEST(Routing, RunningMaxClosedFormMatchesTheIntegratedTail) {
  // The closed form against a quadrature of the maximum's tail (level just
  // above 0 takes the quadrature path).
  for (double drift : {-0.3, -0.01, 0.0, 0.002, 0.05, 0.4})
    for (double t : {10.0, 1e3, 1e5}) {
      double closed = expectedRunningMax(drift, 1.5, t);
      double quad = expectedExcessMax(drift, 1.5, t, 1e-9);
      EXPECT_NEAR(quad, closed, 1e-6 * closed + 1e-9) << drift << " " << t;
    }
  // Limits: sigma sqrt(2t/pi) at drift 0; drift t + sigma^2/(2 drift) for
  // large drift t; sigma^2 / (2 |drift|) for negative drift as t -> inf.
  EXPECT_NEAR(expectedRunningMax(0, 2, 1e4), 2 * std::sqrt(2e4 / kPi), 1e-9);
  EXPECT_NEAR(expectedRunningMax(1, 1, 1e4), 1e4 + 0.5, 1e-6);
  EXPECT_NEAR(expectedRunningMax(-0.5, 1, 1e6), 1.0, 1e-9);
}

TEST(Routing, CriticalSupplyGivesSqrtTAuxiliaryEnergy) {
  // Mean supply = mean demand, unbounded reserve: E[D_T] = sigma sqrt(2T/pi)
  // within 2 % at T = 1e4 (the walk's discreteness costs ~0.58 sigma,
  // Siegmund's correction, 0.7 % here).
  Fleet f = twoModels(0);
  std::vector<double> p = {0.5, 0.5};
  Moments m = slotMoments(f, p);
  f.supplyJ = {m.mean};
  McResult r = mc(f, {p}, 10000, 20000);
  double expect = std::sqrt(m.var) * std::sqrt(2 * 10000 / kPi);
  EXPECT_NEAR(r.aux.mean, expect, 0.02 * expect);
  EXPECT_LT(r.aux.halfWidth95(), 0.015 * expect);
  EXPECT_EQ(r.spill.mean, 0);
  // The model's own prediction is the same closed form.
  EXPECT_NEAR(predict(f, p, 10000).auxJ, expect, 1e-9 * expect);
}

TEST(Routing, AggregateMomentsMatchPerTaskSimulation) {
  // The aggregate draw uses slotMoments; per-task simulation draws, routes
  // and spreads every task. At the critical supply E[D_T] ~ sigma sqrt(2T/pi)
  // with sigma the long-run sd, so both agree iff the variance (mixture,
  // Poisson, shared and idiosyncratic terms) is right. Spreading a task over
  // several slots does not change the long-run variance.
  struct Case {
    bool poisson;
    Assignment a;
    double shared;
    Family fam;
    unsigned service;
  };
  for (Case c : {Case{false, Assignment::Random, 0, Family::Normal, 1},
                 Case{false, Assignment::Proportional, 0, Family::Normal, 1},
                 Case{true, Assignment::Random, 0, Family::Gamma, 3},
                 Case{false, Assignment::Random, 2, Family::Gamma, 1}}) {
    Fleet f = twoModels(0);
    f.poissonArrivals = c.poisson;
    f.assignment = c.a;
    f.family = c.fam;
    for (Endpoint &e : f.models) {
      e.sharedSdJ = c.shared;
      e.serviceSlots = c.service;
    }
    std::vector<double> p = {0.25, 0.75};
    Moments m = slotMoments(f, p);
    f.supplyJ = {m.mean};
    McResult perTask = mc(f, {p}, 4000, 4000, true);
    // Siegmund's discreteness correction (-0.58 sigma); spreading a task
    // over several slots smooths the path, which lowers the discrete
    // maximum by a further O(sigma) (a few sigma at 3 slots), vanishing
    // relative to sigma sqrt(T). A wrong variance term moves E[D_T] by
    // 30-200 % here, far outside these bounds.
    double sigma = std::sqrt(m.var);
    double expect = sigma * (std::sqrt(2 * 4000 / kPi) - 0.5826);
    double slack =
        3 * perTask.aux.halfWidth95() + (c.service > 1 ? 3 : 1) * sigma;
    EXPECT_NEAR(perTask.aux.mean, expect, slack)
        << c.poisson << " " << int(c.a) << " " << c.shared;
    EXPECT_LT(slack, 0.15 * expect);
  }
}

TEST(Routing, ProportionalAssignmentRemovesTheMixtureVariance) {
  Fleet f = twoModels(0);
  std::vector<double> p = {0.5, 0.5};
  double random = slotMoments(f, p).var;
  f.assignment = Assignment::Proportional;
  double prop = slotMoments(f, p).var;
  // Mixture term n (E[m^2] - E[m]^2) = 4 * (250 - 225) = 100.
  EXPECT_NEAR(random - prop, 100, 1e-9);
  EXPECT_NEAR(prop, 4 * (0.5 * 9 + 0.5 * 36), 1e-9);
}

TEST(Routing, SupplyRegimes) {
  // Under-supply: D_T grows like |drift| T; over-supply with a finite
  // reserve: W_T grows like drift T; both within 2 % at T = 2e5.
  Fleet f = twoModels(0);
  std::vector<double> p = {0.5, 0.5};
  double mean = slotMoments(f, p).mean;
  f.supplyJ = {mean - 3};
  McResult under = mc(f, {p}, 200000, 8);
  EXPECT_NEAR(under.aux.mean / 200000, 3, 0.06);
  f.supplyJ = {mean + 3};
  f.reserveMaxJ = 500;
  McResult over = mc(f, {p}, 200000, 8);
  EXPECT_NEAR(over.spill.mean / 200000, 3, 0.06);
  EXPECT_LT(over.aux.mean, 0.01 * over.spill.mean);
}

TEST(Routing, FiniteReserveAtCriticalIsVolatilityLimited) {
  // Harrison's rates on [0, b] at zero drift: aux = spill = var / (2 b).
  // The discrete walk overshoots each barrier by ~0.58 sigma, so b is taken
  // large against sigma (b = 100 sigma: ~1 %).
  Fleet f = twoModels(0);
  std::vector<double> p = {0.5, 0.5};
  Moments m = slotMoments(f, p);
  f.supplyJ = {m.mean};
  f.reserveMaxJ = 100 * std::sqrt(m.var);
  f.reserveInitialJ = f.reserveMaxJ / 2;
  McResult r = mc(f, {p}, 2000000, 8);
  double rate = m.var / (2 * f.reserveMaxJ);
  EXPECT_NEAR(r.aux.mean / 2e6, rate, 0.05 * rate);
  EXPECT_NEAR(r.spill.mean / 2e6, rate, 0.05 * rate);
  Rates h = reflectedRates(0, m.var, f.reserveMaxJ);
  EXPECT_DOUBLE_EQ(h.aux, rate);
  // With drift: spill - aux = drift exactly, and continuity at drift 0.
  Rates d = reflectedRates(0.2, m.var, f.reserveMaxJ);
  EXPECT_NEAR(d.spill - d.aux, 0.2, 1e-12);
  Rates tiny = reflectedRates(1e-12, m.var, f.reserveMaxJ);
  EXPECT_NEAR(tiny.aux, rate, 1e-9 * rate);
}

TEST(Routing, ReserveTransientClosedForms) {
  // At zero drift g = y - y^2/(2b) and the stationary law is uniform: from
  // an empty reserve E_pi[g] - g(0) = b/3 more auxiliary energy than the
  // rate times T, from a full one b/6 less; spill mirrors it.
  double b = 7;
  Transient e = reflectedTransient(0, 1, b, 0),
            f = reflectedTransient(0, 1, b, b);
  EXPECT_NEAR(e.auxOffset, b / 3, 1e-12);
  EXPECT_NEAR(e.spillOffset, -b / 6, 1e-12);
  EXPECT_NEAR(f.auxOffset, -b / 6, 1e-12);
  EXPECT_NEAR(f.spillOffset, b / 3, 1e-12);
  EXPECT_NEAR(e.relaxRate, kPi * kPi / (2 * b * b), 1e-15);
  // The series near zero drift and the closed forms agree where they meet.
  for (double x : {0.0, 0.3 * b, b})
    for (double s : {1e-2, -1e-2}) {
      Transient lo = reflectedTransient(s * (1 - 1e-9) / (2 * b), 1, b, x),
                hi = reflectedTransient(s * (1 + 1e-9) / (2 * b), 1, b, x);
      EXPECT_NEAR(lo.auxOffset, hi.auxOffset, 1e-8 * b) << s << " " << x;
      EXPECT_NEAR(lo.spillOffset, hi.spillOffset, 1e-8 * b) << s << " " << x;
    }
  // A drift that dwarfs the variance (k b = -+800, beyond e^709): finite,
  // the reserve runs to the barrier the drift points at (offsets -x + 2/|k|
  // and 1/|k|: the stationary law sits within 1/|k| of that barrier).
  Transient down = reflectedTransient(-400, 1, 1, 1),
            up = reflectedTransient(400, 1, 1, 0);
  EXPECT_NEAR(down.auxOffset, -0.9975, 1e-12);
  EXPECT_NEAR(down.spillOffset, 0.00125, 1e-12);
  EXPECT_NEAR(up.auxOffset, 0.00125, 1e-12);
  EXPECT_NEAR(up.spillOffset, -0.9975, 1e-12);
  // No variance: exactly that.
  Transient d0 = reflectedTransient(-2, 0, 10, 4),
            u0 = reflectedTransient(2, 0, 10, 4);
  EXPECT_EQ(d0.auxOffset, -4);
  EXPECT_EQ(d0.spillOffset, 0);
  EXPECT_EQ(u0.auxOffset, 0);
  EXPECT_EQ(u0.spillOffset, -6);
  // And no horizon, no energy.
  Fleet fl = twoModels(30);
  fl.reserveMaxJ = 100;
  fl.reserveInitialJ = 0;
  Prediction p0 = predict(fl, {0.5, 0.5}, 0);
  EXPECT_EQ(p0.auxJ, 0);
  EXPECT_EQ(p0.spillJ, 0);
}

TEST(Routing, FiniteReservePredictionFollowsTheStart) {
  // A bounded reserve over horizons around b^2/var (400 slots here; the
  // slowest mode decays in 2 b^2/(pi^2 var), about 90 slots on the widened
  // reserve, so by 400 about 1 % is unsettled): the prediction (long-run rates
  // times T plus the start's offsets) against the Monte Carlo walk, from an
  // empty, a half-full and a full reserve, at the critical supply and over- and
  // under-supplied. From 400 slots on the offsets are exact: within the
  // Monte Carlo's error and 1 %. At 100 slots the one-mode settling is an
  // approximation: within 10 % + 0.6 sigma (a walk that starts at a barrier
  // grows like sqrt(T) at first, and what reaches the far barrier early is
  // underpredicted); this does not test the settling rate itself.
  // Long-run rates times T alone miss by up to 0.4 b = 8 sigma here (an
  // empty reserve draws about b/3 more auxiliary energy than aux T once
  // settled, a full one b/6 less): the offsets cut the total error by more
  // than 5x.
  Fleet f = twoModels(0);
  std::vector<double> p = {0.5, 0.5};
  Moments m = slotMoments(f, p);
  double sigma = std::sqrt(m.var), b = 20 * sigma;
  f.reserveMaxJ = b;
  double errNew = 0, errOld = 0;
  for (double drift : {0.0, 0.05 * sigma, -0.05 * sigma})
    for (double r0 : {0.0, b / 2, b})
      for (uint64_t T : {100, 400, 1600}) {
        f.supplyJ = {m.mean + drift};
        f.reserveInitialJ = r0;
        McResult r = mc(f, {p}, T, 4000);
        Prediction pr = predict(f, p, double(T));
        Rates longRun = reflectedRates(drift, m.var, b + 2 * 0.5826 * sigma);
        for (auto [what, got, want, hw, old] :
             {std::tuple{"aux", pr.auxJ, r.aux.mean, r.aux.halfWidth95(),
                         longRun.aux * double(T)},
              std::tuple{"spill", pr.spillJ, r.spill.mean,
                         r.spill.halfWidth95(), longRun.spill * double(T)}}) {
          double slack = T >= 400 ? 3 * hw + 0.01 * want
                                  : 3 * hw + 0.1 * want + 0.6 * sigma;
          EXPECT_LE(std::fabs(got - want), slack)
              << what << ": drift " << drift / sigma << " sigma, R0 " << r0 / b
              << " b, T " << T << ": predicted " << got << ", Monte Carlo "
              << want;
          errNew += std::fabs(got - want);
          errOld += std::fabs(old - want);
        }
      }
  EXPECT_LT(errNew * 5, errOld);
}

TEST(Routing, FiniteReservePredictionHoldsItsBounds) {
  // Where one mode of the two-barrier form is not enough, the bounds
  // carry the prediction: a reserve far larger than the walk's reach
  // draws what an uncapped one does (sigma sqrt(2T/pi) at the critical
  // supply from empty), a full reserve under strong under-supply runs
  // out after R_0 / |mu| slots, and a reserve far smaller than sigma
  // draws what none does (sigma phi(0) a slot at the critical supply).
  Fleet f = twoModels(0);
  std::vector<double> p = {0.5, 0.5};
  Moments m = slotMoments(f, p);
  double sigma = std::sqrt(m.var);
  struct Case {
    double drift, cap, r0;
    uint64_t T;
  } cases[] = {{0, 1e5 * sigma, 0, 1000},
               {-0.7 * sigma, 700 * sigma, 700 * sigma, 1000},
               {0, 1e-3 * sigma, 0, 1000}};
  for (const Case &c : cases) {
    f.supplyJ = {m.mean + c.drift};
    f.reserveMaxJ = c.cap;
    f.reserveInitialJ = c.r0;
    McResult r = mc(f, {p}, c.T, 2000);
    Prediction pr = predict(f, p, double(c.T));
    EXPECT_NEAR(pr.auxJ, r.aux.mean,
                0.05 * r.aux.mean + 3 * r.aux.halfWidth95())
        << "drift " << c.drift / sigma << " sigma, b " << c.cap / sigma
        << " sigma, R0 " << c.r0 / sigma << " sigma";
  }
  f.supplyJ = {m.mean};
  f.reserveMaxJ = 1e-3 * sigma;
  f.reserveInitialJ = 0;
  EXPECT_LE(predict(f, p, 1000).auxJ, 1000 * sigma / std::sqrt(2 * kPi));
}

TEST(Routing, MyopicSplitIsTheQualityMaximizingLp) {
  // Brute force over a fine grid of 3-model splits: the best quality among
  // those whose mean matches the supply (within the grid's resolution).
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(1, 30), q(0.2, 0.9);
  for (int trial = 0; trial < 50; ++trial) {
    Fleet f;
    for (int i = 0; i < 3; ++i)
      f.models.push_back({"m" + std::to_string(i), u(gen), 1, 0, q(gen), 1});
    f.tasksPerSlot = 1;
    f.supplyJ = {u(gen)};
    Policy pol;
    pol.kind = PolicyKind::Myopic;
    std::vector<std::vector<double>> s;
    std::string err;
    ASSERT_TRUE(resolvePolicy(f, pol, 1000, {}, s, err)) << err;
    double mean = slotMoments(f, s[0]).mean, lo = 1e9, hi = -1e9;
    for (const Endpoint &e : f.models) {
      lo = std::min(lo, e.meanJ);
      hi = std::max(hi, e.meanJ);
    }
    double b = f.supplyJ[0];
    if (b < lo || b > hi) {
      EXPECT_NEAR(mean, b < lo ? lo : hi, 1e-9);
      continue;
    }
    EXPECT_NEAR(mean, b, 1e-9);
    double bestQ = -1;
    const int n = 400;
    for (int a = 0; a <= n; ++a)
      for (int c = 0; a + c <= n; ++c) {
        std::vector<double> p = {double(a) / n, double(c) / n,
                                 double(n - a - c) / n};
        if (std::abs(slotMoments(f, p).mean - b) < 0.05)
          bestQ = std::max(bestQ, splitQuality(f, p));
      }
    EXPECT_GE(splitQuality(f, s[0]), bestQ - 0.01);
  }
}

TEST(Routing, PredictionErrorCrossesOverFromSqrtToLinear) {
  // The paper's Figure 4: the myopic policy with an under-prediction drifts
  // by delta per slot; E[D_T] grows like sqrt(T) below T* = sigma^2/delta^2
  // and like delta T above. The fitted log-log slopes on a decade on either
  // side: 0.5 and 1.0 within 0.05. With no error: 0.5 throughout.
  Fleet f = twoModels(60);
  Policy myopic;
  myopic.kind = PolicyKind::Myopic;
  std::vector<std::vector<double>> exact, biased;
  std::string err;
  ASSERT_TRUE(resolvePolicy(f, myopic, 1, {}, exact, err)) << err;
  double sigma = std::sqrt(slotMoments(f, exact[0]).var);
  EXPECT_NEAR(slotMoments(f, exact[0]).mean, 60, 1e-9);
  // Choose the error so that T* = 3e5 slots: consumption 60 + delta.
  double delta = sigma / std::sqrt(3e5);
  myopic.predictionError = 60 / (60 + delta) - 1;
  ASSERT_TRUE(resolvePolicy(f, myopic, 1, {}, biased, err)) << err;
  Prediction pr = predict(f, biased[0], 1);
  EXPECT_NEAR(-pr.drift, delta, 1e-9);
  EXPECT_NEAR(pr.crossoverSlots, 3e5, 0.01 * 3e5);

  std::vector<uint64_t> small = {300, 600, 1200, 2400, 3000};
  std::vector<double> ts(small.begin(), small.end()), ys, ys0;
  McResult s = mc(f, biased, 3000, 20000, false, small);
  McResult s0 = mc(f, exact, 3000, 20000, false, small);
  for (size_t i = 0; i < small.size(); ++i) {
    ys.push_back(s.auxAt[i].mean);
    ys0.push_back(s0.auxAt[i].mean);
  }
  EXPECT_NEAR(logLogSlope(ts, ys), 0.5, 0.05);
  EXPECT_NEAR(logLogSlope(ts, ys0), 0.5, 0.05);

  std::vector<uint64_t> large = {3000000, 6000000, 12000000, 24000000,
                                 30000000};
  std::vector<double> tl(large.begin(), large.end()), yl;
  McResult l = mc(f, biased, 30000000, 8, false, large);
  for (size_t i = 0; i < large.size(); ++i)
    yl.push_back(l.auxAtControlled[i].mean);
  EXPECT_NEAR(logLogSlope(tl, yl), 1.0, 0.05);
  // And the Monte Carlo level matches the closed form on both sides.
  EXPECT_NEAR(s.auxAt.back().mean, expectedRunningMax(delta, sigma, 3000),
              0.05 * s.auxAt.back().mean);
  EXPECT_NEAR(l.auxAtControlled.back().mean,
              expectedRunningMax(delta, sigma, 3e7), 0.02 * l.aux.mean);
  EXPECT_NEAR(l.aux.mean, l.auxAtControlled.back().mean, 0.1 * l.aux.mean);
}

Fleet equalMeans() {
  // Same mean energy and quality, different variance: means-only policies
  // cannot tell them apart.
  Fleet f;
  f.models = {{"steady", 100, 10, 0, 0.7, 1}, {"bursty", 100, 80, 0, 0.7, 1}};
  f.tasksPerSlot = 8;
  f.supplyJ = {800};
  return f;
}

TEST(Routing, VarianceAwareBeatsStaticAndMyopicOnEqualMeans) {
  Fleet f = equalMeans();
  Policy st, my, va;
  st.fractions = {0.5, 0.5};
  my.kind = PolicyKind::Myopic;
  va.kind = PolicyKind::VarianceAware;
  va.qualityTarget = 0.7;
  std::vector<std::vector<double>> ss, sm, sv;
  std::string err;
  ASSERT_TRUE(resolvePolicy(f, st, 1e4, {}, ss, err));
  ASSERT_TRUE(resolvePolicy(f, my, 1e4, {}, sm, err));
  ASSERT_TRUE(resolvePolicy(f, va, 1e4, {ss[0], sm[0]}, sv, err));
  EXPECT_NEAR(sv[0][0], 1, 1e-9);    // all on the steady model
  EXPECT_NEAR(sm[0][0], 0.5, 1e-12); // means only: indifferent, even split
  EXPECT_DOUBLE_EQ(splitQuality(f, sv[0]), splitQuality(f, ss[0]));
  McResult rs = mc(f, ss, 10000, 4000), rm = mc(f, sm, 10000, 4000),
           rv = mc(f, sv, 10000, 4000);
  // sigma ratio: sqrt(8*100) vs sqrt(8*(100+6400)/2): E[D] shrinks ~5.7x.
  EXPECT_LT(rv.aux.mean * 5, rs.aux.mean);
  EXPECT_LT(rv.aux.mean * 5, rm.aux.mean);
}

TEST(Routing, VarianceAwareNeverLosesOnRandomCases) {
  // Property: on random fleets (3 models, finite or unbounded reserve,
  // supply around the critical point), the variance-aware split's paired
  // Monte Carlo D_T + lambda W_T is never worse than the static split's or
  // the myopic one's at equal or higher quality, beyond Monte Carlo error.
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> mean(5, 50), rel(0.05, 1.5),
      qual(0.3, 0.9), share(0, 1);
  for (int trial = 0; trial < 25; ++trial) {
    Fleet f;
    for (int i = 0; i < 3; ++i) {
      double m = mean(gen);
      f.models.push_back({"m" + std::to_string(i), m, m * rel(gen),
                          m * rel(gen) * (trial % 3 == 0), qual(gen), 1});
    }
    f.tasksPerSlot = 5;
    std::vector<double> fr = {share(gen), share(gen), share(gen)};
    double sum = fr[0] + fr[1] + fr[2];
    for (double &x : fr)
      x /= sum;
    double critical = slotMoments(f, fr).mean;
    f.supplyJ = {critical * (0.98 + 0.04 * share(gen))};
    if (trial % 2)
      f.reserveMaxJ = 30 * std::sqrt(slotMoments(f, fr).var);
    Policy st, my, va;
    st.fractions = fr;
    my.kind = PolicyKind::Myopic;
    va.kind = PolicyKind::VarianceAware;
    va.lambda = 0.5;
    std::vector<std::vector<double>> ss, sm, sv;
    std::string err;
    ASSERT_TRUE(resolvePolicy(f, st, 5000, {}, ss, err));
    ASSERT_TRUE(resolvePolicy(f, my, 5000, {}, sm, err));
    for (const auto *other : {&ss, &sm}) {
      va.qualityTarget = splitQuality(f, (*other)[0]);
      ASSERT_TRUE(resolvePolicy(f, va, 5000, {ss[0], sm[0]}, sv, err)) << err;
      EXPECT_GE(splitQuality(f, sv[0]), va.qualityTarget - 1e-9);
      McResult rv = mc(f, sv, 5000, 1000), ro = mc(f, *other, 5000, 1000);
      double jv = rv.aux.mean + 0.5 * rv.spill.mean,
             jo = ro.aux.mean + 0.5 * ro.spill.mean;
      double tol =
          3 * (rv.aux.halfWidth95() + ro.aux.halfWidth95() +
               0.5 * (rv.spill.halfWidth95() + ro.spill.halfWidth95()));
      EXPECT_LE(jv, jo * 1.02 + tol) << "trial " << trial;
    }
  }
}

TEST(Routing, BadInputsAreRefused) {
  std::string err;
  Fleet f = twoModels(60);
  f.supplyJ = {-1};
  EXPECT_FALSE(validateFleet(f, err));
  EXPECT_NE(err.find("supply"), std::string::npos);
  f.models.clear();
  f.supplyJ = {60};
  EXPECT_FALSE(validateFleet(f, err));
  EXPECT_NE(err.find("no models"), std::string::npos);
  Fleet g = twoModels(60);
  Policy va;
  va.kind = PolicyKind::VarianceAware;
  va.name = "va";
  va.qualityTarget = 0.95;
  std::vector<std::vector<double>> s;
  EXPECT_FALSE(resolvePolicy(g, va, 100, {}, s, err));
  EXPECT_NE(err.find("above what any split reaches"), std::string::npos);
  Policy st;
  st.name = "st";
  st.fractions = {0.5, 0.6};
  EXPECT_FALSE(resolvePolicy(g, st, 100, {}, s, err));
  EXPECT_NE(err.find("sum to"), std::string::npos);
  McSettings ms;
  ms.horizon = uint64_t(1) << 39;
  ms.runs = 1000;
  McResult r;
  EXPECT_FALSE(simulate(g, {{0.5, 0.5}}, ms, r, err));
  EXPECT_NE(err.find("above 1e10"), std::string::npos);
  double q;
  EXPECT_FALSE(qualityFromLaw({1, 5, 0.1, 0, 0}, 1, 1, q, err));
  EXPECT_TRUE(qualityFromLaw({0.9, 10, 0.1, 2, 0.2}, 1e24, 1e12, q, err));
  EXPECT_NEAR(q, 0.9 - 10 * std::pow(1e24, -0.1) - 2 * std::pow(1e12, -0.2),
              1e-12);
}

} // namespace
