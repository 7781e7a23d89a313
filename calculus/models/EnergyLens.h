//===- EnergyLens.h - EnergyLens closed-form inference energy ---*- C++ -*-===//
//
// EnergyLens (summary in the project's reading list), Eq. 4: energy of an
// inference run over total input tokens N_in, max output tokens N_out,
// batch size B and tensor/pipeline parallel degrees t, p,
//
//   E = a_p N_in  / (B^b_p + e_p) t^g1_p p^g2_p
//     + a_d N_out / (B^b_d + e_d) t^g1_d p^g2_d + delta_1 t + delta_2 p,
//
// twelve parameters (a_p, b_p, e_p, g1_p, g2_p, a_d, b_d, e_d, g1_d, g2_d,
// delta_1, delta_2). Fitted by bounded nonlinear least squares on relative
// residuals (Eigen's Levenberg-Marquardt, bounds by the MINUIT change of
// variables), with the Jacobian covariance s^2 (J'J)^-1 at the optimum.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MODELS_ENERGYLENS_H
#define CALCULUS_MODELS_ENERGYLENS_H

#include <array>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct EnergyLensRow {
  double inputTokens = 0, maxTokens = 0, batch = 1, tp = 1, pp = 1;
  double e = 0;     ///< measured energy (J)
  std::string cell; ///< configuration cell (holdout)
};

struct EnergyLens {
  static constexpr int kParams = 12;
  static const char *const kNames[kParams];
  /// Bounds used by the fit (lower, upper; upper = inf for one-sided).
  static const double kLower[kParams], kUpper[kParams];

  std::array<double, kParams> phi{};
  std::array<double, kParams * kParams> cov{};
  /// The directions of parameter space the fit's rows do not move (the
  /// null space of the fit's Jacobian, orthonormal): a TP or PP exponent
  /// where every row has tp = pp = 1, or the split between two overheads
  /// that only ever add up. A prediction whose gradient has a part along
  /// one is not determined by the data (unidentifiedAt).
  std::vector<std::array<double, kParams>> nullSpace;
  /// Whether the rows determine parameter `i` (none of it in nullSpace):
  /// one that is not keeps the fit's start and an infinite standard error.
  bool identified(int i) const;
  size_t rows = 0;
  double rmsRelative = 0; ///< RMS relative residual on the fitted rows
  /// The relative residual's standard deviation, sqrt(RSS_rel / (n - 12))
  /// (the in-sample RMS understates it by sqrt(n / (n - 12))): a new run's
  /// energy differs from the prediction by about this times E besides the
  /// coefficients' uncertainty (0 when not known: a model file without
  /// "relative_residual_sd").
  double relativeResidualSd = 0;

  double predict(const EnergyLensRow &r) const;
  /// Delta-method variance of a prediction: g' Cov g.
  double predictionVariance(const EnergyLensRow &r) const;
  /// d predict / d phi (central differences), the g of g' Cov g.
  std::array<double, kParams> gradient(const EnergyLensRow &r) const;
  /// Infinite where the parameter is not identified.
  double standardError(int i) const;
  /// Where a prediction at `r` depends on a direction the fit did not
  /// identify: the parameter with the largest part in that direction; -1
  /// if the prediction is determined by the data.
  int unidentifiedAt(const EnergyLensRow &r) const;
};

/// Evaluates Eq. 4 at parameters `phi`.
double energyLens(const double *phi, const EnergyLensRow &r);

/// Bounded nonlinear least squares from several starts; false with `err`
/// when there are fewer rows than parameters, a row is not positive, or no
/// start converges.
bool fitEnergyLens(const std::vector<EnergyLensRow> &rows, EnergyLens &out,
                   std::string &err);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MODELS_ENERGYLENS_H
