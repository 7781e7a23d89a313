//===- PowerCap.cpp - Choosing GPU power limits ---------------------------===//

#include "calculus/PowerCap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace energy {
namespace calculus {

/// Whether row a is to be chosen over row b at the same objective value:
/// the faster, then the cheaper, then the higher limit (Zeus profiles from
/// the highest limit down and keeps the first minimum), so that the choice
/// does not depend on the rows' order and never falls on a row another
/// dominates.
static bool preferredOnTie(const CapPoint &a, const CapPoint &b) {
  if (a.T != b.T)
    return a.T < b.T;
  if (a.E != b.E)
    return a.E < b.E;
  return a.cap > b.cap;
}

/// Whether `value` (of row i) improves on `best` (of row `chosen`): less,
/// or equal to 1e-12 relative and preferred on the tie.
static bool better(double value, double best, const std::vector<CapPoint> &t,
                   size_t i, size_t chosen) {
  if (!std::isfinite(best))
    return true;
  double tol = 1e-12 * std::max(std::abs(value), std::abs(best));
  if (value < best - tol)
    return true;
  return value <= best + tol && preferredOnTie(t[i], t[chosen]);
}

bool choosePowerCap(const std::vector<CapPoint> &table, const CapObjective &obj,
                    size_t &chosen, std::string &err) {
  if (table.empty()) {
    err = "the power-limit table is empty";
    return false;
  }
  for (const CapPoint &p : table)
    if (!(p.cap > 0) || !(p.T > 0) || !(p.E > 0)) {
      err = "every table row needs a positive power limit, time and energy";
      return false;
    }
  double best = std::numeric_limits<double>::infinity();
  if (obj.kind == CapObjective::ZeusCost) {
    if (!(obj.eta >= 0 && obj.eta <= 1) || !(obj.maxPower > 0)) {
      err = "Zeus's cost needs eta in [0, 1] and a positive MAXPOWER";
      return false;
    }
    for (size_t i = 0; i < table.size(); ++i) {
      // NSDI'23, Eq. 2: eta * ETA + (1 - eta) * MAXPOWER * TTA.
      double cost =
          obj.eta * table[i].E + (1 - obj.eta) * obj.maxPower * table[i].T;
      if (better(cost, best, table, i, chosen)) {
        best = cost;
        chosen = i;
      }
    }
    return true;
  }
  if (!(obj.maxSlowdownPct >= 0)) {
    err = "the maximum slowdown must be non-negative";
    return false;
  }
  double fastest = std::numeric_limits<double>::infinity();
  for (const CapPoint &p : table)
    fastest = std::min(fastest, p.T);
  double limit = fastest * (1 + obj.maxSlowdownPct / 100);
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].T <= limit * (1 + 1e-12) &&
        better(table[i].E, best, table, i, chosen)) {
      best = table[i].E;
      chosen = i;
    }
  return true;
}

} // namespace calculus
} // namespace energy
