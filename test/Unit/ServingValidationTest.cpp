//===- ServingValidationTest.cpp - fits, hold-out and planner ------------===//
//
// LinearFit against the normal equations solved by hand, Student's t against
// its tables, the hold-out on cells generated from the law (exact recovery,
// interval coverage under known noise), and the planner against brute force
// on a cell whose truth is known.
//
//===----------------------------------------------------------------------===//

#include "calculus/models/ServingValidation.h"
#include "calculus/models/LinearFit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

using namespace energy::calculus;

namespace {

// The median of an even count is the mean of the two middle values (the
// fit's held-out report and the planner's regret table read it).
TEST(Median, EvenCountsAverageTheMiddleTwo) {
  EXPECT_EQ(median({0.592, 1.4185}), (0.592 + 1.4185) / 2);
  EXPECT_EQ(median({5, 1, 3}), 3);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(LinearFit, SimpleRegressionMatchesClosedForm) {
  // y = a + b x: b = Sxy / Sxx, a = ybar - b xbar; s^2 = RSS / (n - 2).
  std::vector<double> xs = {1, 2, 3, 5, 8}, ys = {2.1, 3.9, 6.2, 9.8, 16.1};
  std::vector<std::vector<double>> X;
  for (double x : xs)
    X.push_back({1, x});
  LinearFit fit;
  std::string err;
  ASSERT_TRUE(fitLinear(X, ys, fit, err)) << err;
  double xb = 3.8, yb = 0, sxx = 0, sxy = 0;
  for (double y : ys)
    yb += y / 5;
  for (size_t i = 0; i < 5; ++i) {
    sxx += (xs[i] - xb) * (xs[i] - xb);
    sxy += (xs[i] - xb) * (ys[i] - yb);
  }
  double b = sxy / sxx, a = yb - b * xb, rss = 0;
  for (size_t i = 0; i < 5; ++i)
    rss += std::pow(ys[i] - a - b * xs[i], 2);
  EXPECT_NEAR(fit.coef[0], a, 1e-12);
  EXPECT_NEAR(fit.coef[1], b, 1e-12);
  EXPECT_NEAR(fit.residualVariance, rss / 3, 1e-12);
  EXPECT_FALSE(fitLinear({{1, 1}, {1, 1}, {1, 1}}, {1, 2, 3}, fit, err));
  EXPECT_NE(err.find("rank deficient"), std::string::npos);
  EXPECT_FALSE(fitLinear({{1, 1}, {1, 2}}, {1, 2}, fit, err));
  // (X'X)^-1 of the simple regression: [[sum x^2, -sum x], [-sum x, n]] /
  // (n Sxx).
  double sx = 19, sx2 = 103, n = 5;
  ASSERT_TRUE(fitLinear(X, ys, fit, err)) << err;
  ASSERT_EQ(fit.xtxInverse.size(), 4u);
  EXPECT_NEAR(fit.xtxInverse[0], sx2 / (n * sxx), 1e-12);
  EXPECT_NEAR(fit.xtxInverse[1], -sx / (n * sxx), 1e-12);
  EXPECT_NEAR(fit.xtxInverse[3], n / (n * sxx), 1e-12);
}

TEST(LinearFit, InverseThroughPivotedFactorsIsTheNormalEquations) {
  // Five columns of different scales and correlations (the pivoting
  // reorders them by a 3-cycle): (X'X)^-1 against Gauss-Jordan
  // elimination of X'X with partial pivoting, here.
  const int p = 5;
  std::vector<std::vector<double>> X;
  std::vector<double> y;
  uint64_t state = 1; // a seed whose pivoting is a 3-cycle, not swaps
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) * 0x1.0p-53;
  };
  const double scales[p] = {1, 1e3, 1e-3, 10, 1e2};
  for (int i = 0; i < 30; ++i) {
    std::vector<double> row(p);
    for (int j = 0; j < p; ++j)
      row[size_t(j)] = scales[j] * (next() + (j == 3 ? 0.8 * row[0] : 0));
    X.push_back(row);
    y.push_back(next());
  }
  double a[p][2 * p] = {};
  for (const auto &r : X)
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < p; ++k)
        a[j][k] += r[size_t(j)] * r[size_t(k)];
  for (int j = 0; j < p; ++j)
    a[j][p + j] = 1;
  for (int c = 0; c < p; ++c) {
    int piv = c;
    for (int r = c + 1; r < p; ++r)
      if (std::abs(a[r][c]) > std::abs(a[piv][c]))
        piv = r;
    for (int k = 0; k < 2 * p; ++k)
      std::swap(a[c][k], a[piv][k]);
    double d = a[c][c];
    for (int k = 0; k < 2 * p; ++k)
      a[c][k] /= d;
    for (int r = 0; r < p; ++r)
      if (r != c) {
        double f = a[r][c];
        for (int k = 0; k < 2 * p; ++k)
          a[r][k] -= f * a[c][k];
      }
  }
  LinearFit fit;
  std::string err;
  ASSERT_TRUE(fitLinear(X, y, fit, err)) << err;
  for (int j = 0; j < p; ++j)
    for (int k = 0; k < p; ++k) {
      double want = a[j][p + k];
      EXPECT_NEAR(fit.xtxInverse[size_t(j * p + k)], want,
                  1e-6 * std::sqrt(std::abs(a[j][p + j] * a[k][p + k])))
          << j << "," << k;
    }
}

