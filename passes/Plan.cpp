//===- Plan.cpp - --energy-frontier and --energy-plan ---------------------===//
//
// Thin passes: the frontier is calculus/DagFrontier.cpp; this file collects
// each task's operating set from the IR, picks a point and writes it back.
// energy-translate --export-plan / --export-frontier write the files.
//
//===----------------------------------------------------------------------===//

#include "calculus/DagFrontier.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/Passes.h"

#include "runtime/Progress.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

namespace energy {
#define GEN_PASS_DEF_ENERGYFRONTIER
#define GEN_PASS_DEF_ENERGYPLAN
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

/// Every task's operating set, read from the IR.
struct Choices {
  SchedGraph graph;
  std::vector<std::vector<calculus::Option>> options;
  std::vector<std::vector<OpPointAttr>> opPoints; ///< null: no op point
  std::vector<std::vector<SignatureAttr>> sigs;
  std::vector<uint32_t> current; ///< the option the task runs at now

  static FailureOr<Choices> build(ScheduleOp sched) {
    FailureOr<SchedGraph> g =
        SchedGraph::build(sched, SchedGraph::Need::Signatures);
    if (failed(g))
      return failure();
    Choices c{std::move(*g), {}, {}, {}, {}};
    const calculus::Schedule &s = c.graph.schedule;
    size_t n = s.tasks.size();
    c.options.resize(n);
    c.opPoints.resize(n);
    c.sigs.resize(n);
    c.current.resize(n, 0);
    for (size_t t = 0; t < n; ++t) {
      const calculus::ScheduleTask &task = s.tasks[t];
      double sdev = 0;
      for (uint32_t d : task.devices)
        sdev += s.devices[d].staticPower;
      auto taskOp = dyn_cast<TaskOp>(c.graph.taskOps[t]);
      SignatureAttr own = taskOp ? taskOp.getSigAttr() : SignatureAttr();
      bool found = false;
      if (taskOp && taskOp.getOptionsAttr()) {
        for (Attribute a : taskOp.getOptionsAttr()) {
          auto opt = cast<OptionAttr>(a);
          SignatureAttr sig = opt.getSig();
          if (own && sig.time() == own.time() &&
              sig.dynamicEnergy() == own.dynamicEnergy()) {
            c.current[t] = c.options[t].size();
            found = true;
          }
          c.options[t].push_back({sig.time(), sig.dynamicEnergy(), sdev});
          c.opPoints[t].push_back(opt.getOpPoint());
          c.sigs[t].push_back(sig);
        }
      }
      if (!found) {
        // The task's own signature is one more option (its only one when
        // it has no operating set).
        c.current[t] = c.options[t].size();
        c.options[t].push_back({task.duration, task.d, sdev});
        c.opPoints[t].push_back(OpPointAttr());
        c.sigs[t].push_back(own);
      }
    }
    return c;
  }
};

/// The schedule's frontier; `method` says how it was obtained (written on
/// the schedule as `energy.frontier_method`).
FailureOr<std::vector<calculus::DagPoint>>
computeFrontier(ScheduleOp sched, const Choices &c, double step, double quantum,
                uint64_t crashBudget, uint64_t classSweepAbove,
                uint64_t convexAbove, bool keepChoices,
                calculus::DagFrontierResult &method, double fillDeadline = 0,
                double fillSlowdown = -1) {
  calculus::DagFrontierSettings settings;
  settings.fillDeadline = fillDeadline;
  settings.fillSlowdown = fillSlowdown;
  settings.step = step;
  settings.quantum = quantum;
  settings.keepChoices = keepChoices;
  settings.crashWorkBudget = crashBudget;
  settings.classSweepAbove = classSweepAbove;
  settings.convexAbove = convexAbove;
  // Progress on a terminal (runtime/Progress.h): phase, share of it done,
  // points found so far.
  progress::Line line("frontier of @" + sched.getSymName().str() + " (" +
                      std::to_string(c.graph.schedule.tasks.size()) +
                      " tasks)");
  std::string phase;
  if (progress::enabled())
    settings.progress = [&](const char *name, double fraction, size_t points,
                            double makespan) {
      std::string detail = std::to_string(points) + " points";
      if (std::isfinite(makespan))
        detail += ", at " + formatQuantity(makespan, Dimension::Time);
      if (phase != name) {
        phase = name;
        line.phase(phase, detail);
      } else {
        line.update(fraction, detail);
      }
    };
  std::vector<calculus::DagPoint> front;
  std::string err;
  bool ok = calculus::dagFrontier(c.graph.schedule, c.options, settings, front,
                                  err, &method);
  line.done();
  if (!ok)
    return sched.emitOpError("frontier: ") << err;
  Builder b(sched.getContext());
  std::string combos =
      method.combinations == UINT64_MAX
          ? std::string(">= 2^64")
          : std::to_string(method.combinations);
  std::string gap =
      std::isfinite(method.worstGap)
          ? llvm::formatv("every point within {0:F2}% of the optimum at its "
                          "time ({1}; worst at {2:F4} s)",
                          100 * method.worstGap,
                          method.convexBound ? "convex-relaxation bound"
                                             : "Lagrangian bound",
                          method.worstGapAt)
                .str()
          : std::string("optimality not certified");
  std::string how =
      method.seriesParallel
          ? "exact: series-parallel decomposition over " + combos +
                " combinations"
      : method.exact
          ? "exact: all " + combos + " combinations enumerated"
      : method.classSweep
          ? "heuristic (class sweep over the schedule's repeated structure) "
            "over " + combos + " combinations; " + gap
          : "heuristic (crash and deadline sweeps) over " + combos +
                " combinations; " + gap;
  if (method.truncated) {
    using Why = calculus::DagFrontierResult::Truncation;
    std::string cause =
        method.truncation == Why::StepGuard
            ? std::string("the crash sweep reached its step guard")
        : method.truncation == Why::AboveFastest
            ? std::string("the sweeps ended above the fastest makespan")
            : llvm::formatv("the crash sweep's work budget (crash-budget={0}) "
                            "ran out",
                            crashBudget)
                  .str();
    std::string missing = llvm::formatv(
        "truncated: {0} at makespan {1:F4} s; between {2:F4} s (the fastest "
        "configuration) and {1:F4} s only {3} (docs/FRONTIER.md)",
        cause, method.gapTo, method.gapFrom,
        method.convexBound
            ? "the convex relaxation's rounded schedules and price points"
            : "price points");
    how += "; " + missing;
    // At the schedule's location only: the op itself may hold millions of
    // tasks.
    mlir::emitWarning(sched.getLoc(), "frontier ") << missing;
  }
  sched->setAttr("energy.frontier_method", b.getStringAttr(how));
  return front;
}

struct EnergyFrontierPass
    : public energy::impl::EnergyFrontierBase<EnergyFrontierPass> {
  using EnergyFrontierBase::EnergyFrontierBase;
  void runOnOperation() override {
    Builder b(&getContext());
    for (ScheduleOp sched : getOperation().getOps<ScheduleOp>()) {
      FailureOr<Choices> c = Choices::build(sched);
      if (failed(c))
        return signalPassFailure();
      calculus::DagFrontierResult method;
      auto front =
          computeFrontier(sched, *c, step, quantum, crashBudget, classSweepAbove,
                          convexAbove,
                          false, method);
      if (failed(front))
        return signalPassFailure();
      if (!(maxError >= 0)) {
        sched.emitOpError("energy-frontier: max-error must be >= 0");
        return signalPassFailure();
      }
      // Thinning by error, not by count: a point is dropped only while the
      // last kept one (faster, dearer) is within max-error of it, so at
      // every makespan the thinned frontier's best point is within
      // max-error of the full one's. The last (energy-minimal) point stays.
      std::vector<calculus::DagPoint> kept;
      for (size_t i = 0; i < front->size(); ++i) {
        const calculus::DagPoint &p = (*front)[i];
        if (kept.empty() || i + 1 == front->size() ||
            kept.back().E > p.E * (1 + maxError))
          kept.push_back(p);
      }
      // A count limit on top, by stride (its error is then said below).
      size_t limit = points ? unsigned(points) : kept.size();
      size_t stride = std::max<size_t>(
          1, (kept.size() + limit - 1) / std::max<size_t>(limit, 1));
      SmallVector<Attribute> pts;
      std::vector<std::pair<double, double>> thinned;
      std::vector<double> bound; // each kept point's certified lower bound
      for (size_t i = 0; i < kept.size(); i += stride) {
        thinned.push_back({kept[i].T, kept[i].E});
        bound.push_back(kept[i].lowerBound);
      }
      if ((kept.size() - 1) % stride != 0) { // always keep the last point
        thinned.push_back({kept.back().T, kept.back().E});
        bound.push_back(kept.back().lowerBound);
      }
      double worst = 0; // the thinned frontier's error at the full's points
      for (const calculus::DagPoint &p : *front) {
        double best = INFINITY;
        for (auto &[T, E] : thinned)
          if (T <= p.T * (1 + 1e-12))
            best = std::min(best, E);
        worst = std::max(worst, best / p.E - 1);
      }
      // [T, E, lower bound] where the point is certified, else [T, E].
      for (size_t i = 0; i < thinned.size(); ++i)
        pts.push_back(std::isnan(bound[i])
                          ? b.getF64ArrayAttr({thinned[i].first,
                                               thinned[i].second})
                          : b.getF64ArrayAttr({thinned[i].first,
                                               thinned[i].second, bound[i]}));
      sched->setAttr("energy.frontier", b.getArrayAttr(pts));
      sched->setAttr(
          "energy.frontier_thinning",
          b.getDictionaryAttr(
              {b.getNamedAttr("full_points",
                              b.getI64IntegerAttr(int64_t(front->size()))),
               b.getNamedAttr("kept_points",
                              b.getI64IntegerAttr(int64_t(thinned.size()))),
               b.getNamedAttr("max_error", b.getF64FloatAttr(worst))}));
    }
  }
};

struct EnergyPlanPass : public energy::impl::EnergyPlanBase<EnergyPlanPass> {
  using EnergyPlanBase::EnergyPlanBase;

