//===- TokenLawTest.cpp - the Token-Energy Law fit ------------------------===//

#include "calculus/models/TokenLaw.h"
#include "MonteCarlo.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

using namespace energy::calculus;

namespace {

// Synthetic cells over batch, history and time per output with known
// coefficients (alpha 0.9 J/GB, beta 1.1 J/GB, P_tau 400 W, c 0.05 J) and
// heteroskedastic noise (sigma proportional to the energy).
std::vector<TokenLawRow> synthetic(uint64_t seed, double noise) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> n01(0, 1);
  std::vector<TokenLawRow> rows;
  const double Mw = 15e9, Kkv = 57344; // a 7B model: 15 GB, 56 KiB/token
  for (double B : {1, 2, 4, 8, 16, 32})
    for (double L : {512.0, 2048.0, 8192.0})
      for (int rep = 0; rep < 5; ++rep) {
        double tau = 0.004 / std::sqrt(B) * (1 + 0.2 * rep);
        DecodeCoordinates x = decodeCoordinates(Mw, Kkv, B, L, tau);
        double e = 0.9 * x.qw + 1.1 * x.qkv + 400 * x.tau + 0.05;
        rows.push_back({x.qw, x.qkv, x.tau, e * (1 + noise * n01(g)),
                        std::to_string(int(B)) + "/" + std::to_string(int(L))});
      }
  return rows;
}

TEST(TokenLaw, Coordinates) {
  // q_w = M_w / (1e9 B); q_kv = K (L + 1) / 1e9; tau as given.
  DecodeCoordinates x = decodeCoordinates(15e9, 131072, 10, 999, 0.002);
  EXPECT_DOUBLE_EQ(x.qw, 1.5);
  EXPECT_DOUBLE_EQ(x.qkv, 0.131072);
  EXPECT_DOUBLE_EQ(x.tau, 0.002);
}

TEST(TokenLaw, NoiselessDataGivesTheCoefficientsExactly) {
  TokenLaw law;
  std::string err;
  ASSERT_TRUE(fitTokenLaw(synthetic(1, 0), law, err)) << err;
  EXPECT_NEAR(law.coef[0], 0.9, 1e-9);
  EXPECT_NEAR(law.coef[1], 1.1, 1e-9);
  EXPECT_NEAR(law.coef[2], 400, 1e-6);
  EXPECT_NEAR(law.coef[3], 0.05, 1e-9);
  EXPECT_LT(law.predictionVariance(1, 1, 0.001), 1e-18);
}

TEST(TokenLaw, RecoversCoefficientsWithinTheirStandardErrors) {
  TokenLaw law;
  std::string err;
  ASSERT_TRUE(fitTokenLaw(synthetic(7, 0.02), law, err)) << err;
  const double truth[4] = {0.9, 1.1, 400, 0.05};
  for (int i = 0; i < 4; ++i) {
    EXPECT_GT(law.standardError(i), 0);
    EXPECT_LT(std::fabs(law.coef[i] - truth[i]), 4 * law.standardError(i))
        << "coefficient " << i;
  }
}

TEST(TokenLaw, Hc3ErrorsMatchMonteCarloOfRefits) {
  // 200 independent noisy data sets (heteroskedastic: sigma proportional
  // to e): the spread of the refitted coefficients matches the mean HC3
  // standard error. A 200-sample SD has ~5% sampling error and HC3 is
  // slightly conservative at n = 90; the band is +-25%.
  constexpr int kRefits = 200;
  std::vector<std::array<double, 4>> fits, errors;
  for (int k = 0; k < kRefits; ++k) {
    TokenLaw law;
    std::string err;
    ASSERT_TRUE(fitTokenLaw(synthetic(1000 + uint64_t(k), 0.02), law, err))
        << err;
    fits.push_back(law.coef);
    errors.emplace_back();
    for (int i = 0; i < 4; ++i)
      errors.back()[size_t(i)] = law.standardError(i);
  }
  std::array<double, 4> ratio = spreadOverReportedError(fits, errors);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(ratio[size_t(i)], 1, 0.25) << "coefficient " << i;
}

