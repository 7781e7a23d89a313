//===- DagInternal.h - What the DAG frontier's algorithms share -*- C++ -*-===//
//
// Internal to the calculus (not installed, not included outside
// calculus/Dag*.cpp): the DAG in CSR form, each task's Pareto options, the
// greedy fill's state, and the algorithms dagFrontier (DagFrontier.cpp)
// drives, one per file:
//   DagGraph.cpp          the DAG, its longest paths
//   DagCrashSweep.cpp     the crash sweep (minimum cuts of the critical
//                         subgraph, Phillips-Dessouky)
//   DagPriceFill.cpp      the fastest configuration and price points
//   DagClassSweep.cpp     the class sweep (large pipelines)
//   DagLagrangian.cpp     subgradient-maximized Lagrangian bounds
//   DagSeriesParallel.cpp exact frontiers of series-parallel DAGs
//   DagEnumerate.cpp      exact frontiers by enumeration
//   DagAnneal.cpp         simulated annealing at the caller's deadline
//   DagLaneBound.cpp      Lagrangian bounds from the lanes' busy time
//   DagEnergy.cpp         a configuration's energy by interval accounting
// The math of each is in docs/FRONTIER.md.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_DAGINTERNAL_H
#define CALCULUS_DAGINTERNAL_H

#include "calculus/ConvexFrontier.h"
#include "calculus/DagFrontier.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace energy {
namespace calculus {
namespace dag {

struct Edge {
  uint32_t to;
  bool startToStart;
  double lag;
};

/// Dependency and stream-order edges in CSR form plus a topological order.
/// A (device, stream) lane: tasks on one run in program order.
inline uint64_t laneKey(uint32_t device, uint32_t stream) {
  return (uint64_t(device) << 32) | stream;
}

/// Each task's lane (its first device's, on its stream; a task on no device
/// counts as device 0's) numbered from 0 in order of first appearance;
/// returns how many lanes there are.
size_t laneIndices(const Schedule &sched, std::vector<uint32_t> &laneOf);

struct Dag {
  std::vector<uint32_t> succStart, predStart;
  std::vector<Edge> succ, pred; // pred[].to is the predecessor
  std::vector<uint32_t> topo;
  std::vector<double> release; ///< per task: earliest start

  /// The edges of `s` (dependencies with their lags, stream order) and a
  /// topological order; releases counted from the schedule's start. False
  /// (with `err`) on a cycle.
  bool build(const Schedule &s, std::string &err);

  /// Earliest starts; returns the makespan.
  double forward(const std::vector<double> &T, std::vector<double> &es) const {
    double end = 0;
    for (uint32_t v : topo) {
      double st = release[v];
      for (uint32_t i = predStart[v]; i < predStart[v + 1]; ++i) {
        const Edge &e = pred[i];
        st = std::max(st, e.startToStart ? es[e.to] + e.lag
                                         : es[e.to] + T[e.to] + e.lag);
      }
      es[v] = st;
      end = std::max(end, st + T[v]);
    }
    return end;
  }

  /// Each task's tails: `fromFinish[t]`, the longest path from t's finish
  /// (through finish-to-start edges and their lags, then whatever follows)
  /// to the end of the schedule -- t's own duration does not change it --
  /// and `toEnd[t]`, the longest path from t's start to the end (through
  /// start-to-start edges too).
  void tails(const std::vector<double> &T, std::vector<double> &fromFinish,
             std::vector<double> &toEnd) const {
    for (size_t k = topo.size(); k-- > 0;) {
      uint32_t u = topo[k];
      double finish = 0, start = 0;
      for (uint32_t i = succStart[u]; i < succStart[u + 1]; ++i) {
        const Edge &e = succ[i];
        if (e.startToStart)
          start = std::max(start, e.lag + toEnd[e.to]);
        else
          finish = std::max(finish, e.lag + toEnd[e.to]);
      }
      fromFinish[u] = finish;
      toEnd[u] = std::max(T[u] + finish, start);
    }
  }