TEST(LinearFit, NearlyCollinearDesignsAreRefused) {
  // A third column that is the first two's sum up to 1e-9 relative: the
  // data cannot tell the three apart (the normal equations' inverse came
  // out with negative variances); within 1e-3 they can.
  std::vector<std::vector<double>> X;
  std::vector<double> y;
  for (int i = 0; i < 20; ++i) {
    double a = 1 + i, b = 3 + (i * 7) % 11;
    X.push_back({a, b, (a + b) * (1 + 1e-9 * ((i % 3) - 1)), 1});
    y.push_back(2 * a + b + 1 + 0.01 * (i % 5));
  }
  LinearFit fit;
  std::string err;
  EXPECT_FALSE(fitLinear(X, y, fit, err));
  EXPECT_NE(err.find("nearly rank deficient"), std::string::npos) << err;
  for (int i = 0; i < 20; ++i)
    X[size_t(i)][2] =
        (X[size_t(i)][0] + X[size_t(i)][1]) * (1 + 1e-3 * ((i % 3) - 1));
  ASSERT_TRUE(fitLinear(X, y, fit, err)) << err;
  for (size_t k = 0; k < 4; ++k)
    EXPECT_GT(fit.cov[k * 4 + k], 0) << k;
}

// The weights a decode iteration reads, against every routing of its
// tokens: each of B tokens chooses k of E experts, all C(E, k)^B choices
// alike; the mean number of distinct experts chosen, over all of them,
// gives the expected routed bytes read.
TEST(ServingValidation, ExpertWeightsReadByEnumeration) {
  for (auto [E, k, B] :
       {std::tuple<int, int, int>{5, 2, 3}, {4, 1, 4}, {6, 3, 2}, {8, 2, 1}}) {
    std::vector<unsigned> subsets; // the k-subsets of E experts, as masks
    for (unsigned m = 0; m < (1u << E); ++m)
      if (__builtin_popcount(m) == k)
        subsets.push_back(m);
    double outcomes = 0, touched = 0;
    std::vector<size_t> pick(size_t(B), 0);
    while (true) {
      unsigned all = 0;
      for (size_t c : pick)
        all |= subsets[c];
      touched += __builtin_popcount(all);
      ++outcomes;
      size_t i = 0;
      while (i < pick.size() && ++pick[i] == subsets.size())
        pick[i++] = 0;
      if (i == pick.size())
        break;
    }
    ServingObservation o;
    double shared = 3e9, routed = 40e9;
    o.weightBytes = shared + routed;
    o.expertBytes = routed;
    o.expertShare = double(k) / E;
    EXPECT_NEAR(weightBytesRead(o, B), shared + routed * touched / outcomes / E,
                1e-6 * routed)
        << E << " experts, " << k << " per token, " << B << " tokens";
  }
  // Dense: every weight, whatever the batch.
  ServingObservation dense;
  dense.weightBytes = 16e9;
  EXPECT_EQ(weightBytesRead(dense, 3), 16e9);
}

