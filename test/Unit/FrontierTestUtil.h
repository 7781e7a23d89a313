//===- FrontierTestUtil.h - helpers shared by the frontier tests -*- C++
//-*-===//

#ifndef TEST_UNIT_FRONTIERTESTUTIL_H
#define TEST_UNIT_FRONTIERTESTUTIL_H

#include "calculus/DagFrontier.h"

#include <cmath>
#include <utility>
#include <vector>

namespace energy {
namespace calculus {
namespace testing {

/// Best energy among `front` points with T <= t (infinity if none).
inline double bestAt(const std::vector<std::pair<double, double>> &front,
                     double t) {
  double best = INFINITY;
  for (auto &[T, E] : front)
    if (T <= t + 1e-12)
      best = std::min(best, E);
  return best;
}

/// Each task's fastest option.
inline std::vector<uint32_t>
fastestChoices(const std::vector<std::vector<Option>> &opts) {
  std::vector<uint32_t> fastest(opts.size(), 0);
  for (size_t t = 0; t < opts.size(); ++t)
    for (uint32_t k = 0; k < opts[t].size(); ++k)
      if (opts[t][k].T < opts[t][fastest[t]].T)
        fastest[t] = k;
  return fastest;
}

} // namespace testing
} // namespace calculus
} // namespace energy

#endif // TEST_UNIT_FRONTIERTESTUTIL_H
