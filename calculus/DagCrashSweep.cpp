//===- DagCrashSweep.cpp - The crash sweep
//----------------------------------===//

#include "calculus/DagInternal.h"
#include "calculus/MaxFlow.h"

namespace energy {
namespace calculus {
namespace dag {

namespace {
/// The crash step's network (its makespan M, earliest and latest starts in
/// `sw` current): source 0, sink 1, critical task k: in 2 + 2k, out 3 + 2k.
/// The critical subgraph: critical tasks (in and out nodes joined by an
/// arc whose capacity is the energy per second of shortening it by one
/// option; `taskArc[k]` that arc) and the tight edges between them
/// (uncuttable). Without reverse arcs a path may cross the cut twice (it is
/// then shortened twice): valid, and measured as good and faster than
/// forcing single crossings.
void criticalNetwork(const Sweep &sw, double M, double tol,
                     std::vector<uint32_t> &crit, std::vector<int> &node,
                     std::vector<int> &taskArc, MaxFlow &flow) {
  const Dag &dag = sw.dag;
  const std::vector<TaskOptions> &opts = sw.opts;
  crit.clear();
  for (uint32_t t = 0; t < sw.n; ++t) {
    node[t] = -1;
    if (sw.ls[t] - sw.es[t] <= tol) {
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
      double ready =
          e.startToStart ? sw.es[t] + e.lag : sw.es[t] + sw.T[t] + e.lag;
      if (std::abs(sw.es[e.to] - ready) <= tol)
        flow.arc(e.startToStart ? in(t) : outN(t), in(e.to), MaxFlow::Inf);
    }
  }
}
} // namespace

/// The crash sweep, from the energy-minimal end (every task at its slowest
/// useful option) towards the fastest makespan, in the spirit of Phillips
/// and Dessouky (Perseus's solver): each step shortens, by one option, the
/// minimum-cost cut of the critical subgraph (costs: dynamic energy per
/// second saved), so every critical path gets shorter; then the greedy
/// fill re-lengthens tasks into the slack the step left. It complements the
/// forward sweep, which is myopic far from the fastest makespan.
/// `states` (optional) receives the configuration of every recorded point.
/// Returns false when `workBudget` (task visits, 0: none) ran out before
/// the fastest makespan was reached.
bool crashSweep(const Dag &dag, const std::vector<TaskOptions> &opts, double P,
                bool keepChoices, uint64_t workBudget,
                std::vector<DagPoint> &out, std::vector<FlowBound> &bounds,
                std::vector<std::vector<uint32_t>> *states, bool &stepGuard,
                const DagFrontierSettings &settings) {
  stepGuard = false;
  size_t n = opts.size();
  Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
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
    criticalNetwork(sw, M, tol, crit, node, taskArc, flow);
    auto in = [&](uint32_t t) { return 2 + 2 * node[t]; };
    auto outN = [&](uint32_t t) { return 3 + 2 * node[t]; };
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
        least =
            std::min(least, opts[t].T[sw.cur[t]] - opts[t].T[sw.cur[t] - 1]);
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

bool crashTo(Sweep &sw, double D, size_t maxSteps) {
  const Dag &dag = sw.dag;
  std::vector<uint32_t> crit;
  std::vector<int> node(sw.n, -1), taskArc(sw.n, -1);
  MaxFlow flow;
  for (size_t step = 0;; ++step) {
    double M = sw.makespan = dag.forward(sw.T, sw.es);
    if (M <= D * (1 + 1e-12))
      return true;
    if (step >= maxSteps)
      return false;
    dag.backward(sw.T, M, sw.ls);
    criticalNetwork(sw, M, 1e-9 * std::max(M, 1e-9), crit, node, taskArc, flow);
    if (flow.run(0, 1) >= MaxFlow::Inf / 2)
      return false; // a critical path of fastest options
    // The minimum cut on the source side: each of its tasks one option
    // faster shortens every critical path.
    const std::vector<char> &side = flow.sourceSide(0);
    for (uint32_t t : crit)
      if (side[2 + 2 * node[t]] && !side[3 + 2 * node[t]])
        sw.set(t, sw.cur[t] - 1);
  }
}

} // namespace dag
} // namespace calculus
} // namespace energy