TEST(LinearFit, StudentQuantiles) {
  // mpmath at 30 digits: t with 1 - I_{nu/(nu+t^2)}(nu/2, 1/2) / 2 = 0.975,
  // on both sides of 500 (the incomplete beta function below, the
  // Cornish-Fisher expansion above).
  const std::pair<size_t, double> ref[] = {
      {1, 12.706204736174705},         {2, 4.3026527297494639},
      {3, 3.1824463052837096},         {5, 2.5705818356363155},
      {10, 2.2281388519862747},        {29, 2.0452296421327043},
      {30, 2.0422724563012383},        {31, 2.0395134463964085},
      {45, 2.0141033888808467},        {60, 2.0002978220142605},
      {120, 1.9799304050824408},       {200, 1.9718962236339094},
      {500, 1.9647198374673678},       {1000, 1.9623390808264085},
      {2000, 1.9611508260994380},      {100000, 1.9599877075346096},
      {1000000000, 1.9599639869123255}};
  for (auto [dof, t] : ref)
    EXPECT_NEAR(studentT975(dof), t, 1e-13 * t) << dof;
  EXPECT_EQ(studentT975(0), INFINITY);
  // Decreasing towards the normal quantile, across the switch too.
  for (size_t dof = 1; dof < 2000; ++dof)
    ASSERT_GT(studentT975(dof), studentT975(dof + 1)) << dof;
  for (size_t dof = 2000; dof < 1000000000; dof *= 10)
    ASSERT_GT(studentT975(dof), studentT975(dof * 10)) << dof;
  EXPECT_GT(studentT975(size_t(1) << 62), 1.959963984540054 - 1e-15);
}

/// A cell whose energy follows the law exactly: e = alpha q_w + P tau + c,
/// with the realized batch and tau of a memory-bound decode.
std::vector<ServingObservation> lawCell(double noise, unsigned seed,
                                        std::vector<double> caps) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> n(0, 1);
  std::vector<ServingObservation> out;
  for (double cap : caps) {
    ServingObservation o;
    o.model = "m";
    o.gpu = "H100";
    o.architecture = "dense";
    o.dataset = "synthetic";
    o.task = "t";
    o.cap = cap;
    o.batch = cap * 0.95;
    // s per iteration; the quadratic term (attention over a growing batch)
    // keeps tau from being affine in 1 / B (which would make the law's
    // columns collinear).
    double itl = 0.012 + 0.00004 * o.batch + 2e-7 * o.batch * o.batch;
    o.tau = itl / o.batch;
    o.weightBytes = 16e9;
    o.p90ItlS = 1.2 * itl;
    double qw = o.weightBytes / (1e9 * o.batch);
    o.e = (0.3 * qw + 450 * o.tau + 0.05) * (1 + noise * n(gen));
    out.push_back(o);
  }
  return out;
}

TEST(ServingValidation, TheLawIsRecoveredExactlyFromItsOwnCells) {
  auto cell = lawCell(0, 1, {8, 16, 32, 48, 64, 96, 128, 192, 256, 512});
  ValidationRun run = tokenLawHoldout(cell);
  EXPECT_EQ(run.groups, 1u);
  EXPECT_EQ(run.groupsSkipped, 0u);
  ASSERT_EQ(run.predictions.size(), 10u);
  for (const HeldOut &h : run.predictions)
    EXPECT_NEAR(h.relErr(), 0, 1e-9);
  // Too few settings per half: skipped, said so.
  ValidationRun small = tokenLawHoldout(lawCell(0, 1, {8, 16, 32, 64, 128}));
  EXPECT_EQ(small.groupsSkipped, 1u);
  EXPECT_TRUE(small.predictions.empty());
}

TEST(ServingValidation, IntervalsCoverUnderKnownNoise) {
  // 2 % multiplicative noise, 200 independent cells of 16 settings: the
  // 95 % intervals (t with 5 dof) cover 95 % +- 2.5 % of held-out points.
  std::vector<ServingObservation> all;
  std::vector<double> caps;
  for (int i = 0; i < 16; ++i)
    caps.push_back(8 * std::pow(1.3, i));
  for (unsigned c = 0; c < 200; ++c) {
    auto cell = lawCell(0.02, 100 + c, caps);
    for (auto &o : cell)
      o.model = "m" + std::to_string(c);
    all.insert(all.end(), cell.begin(), cell.end());
  }
  ValidationRun run = tokenLawHoldout(all);
  auto s = summarizeBy(run.predictions,
                       [](const HeldOut &) { return std::string("all"); });
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].n, 3200u);
  EXPECT_EQ(s[0].withInterval, 3200u);
  double coverage = double(s[0].covered) / s[0].withInterval;
  EXPECT_NEAR(coverage, 0.95, 0.025);
  // At least the noise's median |N(0, 2 %)| = 1.35 %, inflated by the
  // fit's own error on 8 rows (about sqrt(1 + 3/8)) but not beyond 1.5x.
  EXPECT_GT(s[0].medianAbs, 0.02 * 0.674);
  EXPECT_LT(s[0].medianAbs, 1.5 * 0.02 * 0.674);
}

