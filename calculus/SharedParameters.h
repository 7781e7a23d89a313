//===- SharedParameters.h - correlation through shared model parameters ---===//
//
// Elements priced by one fitted model share its parameters theta (covariance
// Sigma), so their errors are correlated: a coefficient that is 5 % high is
// 5 % high for every element. The algebra composes var_d as if elements were
// independent (CALCULUS.md sections 2-3: every operator -- seq, par, multi --
// sums dynamic energy and adds var_d). For d_i = f_i(theta) with gradients
// g_i = df_i/dtheta, the composed d = sum_i d_i has gradient G = sum_i g_i
// and, to first order (exactly for models linear in theta: the Token-Energy
// Law and FLOP/byte accounting), variance G' Sigma G from the parameters.
// Each element's own var_d already holds g_i' Sigma g_i (plus any
// independent residual), so the composition's var_d needs
//
//     correction = G' Sigma G - sum_i g_i' Sigma g_i
//
// added once, at the composition whose variance is reported. Distinct
// parameter sets (different model files) are independent of each other.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_SHAREDPARAMETERS_H
#define CALCULUS_SHAREDPARAMETERS_H

#include <map>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

/// g' C g for a row-major n x n covariance C (n = g.size()).
double quadraticForm(const std::vector<double> &g,
                     const std::vector<double> &C);

/// Sums element gradients per parameter set.
class SharedParameterSums {
public:
  /// Adds `scale` x g for an element priced by parameter set `set`; false
  /// (with `err`) when its length differs from earlier gradients of the set.
  bool add(const std::string &set, const std::vector<double> &g, double scale,
           std::string &err);
  /// The var_d correction above, with each set's covariance from `cov`
  /// (row-major, size n^2), and the composed variance from the shared
  /// parameters alone (sum over sets of G' Sigma G); false (with `err`) for
  /// a set without a covariance or with one of the wrong size.
  bool correction(const std::map<std::string, std::vector<double>> &cov,
                  double &out, double &sharedVariance, std::string &err) const;
  bool empty() const { return sums.empty(); }

private:
  struct Sum {
    std::vector<double> G;     ///< sum of gradients
    std::vector<double> outer; ///< sum of g g' (row-major), for g' C g
  };
  std::map<std::string, Sum> sums;
};

} // namespace calculus
} // namespace energy

#endif // CALCULUS_SHAREDPARAMETERS_H
