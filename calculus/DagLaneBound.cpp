//===- DagLaneBound.cpp - Lagrangian bounds from the lanes' busy time -----===//
//
// A (device, stream) lane runs its tasks one after another, so in any
// configuration of makespan M its tasks' durations add up to at most
// M - c_l, where c_l = head_l + tail_l: its first task starts no earlier
// than its earliest start with every task at its fastest option (head_l),
// and after its last task ends at least that task's tail at the fastest
// options must still run (tail_l; Dag::tails). Each task is counted in the
// lane of its first device only (a collective's time in its other lanes is
// then left out, which only loosens those lanes). Pricing each lane's
// constraint at lambda_l >= 0:
//
//   E = P M + sum_i d_i
//     >= sum_i min_k (d_ik + lambda_l(i) T_ik) + sum_l lambda_l c_l
//        + (P - F) M,                         F = sum_l lambda_l,
//
// a bound of the FlowBound form C + (P - F) M (DagInternal.h: M <= D when
// F > P, M >= the fastest makespan otherwise), so it joins the flows'
// bounds at every point and at the plan's limit. The best lambda at a
// makespan M is each lane's marginal saving per second at its budget
// M - c_l: the lane's relaxation (its tasks' hull segments bought cheapest
// first until the lane fits, as the class sweep's lane budgets do) is then
// matched by its dual. Where a pipeline's steady state is bound by its
// busiest stage -- the slow end of long pipelines -- this is much stronger
// than flows along paths: on the synthetic 64 stages x 1,024 microbatches
// the worst certified gap falls from 3.53 % to 2.58 % (bench/RESULTS.md).
// A task on no device is on no lane (no stream order holds it): it is
// priced at 0.
//
// The same holds for any run of a lane's tasks, from its a-th to its b-th
// in program order: they fit in M - head(a) - tail(b). Pricing the run
// alone leaves the tasks outside it at their least energy and adds
// lambda_l (head(a) - head(first) + tail(b) - tail(last)); each lane takes
// the a and b that maximize the bound at its price, which is worth it where
// a lane waits inside its program -- a pipeline stage's warm-up forwards
// run while the first microbatch goes to the last stage and back, so its
// backward passes start after that round trip: on the 64 x 1,024
// synthetic the worst certified gap falls from 2.54 % to 2.13 %
// (bench/RESULTS.md).
//
//===----------------------------------------------------------------------===//

#include "calculus/DagInternal.h"

#include <unordered_map>

