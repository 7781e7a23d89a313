//===- MonteCarlo.h - refit spread vs reported standard errors --*- C++ -*-===//
//
// Test helper: given K refits (parameters and their reported standard
// errors), the ratio, per parameter, of the refits' sample standard
// deviation to the mean reported standard error. 1 when the fit's error
// model is right.
//
//===----------------------------------------------------------------------===//

#ifndef TEST_UNIT_MONTECARLO_H
#define TEST_UNIT_MONTECARLO_H

#include <array>
#include <cmath>
#include <vector>

template <size_t P>
std::array<double, P>
spreadOverReportedError(const std::vector<std::array<double, P>> &fits,
                        const std::vector<std::array<double, P>> &errors) {
  const double K = double(fits.size());
  std::array<double, P> ratio{};
  for (size_t i = 0; i < P; ++i) {
    double mean = 0, var = 0, se = 0;
    for (size_t k = 0; k < fits.size(); ++k) {
      mean += fits[k][i] / K;
      se += errors[k][i] / K;
    }
    for (auto &f : fits)
      var += (f[i] - mean) * (f[i] - mean) / (K - 1);
    ratio[i] = std::sqrt(var) / se;
  }
  return ratio;
}

#endif // TEST_UNIT_MONTECARLO_H
