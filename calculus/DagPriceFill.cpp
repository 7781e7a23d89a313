//===- DagPriceFill.cpp - Fastest and price points
//--------------------------===//

#include "calculus/DagInternal.h"

namespace energy {
namespace calculus {
namespace dag {

/// Cheap configurations across the whole range (a truncated sweep's gap):
/// every task at its fastest option, and for `prices` dynamic-energy prices
/// lambda (J per second, geometric between the tasks' smallest and largest
/// hull slopes) every task at the option minimizing d + lambda T; each then
/// slowed within its float (latestStartFill, then freeFloatFill). O(prices
/// x (options + V + E)); real
/// configurations, joined to the frontier only where they are Pareto.
/// Every task at its fastest option (the fastest makespan), then slowed
/// within its float.
DagPoint filledFastest(const Dag &dag, const std::vector<TaskOptions> &opts,
                       double P, bool keepChoices) {
  Sweep fast(dag, opts, FillRule::SlowestFitsPerSecond);
  fast.floatFill();
  return fast.point(P, keepChoices);
}

void priceFill(const Dag &dag, const std::vector<TaskOptions> &opts, double P,
               bool keepChoices, int prices, std::vector<DagPoint> &out) {
  out.push_back(filledFastest(dag, opts, P, keepChoices));
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const TaskOptions &o : opts)
    for (size_t k = 1; k < o.T.size(); ++k) {
      double slope =
          (o.d[k - 1] - o.d[k]) / std::max(o.T[k] - o.T[k - 1], 1e-15);
      lo = std::min(lo, slope);
      hi = std::max(hi, slope);
    }
  if (!(hi > 0) || !(lo < hi))
    return;
  lo = std::max(lo, hi * 1e-6);
  for (int i = 0; i < prices; ++i) {
    double lambda = lo * std::pow(hi / lo, (i + 0.5) / prices);
    Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
    for (uint32_t t = 0; t < opts.size(); ++t) {
      const TaskOptions &o = opts[t];
      uint32_t best = 0;
      for (uint32_t k = 1; k < o.T.size(); ++k)
        if (o.d[k] + lambda * o.T[k] < o.d[best] + lambda * o.T[best])
          best = k;
      sw.set(t, best);
    }
    sw.makespan = dag.forward(sw.T, sw.es);
    sw.floatFill();
    out.push_back(sw.point(P, keepChoices));
  }
}

} // namespace dag
} // namespace calculus
} // namespace energy