  /// Latest starts against deadline D.
  void backward(const std::vector<double> &T, double D,
                std::vector<double> &ls) const {
    for (size_t k = topo.size(); k-- > 0;) {
      uint32_t u = topo[k];
      double lf = D;
      double lsBound = std::numeric_limits<double>::infinity();
      for (uint32_t i = succStart[u]; i < succStart[u + 1]; ++i) {
        const Edge &e = succ[i];
        if (e.startToStart)
          lsBound = std::min(lsBound, ls[e.to] - e.lag);
        else
          lf = std::min(lf, ls[e.to] - e.lag);
      }
      ls[u] = std::min(lf - T[u], lsBound);
    }
  }
};

struct TaskOptions {
  std::vector<double> T, d;       // Pareto in (T, d): T ascending, d descending
  std::vector<uint32_t> original; // index into the caller's options
};

/// For each task, the first task whose options have the same T and d. A
/// pipeline's tasks share a few hundred operating sets; a pass over every
/// task that reads the options through these representatives reads memory
/// that stays in cache (each task's own vectors: ~1.5 kB apart, 190 MB at
/// 131,072 tasks x 73 clocks).
std::vector<uint32_t> sharedOperatingSets(const std::vector<TaskOptions> &opts);

/// How the greedy fill picks its next move (each myopic in its own way;
/// dagFrontier merges them on small schedules).
enum class FillRule : uint8_t {
  SlowestFitsPerSecond, ///< the slowest option that fits, by saving per second
  SlowestFitsAbsolute,  ///< the slowest option that fits, by absolute saving
  OneStepPerSecond,     ///< one option step at a time, by saving per second
};

/// The state of one greedy sweep: each task's option, durations, earliest
/// and latest starts, and the dynamic-energy sum.
struct Sweep {
  const Dag &dag;
  const std::vector<TaskOptions> &opts;
  FillRule rule;
  size_t n;
  /// Task t's T and d, read through its operating set's representative
  /// (sharedOperatingSets); `original` stays per task (opts[t]).
  std::vector<const TaskOptions *> of;
  std::vector<uint32_t> cur;
  std::vector<double> T, es, ls;
  double dsum = 0, makespan = 0;
  /// (task, previous option) of moves made while logging, for undo.
  std::vector<std::pair<uint32_t, uint32_t>> log;
  bool logging = false;
  /// Task visits of the greedy fill's passes (the crash sweep's budget).
  uint64_t fillVisits = 0;

  Sweep(const Dag &graph, const std::vector<TaskOptions> &options,
        FillRule fill)
      : dag(graph), opts(options), rule(fill), n(options.size()), of(n),
        cur(n, 0), T(n), es(n), ls(n) {
    // Shared only where the options outgrow the caches (2^18 options, 4
    // MB of T and d): below that, hashing them costs more than it saves,
    // and medium schedules build a sweep per deadline they refine.
    size_t values = 0;
    for (const TaskOptions &o : opts)
      values += o.T.size();
    std::vector<uint32_t> rep;
    if (values > (size_t(1) << 18))
      rep = sharedOperatingSets(opts);
    for (size_t t = 0; t < n; ++t) {
      of[t] = &opts[rep.empty() ? t : rep[t]];
      T[t] = of[t]->T[0];
      dsum += of[t]->d[0];
    }
    makespan = dag.forward(T, es);
  }

  /// The current configuration as a frontier point (P: the schedule's
  /// static power); its choices in the caller's option indices.
  DagPoint point(double P, bool keepChoices) const {
    DagPoint p;
    p.T = makespan;
    p.E = P * makespan + dsum;
    if (keepChoices) {
      p.choice.resize(n);
      for (size_t t = 0; t < n; ++t)
        p.choice[t] = opts[t].original[cur[t]];
    }
    return p;
  }

