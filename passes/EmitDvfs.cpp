//===- EmitDvfs.cpp - --energy-emit-dvfs ----------------------------------===//

#include "passes/Passes.h"

#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "dialect/Sched/SchedGraph.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <map>

namespace energy {
#define GEN_PASS_DEF_ENERGYEMITDVFS
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

struct EnergyEmitDvfsPass
    : public energy::impl::EnergyEmitDvfsBase<EnergyEmitDvfsPass> {
  void runOnOperation() override {
    energy::warnNestedSchedules(getOperation(), "energy-emit-dvfs");
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    // Nothing planned (no schedule --energy-plan marked, no task with a
    // planned clock): said, rather than passing the IR through unchanged
    // as if it had been emitted.
    bool planned = false;
    for (ScheduleOp sched : getOperation().getOps<ScheduleOp>()) {
      planned |= sched->hasAttr(EnergyDialect::PlanAttrHelper::getNameStr());
      for (TaskOp task : sched.getBody().getOps<TaskOp>())
        planned |= task->hasAttr(EnergyDialect::DvfsAttrHelper::getNameStr());
    }
    if (!planned)
      mlir::emitWarning(moduleErrorLoc(getOperation()),
                        "energy-emit-dvfs: no schedule was planned (no "
                        "energy.plan, no task's energy.dvfs): run "
                        "--energy-plan first; nothing to emit");
    for (ScheduleOp sched : getOperation().getOps<ScheduleOp>()) {
      llvm::DenseMap<StringAttr, SignatureAttr> switchCost;
      for (sched::DeviceOp dev : sched.getBody().getOps<sched::DeviceOp>()) {
        if (SignatureAttr sig = switchCostOf(dev))
          switchCost[dev.getSymNameAttr()] = sig;
      }
      // Program order per (device, stream).
      llvm::MapVector<std::pair<Attribute, int64_t>, SmallVector<TaskOp>> lanes;
      for (TaskOp task : sched.getBody().getOps<TaskOp>())
        lanes[{task.getDeviceAttr(), task.getStream().value_or(0)}].push_back(
            task);
      int64_t switches = 0;
      auto clockOf = [](TaskOp task) {
        return task->getAttrOfType<OpPointAttr>(
            EnergyDialect::DvfsAttrHelper::getNameStr());
      };
      // A switch task before `task` on its lane, from `from` to `to`, where
      // its device declares what a switch costs.
      auto insertSwitch = [&](TaskOp task, OpPointAttr from, OpPointAttr to) {
        ++switches;
        SignatureAttr cost = switchCost.lookup(task.getDeviceAttr().getAttr());
        if (!cost)
          return;
        OpBuilder ob(task);
        SmallVector<NamedAttribute> theta;
        if (auto mhz = from.getSmMhz())
          theta.push_back(
              ob.getNamedAttr("from_mhz", ob.getI64IntegerAttr(*mhz)));
        if (auto mhz = to.getSmMhz())
          theta.push_back(
              ob.getNamedAttr("to_mhz", ob.getI64IntegerAttr(*mhz)));
        // Not before the task's release: the device is not the job's until
        // then (a switch at 0 before a task released at 10 s would stretch
        // the makespan by 10 s); and done by its recorded start (the plan's
        // re-timed start is where the task runs, its switch just before:
        // calculus::dagEnergyWithSwitches times it alike).
        double release = task.getReleaseAttr()
                             ? task.getReleaseAttr().getValueAsDouble()
                             : 0.0;
        if (std::optional<double> fixed = task.getStart())
          release = std::max(release, *fixed - cost.time());
        TaskOp::create(
            ob, task.getLoc(), ob.getStringAttr(task.getSymName() + ".switch"),
            task.getDeviceAttr(), task.getStreamAttr(), ArrayAttr(),
            FloatAttr(), FloatAttr(), ArrayAttr(), FloatAttr(),
            release > 0 ? ob.getF64FloatAttr(release) : FloatAttr(),
            ob.getStringAttr("dvfs-switch"), ob.getDictionaryAttr(theta),
            std::nullopt, std::nullopt, cost, StringAttr(), ArrayAttr());
      };
      for (auto &[key, tasks] : lanes) {
        // The schedule is one period of a job that repeats it: the lane's
        // first clocked task switches from its last clock where they differ
        // (calculus::dagEnergyWithSwitches charges it alike). It keeps its
        // setting: the first period sets it from the default clock.
        OpPointAttr last;
        for (TaskOp task : llvm::reverse(tasks))
          if ((last = clockOf(task)))
            break;
        OpPointAttr prev;
        for (TaskOp task : tasks) {
          OpPointAttr clock = clockOf(task);
          if (!clock)
            continue; // runs at whatever clock is set
          if (!prev) {
            if (clock != last)
              insertSwitch(task, last, clock);
          } else if (clock == prev) {
            task->removeAttr(EnergyDialect::DvfsAttrHelper::getNameStr());
            continue; // the setting persists
          } else {
            insertSwitch(task, prev, clock);
          }
          prev = clock;
        }
      }
      if (failed(accountSwitches(sched, switches)))
        return signalPassFailure();
    }
  }

  /// The plan's time and energy with its clock switches: re-timed as
  /// scheduled (the switches take their declared time on their device), so
  /// `energy.plan` says what the switches cost.
  LogicalResult accountSwitches(ScheduleOp sched, int64_t switches) {
    auto plan = sched->getAttrOfType<DictionaryAttr>(
        EnergyDialect::PlanAttrHelper::getNameStr());
    if (!plan)
      return success();
    std::vector<double> start;
    FailureOr<SchedGraph> g = SchedGraph::buildAsPlanned(sched, start);
    if (failed(g))
      return failure();
    // From the schedule's start (its earliest release), as the lowering and
    // the planner count.
    double end;
    double energy =
        calculus::intervalAccountingEnergy(g->schedule, start, &end);
    Builder b(sched.getContext());
    NamedAttrList fields(plan.getValue());
    fields.set("switches", b.getI64IntegerAttr(switches));
    fields.set("T_with_switches_s", b.getF64FloatAttr(end));
    fields.set("E_with_switches_J", b.getF64FloatAttr(energy));
    sched->setAttr(EnergyDialect::PlanAttrHelper::getNameStr(),
                   fields.getDictionary(sched.getContext()));
    return success();
  }
};
} // namespace