TEST(ServingValidation, PlannerMatchesBruteForceOnAKnownCell) {
  // Energy per token falls with the cap, latency rises: the best cap under
  // an SLO is the largest whose p90 meets it. The planner trained on every
  // other setting must find it among all caps.
  std::vector<double> caps = {8, 16, 24, 32, 48, 64, 96, 128, 192, 256};
  auto cell = lawCell(0, 3, caps);
  std::vector<const ServingObservation *> train;
  for (size_t i = 0; i < cell.size(); i += 2)
    train.push_back(&cell[i]);
  // SLOs between consecutive settings' latencies (at a measured latency the
  // answer would hinge on the interpolation's last digit).
  for (size_t i = 0; i + 1 < cell.size(); ++i) {
    double slo = std::sqrt(cell[i].p90ItlS * cell[i + 1].p90ItlS);
    double bestCap = -1, bestE = INFINITY;
    for (const ServingObservation &o : cell)
      if (o.p90ItlS <= slo && o.e < bestE) {
        bestE = o.e;
        bestCap = o.cap;
      }
    EXPECT_EQ(bestCap, cell[i].cap);
    double pred = 0, hw = 0;
    std::string err;
    double cap = recommendCap(train, caps, slo, pred, hw, err);
    EXPECT_EQ(cap, bestCap) << "slo " << slo << " " << err;
    // Exact at a trained cap; at a held-out one tau is interpolated.
    EXPECT_NEAR(pred, bestE, (i % 2 ? 0.02 : 1e-6) * bestE);
  }
  double pred = 0, hw = 0;
  std::string err;
  EXPECT_LT(recommendCap(train, caps, 1e-6, pred, hw, err), 0);
  EXPECT_NE(err.find("no batch cap"), std::string::npos);
}

// The serving clock against enumeration with the simulated GPU's model
// written out here from its documentation (SimGpu.h, chooseServingClock):
// V(f) linear in f, kernel time max(F / (peak f / fmax), M / bw) + launch,
// energy static T + Ceff V(f)^2 f x compute time (switching energy of the
// compute part) + the memory's energy per byte x M; the measured
// iteration's rest beyond the kernel at fmax, R, as fmax R cycles at full
// activity. The power the model misses at fmax (the measured mean power
// per GPU, J/token over s/token over the GPUs, less E(fmax) / T(fmax))
// either scales as the model's energy or holds at every clock; a choice is
// ranked by the higher of the two, measured power above the model's and
// below it -- far below, the held account gives back at most the model's
// static power (more would take a lower clock's energy towards 0).
TEST(ServingClock, MatchesEnumerationOverCapsAndClocks) {
  SimGpu h100;
  ASSERT_TRUE(simGpuFor("h100", h100));
  ServingObservation row;
  row.gpu = "H100";
  row.gpus = row.tp = 2;
  row.flopsPerToken = 2 * 30e9;
  row.weightBytes = 60e9;
  auto model = [&](double F, double M, double R, int f) {
    double V = h100.vmin + (h100.vmax - h100.vmin) * (f - h100.fminMhz) /
                               double(h100.fmaxMhz - h100.fminMhz);
    double compute = F * h100.fmaxMhz / (h100.peakFlops * f);
    double T = std::max(compute, M / h100.memBandwidth) + h100.launchOverhead +
               R * h100.fmaxMhz / f;
    return std::pair<double, double>{
        T, h100.staticRef * T + h100.ceff * V * V * f * 1e6 * compute +
               h100.memPowerPerBandwidth * M +
               h100.ceff * V * V * R * h100.fmaxMhz * 1e6};
  };
  int missedAbove = 0, missedBelow = 0, clamped = 0, lowered = 0;
  for (double power : {1.0, 0.3, 0.05, 3.0})
    for (double slo : {0.015, 0.022, 0.03, 0.045}) {
      ServingRecommendation rec;
      rec.cell = "cell";
      // cap, measured, p90 s, J/token, excluded, realized batch, s per
      // token: latency grows and energy falls with the cap; one cheap cap
      // left out; the iteration (batch x tau) longer than the kernel.
      rec.candidates = {
          {16, true, 0.014, 0.30 * power, "", 15, 0.012 / 15},
          {64, true, 0.019, 0.14 * power, "", 60, 0.016 / 60},
          {128, false, 0.026, 0.10 * power, "", 110, 0.022 / 110},
          {256, true, 0.036, 0.08 * power, "", 200, 0.030 / 200},
          {512, true, 0.060, 0.01 * power, "over the SLO", 380, 0.05 / 380}};
      double bestE = INFINITY, bestLow = 0, bestCap = -1, bestP90 = 0;
      double bestMissed = 0;
      int bestMhz = 0;
      for (const auto &c : rec.candidates) {
        if (!c.excluded.empty())
          continue;
        double F = row.flopsPerToken * c.batch / 2, M = row.weightBytes / 2;
        double R = c.batch * c.tau - model(F, M, 0, h100.fmaxMhz).first;
        ASSERT_GT(R, 0);
        auto [T0, E0] = model(F, M, R, h100.fmaxMhz);
        double missed = c.e / c.tau / 2 - E0 / T0;
        (missed > 0 ? missedAbove : missedBelow)++;
        clamped += missed < -h100.staticRef;
        double held0 = std::max(missed, -h100.staticRef);
        for (int f = h100.fmaxMhz; f >= h100.fminMhz; f -= h100.stepMhz) {
          auto [T, E] = model(F, M, R, f);
          double scaled = E / E0, held = (E + held0 * T) / (E0 + held0 * T0);
          double p90 = c.p90 * T / T0, e = c.e * std::max(scaled, held);
          if (p90 <= slo && e < bestE * (1 - 1e-12)) {
            bestE = e;
            bestLow = c.e * std::min(scaled, held);
            bestCap = c.cap;
            bestMhz = f;
            bestP90 = p90;
            bestMissed = missed;
          }
        }
      }
      ASSERT_GE(bestCap, 0);
      std::string err;
      ASSERT_TRUE(chooseServingClock(rec, row, h100, slo, err)) << err;
      EXPECT_EQ(rec.clock.cap, bestCap) << "slo " << slo << " x" << power;
      EXPECT_EQ(rec.clock.mhz, bestMhz) << "slo " << slo << " x" << power;
      EXPECT_NEAR(rec.clock.predicted, bestE, 1e-12 * bestE);
      EXPECT_NEAR(rec.clock.predictedLow, bestLow, 1e-12 * bestE);
      EXPECT_LE(rec.clock.predictedLow, rec.clock.predicted);
      EXPECT_GT(rec.clock.predictedLow, 0);
      EXPECT_TRUE(rec.clock.meanPowerKnown());
      EXPECT_NEAR(rec.clock.missingPowerW, bestMissed,
                  1e-9 * std::abs(bestMissed));
      EXPECT_NEAR(rec.clock.predictedP90, bestP90, 1e-12 * bestP90);
      EXPECT_LE(rec.clock.predictedP90, slo);
      EXPECT_EQ(rec.clock.model, "H100-SXM5");
      lowered += rec.clock.mhz < h100.fmaxMhz;
    }
  // Both signs of the missed power were enumerated, and lower clocks chosen.
  EXPECT_GT(missedAbove, 0);
  EXPECT_GT(missedBelow, 0);
  EXPECT_GT(clamped, 0);
  EXPECT_GT(lowered, 0);
}