  void runOnOperation() override {
    if (!calculus::parsePlanObjective(objective)) {
      mlir::emitError(getOperation().getLoc(), "energy-plan: objective must be energy, edp "
                               "or ed2p; got '")
          << objective << "'";
      return signalPassFailure();
    }
    if (!(deadline >= 0) || !(maxSlowdown >= 0) || !std::isfinite(deadline) ||
        !std::isfinite(maxSlowdown)) {
      mlir::emitError(getOperation().getLoc(),
          "energy-plan: deadline and max-slowdown must be finite and "
          "non-negative");
      return signalPassFailure();
    }
    if (deadline > 0 && maxSlowdown > 0) {
      mlir::emitError(getOperation().getLoc(),
                      "energy-plan: give deadline or max-slowdown, not both");
      return signalPassFailure();
    }
    if (!(quantum >= 0) || !(step >= 0)) {
      mlir::emitError(getOperation().getLoc(),
                      "energy-plan: quantum and step must be non-negative (s)");
      return signalPassFailure();
    }
    auto schedules = llvm::to_vector(getOperation().getOps<ScheduleOp>());
    if (schedules.empty())
      mlir::emitWarning(getOperation().getLoc(),
                        "energy-plan: no sched.schedule in the module; nothing "
                        "was planned");
    for (ScheduleOp sched : schedules)
      if (failed(planSchedule(sched)))
        return signalPassFailure();
  }

