//===- LinearFit.cpp - OLS with HC3 covariance ----------------------------===//

#include "calculus/models/LinearFit.h"

#include <Eigen/Dense>

#include <cmath>
#include <cstdio>

namespace energy {
namespace calculus {

double LinearFit::predict(const std::vector<double> &x) const {
  double v = 0;
  for (size_t i = 0; i < coef.size(); ++i)
    v += coef[i] * x[i];
  return v;
}

double LinearFit::coefficientVariance(const std::vector<double> &x) const {
  size_t p = coef.size();
  double v = 0;
  for (size_t i = 0; i < p; ++i)
    for (size_t j = 0; j < p; ++j)
      v += x[i] * cov[i * p + j] * x[j];
  return std::max(0.0, v);
}

double LinearFit::leverage(const std::vector<double> &x) const {
  size_t p = coef.size();
  double v = 0;
  for (size_t i = 0; i < p; ++i)
    for (size_t j = 0; j < p; ++j)
      v += x[i] * xtxInverse[i * p + j] * x[j];
  return std::max(0.0, v);
}

double LinearFit::predictionHalfWidth95(const std::vector<double> &x) const {
  if (rows <= coef.size())
    return -1;
  return studentT975(rows - coef.size()) *
         std::sqrt(coefficientVariance(x) + residualVariance);
}

bool fitLinear(const std::vector<std::vector<double>> &X,
               const std::vector<double> &y, LinearFit &out, std::string &err) {
  Eigen::Index n = Eigen::Index(X.size());
  Eigen::Index p = n ? Eigen::Index(X[0].size()) : 0;
  if (p == 0 || n <= p) {
    err = "need more rows (" + std::to_string(n) + ") than coefficients (" +
          std::to_string(p) + ")";
    return false;
  }
  Eigen::MatrixXd A(n, p);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < p; ++j)
      A(i, j) = X[size_t(i)][size_t(j)];
    b(i) = y[size_t(i)];
  }
  // Columns scaled to unit norm, so that the coordinates' units (J/GB, W)
  // do not make a well-posed design look ill-conditioned.
  Eigen::VectorXd scale(p);
  for (Eigen::Index j = 0; j < p; ++j)
    scale(j) = A.col(j).norm();
  if (scale.minCoeff() == 0) {
    err = "the design is rank deficient: a coordinate is 0 in every row";
    return false;
  }
  Eigen::MatrixXd As = A * scale.cwiseInverse().asDiagonal();
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(As);
  if (qr.rank() < p) {
    err = "the design is rank deficient: the rows do not vary the "
          "coordinates independently";
    return false;
  }
  // With column pivoting |R_11| >= ... >= |R_pp|; their ratio bounds the
  // scaled design's condition number from below. Past kMaxCondition the
  // coefficients are not identified by the data (a roofline-exact sweep,
  // where one coordinate is a combination of the others up to rounding):
  // the normal equations' inverse then came out with negative variances.
  Eigen::MatrixXd R =
      qr.matrixR().topLeftCorner(p, p).triangularView<Eigen::Upper>();
  double condition = std::abs(R(0, 0)) / std::abs(R(p - 1, p - 1));
  if (!(condition <= kMaxCondition)) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "the design is nearly rank deficient (condition number "
                  "%.3g of the rows scaled per column, above %.0e): the rows "
                  "barely vary the coordinates independently, so the data "
                  "do not identify the coefficients",
                  condition, kMaxCondition);
    err = buf;
    return false;
  }
  Eigen::VectorXd beta =
      qr.solve(b).cwiseQuotient(scale); // back to the columns' own units
  // (X'X)^-1 from the factors, not by inverting X'X (which squares the
  // condition number): X_s P = Q R gives (X_s'X_s)^-1 = P R^-1 R^-T P',
  // and X = X_s D gives (X'X)^-1 = D^-1 (X_s'X_s)^-1 D^-1.
  Eigen::MatrixXd Rinv =
      R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(p, p));
  Eigen::MatrixXd P = qr.colsPermutation();
  Eigen::MatrixXd inv = P * Rinv * Rinv.transpose() * P.transpose();
  inv = scale.cwiseInverse().asDiagonal() * inv *
        scale.cwiseInverse().asDiagonal();
  Eigen::VectorXd resid = b - A * beta;
  // HC3: (X'X)^-1 X' diag(u_i^2 / (1 - h_ii)^2) X (X'X)^-1.
  Eigen::MatrixXd meat = Eigen::MatrixXd::Zero(p, p);
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::VectorXd xi = A.row(i).transpose();
    double h = xi.dot(inv * xi);
    double w = resid(i) / std::max(1e-12, 1 - h);
    meat += w * w * xi * xi.transpose();
  }
  Eigen::MatrixXd cov = inv * meat * inv;
  out.coef.assign(size_t(p), 0.0);
  out.cov.assign(size_t(p * p), 0.0);
  out.xtxInverse.assign(size_t(p * p), 0.0);
  for (Eigen::Index i = 0; i < p; ++i) {
    out.coef[size_t(i)] = beta(i);
    for (Eigen::Index j = 0; j < p; ++j) {
      out.cov[size_t(i * p + j)] = cov(i, j);
      out.xtxInverse[size_t(i * p + j)] = inv(i, j);
    }
  }
  Eigen::VectorXd fitted = A * beta;
  out.relativeRss = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    if (fitted(i) != 0)
      out.relativeRss += std::pow(resid(i) / fitted(i), 2);
  out.residualVariance = resid.squaredNorm() / double(n - p);
  out.rows = size_t(n);
  return true;
}