// Where the iteration reads its weights and computes almost nothing, a
// lower clock costs no time and saves switching energy (V^2): the lowest
// clock; another GPU's measurements are refused.
TEST(ServingClock, MemoryBoundRunsAtTheLowestClockAndOtherGpusAreRefused) {
  SimGpu h100;
  ASSERT_TRUE(simGpuFor("h100-sxm5", h100));
  ServingObservation row;
  row.gpu = "H100";
  row.flopsPerToken = 2e6;
  row.weightBytes = 16e9;
  ServingRecommendation rec;
  // An iteration the kernel explains whole (tau 0: no rest).
  rec.candidates = {{8, true, 0.01, 0.5, "", 8, 0}};
  std::string err;
  ASSERT_TRUE(chooseServingClock(rec, row, h100, 0.01, err)) << err;
  EXPECT_EQ(rec.clock.mhz, h100.fminMhz);
  EXPECT_DOUBLE_EQ(rec.clock.timeRatio, 1);
  EXPECT_LT(rec.clock.energyRatio, 1);
  // Measured 4x the kernel: the rest slows with the clock, so an SLO 10 %
  // above the p90 allows only clocks whose iteration is within 10 %.
  double kernel = h100.kernelTime(row.flopsPerToken * 8, 16e9, h100.fmaxMhz);
  rec.candidates = {{8, true, 0.01, 0.5, "", 8, 4 * kernel / 8}};
  ASSERT_TRUE(chooseServingClock(rec, row, h100, 0.011, err)) << err;
  EXPECT_GT(rec.clock.mhz, h100.fminMhz);
  EXPECT_LE(rec.clock.timeRatio, 1.1);
  EXPECT_GT(rec.clock.timeRatio, 1.0);
  row.gpu = "B200";
  EXPECT_FALSE(chooseServingClock(rec, row, h100, 0.01, err));
  EXPECT_NE(err.find("'B200'"), std::string::npos) << err;
  row.gpu = "GH200";
  SimGpu h200;
  ASSERT_TRUE(simGpuFor("h200", h200));
  EXPECT_FALSE(chooseServingClock(rec, row, h200, 0.01, err));
  // The family, but a PCIe board: not the SXM model's.
  row.gpu = "H100";
  row.gpuModel = "NVIDIA H100 PCIe";
  EXPECT_FALSE(chooseServingClock(rec, row, h100, 0.01, err));
  EXPECT_NE(err.find("'NVIDIA H100 PCIe'"), std::string::npos) << err;
}

