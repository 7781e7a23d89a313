//===- DagFrontier.cpp - Time-energy frontiers of scheduled DAGs ----------===//

#include "calculus/DagFrontier.h"
#include "calculus/ConvexFrontier.h"
#include "calculus/MaxFlow.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <unordered_map>

namespace energy {
namespace calculus {

namespace {

struct Edge {
  uint32_t to;
  bool startToStart;
  double lag;
};

/// Dependency and stream-order edges in CSR form plus a topological order.
/// A (device, stream) lane: tasks on one run in program order.
uint64_t laneKey(uint32_t device, uint32_t stream) {
  return (uint64_t(device) << 32) | stream;
}

struct Dag {
  std::vector<uint32_t> succStart, predStart;
  std::vector<Edge> succ, pred; // pred[].to is the predecessor
  std::vector<uint32_t> topo;
  std::vector<double> release; ///< per task: earliest start

  bool build(const Schedule &s, std::string &err) {
    size_t n = s.tasks.size();
    release.resize(n);
    // A recorded start is a release (ScheduleTask::fixedStart), as in the
    // lowering's list scheduling.
    for (size_t t = 0; t < n; ++t)
      release[t] = std::max(s.tasks[t].release, s.tasks[t].fixedStart);
    std::vector<std::pair<uint32_t, Edge>> edges; // (from, edge)
    std::unordered_map<uint64_t, uint32_t> last;
    for (uint32_t t = 0; t < n; ++t) {
      for (const Dependency &d : s.tasks[t].deps)
        edges.push_back({d.pred, {t, d.startToStart, d.lag}});
      for (uint32_t dev : s.tasks[t].devices) {
        uint64_t key = laneKey(dev, s.tasks[t].stream);
        auto it = last.find(key);
        if (it != last.end() && it->second != t)
          edges.push_back({it->second, {t, false, 0}});
        last[key] = t;
      }
    }
    succStart.assign(n + 1, 0);
    predStart.assign(n + 1, 0);
    for (auto &[from, e] : edges) {
      ++succStart[from + 1];
      ++predStart[e.to + 1];
    }
    for (size_t i = 0; i < n; ++i) {
      succStart[i + 1] += succStart[i];
      predStart[i + 1] += predStart[i];
    }
    succ.resize(edges.size());
    pred.resize(edges.size());
    std::vector<uint32_t> fs(succStart.begin(), succStart.end() - 1),
        fp(predStart.begin(), predStart.end() - 1);
    for (auto &[from, e] : edges) {
      succ[fs[from]++] = e;
      pred[fp[e.to]++] = {from, e.startToStart, e.lag};
    }
    // Kahn.
    std::vector<uint32_t> indeg(n);
    for (size_t v = 0; v < n; ++v)
      indeg[v] = predStart[v + 1] - predStart[v];
    std::vector<uint32_t> ready;
    for (uint32_t v = 0; v < n; ++v)
      if (!indeg[v])
        ready.push_back(v);
    topo.clear();
    while (!ready.empty()) {
      uint32_t u = ready.back();
      ready.pop_back();
      topo.push_back(u);
      for (uint32_t i = succStart[u]; i < succStart[u + 1]; ++i)
        if (--indeg[succ[i].to] == 0)
          ready.push_back(succ[i].to);
    }
    if (topo.size() != n) {
      err = "the schedule's dependencies and stream order form a cycle";
      return false;
    }
    // Makespans count from the schedule's start, as the lowering does: the
    // earliest release of a task without predecessors (any other task
    // starts after one of those), whatever the options.
    double origin = std::numeric_limits<double>::infinity();
    for (size_t v = 0; v < n; ++v)
      if (predStart[v] == predStart[v + 1])
        origin = std::min(origin, release[v]);
    for (double &r : release)
      r = std::max(0.0, r - origin);
    return true;
  }

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

/// The state of one greedy sweep: each task's option, durations, earliest
/// and latest starts, and the dynamic-energy sum.
struct Sweep {
  const Dag &dag;
  const std::vector<TaskOptions> &opts;
  int rule;
  size_t n;
  std::vector<uint32_t> cur;
  std::vector<double> T, es, ls;
  double dsum = 0, makespan = 0;
  /// (task, previous option) of moves made while logging, for undo.
  std::vector<std::pair<uint32_t, uint32_t>> log;
  bool logging = false;
  /// Task visits of the greedy fill's passes (the crash sweep's budget).
  uint64_t fillVisits = 0;

