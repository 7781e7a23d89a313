//===- TokenLaw.h - The Token-Energy Law for dense decode -------*- C++ -*-===//
//
// Token-energy-law paper, section 4: GPU-board energy per useful output
// token of dense, full-history decoding,
//   e = alpha q_w + beta q_kv + P_tau tau + c,
//   q_w = M_w / (1e9 B_eff),  q_kv = K_kv (Lbar_token + 1) / 1e9,
//   tau = D / T (seconds per useful output),
// alpha and beta in J per decimal GB, P_tau in W. Fitted by OLS with HC3
// heteroskedasticity-robust covariance (MacKinnon & White 1985), which
// propagates into each prediction's variance: var_e = x' Cov x.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MODELS_TOKENLAW_H
#define CALCULUS_MODELS_TOKENLAW_H

#include <array>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct TokenLawRow {
  double qw = 0, qkv = 0, tau = 0, e = 0; ///< coordinates and J per token
  std::string cell;                       ///< configuration cell (holdout)
};

struct TokenLaw {
  /// alpha, beta, P_tau, c.
  std::array<double, 4> coef{};
  /// HC3 covariance of the coefficients (row-major 4 x 4).
  std::array<double, 16> cov{};
  /// The residual variance of a run's e about the law, (J/token)^2: RSS /
  /// (n - 4). A new run's e differs from the law's by this much besides
  /// the coefficients' uncertainty (its prediction interval's second term).
  double residualVariance = 0;
  size_t rows = 0;

  double predict(double qw, double qkv, double tau) const;
  /// Variance of the prediction from the coefficients' covariance.
  double predictionVariance(double qw, double qkv, double tau) const;
  /// d predict / d coef = (qw, qkv, tau, 1): the prediction is linear in
  /// the coefficients.
  static std::array<double, 4> gradient(double qw, double qkv, double tau) {
    return {qw, qkv, tau, 1};
  }
  double standardError(int i) const;
};

/// OLS fit with HC3 covariance; false with `err` when the design is rank
/// deficient or too small.
bool fitTokenLaw(const std::vector<TokenLawRow> &rows, TokenLaw &out,
                 std::string &err);

/// The law's coordinates of a decode iteration (or a trace): useful outputs
/// per iteration, token-weighted attended history, seconds per output.
/// `weightBytes` is what the iteration reads: the whole model for a dense
/// one; for a mixture of experts, the caller's (the measured cells use
/// weightBytesRead, ServingValidation.h, the expected read of the experts
/// its tokens reach; a workload's model file gives its M_w as it stands).
struct DecodeCoordinates {
  double qw, qkv, tau;
};
DecodeCoordinates decodeCoordinates(double weightBytes, double kvBytesPerToken,
                                    double batch, double meanHistory,
                                    double secondsPerOutput);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MODELS_TOKENLAW_H
