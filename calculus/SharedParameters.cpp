//===- SharedParameters.cpp - correlation through shared parameters -------===//

#include "calculus/SharedParameters.h"

#include <algorithm>

namespace energy {
namespace calculus {

double quadraticForm(const std::vector<double> &g,
                     const std::vector<double> &C) {
  size_t n = g.size();
  double v = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      v += g[i] * C[i * n + j] * g[j];
  return v;
}

bool SharedParameterSums::add(const std::string &set,
                              const std::vector<double> &g, double scale,
                              std::string &err) {
  Sum &s = sums[set];
  size_t n = g.size();
  if (s.G.empty()) {
    s.G.assign(n, 0);
    s.outer.assign(n * n, 0);
  } else if (s.G.size() != n) {
    err = "parameter set '" + set + "': gradient of length " +
          std::to_string(n) + " after gradients of length " +
          std::to_string(s.G.size());
    return false;
  }
  // sum_i g_i' C g_i = <C, sum_i g_i g_i'>: accumulate the outer products
  // so that the covariance is needed only once, at the end.
  for (size_t i = 0; i < n; ++i) {
    double gi = scale * g[i];
    s.G[i] += gi;
    for (size_t j = 0; j < n; ++j)
      s.outer[i * n + j] += gi * scale * g[j];
  }
  return true;
}

bool SharedParameterSums::correction(
    const std::map<std::string, std::vector<double>> &cov, double &out,
    double &sharedVariance, std::string &err) const {
  out = 0;
  sharedVariance = 0;
  for (const auto &[set, s] : sums) {
    auto it = cov.find(set);
    size_t n = s.G.size();
    if (it == cov.end() || it->second.size() != n * n) {
      err = "parameter set '" + set + "' has " +
            (it == cov.end()
                 ? std::string("no covariance")
                 : "a covariance of " + std::to_string(it->second.size()) +
                       " entries, not " + std::to_string(n * n));
      return false;
    }
    const std::vector<double> &C = it->second;
    double each = 0;
    for (size_t k = 0; k < n * n; ++k)
      each += C[k] * s.outer[k];
    double whole = quadraticForm(s.G, C);
    sharedVariance += whole;
    out += whole - each;
  }
  return true;
}

} // namespace calculus
} // namespace energy
