//===- DagFrontier.h - Time-energy frontiers of scheduled DAGs --*- C++ -*-===//
//
// A schedule's frontier is a time-cost tradeoff over its dependency DAG
// (pipelines are not series-parallel) with
//   E = P * makespan + sum_i d_i(option_i),  P = sum of device static power
// (Perseus's "blocking power" model). The discrete problem is NP-hard.
//
// Algorithms (docs/FRONTIER.md): a crash sweep from the energy-minimal end
// (minimum cuts of the critical subgraph, Phillips-Dessouky style, several
// disjoint ones per max-flow while the critical subgraph cannot change),
// seeded sweeps from its states (medium schedules) and, on small schedules,
// a forward deadline sweep with continuation; large schedules with repeated
// structure (pipelines' microbatches) get the class sweep instead (lane
// busy-time budgets spent per class on convex hulls, ramp tasks priced at
// the bottleneck's marginal rate, every configuration measured exactly).
// Start from every task's fastest option; for increasing deadlines D, fill
// slack greedily: compute earliest starts and latest finishes against D
// (O(V + E) with dependency and stream-order edges), and move the task whose
// slower option buys the largest dynamic-energy saving per second of its own
// slack; repeat until no move fits. A solution for D stays feasible for
// D' > D, so the sweep never undoes work: the whole frontier costs
// O(moves x (V + E)) where moves <= tasks x options.
//
// Series-parallel schedules (chains, fork-joins, independent devices; any
// size) are solved exactly through their decomposition: series composition
// is the Pareto of the Minkowski sum, parallel takes each side's cheapest
// point within every window.
//
// Small problems are solved exactly instead: when enumerating every
// combination of the tasks' Pareto options costs at most `exactBudget`
// longest-path steps (product x (V + E)), the frontier is the exact one;
// `DagFrontierResult::exact` says which method produced it.
//
// Certified gaps: every flow f through the DAG (finish-to-start edges; each
// source-sink path's durations add up to at most the makespan M) gives, for
// every configuration with M <= D,
//   E = P M + sum_i d_i >= sum_i min_k (d_ik + f_i T_ik) + (P - F) M
// with F the flow's value (sum_i f_i t_i <= F M), hence a lower bound
// (taking M = D when F > P, the fastest makespan when F <= P). The crash
// sweep's minimum-cut flows are such flows. Up to `convexAbove` task
// options the best of all such flows -- the exact optimum of the convex
// relaxation at every deadline (ConvexFrontier.h) -- certifies every point,
// and the relaxation's optimal schedules, rounded to real options and
// refilled, join the union; where it does not run or complete, up to
// 50,000 task options (and for truncated and class-swept frontiers at any
// size, at up to 32 deadlines, at most 2^32 / (80 x task options) of them,
// at least one) the bound is maximized over chain flows by projected
// subgradient ascent.
// Each frontier point carries the best bound found.
//
// Release times (ScheduleTask::release) delay a task's earliest start in
// every method; makespans count from the schedule's start.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_DAGFRONTIER_H
#define CALCULUS_DAGFRONTIER_H

