//===- DagEnumerate.cpp - Exact frontiers by enumeration
//--------------------===//

#include "calculus/DagInternal.h"

#include <map>

namespace energy {
namespace calculus {
namespace dag {

/// Exact frontier by enumeration (mixed-radix counter over the Pareto
/// options; dynamic-energy sum updated for the fastest-changing task and
/// recomputed at every carry; one longest-path pass each).
void enumerateFrontier(const Dag &dag, const std::vector<TaskOptions> &opts,
                       double P, bool keepChoices,
                       std::vector<DagPoint> &frontier) {
  size_t n = opts.size();
  std::vector<uint32_t> c(n, 0);
  std::vector<double> T(n), scratch(n);
  double dsum = 0;
  for (size_t t = 0; t < n; ++t) {
    T[t] = opts[t].T[0];
    dsum += opts[t].d[0];
  }
  // Best energy (and its combination) per makespan.
  std::map<double, std::pair<double, std::vector<uint32_t>>> best;
  while (true) {
    double M = dag.forward(T, scratch);
    double E = P * M + dsum;
    auto it = best.find(M);
    if (it == best.end())
      best.emplace(
          M, std::make_pair(E, keepChoices ? c : std::vector<uint32_t>()));
    else if (E < it->second.first) {
      it->second.first = E;
      if (keepChoices)
        it->second.second = c;
    }
    size_t k = 0;
    for (; k < n; ++k) {
      dsum -= opts[k].d[c[k]];
      if (++c[k] < opts[k].T.size()) {
        T[k] = opts[k].T[c[k]];
        dsum += opts[k].d[c[k]];
        break;
      }
      c[k] = 0;
      T[k] = opts[k].T[0];
      dsum += opts[k].d[0];
    }
    if (k == n)
      break;
    // A carry: the sum afresh, so that += / -= rounding never accumulates
    // (a sum over 23 M combinations drifted by 5e-11 relative); amortized
    // O(n / options of task 0) per combination, below the longest-path pass.
    if (k > 0) {
      dsum = 0;
      for (size_t t = 0; t < n; ++t)
        dsum += opts[t].d[c[t]];
    }
  }
  for (auto &[M, v] : best) {
    DagPoint p;
    p.T = M;
    p.E = v.first;
    if (keepChoices) {
      p.choice.resize(n);
      for (size_t t = 0; t < n; ++t)
        p.choice[t] = opts[t].original[v.second[t]];
    }
    frontier.push_back(std::move(p));
  }
}

} // namespace dag
} // namespace calculus
} // namespace energy
