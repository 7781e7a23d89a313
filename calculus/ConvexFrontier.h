//===- ConvexFrontier.h - Exact frontier of the convex relaxation -*- C++
//-*-===//
//
// The time-cost tradeoff of a scheduled DAG with each task's options
// replaced by their lower convex hull is a linear program:
//
//   min  P M + sum_i h_i(t_i)
//   s.t. S_j >= S_i + t_i + lag      (finish-to-start dependency)
//        S_j >= S_i + lag            (start-to-start)
//        S_i >= release_i,  S_i + t_i <= M <= D,  t_i in [T_i,min, T_i,max]
//
// with h_i the task's hull (convex, decreasing from its fastest option to
// its least-energy one). Its dual is a minimum-cost flow (Fulkerson 1961,
// Kelley 1961): for a flow x of value F from a source (every task's start)
// to a sink (every task's finish) through the tasks and the dependency arcs,
//
//   LB(D) = G(x) + (P - F) R,   G(x) = sum_i g_i(x_i) + sum_arcs lag f,
//   g_i(x) = min_k (d_ik + x T_ik),  R = D if F > P else the fastest makespan,
//
// bounds the energy of every configuration, discrete or not, with makespan
// <= D (weak duality: multiply each constraint by its flow and add). Let
// G(F) be the largest G(x) over flows of value F: concave, piecewise
// linear, with slope L(F) = the longest source-sink path in the residual
// network under the durations the flow prices select. Successive longest
// augmenting paths (Busacker-Gowen; with potentials, every search is a
// Dijkstra) compute G(F) exactly, breakpoint by breakpoint, from F = 0
// (every task at its least-energy hull vertex, L = the slowest useful
// makespan) until L reaches the fastest makespan. Strong LP duality makes
// max over F of G(F) + (P - F) D the optimum of the relaxation at D: the
// exact convex frontier at every deadline in one sweep, and the certificate
// (a lower bound) for the discrete problem.
//
// The potentials at each level L are optimal start times (complementary
// slackness): a task carrying flow inside a hull segment runs at that
// vertex's time, one at a breakpoint anywhere on the segment between two
// vertices, one without flow at its least-energy time. They give the
// relaxation's optimal durations at deadline L, which the discrete frontier
// rounds to real options.
//
// MLIR-free; docs/FRONTIER.md states what is exact, a bound or a heuristic.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_CONVEXFRONTIER_H
#define CALCULUS_CONVEXFRONTIER_H

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace energy {
namespace calculus {

/// A task's lower convex hull in (T, d), slowest vertex first: T strictly
/// decreasing, d increasing, and the slopes (d_k - d_{k-1}) / (T_{k-1} -
/// T_k) increasing. Built from Pareto options (T ascending, d descending).
struct ConvexHull {
  std::vector<double> T, d;
  std::vector<uint32_t> index; ///< each vertex's index in the options
  ConvexHull() = default;
  ConvexHull(const std::vector<double> &T, const std::vector<double> &d);
  /// min_k (d_k + f T_k), the task's Lagrangian at price f >= 0.
  double lagrangian(double f) const;
};

/// A precedence between two tasks of the relaxation.
struct ConvexArc {
  uint32_t from, to;
  bool startToStart = false; ///< else finish-to-start
  double lag = 0;            ///< s
};

struct ConvexProblem {
  std::vector<ConvexHull> tasks;
  std::vector<ConvexArc> arcs; ///< acyclic
  std::vector<double> release; ///< per task, >= 0 (empty: all 0)
};

/// One breakpoint of G: the flow value F (W), G(F) (J) and the slope of G
/// just past F, the longest residual path L (s).
struct ConvexBreakpoint {
  double F, G, L;
  /// Floating-point error terms: G may exceed the exact value of its flow's
  /// Lagrangian by up to errC + errF x M at makespan M.
  double errC = 0, errF = 0;
  /// The bound's (C, F) with the errors folded in: C + (P - F) M is a valid
  /// lower bound at every makespan M <= D (M = D if F > P, else the fastest).
  std::pair<double, double> bound() const;
};

struct ConvexFrontier {
  /// F increasing from 0, L non-increasing; G concave in F.
  std::vector<ConvexBreakpoint> breakpoints;
  /// The makespan with every task at its fastest option, and whether the
  /// sweep got there (false: the work budget ran out first; the bounds hold
  /// but are weaker below the last level).
  double fastest = 0;
  bool complete = false;
  uint64_t augmentations = 0;
  /// The relaxation's optimum at deadline D >= fastest with static power P:
  /// a lower bound on the energy of every configuration with makespan <= D.
  double lowerBound(double D, double P) const;
  /// The flow of value P inside segment k (between breakpoints k and k +
  /// 1), as bound() gives it; nullopt when P is not inside.
  std::optional<std::pair<double, double>> flowAtP(size_t k, double P) const;
};

/// The parametric sweep. `levels` (descending makespans, may be empty):
/// for each, `onLevel(L, durations)` is called once with the relaxation's
/// optimal durations at the first level L <= it (a schedule of makespan
/// L). `workBudget` bounds the node visits of the searches (0: none).
/// Returns false with `err` on a malformed problem (empty hull, a cycle,
/// arcs out of range, non-finite numbers).
bool convexFrontier(
    const ConvexProblem &problem, const std::vector<double> &levels,
    const std::function<void(double L, const std::vector<double> &durations)>
        &onLevel,
    uint64_t workBudget, ConvexFrontier &out, std::string &err);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_CONVEXFRONTIER_H
