//===- PowerCap.h - Choosing GPU power limits -------------------*- C++ -*-===//
//
// Zeus-style power-limit selection (You et al., NSDI'23): from a table of
// power limit -> (time, energy) measured or predicted for a job, choose the
// limit that minimizes either energy under a maximum slowdown, or Zeus's
// cost  eta * E + (1 - eta) * MAXPOWER * T  (MAXPOWER: the largest power
// the job's GPUs may draw together, i.e. the sum of their maximum limits).
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_POWERCAP_H
#define CALCULUS_POWERCAP_H

#include <cstddef>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct CapPoint {
  double cap = 0; ///< W (per GPU)
  double T = 0;   ///< s
  double E = 0;   ///< J
};

struct CapObjective {
  enum Kind { MinEnergyUnderSlowdown, ZeusCost } kind = ZeusCost;
  double maxSlowdownPct = 0; ///< over the fastest point in the table
  double eta = 0.5;          ///< Zeus's energy-time knob in [0, 1]
  double maxPower = 0;       ///< W, MAXPOWER of the cost
};

/// Index of the chosen point; false with `err` on an empty table or
/// invalid objective. Rows whose objective values are equal (to 1e-12
/// relative) go to the faster, then the cheaper, then the higher limit,
/// whatever their order in the table.
bool choosePowerCap(const std::vector<CapPoint> &table,
                    const CapObjective &objective, size_t &chosen,
                    std::string &err);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_POWERCAP_H
