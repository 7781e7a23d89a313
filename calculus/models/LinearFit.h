//===- LinearFit.h - OLS with HC3 covariance and prediction intervals -*- C++
//-*-===//
//
// y = X b + u by least squares (column-pivoted QR), with the HC3
// heteroskedasticity-robust covariance of b (MacKinnon & White 1985) and the
// residual variance s^2 = RSS / (n - p); a new point's prediction variance
// is x' Cov x + s^2 and its 95 % interval uses Student's t with n - p
// degrees of freedom. The providers' fits (Token-Energy Law, calibrated
// FLOP/byte accounting) are linear in their coefficients and use this.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MODELS_LINEARFIT_H
#define CALCULUS_MODELS_LINEARFIT_H

#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct LinearFit {
  std::vector<double> coef;
  std::vector<double> cov;        ///< HC3, row-major p x p
  double residualVariance = 0;    ///< RSS / (n - p); 0 when n == p
  std::vector<double> xtxInverse; ///< (X'X)^-1, row-major p x p
  /// sum over the rows of (residual / fitted)^2 (relative residuals)
  double relativeRss = 0;
  size_t rows = 0;

  /// x' (X'X)^-1 x: a new point's leverage.
  double leverage(const std::vector<double> &x) const;

  double predict(const std::vector<double> &x) const;
  /// x' Cov x (the coefficients' uncertainty only).
  double coefficientVariance(const std::vector<double> &x) const;
  /// Half-width of the 95 % prediction interval for a new observation at x
  /// (negative when n == p: no residual degrees of freedom).
  double predictionHalfWidth95(const std::vector<double> &x) const;
};

/// The largest condition number of the column-scaled design a fit accepts:
/// beyond it a coefficient's variance is inflated ~10^12 over an
/// orthogonal design's, and rounding decides the estimate.
constexpr double kMaxCondition = 1e6;

/// Fails with `err` when there are no more rows than columns or the design
/// is rank deficient, or nearly (kMaxCondition).
bool fitLinear(const std::vector<std::vector<double>> &X,
               const std::vector<double> &y, LinearFit &out, std::string &err);

/// The 97.5 % quantile of Student's t with `dof` degrees of freedom (the
/// two-sided 95 % interval's factor), within about 1e-14 of it: from the
/// regularized incomplete beta function to 500, the Cornish-Fisher
/// expansion beyond; infinite at 0.
double studentT975(size_t dof);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MODELS_LINEARFIT_H