  Sweep(const Dag &dag, const std::vector<TaskOptions> &opts, int rule)
      : dag(dag), opts(opts), rule(rule), n(opts.size()), cur(n, 0), T(n),
        es(n), ls(n) {
    for (size_t t = 0; t < n; ++t) {
      T[t] = opts[t].T[0];
      dsum += opts[t].d[0];
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
    dsum += opts[t].d[j] - opts[t].d[cur[t]];
    cur[t] = j;
    T[t] = opts[t].T[j];
  }

  /// Greedy slack filling against deadline D; returns whether it moved.
  bool fill(double D) {
    bool moved = false;
    while (true) {
      dag.backward(T, D, ls);
      fillVisits += 3 * n; // backward, scan, forward
      double bestRate = 0;
      uint32_t bestTask = UINT32_MAX, bestOpt = 0;
      for (uint32_t t = 0; t < n; ++t) {
        double slack = ls[t] - es[t];
        const TaskOptions &o = opts[t];
        if (slack <= 0 || cur[t] + 1 >= o.T.size())
          continue;
        // Rule 0: the slowest option that fits, ranked by saving per second
        // of slack; rule 1: the same, ranked by absolute saving; rule 2:
        // one option step at a time, ranked by saving per second.
        uint32_t j = cur[t];
        if (rule == 2) {
          if (o.T[j + 1] - o.T[cur[t]] <= slack + 1e-12)
            ++j;
        } else {
          while (j + 1 < o.T.size() &&
                 o.T[j + 1] - o.T[cur[t]] <= slack + 1e-12)
            ++j;
        }
        if (j == cur[t])
          continue;
        double saving = o.d[cur[t]] - o.d[j];
        double rate =
            rule == 1 ? saving
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
      const TaskOptions &o = opts[t];
      double limit = D - es[t];
      for (uint32_t i = dag.succStart[t]; i < dag.succStart[t + 1]; ++i)
        if (!dag.succ[i].startToStart)
          limit = std::min(limit,
                           es[dag.succ[i].to] - dag.succ[i].lag - es[t]);
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
      const TaskOptions &o = opts[t];
      uint32_t j = cur[t];
      while (j + 1 < o.T.size() && o.T[j + 1] <= lf - es[t] + 1e-12 * D)
        ++j;
      if (j != cur[t])
        set(t, j);
      ls[t] = std::min(lf - T[t], lsBound);
    }
    makespan = dag.forward(T, es);
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


/// The crash sweep, from the energy-minimal end (every task at its slowest
/// useful option) towards the fastest makespan, in the spirit of Phillips
/// and Dessouky (Perseus's solver): each step shortens, by one option, the
/// minimum-cost cut of the critical subgraph (costs: dynamic energy per
/// second saved), so every critical path gets shorter; then the greedy
/// fill re-lengthens tasks into the slack the step left. It complements the
/// forward sweep, which is myopic far from the fastest makespan.
/// A Lagrangian bound from one flow: at deadline D it is
/// C + (P - F) (F > P ? D : fastest), C = sum_i min_k (d_ik + f_i T_ik).
struct FlowBound {
  double C, F;
};

/// A task's lower convex hull in (T, d) (ConvexFrontier.h).
ConvexHull hullOf(const TaskOptions &o) { return ConvexHull(o.T, o.d); }

/// Tighter certificates for medium schedules: the Lagrangian bound of
/// DagFrontier.h maximized over flows by projected subgradient ascent on
/// path flows. For a flow made of finish-to-start chains p with amounts a_p
/// (F = sum a_p, f_i = sum over chains through i), the bound at deadline D
/// is L(a) = sum_i min_k (d_ik + f_i T_ik) + (P - F) R with R = D if F > P,
/// else the fastest makespan; its subgradient in a_p is (sum over p of the
/// minimizing options' times) - R. Each step adds flow to the longest chain
/// under the current minimizers and moves every chain's amount along its
/// subgradient (kept >= 0). Every iterate is a valid bound, so the best one
/// is kept. Computed at up to `deadlines` frontier times from the
/// energy-minimal end (flows warm-start as D shrinks); each deadline's best
/// flow goes to `bounds` as (C, F), whose bound C + (P - F) M holds at every
/// time, so the caller applies all of them to every point.
void subgradientBounds(const Dag &dag, const std::vector<TaskOptions> &opts,
                       double P, double fastest, int iterations,
                       size_t deadlines, const std::vector<DagPoint> &frontier,
                       std::vector<FlowBound> &bounds) {
  size_t n = opts.size();
  if (frontier.empty() || deadlines == 0)
    return;
  std::vector<ConvexHull> hulls;
  hulls.reserve(n);
  for (const TaskOptions &o : opts)
    hulls.push_back(hullOf(o));
  std::vector<size_t> grid;
  size_t G = std::min<size_t>(deadlines, frontier.size());
  for (size_t g = 0; g < G; ++g)
    grid.push_back(G == 1 ? frontier.size() - 1
                          : g * (frontier.size() - 1) / (G - 1));
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  struct Chain {
    std::vector<uint32_t> tasks;
    double amount;
  };
  std::vector<Chain> chains;
  std::vector<double> f(n, 0), T(n), len(n);
  std::vector<int64_t> from(n);
  for (size_t gi = grid.size(); gi-- > 0;) {
    double D = frontier[grid[gi]].T;
    FlowBound best{0, 0};
    double bestValue = -std::numeric_limits<double>::infinity();
    for (int it = 0; it < iterations; ++it) {
      double F = 0;
      for (const Chain &c : chains)
        F += c.amount;
      double R = F > P ? D : fastest;
      // The minimizers and the bound.
      double sum = 0;
      for (size_t t = 0; t < n; ++t) {
        const ConvexHull &h = hulls[t];
        double least = std::numeric_limits<double>::infinity();
        for (size_t k = 0; k < h.T.size(); ++k) {
          double v = h.d[k] + f[t] * h.T[k];
          if (v > least)
            break;
          least = v;
          T[t] = h.T[k];
        }
        sum += least;
      }
      if (sum + (P - F) * R > bestValue) {
        bestValue = sum + (P - F) * R;
        best = {sum, F};
      }
      // The longest finish-to-start chain under those times. Lags are left
      // out: a chain's true constraint, sum T + sum lags <= D, implies
      // sum T <= D, so the bound stays a valid (if looser) relaxation.
      double longest = -1;
      int64_t end = -1;
      for (uint32_t v : dag.topo) {
        double before = 0;
        from[v] = -1;
        for (uint32_t i = dag.predStart[v]; i < dag.predStart[v + 1]; ++i) {
          const Edge &e = dag.pred[i];
          if (!e.startToStart && len[e.to] > before) {
            before = len[e.to];
            from[v] = e.to;
          }
        }
        len[v] = before + T[v];
        if (len[v] > longest) {
          longest = len[v];
          end = v;
        }
      }
      double step = 0.5 * P / std::max(R, 1e-12) / std::sqrt(1.0 + it);
      // Existing chains move along their subgradients.
      for (Chain &c : chains) {
        double l = 0;
        for (uint32_t t : c.tasks)
          l += T[t];
        double next = std::max(0.0, c.amount + step * (l - R));
        for (uint32_t t : c.tasks)
          f[t] += next - c.amount;
        c.amount = next;
      }
      if (longest > R) {
        Chain c;
        for (int64_t v = end; v >= 0; v = from[v])
          c.tasks.push_back(uint32_t(v));
        c.amount = step * (longest - R);
        for (uint32_t t : c.tasks)
          f[t] += c.amount;
        chains.push_back(std::move(c));
      }
      // Chains that lost all their flow are dropped.
      chains.erase(std::remove_if(chains.begin(), chains.end(),
                                  [](const Chain &c) { return c.amount <= 0; }),
                   chains.end());
    }
    // The best iterate's flow bounds every point, not only this deadline's.
    if (std::isfinite(bestValue))
      bounds.push_back(best);
  }
}

/// `states` (optional) receives the configuration of every recorded point.
/// Returns false when `workBudget` (task visits, 0: none) ran out before
/// the fastest makespan was reached.
bool crashSweep(const Dag &dag, const std::vector<TaskOptions> &opts,
                double P, bool keepChoices, uint64_t workBudget,
                std::vector<DagPoint> &out, std::vector<FlowBound> &bounds,
                std::vector<std::vector<uint32_t>> *states,
                bool &stepGuard, const DagFrontierSettings &settings) {
  stepGuard = false;
  size_t n = opts.size();
  Sweep sw(dag, opts, /*rule=*/0);
  for (uint32_t t = 0; t < n; ++t)
    sw.set(t, uint32_t(opts[t].T.size() - 1));
  sw.makespan = dag.forward(sw.T, sw.es);
  // For progress: the sweep runs from this makespan down to the fastest.
  double slowM = sw.makespan, fastM = slowM;
  if (settings.progress) {
    std::vector<double> Tf(n), esf(n);
    for (size_t t = 0; t < n; ++t)
      Tf[t] = opts[t].T.front();
    fastM = dag.forward(Tf, esf);
  }
  auto record = [&] { out.push_back(sw.point(P, keepChoices)); };
  record();
  if (states)
    states->push_back(sw.cur);
  // Each step strictly shortens the makespan, but the fill after it may
  // slow tasks again, so the number of steps is not bounded by the options'
  // count: the work budget bounds the sweep, and this cap (far above what
  // the Perseus profiles need) only guards against a sweep that stalls.
  // Reaching either is a truncation: the caller closes the range with the
  // fastest configuration and price points.
  size_t maxSteps = 0;
  for (const TaskOptions &o : opts)
    maxSteps += o.T.size();
  maxSteps = std::max<size_t>(64 * maxSteps, size_t(1) << 20);
  std::vector<uint32_t> crit;
  std::vector<int> node(n, -1), taskArc(n, -1), rank;
  std::vector<std::pair<int, uint32_t>> spans, active;
  MaxFlow flow;
  double baseC = 0; // the zero flow: every task at its least d
  std::vector<ConvexHull> hulls;
  hulls.reserve(n);
  for (const TaskOptions &o : opts) {
    baseC += o.d.back();
    hulls.push_back(hullOf(o));
  }
  bounds.push_back({baseC, 0});
  uint64_t work = 0;
  for (size_t step = 0; step < maxSteps; ++step) {
    if (workBudget && work > workBudget)
      return false;
    double M = sw.makespan;
    if (settings.progress && slowM > fastM)
      settings.progress("crash sweep", (slowM - M) / (slowM - fastM),
                        out.size(), M);
    dag.backward(sw.T, M, sw.ls);
    double tol = 1e-9 * std::max(M, 1e-9);
    auto critical = [&](uint32_t t) { return sw.ls[t] - sw.es[t] <= tol; };
    // Nodes: source 0, sink 1, critical task k: in 2 + 2k, out 3 + 2k.
    // The critical subgraph: critical tasks (in and out nodes joined by an
    // arc whose capacity is the energy per second of shortening it by one
    // option) and the tight edges between them (uncuttable). Without
    // reverse arcs a path may cross the cut twice (it is then shortened
    // twice): valid, and measured as good and faster than forcing single
    // crossings.
    crit.clear();
    for (uint32_t t = 0; t < n; ++t) {
      node[t] = -1;
      if (critical(t)) {
        node[t] = int(crit.size());
        crit.push_back(t);
      }
    }
    flow.reset(2 + 2 * crit.size());
    auto in = [&](uint32_t t) { return 2 + 2 * node[t]; };
    auto outN = [&](uint32_t t) { return 3 + 2 * node[t]; };
    for (uint32_t t : crit) {
      uint32_t c = sw.cur[t];
      double cap = c == 0 ? MaxFlow::Inf
                          : (opts[t].d[c - 1] - opts[t].d[c]) /
                                std::max(opts[t].T[c] - opts[t].T[c - 1], 1e-15);
      taskArc[node[t]] = flow.arc(in(t), outN(t), cap);
      if (sw.es[t] <= dag.release[t] + tol) // from the start or its release
        flow.arc(0, in(t), MaxFlow::Inf);
      if (sw.es[t] + sw.T[t] >= M - tol)
        flow.arc(outN(t), 1, MaxFlow::Inf);
      for (uint32_t i = dag.succStart[t]; i < dag.succStart[t + 1]; ++i) {
        const Edge &e = dag.succ[i];
        if (node[e.to] < 0)
          continue;
        double ready = e.startToStart ? sw.es[t] + e.lag
                                      : sw.es[t] + sw.T[t] + e.lag;
        if (std::abs(sw.es[e.to] - ready) <= tol)
          flow.arc(e.startToStart ? in(t) : outN(t), in(e.to), MaxFlow::Inf);
      }
    }
    // Passes over every task (backward, scans, forward) and the max-flow's
    // visits of the critical subgraph's network (the fill adds its own).
    work += 4 * n;
    flow.steps = 0;
    double F = flow.run(0, 1);
    work += flow.steps;
    if (F >= MaxFlow::Inf / 2)
      return true; // a critical path of fastest options: the fastest makespan
    // This flow certifies a bound (see DagFrontier.h): tasks without flow
    // contribute their least d.
    {
      double C = baseC;
      for (uint32_t t : crit) {
        double f = flow.flowOn(taskArc[node[t]]);
        if (f > 0)
          C += hulls[t].lagrangian(f) - opts[t].d.back();
      }
      bounds.push_back({C, F});
    }
    // Several minimum cuts per flow: while every critical path shrinks by
    // less than the least float outside the critical subgraph, that
    // subgraph and its arcs' costs stay as they are except on the tasks
    // just cut, so a minimum cut disjoint from those is still a minimum cut
    // -- the step Phillips-Dessouky would take next, without a new flow.
    // The nested minimum cuts S_k of this flow (MaxFlow::cutRanks) cut
    // task t for k in [rank(in t), rank(out t)); walking k upwards and
    // taking a cut only once every task of the last one has left gives
    // disjoint ones. The first is the source side, as one cut per step.
    double margin = std::numeric_limits<double>::infinity();
    for (uint32_t t = 0; t < n; ++t)
      if (node[t] < 0)
        margin = std::min(margin, sw.ls[t] - sw.es[t]);
    flow.cutRanks(0, 1, rank);
    spans.clear();
    for (uint32_t t : crit)
      if (rank[in(t)] < rank[outN(t)])
        spans.push_back({rank[in(t)], t});
    std::sort(spans.begin(), spans.end());
    active.clear();
    size_t nextSpan = 0;
    double shortened = 0;
    bool moved = false;
    for (int k = 0;;) {
      while (nextSpan < spans.size() && spans[nextSpan].first <= k) {
        uint32_t t = spans[nextSpan++].second;
        active.push_back({-rank[outN(t)], t});
        std::push_heap(active.begin(), active.end());
      }
      while (!active.empty() && -active.front().first <= k) {
        std::pop_heap(active.begin(), active.end());
        active.pop_back();
      }
      if (active.empty())
        break;
      // The cut S_k: every active task; it shortens each critical path by
      // at least its smallest step.
      double least = std::numeric_limits<double>::infinity();
      int leave = k;
      for (auto &[negOut, t] : active) {
        if (sw.cur[t] == 0) { // an infinite arc: not a finite cut
          least = -1;
          break;
        }
        least = std::min(least, opts[t].T[sw.cur[t]] - opts[t].T[sw.cur[t] - 1]);
        leave = std::max(leave, -negOut);
      }
      if (least < 0 || (moved && shortened + least > margin - tol))
        break;
      for (auto &[negOut, t] : active)
        sw.set(t, sw.cur[t] - 1);
      moved = true;
      shortened += least;
      if (leave == std::numeric_limits<int>::max())
        break; // a task of this cut stays cut in every later one
      k = leave;
    }
    if (!moved)
      return true;
    sw.makespan = dag.forward(sw.T, sw.es);
    if (sw.makespan >= M - tol)
      return true; // no progress (a guard; the cut shortens every path)
    sw.fill(sw.makespan);
    work += sw.fillVisits; // a fill may take many passes
    sw.fillVisits = 0;
    record();
    if (states)
      states->push_back(sw.cur);
  }
  stepGuard = true;
  return false; // truncated
}

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
  Sweep fast(dag, opts, /*rule=*/0);
  fast.floatFill();
  return fast.point(P, keepChoices);
}

void priceFill(const Dag &dag, const std::vector<TaskOptions> &opts, double P,
               bool keepChoices, int prices, std::vector<DagPoint> &out) {
  out.push_back(filledFastest(dag, opts, P, keepChoices));
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const TaskOptions &o : opts)
    for (size_t k = 1; k < o.T.size(); ++k) {
      double slope = (o.d[k - 1] - o.d[k]) / std::max(o.T[k] - o.T[k - 1], 1e-15);
      lo = std::min(lo, slope);
      hi = std::max(hi, slope);
    }
  if (!(hi > 0) || !(lo < hi))
    return;
  lo = std::max(lo, hi * 1e-6);
  for (int i = 0; i < prices; ++i) {
    double lambda = lo * std::pow(hi / lo, (i + 0.5) / prices);
    Sweep sw(dag, opts, /*rule=*/0);
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

/// Tasks on one (device, stream) lane with identical options form a class
/// (a pipeline stage's forward or backward passes over the microbatches).
struct Classes {
  std::vector<uint32_t> of, ordinal;    ///< per task: its class, its rank in it
  std::vector<uint32_t> lane, rep, count; ///< per class
  size_t lanes = 0;

  Classes(const Schedule &sched, const std::vector<TaskOptions> &opts) {
    size_t n = opts.size();
    std::unordered_map<uint64_t, uint32_t> laneOf;
    std::vector<uint32_t> taskLane(n), order(n);
    for (uint32_t t = 0; t < n; ++t) {
      const ScheduleTask &task = sched.tasks[t];
      uint64_t key =
          laneKey(task.devices.empty() ? 0 : task.devices[0], task.stream);
      taskLane[t] = laneOf.emplace(key, uint32_t(laneOf.size())).first->second;
      order[t] = t;
    }
    lanes = laneOf.size();
    auto less = [&](uint32_t a, uint32_t b) {
      if (taskLane[a] != taskLane[b])
        return taskLane[a] < taskLane[b];
      if (opts[a].T != opts[b].T)
        return opts[a].T < opts[b].T;
      return opts[a].d < opts[b].d;
    };
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return less(a, b) || (!less(b, a) && a < b); // program order in a class
    });
    of.resize(n);
    ordinal.resize(n);
    for (size_t i = 0; i < n; ++i) {
      uint32_t t = order[i];
      if (i == 0 || less(order[i - 1], t)) {
        lane.push_back(taskLane[t]);
        rep.push_back(t);
        count.push_back(0);
      }
      of[t] = uint32_t(rep.size() - 1);
      ordinal[t] = count.back()++; // program order within the class
    }
  }
};

/// Large schedules with repeated structure (docs/FRONTIER.md, "class
/// sweep"): for a lane busy-time budget c, each lane spends it like the
/// continuous relaxation would -- its classes' lower-convex-hull segments,
/// scaled by class size, bought cheapest rate first, the last one by part
/// of its class (every k-th task, in program order) -- so the bottleneck
/// lane sets the pace and the others convert their slack. Each
/// configuration is then measured exactly (longest path) and improved where
/// the uniform choice is weakest, the pipeline's ramps: a task on *every*
/// critical path (path counts from both ends, modulo 2^61 - 1, multiply to
/// the total) shortens the makespan by whatever it saves, so it takes the
/// option minimizing d + lambda T at the bottleneck lane's marginal rate
/// lambda (`rounds` times). Finally it is slowed within its float. Between
/// the fastest budget and the fastest makespan (critical paths crossing
/// several lanes' ramps), every critical task moves one option faster per
/// step (`fastSteps` at most), each state filled and recorded. O((budgets x
/// rounds + fastSteps) x (V + E)); real configurations, joined where Pareto.
/// Returns false (adding nothing) when classes hold fewer than `minPerLane`
/// tasks per lane on average.
bool classSweep(const Dag &dag, const std::vector<TaskOptions> &opts,
                const Schedule &sched, double P, bool keepChoices,
                int budgets, double minPerLane, int rounds, int fastSteps,
                std::vector<DagPoint> &out) {
  size_t n = opts.size();
  Classes cl(sched, opts);
  size_t classes = cl.rep.size(), lanes = cl.lanes;
  if (double(classes) * minPerLane * double(lanes) > double(n) || budgets < 1)
    return false;
  // Per class: lower convex hull vertices (option indices, slowest first).
  std::vector<std::vector<uint32_t>> hull(classes);
  for (uint32_t c = 0; c < classes; ++c)
    hull[c] = hullOf(opts[cl.rep[c]]).index;
  // Per lane: hull segments, cheapest speed-up per second first (within a
  // class the rates grow towards the fast end, so its segments come in order).
  struct Seg {
    double rate, saved; // J/s; lane busy time saved, s
    uint32_t cls, vertex; // from hull[cls][vertex] to hull[cls][vertex + 1]
  };
  std::vector<std::vector<Seg>> segs(lanes);
  std::vector<double> slowBusy(lanes, 0), fastBusy(lanes, 0);
  for (uint32_t c = 0; c < classes; ++c) {
    const TaskOptions &o = opts[cl.rep[c]];
    const std::vector<uint32_t> &h = hull[c];
    double k = cl.count[c];
    slowBusy[cl.lane[c]] += k * o.T[h.front()];
    fastBusy[cl.lane[c]] += k * o.T[h.back()];
    for (uint32_t v = 0; v + 1 < h.size(); ++v) {
      double dt = o.T[h[v]] - o.T[h[v + 1]], dd = o.d[h[v + 1]] - o.d[h[v]];
      segs[cl.lane[c]].push_back({dd / std::max(dt, 1e-15), k * dt, c, v});
    }
  }
  for (std::vector<Seg> &l : segs)
    std::sort(l.begin(), l.end(), [](const Seg &a, const Seg &b) {
      return a.rate < b.rate ||
             (a.rate == b.rate &&
              (a.cls < b.cls || (a.cls == b.cls && a.vertex < b.vertex)));
    });
  double lo = 0, hi = 0;
  uint32_t bottleneck = 0;
  for (uint32_t l = 0; l < lanes; ++l) {
    lo = std::max(lo, fastBusy[l]);
    if (slowBusy[l] > hi) {
      hi = slowBusy[l];
      bottleneck = l;
    }
  }
  const uint64_t mod = (uint64_t(1) << 61) - 1;
  auto mulmod = [&](uint64_t x, uint64_t y) {
    return uint64_t((unsigned __int128)x * y % mod);
  };
  std::vector<uint32_t> vert(classes), partial(classes);
  std::vector<uint64_t> head(n), tail(n);
  // Only Pareto points keep their choices (1,400 candidates x 131,072 tasks
  // would be 730 MB of choices).
  std::vector<DagPoint> kept;
  auto keep = [&](const Sweep &state) {
    double T = state.makespan, E = P * T + state.dsum;
    for (const DagPoint &q : kept)
      if (q.T <= T && q.E <= E)
        return;
    kept.erase(std::remove_if(kept.begin(), kept.end(),
                              [&](const DagPoint &q) { return T <= q.T && E <= q.E; }),
               kept.end());
    kept.push_back(state.point(P, keepChoices));
  };
  Sweep sw(dag, opts, /*rule=*/0);
  for (int b = 0; b <= budgets; ++b) {
    double c = hi - (hi - lo) * b / budgets;
    std::fill(vert.begin(), vert.end(), 0);
    std::fill(partial.begin(), partial.end(), 0);
    double lambda = 0;
    for (uint32_t l = 0; l < lanes; ++l) {
      double need = slowBusy[l] - c;
      for (const Seg &sg : segs[l]) {
        if (need <= 0)
          break;
        if (l == bottleneck)
          lambda = sg.rate;
        if (sg.saved <= need) {
          vert[sg.cls] = sg.vertex + 1;
          need -= sg.saved;
        } else {
          partial[sg.cls] =
              uint32_t(std::ceil(need / sg.saved * cl.count[sg.cls] - 1e-9));
          need = 0;
        }
      }
    }
    for (uint32_t t = 0; t < n; ++t) {
      uint32_t k = cl.of[t], v = vert[k];
      uint64_t r = partial[k], cnt = cl.count[k], i = cl.ordinal[t];
      if (r && (i + 1) * r / cnt > i * r / cnt)
        ++v;
      sw.set(t, hull[k][v]);
    }
    sw.makespan = dag.forward(sw.T, sw.es);
    for (int round = 0; round < rounds && lambda > 0; ++round) {
      double M = sw.makespan;
      dag.backward(sw.T, M, sw.ls);
      double tol = 1e-9 * std::max(M, 1e-9);
      auto critical = [&](uint32_t t) { return sw.ls[t] - sw.es[t] <= tol; };
      auto tight = [&](uint32_t u, uint32_t v, const Edge &e) {
        double ready = e.startToStart ? sw.es[u] + e.lag
                                      : sw.es[u] + sw.T[u] + e.lag;
        return std::abs(sw.es[v] - ready) <= tol;
      };
      uint64_t total = 0; // critical paths, modulo 2^61 - 1
      for (uint32_t v : dag.topo) {
        head[v] = 0;
        if (!critical(v))
          continue;
        uint64_t cnt = sw.es[v] <= dag.release[v] + tol ? 1 : 0;
        for (uint32_t i = dag.predStart[v]; i < dag.predStart[v + 1]; ++i) {
          const Edge &e = dag.pred[i];
          if (critical(e.to) && tight(e.to, v, e))
            cnt = (cnt + head[e.to]) % mod;
        }
        head[v] = cnt;
        if (sw.es[v] + sw.T[v] >= M - tol)
          total = (total + cnt) % mod;
      }
      bool moved = false;
      for (size_t k = n; k-- > 0;) {
        uint32_t v = dag.topo[k];
        tail[v] = 0;
        if (!critical(v))
          continue;
        uint64_t cnt = sw.es[v] + sw.T[v] >= M - tol ? 1 : 0;
        for (uint32_t i = dag.succStart[v]; i < dag.succStart[v + 1]; ++i) {
          const Edge &e = dag.succ[i];
          if (critical(e.to) && tight(v, e.to, e))
            cnt = (cnt + tail[e.to]) % mod;
        }
        tail[v] = cnt;
        if (sw.cur[v] == 0 || mulmod(head[v], cnt) != total)
          continue;
        const TaskOptions &o = opts[v];
        uint32_t best = sw.cur[v];
        for (uint32_t j = 0; j < sw.cur[v]; ++j)
          if (o.d[j] + lambda * o.T[j] < o.d[best] + lambda * o.T[best])
            best = j;
        if (best != sw.cur[v]) {
          sw.set(v, best); // its successors' counts are already final
          moved = true;
        }
      }
      if (!moved)
        break;
      sw.makespan = dag.forward(sw.T, sw.es);
    }
    if (b == budgets) {
      // Towards the fastest makespan, which no budget reaches when critical
      // paths cross several lanes' ramps: every critical task one option
      // faster, `fastSteps` times at most, each state then filled (131,072
      // tasks: the fastest point 6.21 -> 5.62 MJ, certified within 1.6 %).
      Sweep state = sw;
      for (int k = 0; k < fastSteps; ++k) {
        state.makespan = dag.forward(state.T, state.es);
        dag.backward(state.T, state.makespan, state.ls);
        double tol = 1e-9 * std::max(state.makespan, 1e-9);
        bool moved = false;
        for (uint32_t t = 0; t < n; ++t)
          if (state.ls[t] - state.es[t] <= tol && state.cur[t] != 0) {
            state.set(t, state.cur[t] - 1);
            moved = true;
          }
        if (!moved)
          break;
        state.makespan = dag.forward(state.T, state.es);
        Sweep filled = state;
        filled.floatFill();
        keep(filled);
      }
    }
    sw.floatFill();
    keep(sw);
  }
  out.insert(out.end(), std::make_move_iterator(kept.begin()),
             std::make_move_iterator(kept.end()));
  return true;
}

double quantize(double t, double q) {
  if (q <= 0)
    return t;
  return std::floor(t / q + 1e-9) * q;
}

} // namespace

namespace {
/// Interval accounting for a schedule with its durations and energies set,
/// timed by list scheduling; the makespan counts from the schedule's start
/// (its earliest release), as the lowering does.
double timedEnergy(const Schedule &timed, double *makespan) {
  std::vector<double> start;
  std::vector<uint32_t> cycle;
  computeStartTimes(timed, start, cycle);
  return intervalAccountingEnergy(timed, start, makespan);
}
} // namespace

double dagEnergyWithSwitches(const Schedule &sched,
                             const std::vector<std::vector<Option>> &options,
                             const std::vector<uint32_t> &choice,
                             const std::vector<std::vector<int64_t>> &clocks,
                             const std::vector<SwitchCost> &deviceCost,
                             double quantum, double *makespan,
                             uint32_t *switches) {
  size_t n = sched.tasks.size();
  // Which tasks a switch precedes, in program order per lane.
  std::vector<char> switchBefore(n, 0);
  std::map<std::pair<uint32_t, uint32_t>, int64_t> laneClock;
  uint32_t count = 0;
  for (size_t t = 0; t < n; ++t) {
    const ScheduleTask &task = sched.tasks[t];
    int64_t clock = clocks[t][choice[t]];
    if (clock < 0 || task.devices.size() != 1)
      continue;
    auto [it, first] =
        laneClock.try_emplace({task.devices[0], task.stream}, clock);
    if (!first && it->second != clock) {
      ++count;
      switchBefore[t] = deviceCost[task.devices[0]].declared;
    }
    it->second = clock;
  }
  Schedule timed;
  timed.devices = sched.devices;
  std::vector<uint32_t> index(n);
  for (size_t t = 0; t < n; ++t) {
    const ScheduleTask &task = sched.tasks[t];
    if (switchBefore[t]) {
      const SwitchCost &c = deviceCost[task.devices[0]];
      ScheduleTask sw;
      sw.devices = task.devices;
      sw.stream = task.stream;
      sw.duration = c.T;
      sw.d = c.d;
      timed.tasks.push_back(std::move(sw));
    }
    index[t] = uint32_t(timed.tasks.size());
    ScheduleTask copy = task;
    const Option &o = options[t][choice[t]];
    copy.duration = quantize(o.T, quantum);
    copy.d = o.d;
    timed.tasks.push_back(std::move(copy));
  }
  for (ScheduleTask &task : timed.tasks)
    for (Dependency &dep : task.deps)
      dep.pred = index[dep.pred];
  if (switches)
    *switches = count;
  return timedEnergy(timed, makespan);
}

double dagEnergy(const Schedule &sched,
                 const std::vector<std::vector<Option>> &options,
                 const std::vector<uint32_t> &choice, double quantum,
                 double *makespan) {
  Schedule timed = sched;
  for (size_t t = 0; t < timed.tasks.size(); ++t) {
    const Option &o = options[t][choice[t]];
    timed.tasks[t].duration = quantize(o.T, quantum);
    timed.tasks[t].d = o.d;
  }
  return timedEnergy(timed, makespan);
}

namespace {
/// Series-parallel decomposition of the task DAG, for exact frontiers
/// (docs/FRONTIER.md). Each task is an edge in(v) -> out(v) of a two-terminal
/// multigraph; each finish-to-start dependency (and stream order) a zero
/// edge out(u) -> in(v); tasks without predecessors hang from the source,
/// tasks without successors reach the sink. Series reductions (a node with
/// one edge in and one out) and parallel reductions (two edges between the
/// same nodes) are applied until nothing changes: the DAG is series-parallel
/// exactly when one source-sink edge remains (Valdes, Tarjan and Lawler),
/// and the reductions made are its decomposition tree. Zero edges vanish in
/// either composition (T >= 0). Start-to-start edges are not series-parallel
/// structure: their presence answers no.
struct SpTree {
  struct Node {
    enum Kind : uint8_t { Leaf, Release, Series, Parallel } kind;
    uint32_t a, b; ///< Leaf and Release: a = the task; else the children
  };
  std::vector<Node> nodes; ///< children before parents
  uint32_t root = 0;
};

constexpr uint32_t SpZero = UINT32_MAX;

bool decomposeSeriesParallel(const Dag &dag, size_t n, SpTree &tree) {
  // Series-parallel composition has no room for a lag on an edge.
  for (const Edge &e : dag.succ)
    if (e.startToStart || e.lag != 0)
      return false;
  tree.nodes.clear();
  for (uint32_t v = 0; v < n; ++v)
    tree.nodes.push_back({SpTree::Node::Leaf, v, 0});
  auto compose = [&](SpTree::Node::Kind kind, uint32_t a, uint32_t b) {
    if (a == SpZero)
      return b;
    if (b == SpZero)
      return a;
    tree.nodes.push_back({kind, a, b});
    return uint32_t(tree.nodes.size() - 1);
  };
  struct GEdge {
    uint32_t from, to, sub;
    bool alive;
  };
  size_t nodes = 2 + 2 * n; // source 0, sink 1, in(v) 2 + 2v, out(v) 3 + 2v
  std::vector<GEdge> edges;
  std::vector<std::vector<uint32_t>> ins(nodes), outs(nodes);
  std::vector<uint32_t> indeg(nodes, 0), outdeg(nodes, 0);
  std::unordered_map<uint64_t, uint32_t> between;
  std::vector<uint32_t> work;
  size_t alive = 0;
  auto key = [](uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; };
  auto addEdge = [&](uint32_t from, uint32_t to, uint32_t sub) {
    auto [it, fresh] = between.try_emplace(key(from, to), 0);
    if (!fresh) { // parallel reduction
      GEdge &e = edges[it->second];
      e.sub = e.sub == SpZero || sub == SpZero
                  ? (e.sub == SpZero ? sub : e.sub)
                  : compose(SpTree::Node::Parallel, e.sub, sub);
      work.push_back(from);
      work.push_back(to);
      return;
    }
    it->second = uint32_t(edges.size());
    edges.push_back({from, to, sub, true});
    outs[from].push_back(it->second);
    ins[to].push_back(it->second);
    ++outdeg[from];
    ++indeg[to];
    ++alive;
  };
  auto kill = [&](uint32_t id) {
    GEdge &e = edges[id];
    e.alive = false;
    between.erase(key(e.from, e.to));
    --outdeg[e.from];
    --indeg[e.to];
    --alive;
  };
  auto only = [&](std::vector<uint32_t> &list) {
    size_t w = 0; // drop dead entries as we go
    for (uint32_t id : list)
      if (edges[id].alive)
        list[w++] = id;
    list.resize(w);
    return list.front();
  };
  // A series composition of parts with several sinks and several sources
  // joins every sink to every source (a complete bipartite K_{X,G}), which
  // is not edge-series-parallel as it stands: each such biclique goes
  // through one junction node instead (zero edges: the same longest
  // paths). A group G of tasks with the same predecessor set X (|X|, |G| >=
  // 2) is one when every task of X has exactly G as its successors.
  std::vector<std::vector<uint32_t>> preds(n), succs(n);
  for (uint32_t v = 0; v < n; ++v) {
    for (uint32_t i = dag.predStart[v]; i < dag.predStart[v + 1]; ++i)
      preds[v].push_back(dag.pred[i].to);
    for (uint32_t i = dag.succStart[v]; i < dag.succStart[v + 1]; ++i)
      succs[v].push_back(dag.succ[i].to);
    for (auto *list : {&preds[v], &succs[v]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
  std::map<std::vector<uint32_t>, std::vector<uint32_t>> byPreds;
  for (uint32_t v = 0; v < n; ++v)
    if (preds[v].size() >= 2)
      byPreds[preds[v]].push_back(v);
  std::vector<uint32_t> junctionFrom(n, UINT32_MAX), junctionInto(n, UINT32_MAX);
  for (auto &[X, G] : byPreds) {
    if (G.size() < 2)
      continue;
    bool biclique = true;
    for (uint32_t x : X)
      biclique = biclique && succs[x] == G; // G is sorted: built in order
    if (!biclique)
      continue;
    uint32_t junction = uint32_t(nodes++);
    ins.emplace_back();
    outs.emplace_back();
    indeg.push_back(0);
    outdeg.push_back(0);
    for (uint32_t x : X)
      junctionFrom[x] = junction;
    for (uint32_t v : G)
      junctionInto[v] = junction;
  }
  for (uint32_t v = 0; v < n; ++v) {
    addEdge(2 + 2 * v, 3 + 2 * v, v);
    // A release time is a fixed-length edge from the source.
    if (dag.release[v] > 0) {
      tree.nodes.push_back({SpTree::Node::Release, v, 0});
      addEdge(0, 2 + 2 * v, uint32_t(tree.nodes.size() - 1));
    } else if (preds[v].empty()) {
      addEdge(0, 2 + 2 * v, SpZero);
    }
    if (succs[v].empty())
      addEdge(3 + 2 * v, 1, SpZero);
    if (junctionFrom[v] != UINT32_MAX)
      addEdge(3 + 2 * v, junctionFrom[v], SpZero);
    else
      for (uint32_t w : succs[v])
        addEdge(3 + 2 * v, 2 + 2 * w, SpZero);
    if (junctionInto[v] != UINT32_MAX)
      addEdge(junctionInto[v], 2 + 2 * v, SpZero);
  }
  for (uint32_t x = 2; x < nodes; ++x)
    work.push_back(x);
  while (!work.empty()) {
    uint32_t x = work.back();
    work.pop_back();
    if (x < 2 || indeg[x] != 1 || outdeg[x] != 1)
      continue;
    uint32_t e1 = only(ins[x]), e2 = only(outs[x]);
    uint32_t a = edges[e1].from, b = edges[e2].to;
    uint32_t sub =
        compose(SpTree::Node::Series, edges[e1].sub, edges[e2].sub);
    kill(e1);
    kill(e2);
    addEdge(a, b, sub);
    work.push_back(a);
    work.push_back(b);
  }
  auto it = between.find(key(0, 1));
  if (alive != 1 || it == between.end())
    return false;
  if (edges[it->second].sub == SpZero)
    return false; // no tasks
  tree.root = edges[it->second].sub;
  return true;
}

/// The exact (T, d) frontier of an SP tree, bottom-up: series is the Pareto
/// of the Minkowski sum, parallel takes for every window each side's
/// cheapest point within it (the max-plus rule of Frontier.h with no idle
/// power: the whole schedule's static power multiplies the root's
/// makespan). Back-pointers rebuild each point's choices. Returns false
/// when the work would exceed `budget` point pairs (the caller falls back).
bool seriesParallelFrontier(const SpTree &tree,
                            const std::vector<TaskOptions> &opts,
                            const std::vector<double> &release, double P,
                            bool keepChoices, uint64_t budget,
                            std::vector<DagPoint> &out) {
  struct Front {
    std::vector<double> T, d;
    std::vector<uint32_t> ia, ib; // children's points
  };
  size_t m = tree.nodes.size();
  std::vector<Front> f(m);
  uint64_t work = 0;
  struct Cand {
    double T, d;
    uint32_t i, j;
  };
  std::vector<Cand> cand;
  auto prune = [](std::vector<Cand> &c, Front &r) {
    std::sort(c.begin(), c.end(), [](const Cand &x, const Cand &y) {
      return x.T < y.T || (x.T == y.T && x.d < y.d);
    });
    double best = std::numeric_limits<double>::infinity();
    for (const Cand &x : c)
      if (x.d < best) {
        best = x.d;
        r.T.push_back(x.T);
        r.d.push_back(x.d);
        r.ia.push_back(x.i);
        r.ib.push_back(x.j);
      }
  };
  for (size_t k = 0; k < m; ++k) {
    const SpTree::Node &node = tree.nodes[k];
    Front &r = f[k];
    if (node.kind == SpTree::Node::Leaf) {
      r.T = opts[node.a].T;
      r.d = opts[node.a].d;
      continue;
    }
    if (node.kind == SpTree::Node::Release) {
      r.T = {release[node.a]};
      r.d = {0};
      continue;
    }
    const Front &A = f[node.a], &B = f[node.b];
    cand.clear();
    if (node.kind == SpTree::Node::Series) {
      work += uint64_t(A.T.size()) * B.T.size();
      if (work > budget)
        return false;
      for (uint32_t i = 0; i < A.T.size(); ++i)
        for (uint32_t j = 0; j < B.T.size(); ++j)
          cand.push_back({A.T[i] + B.T[j], A.d[i] + B.d[j], i, j});
    } else {
      work += A.T.size() + B.T.size();
      // Windows: every point's T; each side's cheapest point within it is
      // its last one with T <= the window (T ascending, d descending).
      std::vector<double> windows(A.T);
      windows.insert(windows.end(), B.T.begin(), B.T.end());
      std::sort(windows.begin(), windows.end());
      windows.erase(std::unique(windows.begin(), windows.end()), windows.end());
      long i = -1, j = -1;
      for (double M : windows) {
        while (i + 1 < long(A.T.size()) && A.T[i + 1] <= M)
          ++i;
        while (j + 1 < long(B.T.size()) && B.T[j + 1] <= M)
          ++j;
        if (i >= 0 && j >= 0)
          cand.push_back({std::max(A.T[i], B.T[j]), A.d[i] + B.d[j],
                          uint32_t(i), uint32_t(j)});
      }
    }
    prune(cand, r);
  }
  // The root: E = P T + d, Pareto-min in (T, E), fastest first.
  const Front &root = f[tree.root];
  size_t n = opts.size();
  std::vector<std::pair<uint32_t, uint32_t>> stack; // (tree node, point)
  double best = std::numeric_limits<double>::infinity();
  for (uint32_t p = 0; p < root.T.size(); ++p) {
    double E = P * root.T[p] + root.d[p];
    if (!(E < best))
      continue;
    best = E;
    DagPoint point;
    point.T = root.T[p];
    point.E = E;
    point.lowerBound = E;
    if (keepChoices) {
      point.choice.assign(n, 0);
      stack.assign(1, {tree.root, p});
      while (!stack.empty()) {
        auto [k, q] = stack.back();
        stack.pop_back();
        const SpTree::Node &node = tree.nodes[k];
        if (node.kind == SpTree::Node::Leaf) {
          point.choice[node.a] = opts[node.a].original[q];
          continue;
        }
        if (node.kind == SpTree::Node::Release)
          continue;
        stack.push_back({node.a, f[k].ia[q]});
        stack.push_back({node.b, f[k].ib[q]});
      }
    }
    out.push_back(std::move(point));
  }
  return true;
}

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
      best.emplace(M, std::make_pair(E, keepChoices ? c : std::vector<uint32_t>()));
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
} // namespace

double DagFrontierResult::lowerBoundAt(double T) const {
  if (flows.empty())
    return std::numeric_limits<double>::quiet_NaN();
  double lb = -std::numeric_limits<double>::infinity();
  for (auto [C, F] : flows)
    lb = std::max(lb, C + (staticPower - F) *
                              (F > staticPower ? T : fastestMakespan));
  return lb;
}

/// Pareto-min in (T, E), fastest first.
static void paretoPrune(std::vector<DagPoint> &frontier) {
  std::sort(frontier.begin(), frontier.end(),
            [](const DagPoint &a, const DagPoint &b) {
              return a.T < b.T || (a.T == b.T && a.E < b.E);
            });
  std::vector<DagPoint> pruned;
  double best = std::numeric_limits<double>::infinity();
  for (DagPoint &p : frontier)
    if (p.E < best) {
      best = p.E;
      pruned.push_back(std::move(p));
    }
  frontier = std::move(pruned);
}

bool dagFrontier(const Schedule &sched,
                 const std::vector<std::vector<Option>> &options,
                 const DagFrontierSettings &settings,
                 std::vector<DagPoint> &frontier, std::string &err,
                 DagFrontierResult *result) {
  size_t n = sched.tasks.size();
  frontier.clear();
  if (options.size() != n) {
    err = "need one operating set per task";
    return false;
  }
  Dag dag;
  if (!dag.build(sched, err))
    return false;
  double P = 0;
  for (const ScheduleDevice &dev : sched.devices)
    P += dev.staticPower;

  // Per task: its (T, d) Pareto options (slower options are only useful if
  // they save dynamic energy).
  std::vector<TaskOptions> opts(n);
  for (size_t t = 0; t < n; ++t) {
    if (options[t].empty()) {
      err = "task " + std::to_string(t) + " has an empty operating set";
      return false;
    }
    std::vector<uint32_t> idx(options[t].size());
    for (uint32_t i = 0; i < idx.size(); ++i)
      idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
      double ta = quantize(options[t][a].T, settings.quantum),
             tb = quantize(options[t][b].T, settings.quantum);
      return ta < tb || (ta == tb && options[t][a].d < options[t][b].d);
    });
    double best = std::numeric_limits<double>::infinity();
    for (uint32_t i : idx)
      if (options[t][i].d < best) {
        best = options[t][i].d;
        opts[t].T.push_back(quantize(options[t][i].T, settings.quantum));
        opts[t].d.push_back(options[t][i].d);
        opts[t].original.push_back(i);
      }
  }

  // Small problems: exact.
  uint64_t combinations = 1;
  for (const TaskOptions &o : opts)
    combinations = combinations > UINT64_MAX / o.T.size()
                       ? UINT64_MAX
                       : combinations * o.T.size();
  uint64_t steps = n + dag.succ.size();
  bool exact = settings.exactBudget > 0 &&
               combinations <= settings.exactBudget / std::max<uint64_t>(steps, 1);
  if (result) {
    *result = {};
    result->exact = exact;
    result->combinations = combinations;
  }

  // Series-parallel schedules (chains, fork-joins, independent devices):
  // exact through their decomposition, whatever their size, unless the
  // frontiers grow past the budget.
  if (settings.seriesParallelBudget > 0) {
    SpTree sp;
    std::vector<DagPoint> spFrontier;
    if (decomposeSeriesParallel(dag, n, sp) &&
        seriesParallelFrontier(sp, opts, dag.release, P, settings.keepChoices,
                               settings.seriesParallelBudget, spFrontier)) {
      frontier = std::move(spFrontier);
      if (result) {
        result->exact = true;
        result->seriesParallel = true;
      }
      return true;
    }
  }

  double step = settings.step;
  // The makespans with every task at its slowest useful option (which
  // bounds the sweeps) and at its fastest (no configuration is faster).
  auto makespanAt = [&](bool fastestOptions) {
    std::vector<double> T(n), scratch(n);
    for (size_t t = 0; t < n; ++t)
      T[t] = fastestOptions ? opts[t].T.front() : opts[t].T.back();
    return dag.forward(T, scratch);
  };
  const double slowest = makespanAt(false), fastestAll = makespanAt(true);

  // Several greedy rules, merged: each is myopic in its own way (knapsack
  // effects on shared paths); their union is markedly closer to optimal.
  if (exact)
    enumerateFrontier(dag, opts, P, settings.keepChoices, frontier);
  size_t totalOptions = 0;
  for (const TaskOptions &o : opts)
    totalOptions += o.T.size();
  // The crash sweep first (pipelines: it carries the frontier), then the
  // forward sweeps where they are cheap (up to 2,000 task options: small
  // random DAGs need them); on larger schedules they add nothing measurable
  // once the crash sweep has run (Bloom, 4 x 32 and 8 x 64 x 73: the same
  // frontier) and cost up to 40 times more.
  std::vector<FlowBound> bounds;
  // Seeded sweeps (medium schedules, up to 20,000 task options): the crash
  // sweep only ever speeds up, and the fill after each cut is myopic, so it
  // can pass by configurations that a fill from one of its faster states
  // reaches. From crash states at least 0.1 % of the makespan apart, fill
  // against deadlines growing geometrically (x1.3 from one step) up to 3 %
  // beyond the state's makespan. Bloom/A40 against Perseus's frontier, worst
  // point: 12 microbatches +0.58 % -> -0.07 %, 48: -1.66 % -> -1.68 %.
  bool seeded = !exact && settings.crash && totalOptions <= 20000;
  std::vector<std::vector<uint32_t>> states;
  bool truncated = false;
  double stoppedAt = 0;
  // Large schedules with repeated structure: the class sweep instead.
  if (settings.progress && !exact && settings.crash &&
      totalOptions > settings.classSweepAbove)
    settings.progress("class sweep", -1, frontier.size(), NAN);
  bool classSwept = !exact && settings.crash &&
                    totalOptions > settings.classSweepAbove &&
                    classSweep(dag, opts, sched, P, settings.keepChoices,
                               settings.classBudgets,
                               settings.classMinPerLane, /*rounds=*/3,
                               /*fastSteps=*/400, frontier);
  if (classSwept) // and the fastest configuration
    frontier.push_back(filledFastest(dag, opts, P, settings.keepChoices));
  bool stepGuard = false;
  DagFrontierResult::Truncation why = DagFrontierResult::Truncation::None;
  if (!exact && settings.crash && !classSwept &&
      !crashSweep(dag, opts, P, settings.keepChoices, settings.crashWorkBudget,
                  frontier, bounds, seeded ? &states : nullptr, stepGuard,
                  settings)) {
    why = stepGuard ? DagFrontierResult::Truncation::StepGuard
                    : DagFrontierResult::Truncation::WorkBudget;
    // Out of budget: the fastest configuration closes the range and price
    // points cross the gap (priceFill); the sweep's points in between are
    // missing.
    truncated = true;
    stoppedAt = frontier.back().T;
    priceFill(dag, opts, P, settings.keepChoices, 32, frontier);
  }
  // The invariant every heuristic frontier keeps: it starts at the fastest
  // makespan (every task at its fastest option). A sweep that ended above
  // it is closed like a truncated one.
  if (!exact && !truncated && !frontier.empty()) {
    double reached = std::numeric_limits<double>::infinity();
    for (const DagPoint &p : frontier)
      reached = std::min(reached, p.T);
    if (reached > fastestAll * (1 + 1e-12)) {
      truncated = true;
      why = DagFrontierResult::Truncation::AboveFastest;
      stoppedAt = reached;
      priceFill(dag, opts, P, settings.keepChoices, 32, frontier);
    }
  }
  double lastSeed = std::numeric_limits<double>::infinity();
  for (const std::vector<uint32_t> &state : states) {
    Sweep sw(dag, opts, /*rule=*/0);
    for (uint32_t t = 0; t < n; ++t)
      sw.set(t, state[t]);
    double base = sw.makespan = dag.forward(sw.T, sw.es);
    if (base > lastSeed - 1e-3 * base)
      continue; // seeds at least 0.1 % of the makespan apart
    lastSeed = base;
    double first = step > 0 ? step : base / 1000;
    for (double inc = first; inc <= 0.03 * base; inc *= 1.3) {
      if (!sw.fill(base + inc))
        continue;
      frontier.push_back(sw.point(P, settings.keepChoices));
    }
  }
  int rules = exact ? 0 : totalOptions <= 2000 || !settings.crash ? 3 : 0;
  for (int rule = 0; rule < rules; ++rule) {
    Sweep sw(dag, opts, rule);
    if (!(step > 0))
      step = sw.makespan > 0 ? sw.makespan / 1000 : 1e-3;
    // Refinement costs O(tasks x fill) per call: used on small schedules
    // (up to ~20,000 task options), where it closes part of the greedy's
    // gap; large ones keep the linear sweep.
    // Small schedules (the brute-force scale) refine exhaustively at every
    // deadline -- a deadline without a greedy move can still hold a better
    // configuration; medium ones refine one step after moves, sparsely.
    bool small = totalOptions <= 2000;
    bool refining = totalOptions <= 20000;
    size_t refineEvery = small ? 1 : std::max<size_t>(1, n / 64);
    size_t index = 0;
    // The first deadline is the fastest makespan itself: tasks off the
    // critical path already have slack to convert.
    double fastest = sw.makespan;
    static const char *const names[] = {"deadline sweep 1/3",
                                        "deadline sweep 2/3",
                                        "deadline sweep 3/3"};
    for (double D = fastest; D <= slowest + step; D += step, ++index) {
      if (settings.progress && slowest > fastest)
        settings.progress(names[rule], (D - fastest) / (slowest - fastest),
                          frontier.size(), D);
      bool moved = sw.fill(D);
      // An exhaustive refine at every deadline costs ~ deadlines x tasks x
      // options x fill passes: bounded by a budget of task visits per rule
      // (64 tasks x 11 clocks took 15 s unbounded), then sparse.
      if (small && sw.fillVisits > settings.refineVisitBudget) {
        small = false;
        refineEvery = std::max<size_t>(1, n / 64);
      }
      if (refining && (moved || small) && index % refineEvery == 0)
        sw.refine(D, /*exhaustive=*/small);
      if (moved || D == fastest || small) {
        frontier.push_back(sw.point(P, settings.keepChoices));
      }
    }
  }
  // The convex relaxation's exact frontier (ConvexFrontier.h): its flows
  // certify every point (the best bound any flow gives: the Lagrangian
  // bounds below are then not needed), and its optimal schedules, rounded
  // down to real options and refilled, join the union.
  bool convexComplete = false;
  if (!exact && settings.convex &&
      totalOptions <= settings.convexAbove) {
    if (settings.progress)
      settings.progress("convex relaxation", -1, frontier.size(), NAN);
    ConvexProblem pb;
    pb.tasks.reserve(n);
    for (const TaskOptions &o : opts)
      pb.tasks.push_back(hullOf(o));
    pb.release = dag.release;
    for (uint32_t u = 0; u < n; ++u)
      for (uint32_t i = dag.succStart[u]; i < dag.succStart[u + 1]; ++i)
        pb.arcs.push_back(
            {u, dag.succ[i].to, dag.succ[i].startToStart, dag.succ[i].lag});
    std::vector<double> levels;
    size_t K = settings.convexLevels;
    for (size_t k = 0; k < K; ++k) // slowest first
      levels.push_back(slowest - (slowest - fastestAll) * double(k) /
                                     double(std::max<size_t>(K - 1, 1)));
    Sweep sw(dag, opts, /*rule=*/0);
    // A schedule of durations `dur`, rounded down to real options (each
    // task's slowest option that fits: the makespan cannot grow), then
    // refilled against D by two greedy rules (the slowest option that fits,
    // and one option step at a time: the second shares a path's slack among
    // its tasks; Bloom/A100, 96 microbatches: above Perseus by up to +0.16 %
    // with the first alone, below it everywhere with both).
    auto seed = [&](const std::vector<double> &dur, double D) {
      for (int rule : {0, 2}) {
        sw.rule = rule;
        for (uint32_t t = 0; t < n; ++t) {
          const std::vector<double> &T = opts[t].T;
          uint32_t j = uint32_t(
              std::upper_bound(T.begin(), T.end(), dur[t] * (1 + 1e-12)) -
              T.begin());
          sw.set(t, j ? j - 1 : 0);
        }
        sw.makespan = dag.forward(sw.T, sw.es);
        if (rule == 0)
          frontier.push_back(sw.point(P, settings.keepChoices));
        if (sw.fill(D))
          frontier.push_back(sw.point(P, settings.keepChoices));
      }
      sw.rule = 0;
    };
    // The relaxation's optimal schedules at the levels (as many as fit in
    // 2^22 durations).
    std::vector<std::pair<double, std::vector<double>>> schedules;
    size_t keep = std::max<size_t>(2, (size_t(1) << 22) / std::max<size_t>(n, 1));
    if (levels.size() > keep) {
      std::vector<double> fewer;
      for (size_t k = 0; k < keep; ++k)
        fewer.push_back(levels[k * (levels.size() - 1) / (keep - 1)]);
      levels = std::move(fewer);
    }
    auto onLevel = [&](double L, const std::vector<double> &dur) {
      schedules.push_back({L, dur});
    };
    ConvexFrontier cf;
    std::string lpErr;
    bool lpOk = convexFrontier(pb, levels, onLevel, settings.convexWorkBudget,
                               cf, lpErr);
    convexComplete = lpOk && cf.complete;
    if (lpOk) {
      for (size_t k = 0; k < cf.breakpoints.size(); ++k) {
        auto [C, F] = cf.breakpoints[k].bound();
        bounds.push_back({C, F});
        if (auto at = cf.flowAtP(k, P)) // the flow value P inside segment k
          bounds.push_back({at->first, at->second});
      }
    }
    // Seeds go only where the frontier so far is more than
    // `convexSeedGap` above the relaxation (the sweeps before may already be
    // close: 8 x 64 x 73 synthetic, within 0.35 % everywhere).
    std::vector<std::pair<double, double>> sofar;
    for (const DagPoint &p : frontier)
      sofar.push_back({p.T, p.E});
    std::sort(sofar.begin(), sofar.end());
    for (size_t i = 1; i < sofar.size(); ++i)
      sofar[i].second = std::min(sofar[i].second, sofar[i - 1].second);
    auto wanted = [&](double D) {
      if (!lpOk)
        return false;
      auto it = std::upper_bound(
          sofar.begin(), sofar.end(),
          std::make_pair(D * (1 + 1e-12),
                         std::numeric_limits<double>::infinity()));
      if (it == sofar.begin())
        return true;
      double lb = cf.lowerBound(D, P);
      return std::prev(it)->second > (1 + settings.convexSeedGap) * lb;
    };
    // Between two reported levels the relaxation's optimum is (about) the
    // convex combination of their schedules -- feasible, as the feasible
    // set is convex -- so the levels skipped in between get blends.
    std::vector<double> blend(n);
    size_t level = 0;
    for (size_t k = 0; k < schedules.size(); ++k) {
      double L = schedules[k].first;
      const std::vector<double> &dur = schedules[k].second;
      const std::vector<double> *prevDur = k ? &schedules[k - 1].second : nullptr;
      double prevL = k ? schedules[k - 1].first : 0;
      size_t first = level;
      for (; level < levels.size() && levels[level] >= L; ++level) {
        double D = levels[level];
        if (!prevDur || D >= prevL || D <= L || !wanted(D))
          continue;
        double w = (D - L) / (prevL - L);
        for (uint32_t t = 0; t < n; ++t)
          blend[t] = w * (*prevDur)[t] + (1 - w) * dur[t];
        seed(blend, D);
      }
      if (!wanted(L))
        continue;
      seed(dur, L);
      // And from this level's configuration, fills against the skipped
      // levels in increasing order (the configuration only slows down).
      for (size_t j = level; j-- > first;)
        if (levels[j] > L && levels[j] < prevL && sw.fill(levels[j]))
          frontier.push_back(sw.point(P, settings.keepChoices));
      if (frontier.size() > 4096) // bound the choice vectors held
        paretoPrune(frontier);
    }
  }
  paretoPrune(frontier);
  // Holes, and the caller's deadline: filled from the best point below (a
  // real configuration, re-timed), then Pareto-pruned again.
  if (!exact && settings.keepChoices && totalOptions <= 20000 &&
      !frontier.empty()) {
    std::vector<double> targets;
    if (settings.fillDeadline > 0)
      targets.push_back(settings.fillDeadline);
    if (settings.fillSlowdown >= 0)
      targets.push_back(frontier.front().T * (1 + settings.fillSlowdown));
    for (size_t i = 0; i + 1 < frontier.size() && targets.size() < 256; ++i) {
      double gap = frontier[i + 1].T - frontier[i].T;
      if (gap > 0.005 * frontier[i].T)
        for (int k = 1; k <= 3; ++k)
          targets.push_back(frontier[i].T + k * gap / 4);
    }
    // Each task's caller option -> its Pareto index (none: not Pareto).
    std::vector<std::vector<int>> internal(n);
    for (size_t t = 0; t < n; ++t) {
      internal[t].assign(options[t].size(), -1);
      for (uint32_t i = 0; i < opts[t].original.size(); ++i)
        internal[t][opts[t].original[i]] = int(i);
    }
    std::vector<DagPoint> filled;
    for (double D : targets) {
      const DagPoint *from = nullptr;
      for (const DagPoint &p : frontier)
        if (p.T <= D * (1 + 1e-12))
          from = &p;
      if (!from)
        continue;
      Sweep sw(dag, opts, /*rule=*/0);
      bool ok = true;
      for (uint32_t t = 0; t < n && ok; ++t) {
        int j = internal[t][from->choice[t]];
        ok = j >= 0;
        if (ok)
          sw.set(t, uint32_t(j));
      }
      if (!ok)
        continue;
      sw.makespan = dag.forward(sw.T, sw.es);
      sw.fill(D);
      sw.refine(D, /*exhaustive=*/totalOptions <= 2000 &&
                       sw.fillVisits <= settings.refineVisitBudget);
      filled.push_back(sw.point(P, true));
    }
    if (!filled.empty()) {
      for (DagPoint &p : filled)
        frontier.push_back(std::move(p));
      paretoPrune(frontier);
    }
  }
  // Certified bounds and the worst gap.
  double worst = 0;

  // Where the convex relaxation did not run or complete -- up to 50,000
  // task options: subgradient-maximized flows at 64 deadlines,
  // 40 steps each. Bloom/A40, exact option times: every point within 4.87 %
  // -> 3.56 % (12 microbatches) and 6.33 % -> 3.26 % (48). Truncated and
  // class-swept frontiers get them at any size, at as many deadlines as fit
  // in ~2^32 option visits (131,072 tasks x 73 options: 11 deadlines, ~3 s).
  size_t deadlines = totalOptions <= 50000 ? 64 : 0;
  if (truncated || classSwept)
    deadlines = std::min<size_t>(
        64, size_t(4294967296.0 / (40.0 * double(totalOptions))));
  if (!exact && !convexComplete && settings.progress)
    settings.progress("certificate", -1, frontier.size(), NAN);
  if (!exact && !convexComplete)
    subgradientBounds(dag, opts, P, fastestAll, 40, deadlines, frontier, bounds);
  // Every flow's bound holds at every time (DagFrontier.h): each point takes
  // the best.
  for (DagPoint &p : frontier) {
    if (exact) {
      p.lowerBound = p.E;
      continue;
    }
    double lb = -std::numeric_limits<double>::infinity();
    for (const FlowBound &b : bounds)
      lb = std::max(lb, b.C + (P - b.F) * (b.F > P ? p.T : fastestAll));
    if (!bounds.empty())
      p.lowerBound = std::min(lb, p.E); // rounding: never above a real point
  }
  double worstAt = std::numeric_limits<double>::quiet_NaN();
  for (DagPoint &p : frontier)
    if (!exact && !std::isnan(p.lowerBound) && p.lowerBound > 0 &&
        (p.E - p.lowerBound) / p.lowerBound >= worst) {
      worst = (p.E - p.lowerBound) / p.lowerBound;
      worstAt = p.T;
    }
  if (result) {
    result->worstGap = exact ? 0 : bounds.empty() ? INFINITY : worst;
    result->worstGapAt = exact || bounds.empty() ? NAN : worstAt;
    result->staticPower = P;
    result->fastestMakespan = fastestAll;
    result->flows.clear();
    if (!exact)
      for (const FlowBound &b : bounds)
        result->flows.push_back({b.C, b.F});
    result->classSweep = classSwept;
    result->convexBound = convexComplete;
    if (truncated) {
      result->truncated = true;
      result->truncation = why;
      result->gapFrom = frontier.front().T;
      result->gapTo = stoppedAt;
    }
  }
  return true;
}

std::optional<PlanObjective> parsePlanObjective(const std::string &name) {
  if (name == "energy")
    return PlanObjective::Energy;
  if (name == "edp")
    return PlanObjective::EDP;
  if (name == "ed2p")
    return PlanObjective::ED2P;
  return std::nullopt;
}

double planScore(PlanObjective objective, double T, double E) {
  switch (objective) {
  case PlanObjective::Energy:
    return E;
  case PlanObjective::EDP:
    return E * T;
  case PlanObjective::ED2P:
    return E * T * T;
  }
  return E;
}

std::optional<size_t> choosePlanPoint(
    const std::vector<DagPoint> &frontier, PlanObjective objective,
    double limit,
    const std::function<std::pair<double, double>(const DagPoint &)> &asRun) {
  std::optional<size_t> best;
  double bestScore = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < frontier.size(); ++i) {
    const DagPoint &p = frontier[i];
    if (p.T > limit * (1 + 1e-12))
      continue;
    auto [T, E] = asRun(p);
    if (T > limit * (1 + 1e-12))
      continue;
    double score = planScore(objective, T, E);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

} // namespace calculus
} // namespace energy
