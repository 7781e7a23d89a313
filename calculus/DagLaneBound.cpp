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
  std::vector<ConvexHull> hulls;
  hulls.reserve(n);
  const uint32_t none = UINT32_MAX;
  for (uint32_t t = 0; t < n; ++t) {
    hulls.push_back(hullOf(opts[t]));
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
    const ConvexHull &h = hulls.back();
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
  for (double M : at) {
    if (!(M >= lowest) || !std::isfinite(M))
      continue;
    double F = pricesAt(M), C = 0;
    for (size_t k = 0; k < lanes.size(); ++k)
      C += price[k] * lanes[k].c;
    for (uint32_t t = 0; t < n; ++t)
      C += hulls[t].lagrangian(laneOf[t] == none ? 0 : price[laneOf[t]]);
    bounds.push_back({C, F});
  }
}

} // namespace dag
} // namespace calculus
} // namespace energy