  void set(uint32_t t, uint32_t j) {
    if (logging)
      log.push_back({t, cur[t]});
    const TaskOptions &o = *of[t];
    dsum += o.d[j] - o.d[cur[t]];
    cur[t] = j;
    T[t] = o.T[j];
  }

  /// Greedy slack filling against deadline D; returns whether it moved. A
  /// step fits its slack to within 1e-12 of D (relative: an absolute
  /// 1e-12 s let steps overrun sub-microsecond schedules' deadlines, and
  /// their sweeps then ran out of budget).
  bool fill(double D) {
    bool moved = false;
    while (true) {
      dag.backward(T, D, ls);
      fillVisits += 3 * n; // backward, scan, forward
      double bestRate = 0;
      uint32_t bestTask = UINT32_MAX, bestOpt = 0;
      for (uint32_t t = 0; t < n; ++t) {
        double slack = ls[t] - es[t];
        const TaskOptions &o = *of[t];
        if (slack <= 0 || cur[t] + 1 >= o.T.size())
          continue;
        uint32_t j = cur[t];
        if (rule == FillRule::OneStepPerSecond) {
          if (o.T[j + 1] - o.T[cur[t]] <= slack + 1e-12 * D)
            ++j;
        } else {
          while (j + 1 < o.T.size() &&
                 o.T[j + 1] - o.T[cur[t]] <= slack + 1e-12 * D)
            ++j;
        }
        if (j == cur[t])
          continue;
        double saving = o.d[cur[t]] - o.d[j];
        double rate = rule == FillRule::SlowestFitsAbsolute
                          ? saving
                          : saving / std::max(o.T[j] - o.T[cur[t]], 1e-15);
        if (rate > bestRate) {
          bestRate = rate;
          bestTask = t;
          bestOpt = j;
        }
      }
      if (bestTask == UINT32_MAX)
        return moved;
      set(bestTask, bestOpt);
      makespan = dag.forward(T, es);
      moved = true;
    }
  }

  /// Slack filling in one pass (large schedules): every task grows within
  /// its free float -- until its first finish-to-start successor's earliest
  /// start, or D -- which moves no earliest start, so all grow at once.
  void freeFloatFill(double D) {
    for (uint32_t t = 0; t < n; ++t) {
      const TaskOptions &o = *of[t];
      double limit = D - es[t];
      for (uint32_t i = dag.succStart[t]; i < dag.succStart[t + 1]; ++i)
        if (!dag.succ[i].startToStart)
          limit = std::min(limit, es[dag.succ[i].to] - dag.succ[i].lag - es[t]);
      uint32_t j = cur[t];
      while (j + 1 < o.T.size() && o.T[j + 1] <= limit + 1e-12 * D)
        ++j;
      if (j != cur[t])
        set(t, j);
    }
    makespan = dag.forward(T, es);
  }

  /// Slack filling in one backward pass (large schedules): in reverse
  /// topological order each task takes the slowest option that still ends
  /// by its successors' latest starts (already placed) and D, starting no
  /// earlier than its earliest start; it is then placed as late as that
  /// allows. Total float, not only free float, is converted -- first by
  /// the tasks nearest the end. Needs `es` current; feasible by
  /// construction (every predecessor, placed later, ends by the start given
  /// here), so the makespan stays <= D.
  void latestStartFill(double D) {
    for (size_t k = n; k-- > 0;) {
      uint32_t t = dag.topo[k];
      double lf = D, lsBound = std::numeric_limits<double>::infinity();
      for (uint32_t i = dag.succStart[t]; i < dag.succStart[t + 1]; ++i) {
        const Edge &e = dag.succ[i];
        if (e.startToStart)
          lsBound = std::min(lsBound, ls[e.to] - e.lag);
        else
          lf = std::min(lf, ls[e.to] - e.lag);
      }
      const TaskOptions &o = *of[t];
      uint32_t j = cur[t];
      while (j + 1 < o.T.size() && o.T[j + 1] <= lf - es[t] + 1e-12 * D)
        ++j;
      if (j != cur[t])
        set(t, j);
      ls[t] = std::min(lf - T[t], lsBound);
    }
    makespan = dag.forward(T, es);
  }