  LogicalResult planSchedule(ScheduleOp sched) {
    FailureOr<Choices> c = Choices::build(sched);
    if (failed(c))
      return failure();
    calculus::DagFrontierResult method;
    auto front =
        computeFrontier(sched, *c, step, quantum, crashBudget, classSweepAbove,
                          convexAbove,
                        true, method, deadline,
                        deadline > 0 ? -1.0 : double(maxSlowdown) / 100);
    if (failed(front))
      return failure();
    if (llvm::all_of(c->options, [](const auto &set) { return set.size() < 2; }))
      mlir::emitWarning(sched.getLoc(), "energy-plan: no task of @")
          << sched.getSymName()
          << " has an operating set with more than one option: the plan is "
             "the schedule as it is";
    double baseT;
    double baseE = calculus::dagEnergy(c->graph.schedule, c->options,
                                       c->current, quantum, &baseT);
    double fastest = front->front().T;
    double limit = deadline > 0 ? deadline : fastest * (1 + maxSlowdown / 100);
    // Devices that declare what a clock switch costs (`energy.switch`): the
    // choice then weighs every candidate with its switches, as
    // --energy-emit-dvfs will insert them (a point whose switches push it
    // past the limit, or cost more than its clocks save, loses).
    const calculus::Schedule &sched0 = c->graph.schedule;
    std::vector<calculus::SwitchCost> switchCost(sched0.devices.size());
    bool switching = false;
    for (size_t dv = 0; dv < c->graph.deviceOps.size(); ++dv) {
      FailureOr<SignatureAttr> sig = switchCostOf(c->graph.deviceOps[dv]);
      if (failed(sig))
        return failure();
      if (*sig) {
        switchCost[dv] = {true, sig->time(), sig->dynamicEnergy()};
        switching = true;
      }
    }
    std::vector<std::vector<int64_t>> clocks;
    if (switching) {
      DenseMap<Attribute, int64_t> ids;
      clocks.resize(c->opPoints.size());
      for (size_t t = 0; t < c->opPoints.size(); ++t)
        for (OpPointAttr op : c->opPoints[t])
          clocks[t].push_back(
              op ? ids.try_emplace(op, int64_t(ids.size())).first->second
                 : -1);
    }
    struct Scored {
      double T, E;
      uint32_t switches = 0;
    };
    auto withSwitches = [&](const calculus::DagPoint &p) -> Scored {
      if (!switching)
        return {p.T, p.E};
      Scored r{0, 0};
      r.E = calculus::dagEnergyWithSwitches(sched0, c->options, p.choice,
                                            clocks, switchCost, quantum, &r.T,
                                            &r.switches);
      return r;
    };
    // Each candidate's cost as it will run, kept for the one chosen (with
    // clock switches it is a re-timing of the schedule).
    std::vector<Scored> costs(front->size());
    std::optional<size_t> chosen = calculus::choosePlanPoint(
        *front, *calculus::parsePlanObjective(objective), limit,
        [&](const calculus::DagPoint &p) {
          Scored &cost = costs[size_t(&p - front->data())];
          cost = withSwitches(p);
          return std::make_pair(cost.T, cost.E);
        });
    const calculus::DagPoint *best = chosen ? &(*front)[*chosen] : nullptr;
    Scored bestCost = best ? costs[*chosen] : Scored{0, 0};
    if (!best)
      return sched.emitOpError("energy-plan: no frontier point meets the "
                               "deadline ")
             << formatQuantity(limit, Dimension::Time)
             << (switching ? " with its clock switches" : "")
             << "; the fastest makespan is "
             << formatQuantity(fastest, Dimension::Time);

    // Write back: signature and operating point of each chosen option.
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    const calculus::Schedule &s = c->graph.schedule;
    for (size_t t = 0; t < s.tasks.size(); ++t) {
      auto taskOp = dyn_cast<TaskOp>(c->graph.taskOps[t]);
      if (!taskOp)
        continue;
      uint32_t j = best->choice[t];
      if (SignatureAttr sig = c->sigs[t][j]) {
        taskOp.setSigAttr(sig);
        // The task now takes its option's time. A recorded start stays: it
        // is a release (the task never starts before it), read the same way
        // by the planner and the lowering.
        if (taskOp.getDuration())
          taskOp.setDuration(sig.time());
      }
      if (OpPointAttr op = c->opPoints[t][j])
        taskOp->setAttr("energy.dvfs", op);
    }
    // What the plan saves as it will run: with its clock switches.
    double saving = baseE > 0 ? 100 * (1 - bestCost.E / baseE) : 0;
    if (std::fabs(saving) < 5e-13) // equal energies print as 0.00%, not -0.00%
      saving = 0;
    // The certificate at the limit, not at the plan's own time: no
    // configuration within the limit uses less than this (the bound is
    // non-increasing in the makespan). Exact frontiers: the plan itself.
    double lowerBound =
        method.exact ? best->E : method.lowerBoundAt(limit);
    if (std::isnan(lowerBound))
      lowerBound = 0;
    lowerBound = std::min(lowerBound, best->E);
    double gapPct =
        lowerBound > 0 ? 100 * (best->E - lowerBound) / lowerBound : -1;
    NamedAttribute fields[] = {
        b.getNamedAttr("exact", b.getBoolAttr(method.exact)),
        b.getNamedAttr("lower_bound_J", b.getF64FloatAttr(lowerBound)),
        b.getNamedAttr("gap_pct", b.getF64FloatAttr(gapPct)),
        b.getNamedAttr("baseline_T_s", b.getF64FloatAttr(baseT)),
        b.getNamedAttr("baseline_E_J", b.getF64FloatAttr(baseE)),
        b.getNamedAttr("T_s", b.getF64FloatAttr(best->T)),
        b.getNamedAttr("E_J", b.getF64FloatAttr(best->E)),
        b.getNamedAttr("saving_pct", b.getF64FloatAttr(saving)),
        b.getNamedAttr("fastest_T_s", b.getF64FloatAttr(fastest)),
        b.getNamedAttr("limit_T_s", b.getF64FloatAttr(limit)),
        b.getNamedAttr("frontier_points", b.getI64IntegerAttr(front->size())),
        b.getNamedAttr("objective", b.getStringAttr(objective)),
    };
    NamedAttrList planFields(fields);
    if (switching) {
      planFields.set("switches", b.getI64IntegerAttr(bestCost.switches));
      planFields.set("T_with_switches_s", b.getF64FloatAttr(bestCost.T));
      planFields.set("E_with_switches_J", b.getF64FloatAttr(bestCost.E));
    }
    if (method.truncated) // the range the crash sweep did not reach, s
      planFields.set("frontier_truncated",
                     b.getF64ArrayAttr({method.gapFrom, method.gapTo}));
    sched->setAttr("energy.plan", planFields.getDictionary(ctx));

    if (summary) {
      auto q = [](double v, Dimension d) { return formatQuantity(v, d, 5); };
      llvm::errs() << "@" << sched.getSymName() << " plan ("
                   << front->size() << " frontier points, objective "
                   << objective << ")\n";
      llvm::errs() << "  frontier  "
                   << cast<StringAttr>(sched->getAttr("energy.frontier_method"))
                          .getValue()
                   << "\n";
      llvm::errs() << "  fastest   " << q(fastest, Dimension::Time)
                   << "  energy-minimal "
                   << q(front->back().T, Dimension::Time) << " at "
                   << q(front->back().E, Dimension::Energy) << "\n";
      llvm::errs() << "  baseline  " << q(baseT, Dimension::Time) << "  "
                   << q(baseE, Dimension::Energy)
                   << "  (every task at its current signature)\n";
      llvm::errs() << "  plan      " << q(bestCost.T, Dimension::Time) << "  "
                   << q(bestCost.E, Dimension::Energy)
                   << llvm::formatv("  ({0:F2}% less energy, limit {1})\n",
                                    saving, q(limit, Dimension::Time));
      if (switching)
        llvm::errs() << "  switches  " << bestCost.switches
                     << " clock switches included (the frontier point "
                        "without them: "
                     << q(best->T, Dimension::Time) << "  "
                     << q(best->E, Dimension::Energy) << ")\n";
      if (gapPct >= 0)
        llvm::errs() << "  bound     no configuration within the limit "
                        "uses less than "
                     << q(lowerBound, Dimension::Energy)
                     << llvm::formatv(" (plan within {0:F2}%)\n", gapPct);
    }
    return success();
  }

};

} // namespace