// HC3 by an independent computation: plain loops and Gauss-Jordan on a
// small design.
TEST(TokenLaw, Hc3MatchesAHandComputedSandwich) {
  std::vector<TokenLawRow> rows{
      {1, 0.1, 0.001, 2.0, ""},   {2, 0.3, 0.002, 3.1, ""},
      {0.5, 0.2, 0.004, 2.2, ""}, {3, 0.5, 0.001, 4.4, ""},
      {1.5, 0.9, 0.003, 3.9, ""}, {0.7, 0.4, 0.005, 2.9, ""},
      {2.5, 0.6, 0.002, 4.1, ""}};
  TokenLaw law;
  std::string err;
  ASSERT_TRUE(fitTokenLaw(rows, law, err));
  const int n = rows.size(), p = 4;
  double X[7][4], y[7];
  for (int i = 0; i < n; ++i) {
    double x[4] = {rows[i].qw, rows[i].qkv, rows[i].tau, 1};
    for (int j = 0; j < p; ++j)
      X[i][j] = x[j];
    y[i] = rows[i].e;
  }
  // (X'X)^-1 by Gauss-Jordan.
  double A[4][8] = {};
  for (int r = 0; r < p; ++r) {
    for (int c = 0; c < p; ++c)
      for (int i = 0; i < n; ++i)
        A[r][c] += X[i][r] * X[i][c];
    A[r][p + r] = 1;
  }
  for (int c = 0; c < p; ++c) {
    int piv = c;
    for (int r = c + 1; r < p; ++r)
      if (std::fabs(A[r][c]) > std::fabs(A[piv][c]))
        piv = r;
    for (int k = 0; k < 2 * p; ++k)
      std::swap(A[c][k], A[piv][k]);
    double d = A[c][c];
    for (int k = 0; k < 2 * p; ++k)
      A[c][k] /= d;
    for (int r = 0; r < p; ++r)
      if (r != c) {
        double f = A[r][c];
        for (int k = 0; k < 2 * p; ++k)
          A[r][k] -= f * A[c][k];
      }
  }
  double inv[4][4];
  for (int r = 0; r < p; ++r)
    for (int c = 0; c < p; ++c)
      inv[r][c] = A[r][p + c];
  double beta[4] = {};
  for (int r = 0; r < p; ++r)
    for (int c = 0; c < p; ++c)
      for (int i = 0; i < n; ++i)
        beta[r] += inv[r][c] * X[i][c] * y[i];
  double meat[4][4] = {};
  for (int i = 0; i < n; ++i) {
    double fit = 0, h = 0;
    for (int j = 0; j < p; ++j)
      fit += X[i][j] * beta[j];
    for (int r = 0; r < p; ++r)
      for (int c = 0; c < p; ++c)
        h += X[i][r] * inv[r][c] * X[i][c];
    double w = (y[i] - fit) / (1 - h);
    for (int r = 0; r < p; ++r)
      for (int c = 0; c < p; ++c)
        meat[r][c] += w * w * X[i][r] * X[i][c];
  }
  for (int r = 0; r < p; ++r) {
    EXPECT_NEAR(law.coef[r], beta[r], 1e-9 * std::max(1.0, std::fabs(beta[r])));
    for (int c = 0; c < p; ++c) {
      double v = 0;
      for (int a = 0; a < p; ++a)
        for (int b = 0; b < p; ++b)
          v += inv[r][a] * meat[a][b] * inv[b][c];
      EXPECT_NEAR(law.cov[r * p + c], v, 1e-9 * std::max(1.0, std::fabs(v)));
    }
  }
}

TEST(TokenLaw, RejectsDegenerateDesigns) {
  TokenLaw law;
  std::string err;
  EXPECT_FALSE(fitTokenLaw({{1, 1, 1, 1, ""}}, law, err));
  std::vector<TokenLawRow> flat(10, {1, 1, 1, 1, ""});
  EXPECT_FALSE(fitTokenLaw(flat, law, err));
  EXPECT_NE(err.find("q_w is 1 in every row"), std::string::npos) << err;
  // One coordinate constant (a fixed workload's KV term): named.
  std::vector<TokenLawRow> fixedKv;
  for (int i = 0; i < 10; ++i)
    fixedKv.push_back({1.0 + i, 0.03, 0.01 * (1 + i % 3), 2.0 + i, ""});
  EXPECT_FALSE(fitTokenLaw(fixedKv, law, err));
  EXPECT_NE(err.find("q_kv is 0.03 in every row"), std::string::npos) << err;
  // Coordinates that vary but only together stay rank deficient.
  std::vector<TokenLawRow> together;
  for (int i = 0; i < 10; ++i)
    together.push_back({1.0 + i, 2.0 + 2 * i, 3.0 + 3 * i, 1.0 + i, ""});
  EXPECT_FALSE(fitTokenLaw(together, law, err));
  EXPECT_NE(err.find("rank deficient"), std::string::npos) << err;
}

} // namespace