  /// Task t's option, its current one or a faster one, minimizing
  /// d + price x T (the current one where none is below it).
  uint32_t cheapestFasterAt(uint32_t t, double price) const {
    const TaskOptions &o = *of[t];
    uint32_t best = cur[t];
    for (uint32_t j = 0; j < cur[t]; ++j)
      if (o.d[j] + price * o.T[j] < o.d[best] + price * o.T[best])
        best = j;
    return best;
  }

  /// Moves every task on a critical path (no float at the current
  /// makespan) one option faster; returns whether any moved (the makespan
  /// is then current again). Linear: the class sweep's fast end and the
  /// relaxation's minimizers repaired to their deadline.
  bool speedUpCritical() {
    dag.backward(T, makespan, ls);
    double tol = 1e-9 * std::max(makespan, 1e-9);
    bool moved = false;
    for (uint32_t t = 0; t < n; ++t)
      if (ls[t] - es[t] <= tol && cur[t] != 0) {
        set(t, cur[t] - 1);
        moved = true;
      }
    if (moved)
      makespan = dag.forward(T, es);
    return moved;
  }

  /// Slows every task within its float at the current makespan: the
  /// backward pass, then the free-float pass (linear; large schedules).
  void floatFill() {
    latestStartFill(makespan);
    freeFloatFill(makespan);
  }

