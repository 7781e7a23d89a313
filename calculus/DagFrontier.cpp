//===- DagFrontier.cpp - Time-energy frontiers of scheduled DAGs ----------===//
//
// The driver: which of the algorithms (DagInternal.h, one per file) run on
// a schedule of a given size, in what order, and how their points merge
// into one certified frontier (docs/FRONTIER.md).
//
//===----------------------------------------------------------------------===//

#include "calculus/DagInternal.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_set>

namespace energy {
namespace calculus {

using namespace dag;

double DagFrontierResult::lowerBoundAt(double T) const {
  if (flows.empty())
    return std::numeric_limits<double>::quiet_NaN();
  double lb = -std::numeric_limits<double>::infinity();
  for (auto [C, F] : flows)
    lb = std::max(lb, C + (staticPower - F) *
                              (F > staticPower ? T : fastestMakespan));
  return lb;
}

/// Pareto-min in (T, E), fastest first. Makespans within sameMakespan of
/// each other are one time: the same makespan summed along different
/// paths or in a different order differs in the last bits, and a
/// configuration 1e-14 s faster must not keep a point that another at
/// that time beats (the fastest end of the 8 x 64 synthetic without the
/// crash sweep: the unfilled fastest configuration, 9 % above the filled
/// one 2e-14 s slower, was kept and reported as the worst gap). The
/// lower-energy point replaces the earlier one at the earlier one's time:
/// the group's time is its first, so merges do not chain past the
/// tolerance and a point that met a deadline is not replaced by one that
/// misses it by rounding.
static void paretoPrune(std::vector<DagPoint> &frontier) {
  std::sort(frontier.begin(), frontier.end(),
            [](const DagPoint &a, const DagPoint &b) {
              return a.T < b.T || (a.T == b.T && a.E < b.E);
            });
  std::vector<DagPoint> pruned;
  double best = std::numeric_limits<double>::infinity();
  for (DagPoint &p : frontier) {
    if (!(p.E < best))
      continue;
    best = p.E;
    if (!pruned.empty() &&
        p.T - pruned.back().T <= sameMakespan(pruned.back().T)) {
      double T = pruned.back().T;
      pruned.back() = std::move(p);
      pruned.back().T = T;
      continue;
    }
    pruned.push_back(std::move(p));
  }
  frontier = std::move(pruned);
}

/// An operating set's (T, d) Pareto options, times floored to `quantum`
/// (0: none): slower options are only useful if they save dynamic energy.
static TaskOptions paretoOptions(const std::vector<Option> &o, double quantum) {
  std::vector<uint32_t> idx(o.size());
  for (uint32_t i = 0; i < idx.size(); ++i)
    idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    double ta = quantize(o[a].T, quantum), tb = quantize(o[b].T, quantum);
    return ta < tb || (ta == tb && o[a].d < o[b].d);
  });
  TaskOptions out;
  double best = std::numeric_limits<double>::infinity();
  for (uint32_t i : idx)
    if (o[i].d < best) {
      best = o[i].d;
      out.T.push_back(quantize(o[i].T, quantum));
      out.d.push_back(o[i].d);
      out.original.push_back(i);
    }
  return out;
}

