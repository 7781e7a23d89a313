//===- DagLagrangian.cpp - Subgradient Lagrangian bounds
//--------------------===//

#include "calculus/DagInternal.h"

#include <algorithm>
#include <iterator>

namespace energy {
namespace calculus {
namespace dag {

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
/// time, so the caller applies all of them to every point; its minimizers
/// (the relaxation's durations at that flow) go to `relaxed`, and the
/// minimizers' durations averaged over the deadline's second half of steps
/// to `averages`.
void subgradientBounds(const Dag &dag, const std::vector<TaskOptions> &opts,
                       double P, double fastest, int iterations,
                       size_t deadlines, const std::vector<DagPoint> &frontier,
                       std::vector<FlowBound> &bounds,
                       std::vector<RelaxedChoice> *relaxed,
                       std::vector<AveragedDurations> *averages) {
  size_t n = opts.size();
  if (frontier.empty() || deadlines == 0)
    return;
  // One hull per distinct operating set (a pipeline's tasks share a few
  // hundred), so the minimizers' scan reads memory that stays in cache.
  std::vector<ConvexHull> hulls;
  std::vector<uint32_t> hullOfTask(n);
  {
    std::vector<uint32_t> rep = sharedOperatingSets(opts);
    for (size_t t = 0; t < n; ++t) {
      if (rep[t] == t) {
        hullOfTask[t] = uint32_t(hulls.size());
        hulls.push_back(hullOf(opts[t]));
      } else {
        hullOfTask[t] = hullOfTask[rep[t]];
      }
    }
  }
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
  std::vector<uint32_t> pick(n), bestPick, vertex(n, 0);
  std::vector<double> sumT;
  for (size_t gi = grid.size(); gi-- > 0;) {
    double D = frontier[grid[gi]].T;
    FlowBound best{0, 0};
    double bestValue = -std::numeric_limits<double>::infinity();
    if (averages)
      sumT.assign(n, 0.0);
    int summed = 0;
    for (int it = 0; it < iterations; ++it) {
      double F = 0;
      for (const Chain &c : chains)
        F += c.amount;
      double R = F > P ? D : fastest;
      // The minimizers and the bound. d + f T is convex along a hull, so
      // its minimum is where it stops falling; a task's flow moves a
      // little per step, so the search starts at its last minimizer and
      // walks (ties: the faster vertex, as a scan from the slowest does).
      double sum = 0;
      for (size_t t = 0; t < n; ++t) {
        const ConvexHull &h = hulls[hullOfTask[t]];
        size_t k = vertex[t], last = h.T.size() - 1;
        double ft = f[t];
        auto value = [&](size_t j) { return h.d[j] + ft * h.T[j]; };
        double v = value(k);
        while (k < last && value(k + 1) <= v)
          v = value(++k);
        while (k > 0 && value(k - 1) < v)
          v = value(--k);
        vertex[t] = uint32_t(k);
        T[t] = h.T[k];
        pick[t] = h.index[k];
        sum += v;
      }
      if (averages && 2 * it >= iterations) {
        for (size_t t = 0; t < n; ++t)
          sumT[t] += T[t];
        ++summed;
      }
      if (sum + (P - F) * R > bestValue) {
        bestValue = sum + (P - F) * R;
        best = {sum, F};
        if (relaxed)
          bestPick = pick;
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
        // Four partial sums: one running sum waits on each add's latency.
        double l4[4] = {0, 0, 0, 0};
        size_t m = c.tasks.size(), i = 0;
        for (; i + 4 <= m; i += 4)
          for (int k = 0; k < 4; ++k)
            l4[k] += T[c.tasks[i + k]];
        for (; i < m; ++i)
          l4[0] += T[c.tasks[i]];
        double l = (l4[0] + l4[1]) + (l4[2] + l4[3]);
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
    if (std::isfinite(bestValue)) {
      bounds.push_back(best);
      if (relaxed)
        relaxed->push_back({bestPick, D});
      if (averages && summed > 0) {
        for (double &t : sumT)
          t /= summed;
        averages->push_back({D, std::move(sumT)});
      }
    }
  }
}

/// Configurations from the averaged durations (DagInternal.h). For a fixed
/// dual and suitable step and averaging rules, the ergodic average of a
/// subgradient method's Lagrangian minimizers converges to an optimal
/// solution of the relaxed primal, where the minimizers themselves
/// oscillate between hull vertices (Sherali & Choi 1996, "Recovery of primal
/// solutions when using subgradient optimization methods to solve Lagrangian
/// duals of linear programs", Oper. Res. Lett. 19; Anstreicher & Wolsey
/// 2009, "Two 'well-known' properties of subgradient optimization", Math.
/// Program. 120). Ours (unweighted, chains added as it goes, flows
/// warm-started across deadlines) only tends toward the durations the
/// relaxation would run; that, rounding them to options and mixing them to
/// meet a time are heuristics, and the caller times each configuration
/// exactly.
void averagedConfigurations(const Dag &dag,
                            const std::vector<TaskOptions> &opts,
                            const std::vector<AveragedDurations> &given,
                            const std::vector<double> &targets,
                            const ConfigurationSink &emit) {
  size_t n = opts.size();
  if (given.empty() || n == 0)
    return;
  std::vector<const AveragedDurations *> averages;
  for (const AveragedDurations &a : given)
    averages.push_back(&a);
  std::sort(averages.begin(), averages.end(),
            [](const AveragedDurations *a, const AveragedDurations *b) {
              return a->deadline < b->deadline;
            });
  // Each task's options read through one representative of its operating
  // set (a pipeline's tasks share a few hundred): memory that stays cached.
  std::vector<uint32_t> rep = sharedOperatingSets(opts);
  std::vector<double> fastest(n), T(n), es(n);
  std::vector<uint32_t> pick(n);
  for (size_t t = 0; t < n; ++t)
    fastest[t] = opts[t].T[0];
  // Durations (1 - w) x + w y, each rounded down to an option of its task;
  // returns the makespan.
  // The slowest option at or below the wanted duration (the fastest where
  // none is), found by walking from the task's last pick: successive mixes
  // move each duration a little, so a walk takes a step or two where a
  // binary search over ~70 clocks takes seven.
  auto roundMix = [&](const std::vector<double> &x,
                      const std::vector<double> &y, double w) {
    for (size_t t = 0; t < n; ++t) {
      const std::vector<double> &ot = opts[rep[t]].T;
      double want = ((1 - w) * x[t] + w * y[t]) * (1 + 1e-12);
      size_t j = pick[t], last = ot.size() - 1;
      while (j < last && ot[j + 1] <= want)
        ++j;
      while (j > 0 && ot[j] > want)
        --j;
      pick[t] = uint32_t(j);
      T[t] = ot[j];
    }
    return dag.forward(T, es);
  };
  // The mix of least weight (10 bisection steps) whose rounding meets
  // `target`; nothing where y's does not.
  auto meet = [&](const std::vector<double> &x, const std::vector<double> &y,
                  double target) {
    double tol = target * (1 + 1e-12);
    if (roundMix(x, y, 0) > tol) {
      if (roundMix(x, y, 1) > tol)
        return;
      double lo = 0, hi = 1;
      for (int k = 0; k < 10; ++k) {
        double mid = 0.5 * (lo + hi);
        (roundMix(x, y, mid) > tol ? lo : hi) = mid;
      }
      roundMix(x, y, hi);
    }
    emit(pick, target);
  };
  for (double target : targets) {
    // The averages of the deadlines around the target: the slower one mixed
    // toward the faster one (the relaxation's durations are piecewise linear
    // in the deadline), and each toward the fastest durations.
    auto above = std::lower_bound(
        averages.begin(), averages.end(), target,
        [](const AveragedDurations *a, double t) { return a->deadline < t; });
    const AveragedDurations *slower =
        above == averages.end() ? nullptr : *above;
    const AveragedDurations *faster =
        above == averages.begin() ? nullptr : *std::prev(above);
    if (slower && faster)
      meet(slower->T, faster->T, target);
    if (slower)
      meet(slower->T, fastest, target);
    if (faster)
      meet(faster->T, fastest, target);
  }
}

} // namespace dag
} // namespace calculus
} // namespace energy