// The power limit beside the clock is the mean power per GPU the model
// predicts there, written out from the documentation: the measured mean
// power per GPU (energy per token over time per token, over the GPUs)
// times the model's energy ratio over its time ratio at the chosen clock,
// each from SimGpu's kernel and the rest of the measured iteration as
// clock-bound cycles. Below the measured power where the clock is lowered;
// none at the highest clock or outside the settable limits.
TEST(ServingClock, PowerLimitIsTheModelsMeanPowerAtTheClock) {
  SimGpu h100;
  ASSERT_TRUE(simGpuFor("h100", h100));
  ServingObservation row;
  row.gpu = "H100";
  row.flopsPerToken = 2 * 8e9;
  row.weightBytes = 16e9;
  for (int gpus : {1, 2}) {
    row.gpus = row.tp = gpus;
    ServingRecommendation rec;
    // 0.2 J per token at 3,000 tokens/s per GPU: 600 W on each GPU.
    double B = 60, tau = 1.0 / (3000 * gpus), e = 0.2;
    rec.candidates = {{64, true, 0.02, e, "", B, tau}};
    std::string err;
    ASSERT_TRUE(chooseServingClock(rec, row, h100, 0.03, err)) << err;
    const auto &k = rec.clock;
    ASSERT_LT(k.mhz, h100.fmaxMhz);
    double F = row.flopsPerToken * B / gpus, M = 16e9 / gpus;
    double cycles =
        (B * tau - h100.kernelTime(F, M, h100.fmaxMhz)) * h100.fmaxMhz * 1e6;
    ASSERT_GT(cycles, 0);
    auto T = [&](int f) {
      return h100.kernelTime(F, M, f) + cycles / (f * 1e6);
    };
    auto E = [&](int f) {
      double V = h100.voltage(f);
      return h100.staticRef * T(f) + h100.kernelDynamicEnergy(F, M, f) +
             h100.ceff * V * V * cycles;
    };
    // The energy ratio the clock is ranked by: the higher of the model's
    // own and the one with the power it misses held at every clock.
    double measured = e / tau / gpus;
    double missed = measured - E(h100.fmaxMhz) / T(h100.fmaxMhz);
    double ratio = std::max(E(k.mhz) / E(h100.fmaxMhz),
                            (E(k.mhz) + missed * T(k.mhz)) /
                                (E(h100.fmaxMhz) + missed * T(h100.fmaxMhz)));
    double expected = measured * ratio / (T(k.mhz) / T(h100.fmaxMhz));
    EXPECT_NEAR(k.meanPowerW, expected, 1e-9 * expected);
    EXPECT_LT(k.meanPowerW, measured);
    EXPECT_EQ(k.powerLimitW, k.meanPowerW);
    // A cap whose mean power lies below the lowest settable limit has a
    // clock but no limit; nor has a clock at the highest (a tight SLO).
    rec.candidates = {{64, true, 0.02, e / 10, "", B, tau}};
    ASSERT_TRUE(chooseServingClock(rec, row, h100, 0.03, err)) << err;
    EXPECT_LT(rec.clock.meanPowerW, h100.minPowerLimit);
    EXPECT_EQ(rec.clock.powerLimitW, 0);
    rec.candidates = {{64, true, 0.02, e, "", B, tau}};
    ASSERT_TRUE(chooseServingClock(rec, row, h100, 0.02, err)) << err;
    EXPECT_EQ(rec.clock.mhz, h100.fmaxMhz);
    EXPECT_EQ(rec.clock.powerLimitW, 0);
  }
}

