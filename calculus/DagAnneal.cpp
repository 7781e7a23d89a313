//===- DagAnneal.cpp - Simulated annealing at one deadline ----------------===//
//
// The greedy fills and the one-task local search stop at the first
// configuration no single move improves. At a fixed deadline the discrete
// problem has better configurations several moves away: on GPT-3 175B on
// A40 (Perseus's profile, 24 microbatches) at 12.458 s the fill and local
// search end at 20,687 J and this search at 20,608 J in about a second
// (docs/FRONTIER.md).
//
// Simulated annealing (Kirkpatrick, Gelatt and Vecchi 1983) over the
// options, one task moved by one to three option steps per proposal,
// minimizing  d_sum + P M + mu max(0, M - D)  (mu: four times the steepest
// saving per second of any option step, which keeps the search near the
// deadline; states past it may be visited but are never kept), at a
// temperature falling geometrically from twice the mean option
// step's energy to 1/15 of that (on the case above: 1/600 ends ~0.3 %
// higher, twice as hot ~0.4 % higher); the best configuration within D seen is
// kept (the start is one, so the result is never worse). Each proposal's
// makespan is exact without a full pass where that is cheap: slowing task
// t gives max(M, es_t + T' + tail_t) (tail_t: the longest path from t's
// finish to the end, which t's duration does not change); speeding up a
// task off every longest path leaves M as it is; only speeding up a
// critical task needs a forward pass. Seeded: the same input gives the
// same answer.
//
//===----------------------------------------------------------------------===//

#include "calculus/DagInternal.h"

#include <random>

namespace energy {
namespace calculus {
namespace dag {

uint64_t anneal(Sweep &sw, double D, double P, uint64_t visitBudget,
                uint64_t seed) {
  const Dag &dag = sw.dag;
  const std::vector<TaskOptions> &opts = sw.opts;
  size_t n = sw.n;
  sw.makespan = dag.forward(sw.T, sw.es);
  if (n == 0 || sw.makespan > D * (1 + 1e-12) || visitBudget == 0)
    return 0;
  // Scales: the steepest saving per second of any option step (the
  // penalty must exceed it) and the mean energy of one step.
  double steepest = P, stepSum = 0;
  size_t steps = 0;
  for (const TaskOptions &o : opts)
    for (size_t j = 0; j + 1 < o.T.size(); ++j) {
      double dT = std::max(o.T[j + 1] - o.T[j], 1e-15);
      steepest = std::max(steepest, (o.d[j] - o.d[j + 1]) / dT);
      stepSum += o.d[j] - o.d[j + 1];
      ++steps;
    }
  if (steps == 0)
    return 0; // one option each: nothing to search
  const double mu = 4 * steepest;
  const double hot = 2 * stepSum / double(steps), cold = hot / 15;
  if (!(hot > 0) || !std::isfinite(hot) || !std::isfinite(mu))
    return 0; // no scale to search at (energies overflowing a double)
  uint64_t edges = dag.succ.size();
  uint64_t pass = n + edges; // one forward or backward pass, in visits
  // Proposals planned: ~6,000 per task (one long run does better than
  // several short ones: 0.2-0.5 % on the case above; a larger budget does
  // not raise this cap), within the budget (two
  // passes per accepted move and one per critical speed-up: on the Perseus
  // cases about half a pass per proposal), so that the temperature gets cold.
  uint64_t planned = std::min<uint64_t>(
      6000 * uint64_t(n), visitBudget / std::max<uint64_t>(pass / 2, 1));
  if (planned < 16 * uint64_t(n))
    return 0; // a few proposals per task would change nothing: no passes
  std::vector<double> tail(n), toEnd(n), esTry(n);
  dag.tails(sw.T, tail, toEnd);
  double M = sw.makespan;
  auto objective = [&](double dsum, double m) {
    return dsum + P * m + mu * std::max(0.0, m - D);
  };
  double cur = objective(sw.dsum, M);
  double best = sw.dsum + P * M;
  std::vector<uint32_t> bestCur = sw.cur;
  std::mt19937_64 rng(seed);
  auto uniform = [&] { return double(rng() >> 11) * 0x1.0p-53; };
  uint64_t visits = pass;
  for (uint64_t it = 0; it < planned && visits < visitBudget; ++it) {
    ++visits;
    uint32_t t = uint32_t(rng() % n);
    const TaskOptions &o = opts[t];
    int64_t step = 1 + int64_t(rng() % 3);
    int64_t j =
        (rng() & 1) ? int64_t(sw.cur[t]) + step : int64_t(sw.cur[t]) - step;
    if (j < 0 || j >= int64_t(o.T.size()))
      continue;
    double before = sw.T[t], after = o.T[size_t(j)];
    double m;
    if (after > before)
      m = std::max(M, sw.es[t] + after + tail[t]);
    else if (sw.es[t] + before + tail[t] < M - 1e-12 * std::max(M, 1e-12))
      m = M;
    else {
      sw.T[t] = after;
      m = dag.forward(sw.T, esTry);
      sw.T[t] = before;
      visits += pass;
    }
    double dsum = sw.dsum + o.d[size_t(j)] - o.d[sw.cur[t]];
    double next = objective(dsum, m);
    double temperature =
        hot * std::pow(cold / hot, double(it) / double(planned));
    if (next > cur && uniform() >= std::exp((cur - next) / temperature))
      continue;
    sw.set(t, uint32_t(j));
    M = dag.forward(sw.T, sw.es);
    dag.tails(sw.T, tail, toEnd);
    visits += 2 * pass;
    cur = objective(sw.dsum, M);
    if (M <= D * (1 + 1e-12) && sw.dsum + P * M < best) {
      best = sw.dsum + P * M;
      bestCur = sw.cur;
    }
  }
  // The best configuration, its d sum added up afresh (a million
  // incremental updates drift in the last digits).
  sw.dsum = 0;
  for (uint32_t t = 0; t < n; ++t) {
    sw.cur[t] = bestCur[t];
    sw.T[t] = opts[t].T[bestCur[t]];
    sw.dsum += opts[t].d[bestCur[t]];
  }
  sw.makespan = dag.forward(sw.T, sw.es);
  return visits;
}

} // namespace dag
} // namespace calculus
} // namespace energy