#include "calculus/Frontier.h"
#include "calculus/Schedule.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace energy {
namespace calculus {

struct DagPoint {
  double T = 0;                 ///< makespan, s
  double E = 0;                 ///< P * T + sum of d, J
  std::vector<uint32_t> choice; ///< per task, index into its options
  /// A certified lower bound on the least energy of any configuration with
  /// makespan <= T (E itself when the frontier is exact); NaN if none.
  double lowerBound = std::numeric_limits<double>::quiet_NaN();
};

/// The most deadlines a sweep step may give between the fastest and the
/// slowest makespans (dagFrontier refuses a smaller step).
constexpr double kMaxSweepDeadlines = 1e6;

struct DagFrontierSettings {
  /// Deadline increment of the sweep, s (0: 1/1000 of the fastest makespan;
  /// at most kMaxSweepDeadlines deadlines).
  double step = 0;
  /// Floor every option time to a multiple of this (Perseus uses 1 ms); 0
  /// keeps exact times.
  double quantum = 0;
  /// Keep the choice vector of every frontier point (for planning).
  bool keepChoices = true;
  /// Enumerate exactly when (product of the tasks' Pareto option counts) x
  /// (tasks + edges) is at most this (0: never). The default covers 12
  /// tasks x 4 options with their edges, about a second here.
  uint64_t exactBudget = uint64_t(1) << 30;
  /// Also run the crash sweep from the energy-minimal end (min-cut steps on
  /// the critical subgraph); its points join the Pareto union.
  bool crash = true;
  /// Work budget of the crash sweep, in visits (each step visits every task
  /// a few times, the max-flow's nodes and arcs as Dinic scans them, and
  /// every pass of the fill after the cut); 0: none.
  /// When it runs out the sweep stops where it is and the frontier gets the
  /// fastest configuration and 32 price points (each task at its option
  /// minimizing d + lambda T, then slowed within its float) instead of
  /// the sweep's points in between (`DagFrontierResult::truncated`). The
  /// default, 2^31, is about 10 s on 64 stages x 64 microbatches x 73
  /// options here and far beyond what 8 x 64 or 16 x 64 need (0.8 s, 5.5 s).
  /// (Before the max-flow's and the fill's visits were counted, 64 x 64 ran
  /// 71 s, and 16 x 256 over 120 s, within the same budget.)
  uint64_t crashWorkBudget = uint64_t(1) << 31;
  /// Work budget, in task visits of the fill, of the deadline sweep's
  /// exhaustive refinement on small schedules (up to 2,000 task options):
  /// past it the sweep refines sparsely, as on larger schedules. An
  /// exhaustive refine at every deadline costs ~ deadlines x tasks x options
  /// x fill passes; 2^28 is about a second here (64 tasks x 11 clocks ran
  /// 15 s without a bound).
  uint64_t refineVisitBudget = uint64_t(1) << 28;
  /// Up to this many task options the three deadline sweeps run (one per
  /// fill rule, merged) and refine exhaustively: small random DAGs need
  /// them; on larger schedules they add nothing measurable once the crash
  /// sweep has run (Bloom, 4 x 32 and 8 x 64 x 73: the same frontier) and
  /// cost up to 40 times more.
  uint64_t forwardSweepsUpTo = 2000;
  /// Up to this many task options: seeded sweeps from the crash sweep's
  /// states, sparse refinement, and filling the frontier's holes (and the
  /// caller's deadline) from the best point below -- each O(tasks x fill).
  uint64_t refineUpTo = 20000;
  /// Up to this many tasks: stretches of the heuristic frontier certified
  /// well above the points on either side get mixes of those points'
  /// configurations (docs/FRONTIER.md), whose choices are kept for it
  /// where the caller does not keep them; larger schedules get none.
  uint64_t mixUpTo = 4096;
  /// Where the convex relaxation did not run or complete, up to this many
  /// task options the certificate takes subgradient-maximized flows at 64
  /// deadlines (larger schedules: only truncated or class-swept ones, 250
  /// steps at up to 32 deadlines, at most 2^32 / (80 x task options) of
  /// them, at least one).
  uint64_t subgradientUpTo = 50000;
  /// Called as the work proceeds (phase name, fraction of the phase done,
  /// frontier points so far, the makespan the phase has reached or NaN),
  /// for progress on a terminal; may be empty.
  std::function<void(const char *phase, double fraction, size_t points,
                     double makespan)>
      progress;
  /// Above this many task options (summed over tasks, each task's (T, d)
  /// Pareto set), a schedule with repeated structure -- (device, stream)
  /// lanes whose tasks share few distinct operating sets, classes of many
  /// tasks (`classMinPerLane`), as a pipeline's microbatches make -- gets the
  /// class sweep instead of the crash sweep (docs/FRONTIER.md): `classBudgets`
  /// + 1 lane busy-time budgets from the slowest to the fastest, each a real
  /// configuration. On the synthetic Perseus profile at a 10 ms quantum the
  /// crash sweep takes 0.8 s on 8 stages x 64 microbatches (25,408 Pareto
  /// options) and 5.5 s on 16 x 64 (50,304), but 71 s on 64 x 64 (199,744)
  /// and over 120 s on 16 x 256 (201,216): 2^16 sends those to the class sweep.
  uint64_t classSweepAbove = uint64_t(1) << 16;
  /// The class sweep's budgets (plus one), and how many tasks per lane a
  /// class must hold on average for the structure to count as repeated: a
  /// pipeline's ramps take about one task of each class per lane (stage),
  /// so 2 leaves at least half of every class to the steady state (64
  /// stages x 1,024 microbatches: 16 per lane; 16 x 256: 8; 64 x 64: 1 --
  /// all ramp, the uniform choice is weak there: certified gap 14.7 %).
  /// Large schedules take fewer: at most 2^24 / tasks (at least 100) where
  /// the flows' averaged configurations fill the frontier between the
  /// budgets' points (the convex relaxation not run: above `convexAbove`).
  int classBudgets = 500;
  double classMinPerLane = 2;
  /// Schedules of at least this many tasks are solved renumbered in a
  /// wavefront (topological, first-in-first-out) order, for the memory
  /// locality of every pass over the tasks (64 x 1,024 pipeline: 34 s ->
  /// 29 s, bench/RESULTS.md); the choices are mapped back.
  size_t renumberFrom = size_t(1) << 15;
  /// Series-parallel schedules are solved exactly through their
  /// decomposition while the frontier compositions cost at most this many
  /// point pairs (0: never).
  uint64_t seriesParallelBudget = uint64_t(1) << 27;
  /// A deadline the caller will plan against, filled from the best point
  /// below it (the greedy slack fill, then local search, up to 20,000 task
  /// options; above, the linear total- and free-float fills), so that the
  /// frontier has a point at it: absolute (s, 0: none) or relative to the
  /// fastest makespan (fraction, negative: none). Heuristic frontiers only,
  /// with keepChoices; up to 20,000 task options, gaps between consecutive
  /// points wider than 0.5 % of their time are filled the same way.
  double fillDeadline = 0, fillSlowdown = -1;
  /// At those caller deadlines the filled configuration is then improved
  /// by simulated annealing (DagAnneal.cpp; one seeded run,
  /// skipped where the budget buys fewer than 16 proposals per task) within
  /// this many task and edge visits (0: none); 2^30 is about a second here.
  uint64_t annealVisits = uint64_t(1) << 30;
  /// The convex relaxation (ConvexFrontier.h) on heuristic frontiers of up
  /// to `convexAbove` task options: its flows certify the points, and its
  /// optimal schedules at `convexLevels` makespans from the slowest to the
  /// fastest, rounded to real options and refilled, join the union. Its
  /// searches stop after `convexWorkBudget` node visits (0: none). The
  /// default covers what the crash sweep covers (`classSweepAbove`): on
  /// the synthetic 16 stages x 256 microbatches x 73 options (about 600,000
  /// task options) it takes 60 s against the class sweep's 1.7 s (worst
  /// certified gap 0.83 % against 1.25 %).
  /// And of up to `convexTasks` tasks: its seeds' fills cost tasks x moves
  /// each, and on a 3-clock pipeline of 10,000 tasks the relaxation took
  /// 58 s for a worse plan than the sweeps' in 8.6 s (within 3.0 % against
  /// 0.9 %); Perseus's profiles have at most 1,536 tasks.
  bool convex = true;
  uint64_t convexAbove = uint64_t(1) << 16;
  size_t convexTasks = 2048;
  size_t convexLevels = 500;
  /// Seeds from the relaxation go where the frontier found so far is more
  /// than this fraction above the relaxation's bound.
  double convexSeedGap = 1e-3;
  /// A seed still more than this fraction above the bound after rounding
  /// down and refilling is repaired: nearest options, crashed back to the
  /// deadline in at most `convexRepairSteps` minimum cuts, refilled
  /// (DagFrontier.cpp; its cost and gains in bench/RESULTS.md: 16 steps
  /// lose most of the gains).
  double convexRepairGap = 3e-3;
  size_t convexRepairSteps = 64;
  /// Task visits of the convex relaxation's seeds' fills (DagFrontier.cpp):
  /// past it the remaining levels are not seeded.
  uint64_t seedVisitBudget = uint64_t(1) << 30;
  uint64_t convexWorkBudget = uint64_t(1) << 32;
};

/// How a frontier was obtained.
struct DagFrontierResult {
  bool exact = false;          ///< the frontier is the exact one
  bool seriesParallel = false; ///< exact through a series-parallel
                               ///< decomposition (else by enumeration)
  uint64_t combinations = 0;   ///< the product of Pareto option counts
                               ///< (saturating at 2^64 - 1)
  /// The largest (E - lowerBound) / lowerBound over the frontier: 0 when
  /// exact; from the Lagrangian bounds otherwise.
  double worstGap = 0;
  /// The makespan of the point where it occurs (NaN without bounds).
  double worstGapAt = std::numeric_limits<double>::quiet_NaN();
  /// The crash sweep ran out of its work budget: between `gapFrom` (the
  /// frontier's fastest point) and `gapTo` (where the sweep stopped), s,
  /// the frontier holds only price points (DagFrontierSettings).
  bool truncated = false;
  double gapFrom = 0, gapTo = 0;
  /// Why: the work budget ran out, the step guard was reached, or a sweep
  /// ended above the fastest makespan (closed with price points).
  enum class Truncation { None, WorkBudget, StepGuard, AboveFastest };
  Truncation truncation = Truncation::None;
  /// Obtained by the class sweep (DagFrontierSettings::classSweepAbove).
  bool classSweep = false;
  /// The bounds include the convex relaxation's exact optimum (the best
  /// any flow gives; DagFrontierSettings::convex).
  bool convexBound = false;
  /// The certified lower bounds found (heuristic frontiers): each holds at
  /// every makespan M as C + (P - F) x (F > P ? M : the fastest makespan),
  /// P the schedule's static power.
  std::vector<std::pair<double, double>> flows; ///< (C, F)
  double staticPower = 0, fastestMakespan = 0;
  /// The best certified bound on the energy of any configuration with a
  /// makespan of at most T (non-increasing in T); NaN without bounds.
  double lowerBoundAt(double T) const;
};

/// The (T, E) frontier of a schedule whose task t may run at any of
/// `options[t]` (the schedule's own durations are ignored). Dependencies and
/// stream order come from `sched`; fixed starts are ignored (a plan moves
/// tasks). Points are Pareto-min, fastest first, ending at the
/// energy-minimizing makespan. Returns false with `err` on an empty
/// operating set or a cycle.
bool dagFrontier(const Schedule &sched,
                 const std::vector<std::vector<Option>> &options,
                 const DagFrontierSettings &settings,
                 std::vector<DagPoint> &frontier, std::string &err,
                 DagFrontierResult *result = nullptr);

/// The configuration `choice` (an index into each task's `options`)
/// improved at deadline D as the options are given, with no quantum: its
/// slack up to D taken (the greedy fill and local search up to
/// `settings.refineUpTo` task options, the linear total- and free-float
/// fills above), then simulated annealing within `settings.annealVisits`.
/// A plan searched on floored times (a quantum) runs on the real ones,
/// where the frontier's point filled at the deadline may no longer fit and
/// the point that does stops short of it. Returns false where `choice`
/// itself runs past D (or on a malformed input, with `err`).
bool improveAtDeadline(const Schedule &sched,
                       const std::vector<std::vector<Option>> &options,
                       const std::vector<uint32_t> &choice, double D,
                       const DagFrontierSettings &settings, DagPoint &out,
                       std::string &err);

/// What one clock switch costs on a device (its `energy.switch`).
struct SwitchCost {
  bool declared = false;
  double T = 0, d = 0;
};

/// The schedule with each task at `choice` and its clock switches
/// (docs/PLAN.md): on each (device, stream) lane, in program order, a
/// single-device task whose clock (`clocks[t][option]`, -1 for none) differs
/// from the lane's previous clocked task counts one switch; where its device
/// declares a cost, a switch task of that cost runs on the lane just before
/// it (waiting for nothing else, so it may hide in idle time), as
/// --energy-emit-dvfs inserts it. Returns P * makespan + sum of d (switches
/// included), the makespan from the schedule's start in `makespan` and the
/// number of switches in `switches`.
double dagEnergyWithSwitches(const Schedule &sched,
                             const std::vector<std::vector<Option>> &options,
                             const std::vector<uint32_t> &choice,
                             const std::vector<std::vector<int64_t>> &clocks,
                             const std::vector<SwitchCost> &deviceCost,
                             double quantum, double *makespan,
                             uint32_t *switches);

/// Energy of the schedule with each task at `choice` (interval accounting
/// with the blocking-power model): P * makespan + sum of d.
double dagEnergy(const Schedule &sched,
                 const std::vector<std::vector<Option>> &options,
                 const std::vector<uint32_t> &choice, double quantum,
                 double *makespan = nullptr);

/// What a plan minimizes among the frontier points within its limit:
/// energy, E x T (EDP), E x T^2 (ED2P), or Zeus's cost eta E + (1 - eta)
/// MAXPOWER T (Zeus, NSDI '23, its energy-time knob eta in [0, 1] and
/// MAXPOWER the job's GPUs' highest power limits summed, W).
struct PlanObjective {
  enum Kind { Energy, EDP, ED2P, ZeusCost };
  Kind kind = Energy;
  double eta = 0.5, maxPower = 0; ///< ZeusCost only
  PlanObjective(Kind k = Energy) : kind(k) {}
  bool operator==(const PlanObjective &o) const {
    return kind == o.kind && eta == o.eta && maxPower == o.maxPower;
  }
};
/// "energy", "edp", "ed2p", "zeus" (eta 0.5, MAXPOWER 0: the caller sets
/// them); nullopt otherwise.
std::optional<PlanObjective> parsePlanObjective(const std::string &name);
/// The objective's value at makespan T (s) and energy E (J).
double planScore(const PlanObjective &objective, double T, double E);
/// The frontier point a plan chooses: the least score among the points
/// whose makespan as they will run (`asRun`: with clock switches, say) is
/// within `limit` (to 1e-12 relative); nullopt when none is. `asRun` gives
/// (T, E) of a point.
std::optional<size_t> choosePlanPoint(
    const std::vector<DagPoint> &frontier, const PlanObjective &objective,
    double limit,
    const std::function<std::pair<double, double>(const DagPoint &)> &asRun);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_DAGFRONTIER_H
