//===- PowerCap.cpp - Choosing GPU power limits ---------------------------===//

#include "calculus/PowerCap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace energy {
namespace calculus {

bool choosePowerCap(const std::vector<CapPoint> &table, const CapObjective &obj,
                    size_t &chosen, std::string &err) {
  if (table.empty()) {
    err = "the power-limit table is empty";
    return false;
  }
  for (const CapPoint &p : table)
    if (!(p.cap > 0) || !(p.T > 0) || !(p.E >= 0)) {
      err = "every table row needs a positive power limit and time and a "
            "non-negative energy";
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
      if (cost < best) {
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
    if (table[i].T <= limit * (1 + 1e-12) && table[i].E < best) {
      best = table[i].E;
      chosen = i;
    }
  return true;
}

} // namespace calculus
} // namespace energy