/// The frontier of `sched`, whose task t has the operating set
/// options[origin[t]] (origin null: options[t]).
static bool frontierOf(const Schedule &sched,
                       const std::vector<std::vector<Option>> &options,
                       const std::vector<uint32_t> *origin,
                       const DagFrontierSettings &settings,
                       std::vector<DagPoint> &frontier, std::string &err,
                       DagFrontierResult *result) {
  size_t n = sched.tasks.size();
  auto optionsOf = [&](size_t t) -> const std::vector<Option> & {
    return options[origin ? (*origin)[t] : t];
  };
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
    const std::vector<Option> &o = optionsOf(t);
    if (o.empty()) {
      err = "task " + std::to_string(origin ? (*origin)[t] : t) +
            " has an empty operating set";
      return false;
    }
    for (const Option &opt : o)
      if (!std::isfinite(opt.T) || !std::isfinite(opt.d) || opt.T < 0) {
        err = "task " + std::to_string(origin ? (*origin)[t] : t) +
              " has an option of T = " + std::to_string(opt.T) +
              " s, d = " + std::to_string(opt.d) +
              " J: times must be finite and non-negative, energies finite";
        return false;
      }
    opts[t] = paretoOptions(o, settings.quantum);
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
  // The deadline sweeps take one deadline per step between the two: more
  // than a million is a unit mistake (1e-12 s on a 10 s pipeline would
  // sweep 10^13 deadlines), refused rather than run for days.
  if (step > 0 && (slowest - fastestAll) / step > kMaxSweepDeadlines) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "step %g s would sweep %.3g deadlines between the fastest "
                  "(%g s) and the slowest (%g s) makespans; at most %.0f: "
                  "use a step of at least %g s, or 0 (makespan / 1000)",
                  step, (slowest - fastestAll) / step, fastestAll, slowest,
                  kMaxSweepDeadlines,
                  (slowest - fastestAll) / kMaxSweepDeadlines);
    err = buf;
    return false;
  }

  // Small problems: exact.
  uint64_t combinations = 1;
  for (const TaskOptions &o : opts)
    combinations = combinations > UINT64_MAX / o.T.size()
                       ? UINT64_MAX
                       : combinations * o.T.size();
  uint64_t steps = n + dag.succ.size();
  bool exact =
      settings.exactBudget > 0 &&
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

  // Several greedy rules, merged: each is myopic in its own way (knapsack
  // effects on shared paths); their union is markedly closer to optimal.
  if (exact)
    enumerateFrontier(dag, opts, P, settings.keepChoices, frontier);
  size_t totalOptions = 0;
  for (const TaskOptions &o : opts)
    totalOptions += o.T.size();
  // The heuristic frontier keeps its points' configurations up to
  // `mixUpTo` tasks even where the caller does not want them: the mixes
  // below start from them (dropped before returning).
  bool keepPoints = settings.keepChoices || (!exact && n <= settings.mixUpTo);
  // The crash sweep first (pipelines: it carries the frontier), then the
  // forward sweeps where they are cheap (`forwardSweepsUpTo` task options:
  // small random DAGs need them); on larger schedules they add nothing
  // measurable once the crash sweep has run (Bloom, 4 x 32 and 8 x 64 x 73: the
  // same frontier) and cost up to 40 times more.
  std::vector<FlowBound> bounds;
  // Seeded sweeps (medium schedules, up to `refineUpTo` task options): the
  // crash sweep only ever speeds up, and the fill after each cut is myopic, so
  // it can pass by configurations that a fill from one of its faster states
  // reaches. From crash states at least 0.1 % of the makespan apart, fill
  // against deadlines growing geometrically (x1.3 from one step) up to 3 %
  // beyond the state's makespan. Bloom/A40 against Perseus's frontier, worst
  // point: 12 microbatches +0.58 % -> -0.07 %, 48: -1.66 % -> -1.68 %.
  bool seeded = !exact && settings.crash && totalOptions <= settings.refineUpTo;
  std::vector<std::vector<uint32_t>> states;
  bool truncated = false;
  double stoppedAt = 0;
  // Large schedules with repeated structure: the class sweep instead.
  if (settings.progress && !exact && settings.crash &&
      totalOptions > settings.classSweepAbove)
    settings.progress("class sweep", -1, frontier.size(), NAN);
  // At most ~2^24 task visits per class-sweep round (at least 100 budgets)
  // where the flows' averaged configurations (below) will carry the
  // frontier between its points: the convex relaxation not run.
  int classBudgets = settings.classBudgets;
  bool convexRuns = settings.convex && totalOptions <= settings.convexAbove &&
                    n <= settings.convexTasks;
  if (!convexRuns)
    classBudgets = std::min(
        classBudgets,
        std::max(100, int((size_t(1) << 24) / std::max<size_t>(n, 1))));
  bool classSwept = !exact && settings.crash &&
                    totalOptions > settings.classSweepAbove &&
                    classSweep(dag, opts, sched, P, keepPoints, classBudgets,
                               settings.classMinPerLane, /*rounds=*/3,
                               /*fastSteps=*/400, frontier);
  if (classSwept) // and the fastest configuration
    frontier.push_back(filledFastest(dag, opts, P, keepPoints));
  bool stepGuard = false;
  DagFrontierResult::Truncation why = DagFrontierResult::Truncation::None;
  if (!exact && settings.crash && !classSwept &&
      !crashSweep(dag, opts, P, keepPoints, settings.crashWorkBudget, frontier,
                  bounds, seeded ? &states : nullptr, stepGuard, settings)) {
    why = stepGuard ? DagFrontierResult::Truncation::StepGuard
                    : DagFrontierResult::Truncation::WorkBudget;
    // The crash sweep's work grows about as tasks x options, so a long
    // pipeline of few clocks can outgrow its budget below `classSweepAbove`:
    // where the schedule has repeated structure the class sweep then
    // carries the whole range, certified, instead of price points across a
    // gap (bench/RESULTS.md, session 41).
    std::vector<DagPoint> swept;
    if (why == DagFrontierResult::Truncation::WorkBudget &&
        classSweep(dag, opts, sched, P, keepPoints, classBudgets,
                   settings.classMinPerLane, /*rounds=*/3,
                   /*fastSteps=*/400, swept)) {
      swept.push_back(filledFastest(dag, opts, P, keepPoints));
      frontier = std::move(swept);
      classSwept = true;
      why = DagFrontierResult::Truncation::None;
    } else {
      // Out of budget: the fastest configuration closes the range and
      // price points cross the gap (priceFill); the sweep's points in
      // between are missing.
      truncated = true;
      stoppedAt = frontier.back().T;
      priceFill(dag, opts, P, keepPoints, 32, frontier);
    }
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
      priceFill(dag, opts, P, keepPoints, 32, frontier);
    }
  }
  double lastSeed = std::numeric_limits<double>::infinity();
  for (const std::vector<uint32_t> &state : states) {
    Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
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
      frontier.push_back(sw.point(P, keepPoints));
    }
  }
  int rules = exact ? 0
              : totalOptions <= settings.forwardSweepsUpTo || !settings.crash
                  ? 3
                  : 0;
  for (int r = 0; r < rules; ++r) {
    Sweep sw(dag, opts, FillRule(r));
    if (!(step > 0))
      step = sw.makespan > 0 ? sw.makespan / 1000 : 1e-3;
    // Refinement costs O(tasks x fill) per call: used on small schedules
    // (up to `refineUpTo` task options), where it closes part of the greedy's
    // gap; large ones keep the linear sweep.
    // Small schedules (the brute-force scale) refine exhaustively at every
    // deadline -- a deadline without a greedy move can still hold a better
    // configuration; medium ones refine one step after moves, sparsely.
    bool small = totalOptions <= settings.forwardSweepsUpTo;
    bool refining = totalOptions <= settings.refineUpTo;
    size_t refineEvery = small ? 1 : std::max<size_t>(1, n / 64);
    size_t index = 0;
    // The first deadline is the fastest makespan itself: tasks off the
    // critical path already have slack to convert.
    double fastest = sw.makespan;
    static const char *const names[] = {
        "deadline sweep 1/3", "deadline sweep 2/3", "deadline sweep 3/3"};
    for (double D = fastest; D <= slowest + step; D += step, ++index) {
      if (settings.progress && slowest > fastest)
        settings.progress(names[r], (D - fastest) / (slowest - fastest),
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
        frontier.push_back(sw.point(P, keepPoints));
      }
    }
  }
  // The convex relaxation's exact frontier (ConvexFrontier.h): its flows
  // certify every point (the best bound any flow gives: the Lagrangian
  // bounds below are then not needed), and its optimal schedules, rounded
  // down to real options and refilled, join the union.
  bool convexComplete = false;
  if (!exact && convexRuns) {
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
    Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
    // Each task's (device, stream) lane, for the rounding below.
    std::vector<uint32_t> laneOf;
    std::vector<double> carry(laneIndices(sched, laneOf));
    // A schedule of durations `dur`, rounded down to real options (each
    // task's slowest option that fits: the makespan cannot grow), then
    // refilled against D by two greedy rules (the slowest option that fits,
    // and one option step at a time: the second shares a path's slack among
    // its tasks; Bloom/A100, 96 microbatches: above Perseus by up to +0.16 %
    // with the first alone, below it everywhere with both).
    //
    // Where rounding down loses more than `convexRepairGap` against the
    // relaxation at D -- tasks on a hull chord whose options in between lie
    // well above it, all rounded a step faster at once (GPT-3/A40, 24
    // microbatches, exact option times: 137 such tasks, +3 % at one level)
    // -- each task goes to its nearest option instead (the makespan may then
    // exceed D) and the crash sweep's minimum cuts speed the configuration
    // back up to D (crashTo: each step the cheapest set of tasks that
    // shortens every critical path), then both fills.
    ConvexFrontier cf;
    auto seed = [&](const std::vector<double> &dur, double D) {
      double best = std::numeric_limits<double>::infinity();
      auto keep = [&](const Sweep &s) {
        frontier.push_back(s.point(P, keepPoints));
        if (s.makespan <= D * (1 + 1e-12))
          best = std::min(best, frontier.back().E);
      };
      for (FillRule rule :
           {FillRule::SlowestFitsPerSecond, FillRule::OneStepPerSecond}) {
        sw.rule = rule;
        for (uint32_t t = 0; t < n; ++t) {
          const std::vector<double> &T = opts[t].T;
          uint32_t j = uint32_t(
              std::upper_bound(T.begin(), T.end(), dur[t] * (1 + 1e-12)) -
              T.begin());
          sw.set(t, j ? j - 1 : 0);
        }
        sw.makespan = dag.forward(sw.T, sw.es);
        if (rule == FillRule::SlowestFitsPerSecond)
          keep(sw);
        if (sw.fill(D))
          keep(sw);
      }
      sw.rule = FillRule::SlowestFitsPerSecond;
      if (!(best > (1 + settings.convexRepairGap) * cf.lowerBound(D, P)))
        return;
      auto repair = [&](Sweep &s) {
        s.makespan = dag.forward(s.T, s.es);
        if (!crashTo(s, D, settings.convexRepairSteps))
          return;
        for (FillRule rule :
             {FillRule::SlowestFitsPerSecond, FillRule::OneStepPerSecond}) {
          Sweep filled = s;
          filled.rule = rule;
          filled.fill(D);
          keep(filled);
        }
      };
      Sweep nearest = sw;
      for (uint32_t t = 0; t < n; ++t) {
        const std::vector<double> &T = opts[t].T;
        size_t j =
            size_t(std::lower_bound(T.begin(), T.end(), dur[t]) - T.begin());
        if (j == T.size() || (j > 0 && dur[t] - T[j - 1] < T[j] - dur[t]))
          --j;
        nearest.set(t, uint32_t(j));
      }
      repair(nearest);
      // Rounded with error diffusion along each lane, in program order: each
      // task to whichever of the two hull vertices around its relaxed
      // duration is nearer to that duration plus the lane's rounding error
      // so far, so a lane's busy time stays within half a hull segment of
      // the relaxation's after every task. Where a class of tasks sits
      // between two vertices (a stage's backward passes), the relaxation's
      // fraction becomes a pattern of both vertices across the microbatches
      // -- what a MILP solver's configurations do there (bench/RESULTS.md,
      // GPT-3/A40, 96 microbatches) -- where both roundings above move the
      // whole class to one vertex. Lanes' patterns can line up along a
      // path, so the result may run past D: then every task's excess over
      // its faster vertex is scaled by the largest theta (bisected) whose
      // rounding meets D (theta = 0 rounds down to vertices: it meets D),
      // and the configuration is filled.
      //
      // Only where the nearest rounding's repair left the gap too, and
      // short of the relaxation's energy-minimal makespan (where its bound
      // still falls with D: past it a rounded schedule is dominated anyway).
      double bound = cf.lowerBound(D, P);
      if (!(best > (1 + settings.convexRepairGap) * bound) ||
          !(bound < cf.lowerBound(D * (1 - 1e-4), P)))
        return;
      Sweep dithered = sw;
      auto dither = [&](double theta) {
        std::fill(carry.begin(), carry.end(), 0.0);
        for (uint32_t t = 0; t < n; ++t) {
          const ConvexHull &h = pb.tasks[t];
          // The hull runs slowest vertex first; k: the slowest vertex at or
          // below the duration, k - 1 the one above it.
          double u = std::clamp(dur[t], h.T.back(), h.T.front());
          size_t k = size_t(std::lower_bound(h.T.begin(), h.T.end(), u,
                                             std::greater<double>()) -
                            h.T.begin());
          if (k == h.T.size())
            --k;
          if (k > 0 && h.T[k] < u) {
            u = h.T[k] + theta * (u - h.T[k]);
            double want = u + carry[laneOf[t]];
            if (h.T[k - 1] - want < want - h.T[k])
              --k;
          }
          carry[laneOf[t]] += u - h.T[k];
          dithered.set(t, h.index[k]);
        }
        dithered.makespan = dag.forward(dithered.T, dithered.es);
        return dithered.makespan <= D * (1 + 1e-12);
      };
      // theta near 0 is the rounding down above, to vertices only: where
      // even 1/64 runs past D, nothing new to fill.
      double lo = 0, hi = 1;
      if (!dither(hi)) {
        if (!dither(1.0 / 64))
          return;
        for (int i = 0; i < 12; ++i)
          (dither((lo + hi) / 2) ? lo : hi) = (lo + hi) / 2;
        dither(std::max(lo, 1.0 / 64)); // 1/64 fits (checked above)
      }
      dithered.fill(D);
      keep(dithered);
    };
    // The relaxation's optimal schedules at the levels (as many as fit in
    // 2^22 durations).
    std::vector<std::pair<double, std::vector<double>>> schedules;
    size_t keep =
        std::max<size_t>(2, (size_t(1) << 22) / std::max<size_t>(n, 1));
    if (levels.size() > keep) {
      std::vector<double> fewer;
      for (size_t k = 0; k < keep; ++k)
        fewer.push_back(levels[k * (levels.size() - 1) / (keep - 1)]);
      levels = std::move(fewer);
    }
    auto onLevel = [&](double L, const std::vector<double> &dur) {
      schedules.push_back({L, dur});
    };
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
      const std::vector<double> *prevDur =
          k ? &schedules[k - 1].second : nullptr;
      double prevL = k ? schedules[k - 1].first : 0;
      // The seeds' fills cost up to (tasks x moves) task visits each: past
      // `seedVisitBudget` of them the remaining levels keep the bound and
      // the sweeps' points only (GPT-3/A40 at 96 microbatches spends 3.4e8;
      // a 2,000-task pipeline of 3 clocks spent 1.1e9, 4,000 tasks 4e9 and
      // 28 s).
      if (sw.fillVisits > settings.seedVisitBudget)
        break;
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
          frontier.push_back(sw.point(P, keepPoints));
      if (frontier.size() > 4096) // bound the choice vectors held
        paretoPrune(frontier);
    }
  }
  paretoPrune(frontier);
  // Holes, and the caller's deadline: filled from the best point below (a
  // real configuration, re-timed), then Pareto-pruned again. Above
  // `refineUpTo` task options the fill and local search cost too much
  // (O(tasks x fill) per move): there only the caller's deadlines are
  // filled, in linear passes, and annealed, from the best point within each.
  // Each task's caller option -> its Pareto index (none: not Pareto), for
  // sweeps started from a kept point's choices; built once, when needed.
  std::vector<std::vector<int>> internalIndex;
  auto paretoIndex = [&]() -> const std::vector<std::vector<int>> & {
    if (internalIndex.empty()) {
      internalIndex.resize(n);
      for (size_t t = 0; t < n; ++t) {
        internalIndex[t].assign(optionsOf(t).size(), -1);
        for (uint32_t i = 0; i < opts[t].original.size(); ++i)
          internalIndex[t][opts[t].original[i]] = int(i);
      }
    }
    return internalIndex;
  };
  // A sweep set to a kept point's configuration (false: a choice that is
  // not a Pareto option).
  auto sweepAt = [&](const DagPoint &from, Sweep &sw) {
    const std::vector<std::vector<int>> &internal = paretoIndex();
    for (uint32_t t = 0; t < n; ++t) {
      int j = internal[t][from.choice[t]];
      if (j < 0)
        return false;
      sw.set(t, uint32_t(j));
    }
    sw.makespan = dag.forward(sw.T, sw.es);
    return true;
  };
  bool medium = totalOptions <= settings.refineUpTo;
  bool callerDeadline = settings.fillDeadline > 0 || settings.fillSlowdown >= 0;
  if (!exact && settings.keepChoices && !frontier.empty() &&
      (medium || callerDeadline)) {
    std::vector<double> targets;
    if (settings.fillDeadline > 0)
      targets.push_back(settings.fillDeadline);
    if (settings.fillSlowdown >= 0)
      targets.push_back(frontier.front().T * (1 + settings.fillSlowdown));
    size_t callerTargets = targets.size();
    for (size_t i = 0;
         medium && i + 1 < frontier.size() && targets.size() < 256; ++i) {
      double gap = frontier[i + 1].T - frontier[i].T;
      if (gap > 0.005 * frontier[i].T)
        for (int k = 1; k <= 3; ++k)
          targets.push_back(frontier[i].T + k * gap / 4);
    }
    std::vector<DagPoint> filled;
    for (size_t k = 0; k < targets.size(); ++k) {
      double D = targets[k];
      const DagPoint *from = nullptr;
      for (const DagPoint &p : frontier)
        if (p.T <= D * (1 + 1e-12))
          from = &p;
      if (!from)
        continue;
      Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
      if (!sweepAt(*from, sw))
        continue;
      if (medium) {
        sw.fill(D);
        sw.refine(D,
                  /*exhaustive=*/totalOptions <= settings.forwardSweepsUpTo &&
                      sw.fillVisits <= settings.refineVisitBudget);
      } else if (k < callerTargets && sw.makespan <= D * (1 + 1e-12)) {
        // Larger schedules: the point's slack up to the caller's deadline
        // taken in linear passes (total float, then free float) before the
        // annealer, which otherwise starts from a point that may stop well
        // short of the deadline.
        sw.latestStartFill(D);
        sw.freeFloatFill(D);
      }
      // The caller's deadlines (the plan's limit) get the annealer too.
      // The filled point stays a candidate too: it may be faster (edp,
      // ed2p, clock switches).
      if (k < callerTargets && sw.makespan <= D * (1 + 1e-12) &&
          settings.annealVisits > 0) {
        filled.push_back(sw.point(P, true));
        anneal(sw, D, P, settings.annealVisits, /*seed=*/1);
      }
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

  // Where the convex relaxation did not run or complete -- up to
  // `subgradientUpTo` task options: subgradient-maximized flows at 64
  // deadlines, 40 steps each. Bloom/A40, exact option times: every point
  // within 4.87 % -> 3.56 % (12 microbatches) and 6.33 % -> 3.26 % (48).
  // Truncated and class-swept frontiers get them at any size: 250 steps at
  // up to 32 deadlines, at most 2^32 / (80 x task options) of them (131,072
  // tasks x 73 options, 3.2 million Pareto: 16 deadlines); each step's cost
  // is a few passes over tasks and edges, the tasks' hulls shared by
  // operating set. There the flows' averaged minimizers (below) are the
  // configurations that beat the class sweep's, and they converge with the
  // steps (bench/RESULTS.md).
  size_t deadlines = totalOptions <= settings.subgradientUpTo ? 64 : 0;
  int sweepIterations = 40;
  bool averaged = truncated || classSwept;
  if (averaged) {
    deadlines = std::clamp<size_t>(
        size_t(4294967296.0 / (80.0 * double(totalOptions))), 1, 32);
    sweepIterations = 250;
  }
  if (!exact && !convexComplete && settings.progress)
    settings.progress("certificate", -1, frontier.size(), NAN);
  std::vector<RelaxedChoice> relaxed;
  std::vector<AveragedDurations> averages;
  if (!exact && !convexComplete)
    subgradientBounds(dag, opts, P, fastestAll, sweepIterations, deadlines,
                      frontier, bounds, &relaxed,
                      averaged ? &averages : nullptr);
  // The relaxation's durations as configurations, each slowed within its
  // float. Each flow's minimizers; where they run past the flow's
  // deadline, critical tasks are sped up one option at a time (at most 400
  // steps) until they meet it, then filled again (synthetic 8 x 64 with
  // exact option times, worst certified gap 1.53 % -> 0.27 %). On
  // class-swept and truncated frontiers also the flows' averaged
  // minimizers, rounded and mixed to meet each frontier point's time (at
  // most 256 of them) and four times evenly spaced between consecutive
  // deadlines -- so that no stretch of the range is left to the class
  // sweep's uniform choice (64 x 1,024: mean certified gap 1.31 % -> 0.78
  // %, bench/RESULTS.md).
  // Configurations from the averaged durations (below), each slowed within
  // its float; `onlyBetter`: kept only where it dominates a point already
  // found (then its gap is below that point's: less energy, a bound no
  // lower at its earlier time).
  Sweep averagedSweep(dag, opts, FillRule::SlowestFitsPerSecond);
  size_t made = 0;
  std::unordered_set<uint64_t> seen;
  bool onlyBetter = false;
  ConfigurationSink keep = [&](const std::vector<uint32_t> &choice, double) {
    // The mixes often round alike: each configuration once.
    uint64_t h = 1469598103934665603ull;
    for (uint32_t c : choice)
      h = (h ^ c) * 1099511628211ull;
    if (!seen.insert(h).second)
      return;
    Sweep &sw = averagedSweep;
    for (uint32_t t = 0; t < n; ++t)
      if (sw.cur[t] != choice[t])
        sw.set(t, choice[t]);
    sw.makespan = dag.forward(sw.T, sw.es);
    sw.floatFill();
    DagPoint p = sw.point(P, keepPoints);
    if (onlyBetter &&
        std::none_of(frontier.begin(), frontier.end(), [&](const DagPoint &q) {
          return q.T >= p.T && q.E > p.E;
        }))
      return;
    frontier.push_back(std::move(p));
    if (++made % 64 == 0) // bound the choice vectors held
      paretoPrune(frontier);
  };
  if (!averages.empty()) {
    std::vector<double> targets;
    size_t stride = (frontier.size() + 255) / 256;
    for (size_t i = 0; i < frontier.size(); i += stride)
      targets.push_back(frontier[i].T);
    std::vector<double> at;
    for (const AveragedDurations &a : averages)
      at.push_back(a.deadline);
    std::sort(at.begin(), at.end());
    for (size_t i = 0; i + 1 < at.size(); ++i)
      for (int k = 1; k <= 4; ++k)
        targets.push_back(at[i] + k * (at[i + 1] - at[i]) / 5);
    averagedConfigurations(dag, opts, averages, targets, keep);
    paretoPrune(frontier);
  }
  if (!relaxed.empty()) {
    Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
    for (const RelaxedChoice &r : relaxed) {
      for (uint32_t t = 0; t < n; ++t)
        sw.set(t, r.choice[t]);
      sw.makespan = dag.forward(sw.T, sw.es);
      sw.floatFill();
      frontier.push_back(sw.point(P, keepPoints));
      if (sw.makespan <= r.deadline * (1 + 1e-12))
        continue;
      int speedUps = 0;
      while (speedUps++ < 400 && sw.makespan > r.deadline * (1 + 1e-12))
        if (!sw.speedUpCritical())
          break;
      sw.floatFill();
      frontier.push_back(sw.point(P, keepPoints));
    }
    paretoPrune(frontier);
  }
  // The lanes' busy-time bounds (DagLaneBound.cpp) at the frontier's times
  // and the caller's deadlines, at most ~2^27 / tasks of them (each a pass
  // over every task's hull). The
  // convex relaxation, where it completed, already implies them (each
  // lane's constraint follows from its stream order).
  if (!exact && !convexComplete && !frontier.empty()) {
    std::vector<double> times;
    size_t most = std::clamp<size_t>((size_t(1) << 27) / std::max<size_t>(n, 1),
                                     16, 1024);
    size_t stride = (frontier.size() + most - 1) / most;
    for (size_t i = 0; i < frontier.size(); i += stride)
      times.push_back(frontier[i].T);
    times.push_back(frontier.back().T);
    if (settings.fillDeadline > 0)
      times.push_back(settings.fillDeadline);
    if (settings.fillSlowdown >= 0)
      times.push_back(frontier.front().T * (1 + settings.fillSlowdown));
    laneBounds(dag, opts, sched, P, times, bounds);
  }
  // Every flow's bound holds at every time (DagFrontier.h): each point takes
  // the best.
  auto certify = [&] {
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
  };
  certify();
  // Points certified well above the rest (1.2 x the median gap) -- a point
  // just faster than a better one keeps its own gap -- are targeted again
  // from the averages, 0.02 %, 0.1 % and 0.3 % faster; a configuration found
  // there is kept only where it dominates a point (64 x 1,024: worst
  // certified gap 1.16 % -> 1.00 % for ~1 s; bench/RESULTS.md).
  if (!averages.empty()) {
    std::vector<double> gaps, targets;
    for (const DagPoint &p : frontier)
      if (p.lowerBound > 0)
        gaps.push_back(p.E / p.lowerBound - 1);
    if (!gaps.empty()) {
      std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2,
                       gaps.end());
      double median = gaps[gaps.size() / 2];
      for (const DagPoint &p : frontier)
        if (p.lowerBound > 0 && p.E / p.lowerBound - 1 > 1.2 * median)
          for (double faster : {2e-4, 1e-3, 3e-3})
            targets.push_back(p.T * (1 - faster));
    }
    if (!targets.empty()) {
      onlyBetter = true;
      averagedConfigurations(dag, opts, averages, targets, keep);
      paretoPrune(frontier);
      certify();
    }
  }
  // Stretches certified well above the points close by (the sweeps
  // crossed them with poorer configurations, where the relaxation runs
  // about linearly between two good points) get candidates, kept only
  // where they dominate a point:
  //  - mixes: for each such point, worst first, the best-certified points
  //    within 2 % on either side, mixed along each lane in program order:
  //    each task takes whichever of the two configurations' durations is
  //    nearer to the interpolated one plus the lane's error so far (the
  //    relaxation's rounding above); lanes' patterns can line up along a
  //    path, so the weight of the faster configuration is raised (bisected)
  //    until the mix meets the time, then filled.
  // In up to 8 rounds of the worst 16 points, certified again after each,
  // so that later rounds reach the next stretches rather than the
  // neighbours of points already improved (Bloom/A100 at 96 microbatches:
  // 0.65 % -> 0.33 %, bench/RESULTS.md).
  for (int round = 0; round < 8 && !exact && keepPoints &&
                      n <= settings.mixUpTo && frontier.size() > 2;
       ++round) {
    std::vector<double> gap(frontier.size(), NAN);
    for (size_t i = 0; i < frontier.size(); ++i)
      if (frontier[i].lowerBound > 0 && !frontier[i].choice.empty())
        gap[i] = frontier[i].E / frontier[i].lowerBound - 1;
    std::vector<DagPoint> better;
    auto offer = [&](Sweep &s, size_t i) {
      double D = frontier[i].T;
      s.fill(D);
      if (s.makespan <= D * (1 + 1e-12) &&
          P * s.makespan + s.dsum < frontier[i].E)
        better.push_back(s.point(P, true));
    };
    std::vector<size_t> order;
    for (size_t i = 0; i < frontier.size(); ++i)
      if (gap[i] > 1e-3)
        order.push_back(i);
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return gap[x] > gap[y]; });
    if (order.size() > 16)
      order.resize(16);
    std::vector<uint32_t> laneOf;
    std::vector<double> carry(laneIndices(sched, laneOf));
    Sweep slow(dag, opts, FillRule::SlowestFitsPerSecond),
        fast(dag, opts, FillRule::SlowestFitsPerSecond),
        mixed(dag, opts, FillRule::SlowestFitsPerSecond);
    for (size_t i : order) {
      size_t lo = i, hi = i;
      for (size_t j = i; j-- > 0 && frontier[j].T >= frontier[i].T * 0.98;)
        if (gap[j] < (lo == i ? gap[i] : gap[lo]))
          lo = j;
      for (size_t j = i + 1;
           j < frontier.size() && frontier[j].T <= frontier[i].T * 1.02; ++j)
        if (gap[j] < (hi == i ? gap[i] : gap[hi]))
          hi = j;
      if (lo == i || hi == i || !(gap[lo] < 0.75 * gap[i]) ||
          !(gap[hi] < 0.75 * gap[i]) || !sweepAt(frontier[lo], fast) ||
          !sweepAt(frontier[hi], slow))
        continue;
      double D = frontier[i].T;
      double w0 = (frontier[hi].T - D) / (frontier[hi].T - frontier[lo].T);
      auto mix = [&](double w) {
        std::fill(carry.begin(), carry.end(), 0.0);
        for (uint32_t t = 0; t < n; ++t) {
          double a = fast.T[t], b = slow.T[t], u = w * a + (1 - w) * b;
          double want = u + carry[laneOf[t]];
          bool takeA = a != b && std::abs(want - a) < std::abs(want - b);
          uint32_t j = takeA ? fast.cur[t] : slow.cur[t];
          if (mixed.cur[t] != j)
            mixed.set(t, j);
          carry[laneOf[t]] += u - (takeA ? a : b);
        }
        mixed.makespan = dag.forward(mixed.T, mixed.es);
        return mixed.makespan <= D * (1 + 1e-12);
      };
      // w = 1 is the faster configuration itself: it meets D.
      double lo_w = w0, hi_w = 1;
      if (!mix(w0)) {
        for (int k = 0; k < 12; ++k)
          (mix((lo_w + hi_w) / 2) ? hi_w : lo_w) = (lo_w + hi_w) / 2;
        mix(hi_w);
      }
      offer(mixed, i);
    }
    if (better.empty())
      break;
    for (DagPoint &p : better)
      frontier.push_back(std::move(p));
    paretoPrune(frontier);
    certify();
  }
  if (!settings.keepChoices)
    for (DagPoint &p : frontier)
      p.choice = {};
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
  // Large schedules are solved renumbered in topological order: every pass
  // over the tasks (longest paths, fills, the subgradient's) then reads its
  // predecessors' times from nearby memory. Each stream's order is a
  // topological order's too, so the renumbered schedule has the same
  // dependencies and stream order; the choices are mapped back.
  Dag dag;
  if (n < settings.renumberFrom || !dag.build(sched, err))
    return frontierOf(sched, options, nullptr, settings, frontier, err, result);
  std::vector<uint32_t> at(n);
  for (uint32_t k = 0; k < n; ++k)
    at[dag.topo[k]] = k;
  Schedule renumbered;
  renumbered.devices = sched.devices;
  renumbered.tasks.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    renumbered.tasks[k] = sched.tasks[dag.topo[k]];
    for (Dependency &dep : renumbered.tasks[k].deps)
      dep.pred = at[dep.pred];
  }
  if (!frontierOf(renumbered, options, &dag.topo, settings, frontier, err,
                  result))
    return false;
  std::vector<uint32_t> choice;
  for (DagPoint &p : frontier) {
    if (p.choice.empty())
      continue;
    choice.resize(n);
    for (uint32_t k = 0; k < n; ++k)
      choice[dag.topo[k]] = p.choice[k];
    p.choice.swap(choice);
  }
  return true;
}

