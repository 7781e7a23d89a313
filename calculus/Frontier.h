//===- Frontier.h - Time-energy frontiers of compositions -------*- C++ -*-===//
//
// Operating sets and Pareto frontiers composed with the three operators
// (CALCULUS.md section 5; the paper's section 5 and Appendix H.2).
//
// Representation. A frontier is kept in *window* coordinates: each point is
// (T, x) with x = E - sbar * T, the energy in excess of holding the
// element's devices idle (sbar = their idle static power) for T. An element
// that finishes before a parallel makespan M keeps its devices idle at sbar
// until M, so its cost in the window is sbar * M + x: only (T, x) matter,
// and a point slower than the element's own minimum-energy point can be
// optimal for the composite (slack-to-energy conversion). For an option
// with static power s != sbar, x = d + (s - sbar) T is exactly H.2's
// split: dynamic energy plus the static difference over the active period;
// the window term sbar (M - T) is the third part.
//
//  - seq (same devices): T and x add; Pareto of the Minkowski sum.
//  - par / multi: E(M) = S * M + sum_i x_i with S the idle power of the
//    union of devices (drawn once for par, per device for multi). For every
//    candidate window M (each operand point's T) every operand takes its
//    cheapest point with T <= M; the result sits at the actual makespan.
//    This covers every Pareto point (replacing each operand's choice with
//    its cheapest within the optimum's makespan never costs more).
//  - The (T, E) frontier of a root is the Pareto-min of E = sbar T + x; it
//    ends on the right at the energy-minimizing makespan.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_FRONTIER_H
#define CALCULUS_FRONTIER_H

#include "calculus/Signature.h"

#include <cstdint>
#include <vector>

namespace energy {
namespace calculus {

/// One choice of an operating set: time, dynamic energy and the static
/// power drawn while it runs (which may depend on the operating point).
struct Option {
  double T = 0, d = 0, s = 0;
};

struct FrontierPoint {
  double T; ///< makespan, s
  double x; ///< energy in excess of idling the devices for T, J
};

struct Frontier {
  double sbar = 0; ///< idle static power of the device set, W
  DeviceSet devices;
  /// Sorted by T ascending with x strictly descending (Pareto-min in the
  /// window coordinates).
  std::vector<FrontierPoint> points;

  double energy(const FrontierPoint &p) const { return sbar * p.T + p.x; }
};

/// Keeps the Pareto-minimal points (T ascending, x strictly descending).
void paretoPrune(std::vector<FrontierPoint> &points);

/// The frontier of one element's operating set on devices with idle static
/// power `sbar`.
Frontier elementFrontier(const std::vector<Option> &options, double sbar,
                         DeviceSet devices);

/// Sequential composition: Pareto-min of the Minkowski sum. Operands must
/// share their device set (and so sbar); `err` is set otherwise.
Frontier seqFrontier(const Frontier &a, const Frontier &b,
                     CompositionError &err);

/// Parallel composition with the slack-aware rule. `sameDevice` selects par
/// (one device: idle power drawn once; operands must share devices) versus
/// multi (disjoint device sets; idle power summed).
Frontier parallelFrontier(const std::vector<const Frontier *> &operands,
                          bool sameDevice, CompositionError &err);

/// The (T, E) Pareto frontier of a composition, fastest first; the last
/// point is the energy-minimizing makespan.
std::vector<std::pair<double, double>> timeEnergy(const Frontier &f);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_FRONTIER_H
