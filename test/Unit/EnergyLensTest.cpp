//===- EnergyLensTest.cpp - EnergyLens closed form and its fit ------------===//

#include "calculus/models/EnergyLens.h"
#include "MonteCarlo.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

using namespace energy::calculus;

namespace {

// Ground truth in the paper's terms: prefill amortizes sublinearly with
// batch, decode nearly linearly, TP costs synchronization (gamma_1 > 0
// for decode), PP keeps devices powered (delta_2).
const double kTruth[12] = {0.02, 0.6, 0.5, -0.2, 0.1, 0.5,
                           0.9,  2.0, 0.3, 0.15, 3.0, 5.0};

std::vector<EnergyLensRow> synthetic(uint64_t seed, double noise) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> n01(0, 1);
  std::vector<EnergyLensRow> rows;
  for (double B : {1, 2, 4, 8, 16, 32, 64})
    for (double prompt : {128.0, 1024.0})
      for (double out : {64.0, 512.0})
        for (double tp : {1, 2, 4, 8})
          for (double pp : {1, 2, 4}) {
            EnergyLensRow r{B * prompt, out, B, tp, pp, 0, ""};
            r.cell = std::to_string(int(B)) + "/" +
                     std::to_string(int(prompt)) + "/" +
                     std::to_string(int(out)) + "/" + std::to_string(int(tp)) +
                     "/" + std::to_string(int(pp));
            r.e = energyLens(kTruth, r) * (1 + noise * n01(g));
            rows.push_back(r);
          }
  return rows;
}

TEST(EnergyLens, ClosedFormByHand) {
  // B = 4, t = 2, p = 1: prefill 0.02 * 4096 / (4^0.5 + 0) * 2^-1 = 20.48;
  // decode 0.5 * 100 / (4^1 + 1) * 2^1 = 20; overhead 3 * 2 + 5 * 1 = 11.
  double phi[12] = {0.02, 0.5, 0, -1, 0.1, 0.5, 1, 1, 1, 0.2, 3, 5};
  EnergyLensRow r{4096, 100, 4, 2, 1, 0, ""};
  EXPECT_NEAR(energyLens(phi, r), 20.48 + 20 + 11, 1e-12);
}

TEST(EnergyLens, NoiselessFitReproducesTheData) {
  std::vector<EnergyLensRow> rows = synthetic(1, 0);
  EnergyLens m;
  std::string err;
  ASSERT_TRUE(fitEnergyLens(rows, m, err)) << err;
  EXPECT_LT(m.rmsRelative, 1e-4);
  for (const EnergyLensRow &r : rows)
    EXPECT_NEAR(m.predict(r) / r.e, 1, 1e-3) << r.cell;
}

TEST(EnergyLens, NoisyFitPredictsHeldOutCellsAndCoversTruth) {
  std::vector<EnergyLensRow> rows = synthetic(7, 0.02);
  std::vector<EnergyLensRow> train, test;
  for (size_t i = 0; i < rows.size(); ++i)
    (i % 5 == 4 ? test : train).push_back(rows[i]);
  EnergyLens m;
  std::string err;
  ASSERT_TRUE(fitEnergyLens(train, m, err)) << err;
  EXPECT_NEAR(m.rmsRelative, 0.02, 0.005); // residuals at the noise level
  for (const EnergyLensRow &r : test) {
    double truth = energyLens(kTruth, r);
    // The fitted surface is within 4 prediction standard errors of the
    // noiseless truth (delta method) and within 3% of it.
    double se = std::sqrt(m.predictionVariance(r));
    EXPECT_LT(std::fabs(m.predict(r) - truth), 4 * se + 1e-9) << r.cell;
    EXPECT_NEAR(m.predict(r) / truth, 1, 0.03) << r.cell;
  }
  // Every parameter lies within 3 standard errors of the truth.
  for (int i = 0; i < EnergyLens::kParams; ++i)
    EXPECT_LT(std::fabs(m.phi[i] - kTruth[i]), 3 * m.standardError(i) + 1e-12)
        << EnergyLens::kNames[i] << " = " << m.phi[i] << " +- "
        << m.standardError(i);
}

TEST(EnergyLens, WhatTheRowsDoNotMoveIsNotIdentified) {
  // Every row on one GPU (tp = pp = 1): the four TP/PP exponents move no
  // prediction and delta_1 t + delta_2 p is one constant, so those six are
  // not identified (a pseudo-inverse alone gave them +- 0); a task at tp =
  // 1 is still determined, one at tp = 2 is not. With tp and pp varied
  // (the full synthetic set) all twelve are.
  std::vector<EnergyLensRow> rows = synthetic(7, 0.02), one;
  for (const EnergyLensRow &r : rows)
    if (r.tp == 1 && r.pp == 1)
      one.push_back(r);
  EnergyLens m;
  std::string err;
  ASSERT_TRUE(fitEnergyLens(one, m, err)) << err;
  for (int i = 0; i < EnergyLens::kParams; ++i) {
    std::string name = EnergyLens::kNames[i];
    bool expected = name.rfind("gamma", 0) != 0 && name.rfind("delta", 0) != 0;
    EXPECT_EQ(m.identified(i), expected) << name;
    EXPECT_EQ(std::isinf(m.standardError(i)), !expected) << name;
  }
  EnergyLensRow at1 = one.front(), at2 = one.front();
  at2.tp = 2;
  EXPECT_EQ(m.unidentifiedAt(at1), -1);
  EXPECT_NE(m.unidentifiedAt(at2), -1);
  ASSERT_TRUE(fitEnergyLens(rows, m, err)) << err;
  for (int i = 0; i < EnergyLens::kParams; ++i)
    EXPECT_TRUE(m.identified(i)) << EnergyLens::kNames[i];
}

TEST(EnergyLens, JacobianErrorsMatchMonteCarloOfRefits) {
  // 50 independent noisy data sets: the spread of the refitted parameters
  // matches the standard errors the fit reports (relative sampling error of
  // a 50-sample standard deviation is ~10%; the band is +-35%).
  constexpr int kRefits = 50;
  std::vector<std::array<double, 12>> fits, errors;
  for (int k = 0; k < kRefits; ++k) {
    EnergyLens m;
    std::string err;
    ASSERT_TRUE(fitEnergyLens(synthetic(100 + uint64_t(k), 0.02), m, err))
        << err;
    fits.push_back(m.phi);
    errors.emplace_back();
    for (int i = 0; i < 12; ++i)
      errors.back()[size_t(i)] = m.standardError(i);
  }
  std::array<double, 12> ratio = spreadOverReportedError(fits, errors);
  for (int i = 0; i < 12; ++i)
    EXPECT_NEAR(ratio[size_t(i)], 1, 0.35) << EnergyLens::kNames[i];
}

TEST(EnergyLens, RejectsTooFewOrNonPositiveRows) {
  EnergyLens m;
  std::string err;
  std::vector<EnergyLensRow> rows = synthetic(1, 0);
  rows.resize(12);
  EXPECT_FALSE(fitEnergyLens(rows, m, err));
  EXPECT_NE(err.find("more than 12 rows"), std::string::npos);
  rows = synthetic(1, 0);
  rows[3].e = 0;
  EXPECT_FALSE(fitEnergyLens(rows, m, err));
  EXPECT_NE(err.find("e > 0"), std::string::npos);
}

} // namespace