bool improveAtDeadline(const Schedule &sched,
                       const std::vector<std::vector<Option>> &options,
                       const std::vector<uint32_t> &choice, double D,
                       const DagFrontierSettings &settings, DagPoint &out,
                       std::string &err) {
  size_t n = sched.tasks.size();
  if (options.size() != n || choice.size() != n) {
    err = "need one operating set and one choice per task";
    return false;
  }
  Dag dag;
  if (!dag.build(sched, err))
    return false;
  double P = 0;
  for (const ScheduleDevice &dev : sched.devices)
    P += dev.staticPower;
  // Each task's (T, d) Pareto options; the chosen one maps to the Pareto
  // option at or below its time, whose d is at most its own (the least d
  // among the options no slower).
  std::vector<TaskOptions> opts(n);
  std::vector<uint32_t> start(n);
  size_t totalOptions = 0;
  for (size_t t = 0; t < n; ++t) {
    const std::vector<Option> &o = options[t];
    if (o.empty() || choice[t] >= o.size()) {
      err = "task " + std::to_string(t) + ": no such option";
      return false;
    }
    opts[t] = paretoOptions(o, 0);
    double Tc = o[choice[t]].T;
    uint32_t j = 0;
    while (j + 1 < opts[t].T.size() && opts[t].T[j + 1] <= Tc)
      ++j;
    start[t] = j;
    totalOptions += opts[t].T.size();
  }
  Sweep sw(dag, opts, FillRule::SlowestFitsPerSecond);
  for (uint32_t t = 0; t < n; ++t)
    sw.set(t, start[t]);
  sw.makespan = dag.forward(sw.T, sw.es);
  if (!(sw.makespan <= D * (1 + 1e-12)))
    return false;
  if (totalOptions <= settings.refineUpTo) {
    sw.fill(D);
    sw.refine(D, /*exhaustive=*/false);
  } else {
    sw.latestStartFill(D);
    sw.freeFloatFill(D);
  }
  anneal(sw, D, P, settings.annealVisits, /*seed=*/1);
  out = sw.point(P, /*keepChoices=*/true);
  return true;
}

} // namespace calculus
} // namespace energy