/// The regularized incomplete beta function I_x(a, b), by its continued
/// fraction (DLMF 8.17.22) evaluated with the modified Lentz method, on
/// the side of x where it converges fast (I_x(a, b) = 1 - I_{1-x}(b, a),
/// DLMF 8.17.4; Numerical Recipes 3rd ed., section 6.4).
static double incompleteBeta(double a, double b, double x) {
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  if (x > (a + 1) / (a + b + 2))
    return 1 - incompleteBeta(b, a, 1 - x);
  double front =
      std::exp(a * std::log(x) + b * std::log1p(-x) -
               (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b))) /
      a;
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < tiny ? tiny : d);
  double f = d;
  for (int m = 1; m <= 100000; ++m) {
    // The even step, then the odd one (DLMF 8.17.23).
    for (int odd = 0; odd < 2; ++odd) {
      double num =
          odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
              : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      d = 1 + num * d;
      d = 1 / (std::fabs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      if (std::fabs(c) < tiny)
        c = tiny;
      f *= c * d;
      if (odd && std::fabs(c * d - 1) < 1e-16)
        return front * f;
    }
  }
  return front * f;
}

double studentT975(size_t dof) {
  if (dof == 0)
    return INFINITY;
  if (dof > 500) {
    // Beyond, the incomplete beta function's log-gamma terms lose digits
    // (near nu / 2 ln nu, they cancel), and the Cornish-Fisher expansion
    // around the normal quantile to 1 / nu^4 (Abramowitz & Stegun 26.7.5)
    // is within 1.2e-14 of the quantile at 500 and closer beyond.
    double z = 1.959963984540054, n = double(dof), z2 = z * z;
    double g1 = (z2 + 1) * z / 4, g2 = ((5 * z2 + 16) * z2 + 3) * z / 96,
           g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384,
           g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z /
                92160;
    return z + (g1 + (g2 + (g3 + g4 / n) / n) / n) / n;
  }
  // P(|T| > t) = I_{nu / (nu + t^2)}(nu / 2, 1 / 2) (DLMF 8.17.10's
  // relation to Student's t): the x where it is 0.05, by bisection (I_x
  // increases with x), and t from it.
  double nu = double(dof), lo = 0, hi = 1;
  for (int i = 0; i < 200 && lo < hi; ++i) {
    double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi)
      break;
    (incompleteBeta(nu / 2, 0.5, mid) < 0.05 ? lo : hi) = mid;
  }
  double x = 0.5 * (lo + hi);
  return std::sqrt(nu * (1 - x) / x);
}

} // namespace calculus
} // namespace energy
