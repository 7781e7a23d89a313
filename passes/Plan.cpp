//===- Plan.cpp - --energy-plan -------------------------------------------===//
//
// A thin pass: the frontier is calculus/DagFrontier.h (passes/
// FrontierSupport.h reads the operating sets); calculus::choosePlanPoint
// picks the point for the objective within the limit, and this file writes
// it back (each task's signature and operating point, `energy.plan`).
// energy-translate --export-plan writes the plan file.
//
//===----------------------------------------------------------------------===//

#include "calculus/DagFrontier.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/FrontierSupport.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

namespace energy {
#define GEN_PASS_DEF_ENERGYPLAN
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

struct EnergyPlanPass : public energy::impl::EnergyPlanBase<EnergyPlanPass> {
  using EnergyPlanBase::EnergyPlanBase;

  void runOnOperation() override {
    if (!calculus::parsePlanObjective(objective)) {
      mlir::emitError(moduleErrorLoc(getOperation()), "energy-plan: objective must be energy, edp "
                               "or ed2p; got '")
          << objective << "'";
      return signalPassFailure();
    }
    if (!(deadline >= 0) || !(maxSlowdown >= 0) || !std::isfinite(deadline) ||
        !std::isfinite(maxSlowdown)) {
      mlir::emitError(moduleErrorLoc(getOperation()),
          "energy-plan: deadline and max-slowdown must be finite and "
          "non-negative");
      return signalPassFailure();
    }
    if (deadline > 0 && maxSlowdown > 0) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: give deadline or max-slowdown, not both");
      return signalPassFailure();
    }
    if (!(quantum >= 0) || !(step >= 0)) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: quantum and step must be non-negative (s)");
      return signalPassFailure();
    }
    auto schedules = llvm::to_vector(getOperation().getOps<ScheduleOp>());
    if (schedules.empty())
      mlir::emitWarning(moduleErrorLoc(getOperation()),
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
      if (SignatureAttr sig = switchCostOf(c->graph.deviceOps[dv])) {
        switchCost[dv] = {true, sig.time(), sig.dynamicEnergy()};
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
        taskOp->setAttr(EnergyDialect::DvfsAttrHelper::getNameStr(), op);
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
    sched->setAttr(EnergyDialect::PlanAttrHelper::getNameStr(),
                   planFields.getDictionary(ctx));

    if (summary) {
      auto q = [](double v, Dimension d) { return formatQuantity(v, d, 5); };
      llvm::errs() << "@" << sched.getSymName() << " plan ("
                   << front->size() << " frontier points, objective "
                   << objective << ")\n";
      llvm::errs()
          << "  frontier  "
          << cast<StringAttr>(
                 sched->getAttr(
                     EnergyDialect::FrontierMethodAttrHelper::getNameStr()))
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
