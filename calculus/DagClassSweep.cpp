//===- DagClassSweep.cpp - The class sweep
//----------------------------------===//

#include "calculus/DagInternal.h"

namespace energy {
namespace calculus {
namespace dag {

/// Tasks on one (device, stream) lane with identical options form a class
/// (a pipeline stage's forward or backward passes over the microbatches).
struct Classes {
  std::vector<uint32_t> of, ordinal; ///< per task: its class, its rank in it
  std::vector<uint32_t> lane, rep, count; ///< per class
  size_t lanes = 0;

  Classes(const Schedule &sched, const std::vector<TaskOptions> &opts) {
    size_t n = opts.size();
    std::vector<uint32_t> taskLane, order(n);
    lanes = laneIndices(sched, taskLane);
    for (uint32_t t = 0; t < n; ++t)
      order[t] = t;
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
                const Schedule &sched, double P, bool keepChoices, int budgets,
                double minPerLane, int rounds, int fastSteps,
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
    double rate, saved;   // J/s; lane busy time saved, s
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
    kept.erase(
        std::remove_if(kept.begin(), kept.end(),
                       [&](const DagPoint &q) { return T <= q.T && E <= q.E; }),
        kept.end());
    kept.push_back(state.point(P, keepChoices));
  };
  // A lane's busy time is bounded by the makespan less its head (the
  // longest path to its first task) and its tail (from its last task to the
  // end): in the relaxation the lane's price flows along both too
  // (DagLaneBound.cpp), so a task on another lane's head or tail is priced
  // at its own lane's rate plus those lanes' and takes the option
  // minimizing d + price x T where that is faster. The pipeline's warm-up
  // and cool-down tasks, which every later stage waits for, go faster and
  // the steady state, which the budget sets, slower: on the synthetic 8 x
  // 64 (exact option times) the mean certified gap falls from 1.63 % to
  // 1.22 %. The walks follow the tight edge found first and stop after 4n
  // steps in all. Returns whether a task moved (`es` is then stale).
  std::vector<double> extra(n);
  std::vector<uint32_t> laneFirst(lanes, UINT32_MAX), laneLast(lanes, 0);
  for (uint32_t t = 0; t < n; ++t) {
    uint32_t l = cl.lane[cl.of[t]];
    if (laneFirst[l] == UINT32_MAX)
      laneFirst[l] = t;
    laneLast[l] = t;
  }
  auto rampPrices = [&](Sweep &sw, const std::vector<double> &rate) {
    std::fill(extra.begin(), extra.end(), 0.0);
    dag.backward(sw.T, sw.makespan, sw.ls);
    double tol = 1e-9 * std::max(sw.makespan, 1e-9);
    // The predecessor that sets v's earliest start; the successor that sets
    // its latest start.
    auto before = [&](uint32_t v) {
      for (uint32_t i = dag.predStart[v]; i < dag.predStart[v + 1]; ++i) {
        const Edge &e = dag.pred[i];
        double ready = e.startToStart ? sw.es[e.to] + e.lag
                                      : sw.es[e.to] + sw.T[e.to] + e.lag;
        if (std::abs(sw.es[v] - ready) <= tol)
          return e.to;
      }
      return UINT32_MAX;
    };
    auto after = [&](uint32_t v) {
      for (uint32_t i = dag.succStart[v]; i < dag.succStart[v + 1]; ++i) {
        const Edge &e = dag.succ[i];
        double due = e.startToStart ? sw.ls[e.to] - e.lag
                                    : sw.ls[e.to] - e.lag - sw.T[v];
        if (std::abs(sw.ls[v] - due) <= tol)
          return e.to;
      }
      return UINT32_MAX;
    };
    size_t steps = 0;
    for (uint32_t l = 0; l < lanes && steps < 4 * n; ++l) {
      if (!(rate[l] > 0) || laneFirst[l] == UINT32_MAX)
        continue;
      for (uint32_t v = before(laneFirst[l]); v != UINT32_MAX && steps < 4 * n;
           v = before(v), ++steps)
        extra[v] += rate[l];
      for (uint32_t v = after(laneLast[l]); v != UINT32_MAX && steps < 4 * n;
           v = after(v), ++steps)
        extra[v] += rate[l];
    }
    bool moved = false;
    for (uint32_t t = 0; t < n; ++t) {
      if (!(extra[t] > 0) || sw.cur[t] == 0)
        continue;
      uint32_t best =
          sw.cheapestFasterAt(t, extra[t] + rate[cl.lane[cl.of[t]]]);
      if (best != sw.cur[t]) {
        sw.set(t, best);
        moved = true;
      }
    }
    return moved;
  };
  std::vector<double> laneRate(lanes);
  Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
  for (int b = 0; b <= budgets; ++b) {
    double c = hi - (hi - lo) * b / budgets;
    std::fill(vert.begin(), vert.end(), 0);
    std::fill(partial.begin(), partial.end(), 0);
    double lambda = 0;
    std::fill(laneRate.begin(), laneRate.end(), 0.0);
    for (uint32_t l = 0; l < lanes; ++l) {
      double need = slowBusy[l] - c;
      for (const Seg &sg : segs[l]) {
        if (need <= 0)
          break;
        laneRate[l] = sg.rate;
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
    if (rampPrices(sw, laneRate))
      sw.makespan = dag.forward(sw.T, sw.es);
    for (int round = 0; round < rounds && lambda > 0; ++round) {
      double M = sw.makespan;
      dag.backward(sw.T, M, sw.ls);
      double tol = 1e-9 * std::max(M, 1e-9);
      auto critical = [&](uint32_t t) { return sw.ls[t] - sw.es[t] <= tol; };
      auto tight = [&](uint32_t u, uint32_t v, const Edge &e) {
        double ready =
            e.startToStart ? sw.es[u] + e.lag : sw.es[u] + sw.T[u] + e.lag;
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
        uint32_t best = sw.cheapestFasterAt(v, lambda);
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
      state.makespan = dag.forward(state.T, state.es);
      for (int k = 0; k < fastSteps && state.speedUpCritical(); ++k) {
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

} // namespace dag
} // namespace calculus
} // namespace energy