  /// Local search: speed one task up (by one option, or to every faster
  /// option when `exhaustive`) and refill; keep it when the dynamic energy
  /// drops (the freed slack lets others save more).
  void refine(double D, bool exhaustive) {
    for (int pass = 0; pass < 3; ++pass) {
      bool improved = false;
      for (uint32_t t = 0; t < n; ++t) {
        uint32_t lowest = exhaustive || cur[t] == 0 ? 0 : cur[t] - 1;
        for (uint32_t j = lowest; j < cur[t]; ++j) {
          double before = dsum;
          log.clear();
          logging = true;
          set(t, j);
          makespan = dag.forward(T, es);
          fill(D);
          logging = false;
          if (dsum < before - 1e-12 * std::abs(before)) {
            improved = true;
            break;
          }
          for (size_t k = log.size(); k-- > 0;)
            set(log[k].first, log[k].second);
          makespan = dag.forward(T, es);
        }
      }
      if (!improved)
        return;
    }
  }
};

/// Simulated annealing at deadline D from the sweep's configuration (which
/// must meet D): leaves the best configuration within D it saw (never worse
/// than the start) in `sw`, seeded by `seed`, in at most about
/// `visitBudget` task and edge visits; returns the visits made
/// (DagAnneal.cpp).
uint64_t anneal(Sweep &sw, double D, double P, uint64_t visitBudget,
                uint64_t seed);

/// A Lagrangian bound from one flow: at deadline D it is
/// C + (P - F) (F > P ? D : fastest), C = sum_i min_k (d_ik + f_i T_ik).
struct FlowBound {
  double C, F;
};

/// Lagrangian bounds from the lanes' busy time, one per makespan in
/// `times` (DagLaneBound.cpp).
void laneBounds(const Dag &dag, const std::vector<TaskOptions> &opts,
                const Schedule &sched, double P,
                const std::vector<double> &times,
                std::vector<FlowBound> &bounds);

/// A task's lower convex hull in (T, d) (ConvexFrontier.h).
inline ConvexHull hullOf(const TaskOptions &o) { return ConvexHull(o.T, o.d); }

/// `t` floored to a multiple of `q` (q <= 0: `t`), as Perseus quantizes
/// option times (DagEnergy.cpp).
double quantize(double t, double q);

/// The relaxation's minimizers under a flow: each task's hull vertex
/// minimizing d + f T (indices into its TaskOptions), and the deadline the
/// flow was found for.
struct RelaxedChoice {
  std::vector<uint32_t> choice;
  double deadline;
};

/// The relaxation's minimizers' durations at one deadline's flows, averaged
/// over the second half of its subgradient steps.
struct AveragedDurations {
  double deadline;
  std::vector<double> T;
};

/// Subgradient-maximized Lagrangian bounds (DagLagrangian.cpp); with
/// `relaxed`, each deadline's best flow's minimizers too; with `averages`,
/// each deadline's averaged durations.
void subgradientBounds(const Dag &dag, const std::vector<TaskOptions> &opts,
                       double P, double fastest, int iterations,
                       size_t deadlines, const std::vector<DagPoint> &frontier,
                       std::vector<FlowBound> &bounds,
                       std::vector<RelaxedChoice> *relaxed = nullptr,
                       std::vector<AveragedDurations> *averages = nullptr);

/// Receives configurations (each task's option) and the time each meets.
using ConfigurationSink =
    std::function<void(const std::vector<uint32_t> &choice, double meets)>;

/// For each target time, configurations that meet it: the averaged
/// durations of the deadlines around it, rounded down to options and mixed
/// -- the slower toward the faster, each toward the fastest options -- by
/// the least weight whose rounding meets the target (DagLagrangian.cpp).
void averagedConfigurations(const Dag &dag,
                            const std::vector<TaskOptions> &opts,
                            const std::vector<AveragedDurations> &averages,
                            const std::vector<double> &targets,
                            const ConfigurationSink &emit);

/// Speeds `sw` up until its makespan is at most D, by the crash sweep's
/// minimum cuts of the critical subgraph, one per step (DagCrashSweep.cpp);
/// false when a critical path is at its fastest options or after
/// `maxSteps` steps.
bool crashTo(Sweep &sw, double D, size_t maxSteps);

/// The crash sweep (DagCrashSweep.cpp).
bool crashSweep(const Dag &dag, const std::vector<TaskOptions> &opts, double P,
                bool keepChoices, uint64_t workBudget,
                std::vector<DagPoint> &out, std::vector<FlowBound> &bounds,
                std::vector<std::vector<uint32_t>> *states, bool &stepGuard,
                const DagFrontierSettings &settings);

/// The fastest configuration, slowed within its float, and price points
/// across the whole range (DagPriceFill.cpp).
DagPoint filledFastest(const Dag &dag, const std::vector<TaskOptions> &opts,
                       double P, bool keepChoices);
void priceFill(const Dag &dag, const std::vector<TaskOptions> &opts, double P,
               bool keepChoices, int prices, std::vector<DagPoint> &out);

/// The class sweep (DagClassSweep.cpp).
bool classSweep(const Dag &dag, const std::vector<TaskOptions> &opts,
                const Schedule &sched, double P, bool keepChoices, int budgets,
                double minPerLane, int rounds, int fastSteps,
                std::vector<DagPoint> &out);

/// The series-parallel decomposition tree (DagSeriesParallel.cpp).
struct SpTree {
  struct Node {
    enum Kind : uint8_t { Leaf, Release, Series, Parallel } kind;
    uint32_t a, b; ///< Leaf and Release: a = the task; else the children
  };
  std::vector<Node> nodes; ///< children before parents
  uint32_t root = 0;
};
bool decomposeSeriesParallel(const Dag &dag, size_t n, SpTree &tree);
bool seriesParallelFrontier(const SpTree &tree,
                            const std::vector<TaskOptions> &opts,
                            const std::vector<double> &release, double P,
                            bool keepChoices, uint64_t budget,
                            std::vector<DagPoint> &out);

/// The exact frontier by enumeration (DagEnumerate.cpp).
void enumerateFrontier(const Dag &dag, const std::vector<TaskOptions> &opts,
                       double P, bool keepChoices,
                       std::vector<DagPoint> &frontier);

} // namespace dag
} // namespace calculus
} // namespace energy

#endif // CALCULUS_DAGINTERNAL_H