// An FP8 checkpoint's GEMMs run at Hopper's FP8 peak, twice its BF16 one
// (H100-SXM5 datasheet: 1,979 against 989 dense TFLOP/s): the iteration's
// kernel is that of half the FLOPs at the BF16 peak; on Ampere, which has
// no FP8 units, nothing changes.
TEST(ServingClock, Fp8ComputesAtTheFp8Peak) {
  SimGpu h100, a100;
  ASSERT_TRUE(simGpuFor("h100", h100));
  ASSERT_TRUE(simGpuFor("a100", a100));
  EXPECT_EQ(h100.fp8Speedup, 2);
  EXPECT_EQ(a100.fp8Speedup, 1);
  for (const SimGpu *gpu : {&h100, &a100}) {
    ServingObservation row;
    row.gpu = gpu == &h100 ? "H100" : "A100";
    row.flopsPerToken = 2 * 70e9;
    row.weightBytes = 70e9;
    row.fp8 = true;
    double B = 256, F = row.flopsPerToken * B / gpu->fp8Speedup;
    ServingRecommendation rec;
    rec.candidates = {{256, true, 0.05, 0.5, "", B, 0}};
    std::string err;
    ASSERT_TRUE(chooseServingClock(rec, row, *gpu, 1.0, err)) << err;
    auto energy = [&](int f) {
      return gpu->staticRef * gpu->kernelTime(F, 70e9, f) +
             gpu->kernelDynamicEnergy(F, 70e9, f);
    };
    EXPECT_NEAR(rec.clock.energyRatio,
                energy(rec.clock.mhz) / energy(gpu->fmaxMhz), 1e-12)
        << gpu->name;
    EXPECT_NEAR(rec.clock.timeRatio,
                gpu->kernelTime(F, 70e9, rec.clock.mhz) /
                    gpu->kernelTime(F, 70e9, gpu->fmaxMhz),
                1e-12)
        << gpu->name;
  }
}

// The HGX B200 by its published figures (1000 W, 2.25 dense BF16 PFLOP/s,
// FP8 twice that, 8 TB/s): it models the measurements' B200 and no other
// GPU's, and a memory-bound iteration runs at its lowest clock.
TEST(ServingClock, B200ModelsTheB200) {
  SimGpu b200;
  ASSERT_TRUE(simGpuFor("B200", b200));
  EXPECT_EQ(b200.tdp, 1000);
  EXPECT_EQ(b200.peakFlops, 2.25e15);
  EXPECT_EQ(b200.fp8Speedup, 2);
  EXPECT_EQ(b200.memBandwidth, 8e12);
  std::string err;
  SimGpu named;
  ASSERT_TRUE(simGpuForDevice("sim:b200", named, err)) << err;
  EXPECT_EQ(named.name, "B200");
  // The prefix in any case, as the C API takes it.
  ASSERT_TRUE(simGpuForDevice("SIM:B200", named, err)) << err;
  EXPECT_FALSE(simGpuForDevice("sim:b200x", named, err));
  EXPECT_NE(err.find("sim:b200)"), std::string::npos) << err;
  ServingObservation row;
  row.gpu = "B200";
  row.flopsPerToken = 2e6;
  row.weightBytes = 16e9;
  ServingRecommendation rec;
  rec.candidates = {{8, true, 0.01, 0.5, "", 8, 0}};
  ASSERT_TRUE(chooseServingClock(rec, row, b200, 0.01, err)) << err;
  EXPECT_EQ(rec.clock.mhz, b200.fminMhz);
  // No time per token: no mean power to compare the model's with.
  EXPECT_FALSE(rec.clock.meanPowerKnown());
  EXPECT_EQ(rec.clock.model, "B200");
  EXPECT_EQ(rec.clock.maxPowerLimitW, 1000);
  row.gpu = "H100";
  EXPECT_FALSE(chooseServingClock(rec, row, b200, 0.01, err));
  EXPECT_NE(err.find("'H100'"), std::string::npos) << err;
}

// A mixture of experts over data-parallel replicas with expert parallelism
// across them (vLLM's DP attention, ep = dp): each GPU reads its replica's
// 1/tp of the shared weights and 1/ep of the experts the whole batch
// reaches, X (1 - (1 - k/E)^B) -- the clock's energy ratio, at each clock,
// from those bytes by the documented model.
TEST(ServingClock, ExpertsSharedByReplicasAreReadOncePerBatch) {
  SimGpu h100;
  ASSERT_TRUE(simGpuFor("h100", h100));
  ServingObservation row;
  row.gpu = "H100";
  row.tp = 1;
  row.ep = row.dp = row.gpus = 4;
  row.weightBytes = 60e9;
  row.expertBytes = 56e9;
  row.expertShare = 8.0 / 128;
  row.flopsPerToken = 2 * 3e9;
  double B = 64;
  double bytes = 4e9 + 56e9 * (1 - std::pow(1 - 8.0 / 128, B)) / 4;
  double F = row.flopsPerToken * B / 4;
  ServingRecommendation rec;
  rec.candidates = {{64, true, 0.01, 0.5, "", B, 0}};
  std::string err;
  ASSERT_TRUE(chooseServingClock(rec, row, h100, 0.01, err)) << err;
  auto energy = [&](int f) {
    double T = h100.kernelTime(F, bytes, f);
    return h100.staticRef * T + h100.kernelDynamicEnergy(F, bytes, f);
  };
  EXPECT_NEAR(rec.clock.energyRatio,
              energy(rec.clock.mhz) / energy(h100.fmaxMhz), 1e-12);
  EXPECT_NEAR(rec.clock.timeRatio,
              h100.kernelTime(F, bytes, rec.clock.mhz) /
                  h100.kernelTime(F, bytes, h100.fmaxMhz),
              1e-12);
}