namespace energy {
namespace calculus {
namespace dag {

void laneBounds(const Dag &dag, const std::vector<TaskOptions> &opts,
                const Schedule &sched, double P,
                const std::vector<double> &times,
                std::vector<FlowBound> &bounds) {
  size_t n = opts.size();
  if (n == 0 || times.empty())
    return;
  std::vector<double> Tfast(n), es(n), fromFinish(n), toEnd(n);
  for (size_t t = 0; t < n; ++t)
    Tfast[t] = opts[t].T.front();
  dag.forward(Tfast, es);
  dag.tails(Tfast, fromFinish, toEnd);

  struct Lane {
    double c = 0, busyMin = 0, busyMax = 0;
    uint32_t first = UINT32_MAX, last = 0;
    std::vector<std::pair<double, double>> segments; // (J/s, s)
    std::vector<double> cumulative;                  // seconds, prefix
  };
  std::vector<Lane> lanes;
  std::vector<uint32_t> laneOf(n);
  std::unordered_map<uint64_t, uint32_t> index;
  // One hull per operating set (sharedOperatingSets).
  std::vector<uint32_t> rep = sharedOperatingSets(opts), hullOfTask(n);
  std::vector<ConvexHull> hulls;
  const uint32_t none = UINT32_MAX;
  for (uint32_t t = 0; t < n; ++t) {
    if (rep[t] == t) {
      hullOfTask[t] = uint32_t(hulls.size());
      hulls.push_back(hullOf(opts[t]));
    } else {
      hullOfTask[t] = hullOfTask[rep[t]];
    }
    const ScheduleTask &task = sched.tasks[t];
    laneOf[t] = none;
    if (task.devices.empty())
      continue; // on no lane: no stream order holds it
    uint64_t key = laneKey(task.devices[0], task.stream);
    auto [it, fresh] = index.try_emplace(key, uint32_t(lanes.size()));
    if (fresh)
      lanes.emplace_back();
    Lane &l = lanes[it->second];
    laneOf[t] = it->second;
    if (l.first == UINT32_MAX)
      l.first = t;
    l.last = t;
    // The hull runs from the slowest vertex (least d) to the fastest.
    const ConvexHull &h = hulls[hullOfTask[t]];
    l.busyMax += h.T.front();
    l.busyMin += h.T.back();
    for (size_t k = 0; k + 1 < h.T.size(); ++k) {
      double seconds = h.T[k] - h.T[k + 1];
      if (seconds > 0)
        l.segments.push_back({(h.d[k + 1] - h.d[k]) / seconds, seconds});
    }
  }
  // Budgets below this are impossible for some lane: no bound there (the
  // fastest makespan is at least this anyway).
  double lowest = 0;
  for (Lane &l : lanes) {
    // Program order on a lane is index order (Dag::build's stream edges).
    l.c = es[l.first] + fromFinish[l.last];
    lowest = std::max(lowest, l.c + l.busyMin);
    std::sort(l.segments.begin(), l.segments.end());
    l.cumulative.resize(l.segments.size());
    double sum = 0;
    for (size_t k = 0; k < l.segments.size(); ++k)
      l.cumulative[k] = sum += l.segments[k].second;
  }
  // Each lane's price at makespan M: the saving per second of the segment
  // its budget cuts (the last one bought, walking from the least-energy
  // end); returns their sum F.
  std::vector<double> price(lanes.size());
  auto pricesAt = [&](double M) {
    double F = 0;
    for (size_t k = 0; k < lanes.size(); ++k) {
      const Lane &l = lanes[k];
      double need = l.busyMax - (M - l.c);
      price[k] = 0;
      if (need > 0 && !l.segments.empty()) {
        size_t j = size_t(
            std::lower_bound(l.cumulative.begin(), l.cumulative.end(), need) -
            l.cumulative.begin());
        price[k] = l.segments[std::min(j, l.segments.size() - 1)].first;
      }
      F += price[k];
    }
    return F;
  };
  // Past the makespan where the lanes' prices add up to P, going faster
  // costs more than it saves: the relaxation's optimum for every deadline
  // beyond it is there, and so is the best bound (F falls as M grows:
  // bisection).
  std::vector<double> at(times);
  double hi = *std::max_element(times.begin(), times.end());
  if (std::isfinite(hi) && hi > lowest && pricesAt(lowest) > P &&
      pricesAt(hi) <= P) {
    double lo = lowest;
    for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; ++i) {
      double mid = 0.5 * (lo + hi);
      (pricesAt(mid) > P ? lo : hi) = mid;
    }
    at.push_back(lo);
    at.push_back(hi);
  }
  std::vector<std::vector<uint32_t>> tasksOf(lanes.size());
  for (uint32_t t = 0; t < n; ++t)
    if (laneOf[t] != none)
      tasksOf[laneOf[t]].push_back(t);
  // Every task at its least energy (price 0); a lane's run adds its loss.
  double least = 0;
  for (uint32_t t = 0; t < n; ++t)
    least += hulls[hullOfTask[t]].d.front();
  std::vector<double> loss, lossOfHull(hulls.size());
  std::vector<uint64_t> stampOfHull(hulls.size(), 0);
  uint64_t stamp = 0;
  for (double M : at) {
    if (!(M >= lowest) || !std::isfinite(M))
      continue;
    pricesAt(M);
    // Each lane's run [a, b]: a maximizes lambda head(a) less what pricing
    // the tasks before it would have added (loss, >= 0), b likewise.
    double C = least, F = 0;
    for (size_t k = 0; k < lanes.size(); ++k) {
      double lambda = price[k];
      const std::vector<uint32_t> &ts = tasksOf[k];
      if (!(lambda > 0) || ts.empty())
        continue;
      F += lambda;
      size_t m = ts.size();
      loss.resize(m);
      // Each operating set's loss at this lane's price, computed once (a
      // stamp per lane and time marks the ones computed).
      ++stamp;
      for (size_t i = 0; i < m; ++i) {
        uint32_t hk = hullOfTask[ts[i]];
        if (stampOfHull[hk] != stamp) {
          stampOfHull[hk] = stamp;
          lossOfHull[hk] = hulls[hk].lagrangian(lambda) - hulls[hk].d.front();
        }
        loss[i] = lossOfHull[hk];
      }
      size_t a = 0;
      double best = lambda * es[ts[0]], before = 0;
      for (size_t i = 1; i < m; ++i) {
        before += loss[i - 1];
        double v = lambda * es[ts[i]] - before;
        if (v > best) {
          best = v;
          a = i;
        }
      }
      size_t b = m - 1;
      double bestTail = lambda * fromFinish[ts[m - 1]], after = 0;
      for (size_t i = m - 1; i-- > a;) {
        after += loss[i + 1];
        double v = lambda * fromFinish[ts[i]] - after;
        if (v > bestTail) {
          bestTail = v;
          b = i;
        }
      }
      C += lambda * (es[ts[a]] + fromFinish[ts[b]]);
      for (size_t i = a; i <= b; ++i)
        C += loss[i];
    }
    bounds.push_back({C, F});
  }
}

} // namespace dag
} // namespace calculus
} // namespace energy
