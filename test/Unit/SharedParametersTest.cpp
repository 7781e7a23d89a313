//===- SharedParametersTest.cpp - correlation through model parameters ----===//
//
// Elements priced by one fitted model share its parameters. The checks: the
// correction by hand, and a Monte Carlo over the parameters themselves --
// draw theta ~ N(theta_hat, Sigma), price every element with that draw, sum
// -- against the calculus's composition plus the correction.
//
//===----------------------------------------------------------------------===//

#include "calculus/SharedParameters.h"
#include "calculus/Signature.h"
#include "calculus/models/TokenLaw.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace energy::calculus;

namespace {

TEST(SharedParameters, CorrectionByHand) {
  // g1 = (1, 0), g2 = (0, 2), C = [[4, 1], [1, 9]]:
  // g1'C g1 = 4, g2'C g2 = 36; G = (1, 2), G'C G = 4 + 2*2*1 + 9*4 = 44.
  SharedParameterSums sums;
  std::string err;
  ASSERT_TRUE(sums.add("m", {1, 0}, 1, err)) << err;
  ASSERT_TRUE(sums.add("m", {0, 1}, 2, err)) << err;
  double corr, shared;
  ASSERT_TRUE(sums.correction({{"m", {4, 1, 1, 9}}}, corr, shared, err)) << err;
  EXPECT_DOUBLE_EQ(shared, 44);
  EXPECT_DOUBLE_EQ(corr, 44 - 40);
  // Independent sets add; a set without a covariance is an error.
  ASSERT_TRUE(sums.add("other", {3}, 1, err));
  ASSERT_TRUE(sums.correction({{"m", {4, 1, 1, 9}}, {"other", {2}}}, corr,
                              shared, err));
  EXPECT_DOUBLE_EQ(shared, 44 + 18);
  EXPECT_DOUBLE_EQ(corr, 4); // one element per set in "other": no cross term
  EXPECT_FALSE(sums.correction({{"m", {4, 1, 1, 9}}}, corr, shared, err));
  EXPECT_NE(err.find("'other' has no covariance"), std::string::npos) << err;
  EXPECT_FALSE(sums.add("m", {1, 2, 3}, 1, err)) << "length mismatch";
}

// Decode iterations priced by one token law, composed in sequence on one
// device: the composed sigma with the correction matches the spread of the
// total over draws of the coefficients; the independent composition alone
// is far too narrow.
TEST(SharedParameters, TokenLawMonteCarlo) {
  TokenLaw law;
  law.coef = {0.02, 3e-7, 0.4, 0.05};
  // Sigma = L L' with correlated coefficients.
  const double L[4][4] = {{0.002, 0, 0, 0},
                          {-1e-8, 2e-8, 0, 0},
                          {0.01, 0.005, 0.02, 0},
                          {-0.003, 0.001, 0.002, 0.004}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double c = 0;
      for (int k = 0; k < 4; ++k)
        c += L[i][k] * L[j][k];
      law.cov[size_t(i * 4 + j)] = c;
    }
  std::vector<double> cov(law.cov.begin(), law.cov.end());

  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(0, 1);
  const double s = 80;
  struct Iter {
    double B, qw, qkv, tau, T;
  };
  std::vector<Iter> iters;
  for (int i = 0; i < 60; ++i) {
    double B = 1 + std::floor(31 * u(gen));
    double T = 0.01 + 0.03 * u(gen);
    iters.push_back({B, 1 / B, 1e5 * (1 + 9 * u(gen)), T / B, T});
  }
  Signature total;
  SharedParameterSums sums;
  std::string err;
  CompositionError cerr;
  for (size_t i = 0; i < iters.size(); ++i) {
    const Iter &it = iters[i];
    double e = law.predict(it.qw, it.qkv, it.tau);
    double var = it.B * it.B * law.predictionVariance(it.qw, it.qkv, it.tau);
    Signature el = Signature::measured(s, it.T, it.B * e - s * it.T, 0, var,
                                       DeviceSet::single(0));
    total = i == 0 ? el : seq(total, el, cerr);
    ASSERT_FALSE(cerr) << cerr.message;
    auto g = TokenLaw::gradient(it.qw, it.qkv, it.tau);
    ASSERT_TRUE(sums.add("law", {g.begin(), g.end()}, it.B, err)) << err;
  }
  double corr, shared;
  ASSERT_TRUE(sums.correction({{"law", cov}}, corr, shared, err)) << err;
  double independent = total.sigmaE();
  double correlated = std::sqrt(total.varE + corr);

  // Monte Carlo over the coefficients.
  std::normal_distribution<double> n01(0, 1);
  const int draws = 200000;
  double mean = 0, m2 = 0;
  for (int k = 0; k < draws; ++k) {
    double z[4], c[4];
    for (double &x : z)
      x = n01(gen);
    for (int i = 0; i < 4; ++i) {
      c[i] = law.coef[size_t(i)];
      for (int j = 0; j <= i; ++j)
        c[i] += L[i][j] * z[j];
    }
    double E = 0;
    for (const Iter &it : iters)
      E += it.B * (c[0] * it.qw + c[1] * it.qkv + c[2] * it.tau + c[3]);
    double delta = E - mean;
    mean += delta / (k + 1);
    m2 += delta * (E - mean);
  }
  double mc = std::sqrt(m2 / (draws - 1));
  EXPECT_NEAR(correlated / mc, 1, 0.01);
  EXPECT_NEAR(std::sqrt(shared) / mc, 1, 0.01) << "all of it is shared here";
  EXPECT_LT(independent / mc, 0.5) << "independent composition too narrow";
}

} // namespace