// Between two measured caps the p90 latency is interpolated linearly in the
// cap (decode latency is about affine in the batch); beyond them along the
// end segment in log-log, which stays positive.
TEST(ServingValidation, LatencyBetweenMeasuredCapsIsLinearInTheCap) {
  std::vector<double> caps = {8, 16, 32, 64, 128};
  auto cell = lawCell(0, 5, caps);
  std::vector<const ServingObservation *> train = {&cell[0], &cell[1], &cell[3],
                                                   &cell[4]};
  std::map<double, CapPrediction> byCap;
  double pred = 0, hw = 0;
  std::string err;
  recommendCap(train, caps, 1.0, pred, hw, err, &byCap);
  ASSERT_TRUE(byCap.count(32)) << err;
  double a = cell[1].p90ItlS, b = cell[3].p90ItlS;
  double linear = a + (32.0 - 16.0) / (64.0 - 16.0) * (b - a);
  EXPECT_NEAR(byCap[32].p90, linear, 1e-12);
  // The power law through the same two points is measurably higher here.
  EXPECT_GT(a * std::pow(b / a, 0.5), linear * 1.01);
  // At a measured cap, its measurement.
  EXPECT_NEAR(byCap[64].p90, b, 1e-12);
}

TEST(ServingValidation, MissReasonsFollowThePredictions) {
  // Each branch of the account, from hand-set cases: the reasons are read
  // off the predictions and the measurements, not recomputed by the
  // planner.
  PlannerCase c;
  c.sloS = 0.1;
  c.bestCap = 256;
  c.bestE = 1.0;
  EXPECT_EQ(c.missReason(),
            "no cap predicted to meet the SLO at a positive energy");
  c.chosenCap = 128;
  c.chosenE = 1.2;
  c.chosenMeetsSlo = false;
  EXPECT_EQ(c.missReason(), "latency predicted too low at the chosen cap");
  c.chosenMeetsSlo = true;
  c.bestPredP90 = 0.12; // the best cap was predicted to miss the SLO
  EXPECT_EQ(c.missReason(), "latency predicted too high at the best cap");
  c.bestPredP90 = 0.09;
  EXPECT_EQ(c.missReason(), "energy predicted lower at the chosen cap");
  c.chosenE = 1.04; // within 5 %: no miss
  EXPECT_EQ(c.missReason(), "");
}

TEST(ServingValidation, ExactCellMeetsTheTargetUpToAnUnseenLargestCap) {
  // On a cell the law fits exactly every case meets the target, including
  // the SLO whose best cap (256) is past the largest trained one (192):
  // held at 192's coordinates it would tie with 192 and lose. The recorded
  // prediction at a trained chosen cap is its measured energy.
  std::vector<double> caps = {8, 16, 24, 32, 48, 64, 96, 128, 192, 256};
  auto cell = lawCell(0, 3, caps);
  std::vector<PlannerCase> cases = plannerHoldout(cell);
  ASSERT_FALSE(cases.empty());
  for (const PlannerCase &pc : cases) {
    EXPECT_EQ(pc.missReason(), "")
        << pc.sloS << " chosen " << pc.chosenCap << " (" << pc.chosenE
        << ", predicted " << pc.chosenPredE << ") best " << pc.bestCap << " ("
        << pc.bestE << ", predicted " << pc.bestPredE << ")";
    EXPECT_GT(pc.bestPredE, 0);
    EXPECT_GT(pc.bestPredP90, 0);
    for (size_t i = 0; i < cell.size(); i += 2)
      if (cell[i].cap == pc.chosenCap)
        EXPECT_NEAR(pc.chosenPredE, cell[i].e, 1e-6 * cell[i].e);
  }
}

} // namespace
