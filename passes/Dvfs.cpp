//===- Dvfs.cpp - --energy-power-cap and --energy-emit-dvfs ---------------===//

#include "calculus/PowerCap.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/CsvTable.h"

#include "llvm/ADT/StringExtras.h"

#include <map>
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace energy {
#define GEN_PASS_DEF_ENERGYPOWERCAP
#define GEN_PASS_DEF_ENERGYEMITDVFS
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

struct EnergyPowerCapPass
    : public energy::impl::EnergyPowerCapBase<EnergyPowerCapPass> {
  using EnergyPowerCapBase::EnergyPowerCapBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &msg) {
      mlir::emitError(module.getLoc(), "energy-power-cap: ") << msg;
      signalPassFailure();
    };
    if (table.empty())
      return fail("needs table=PATH (power_limit,time,energy)");
    CsvTable csv;
    std::string err;
    if (!CsvTable::read(table, csv, err))
      return fail(err);
    std::optional<size_t> cCap = csv.column("power_limit");
    if (!cCap)
      cCap = csv.column("power_limit_0");
    std::optional<size_t> cT = csv.column("time"), cE = csv.column("energy");
    if (!cCap || !cT || !cE)
      return fail(table + ": needs columns power_limit (or power_limit_0), "
                          "time and energy");
    // A table of several jobs: one job's rows, named.
    std::optional<size_t> cModel = csv.column("model_name");
    if (!cModel && !model.empty())
      return fail(table + ": model=" + model + " given, but the table has no "
                          "model_name column");
    if (cModel) {
      llvm::SmallVector<std::string> names;
      for (const auto &row : csv.rows)
        if (!llvm::is_contained(names, row[*cModel]))
          names.push_back(row[*cModel]);
      if (model.empty() && names.size() > 1)
        return fail(table + ": the table holds " + Twine(names.size()) +
                    " jobs (" + llvm::join(names, ", ") +
                    "); pick one with model=NAME");
      if (!model.empty() && !llvm::is_contained(names, model))
        return fail(table + ": no rows of model '" + model + "'; it holds " +
                    llvm::join(names, ", "));
    }
    std::vector<calculus::CapPoint> points;
    std::map<double, unsigned> seenCap; // power limit -> line
    for (size_t r = 0; r < csv.rows.size(); ++r) {
      double cap, t, e;
      const auto &row = csv.rows[r];
      if (cModel && !model.empty() && row[*cModel] != model)
        continue;
      if (!llvm::to_float(row[*cCap], cap) || !llvm::to_float(row[*cT], t) ||
          !llvm::to_float(row[*cE], e))
        return fail(table + ":" + Twine(csv.lines[r]) +
                    ": power_limit, time and energy must be numbers");
      auto [it, fresh] = seenCap.try_emplace(cap, csv.lines[r]);
      if (!fresh)
        return fail(table + ":" + Twine(csv.lines[r]) + ": power limit " +
                    row[*cCap] + " W again (first on line " +
                    Twine(it->second) + ")");
      points.push_back({cap, t, e});
    }
    calculus::CapObjective obj;
    if (maxSlowdown >= 0) {
      obj.kind = calculus::CapObjective::MinEnergyUnderSlowdown;
      obj.maxSlowdownPct = maxSlowdown;
    } else {
      obj.kind = calculus::CapObjective::ZeusCost;
      obj.eta = eta;
      obj.maxPower = maxPower;
    }
    size_t chosen = 0;
    if (!calculus::choosePowerCap(points, obj, chosen, err))
      return fail(err);
    const calculus::CapPoint &p = points[chosen];
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto cap = OpPointAttr::get(ctx, std::nullopt, std::nullopt,
                                Real{p.cap}, std::nullopt);
    for (ScheduleOp sched : module.getOps<ScheduleOp>()) {
      for (sched::DeviceOp dev : sched.getBody().getOps<sched::DeviceOp>())
        dev->setAttr("energy.power_cap", cap);
      sched->setAttr(
          "energy.power_cap_choice",
          b.getDictionaryAttr(
              {b.getNamedAttr("power_cap_W", b.getF64FloatAttr(p.cap)),
               b.getNamedAttr("T_s", b.getF64FloatAttr(p.T)),
               b.getNamedAttr("E_J", b.getF64FloatAttr(p.E)),
               b.getNamedAttr("objective",
                              b.getStringAttr(maxSlowdown >= 0
                                                  ? "min-energy-under-slowdown"
                                                  : "zeus-cost"))}));
    }
  }
};

struct EnergyEmitDvfsPass
    : public energy::impl::EnergyEmitDvfsBase<EnergyEmitDvfsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    for (ScheduleOp sched : getOperation().getOps<ScheduleOp>()) {
      llvm::DenseMap<StringAttr, SignatureAttr> switchCost;
      for (sched::DeviceOp dev : sched.getBody().getOps<sched::DeviceOp>()) {
        FailureOr<SignatureAttr> sig = switchCostOf(dev);
        if (failed(sig))
          return signalPassFailure();
        if (*sig)
          switchCost[dev.getSymNameAttr()] = *sig;
      }
      // Program order per (device, stream).
      llvm::MapVector<std::pair<Attribute, int64_t>, SmallVector<TaskOp>>
          lanes;
      for (TaskOp task : sched.getBody().getOps<TaskOp>())
        lanes[{task.getDeviceAttr(), task.getStream().value_or(0)}].push_back(
            task);
      int64_t switches = 0;
      for (auto &[key, tasks] : lanes) {
        OpPointAttr prev;
        for (TaskOp task : tasks) {
          auto clock = task->getAttrOfType<OpPointAttr>("energy.dvfs");
          if (!clock)
            continue; // runs at whatever clock is set
          if (clock == prev) {
            task->removeAttr("energy.dvfs"); // the setting persists
            continue;
          }
          SignatureAttr cost = switchCost.lookup(task.getDeviceAttr().getAttr());
          switches += prev ? 1 : 0;
          if (prev && cost) {
            OpBuilder ob(task);
            SmallVector<NamedAttribute> theta;
            if (auto from = prev.getSmMhz())
              theta.push_back(
                  ob.getNamedAttr("from_mhz", ob.getI64IntegerAttr(*from)));
            if (auto to = clock.getSmMhz())
              theta.push_back(
                  ob.getNamedAttr("to_mhz", ob.getI64IntegerAttr(*to)));
            TaskOp::create(
                ob, task.getLoc(),
                ob.getStringAttr(task.getSymName() + ".switch"),
                task.getDeviceAttr(), task.getStreamAttr(), ArrayAttr(),
                ArrayAttr(), FloatAttr(), FloatAttr(),
                ob.getStringAttr("dvfs-switch"),
                ob.getDictionaryAttr(theta), std::nullopt, std::nullopt, cost,
                StringAttr(), ArrayAttr());
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
    auto plan = sched->getAttrOfType<DictionaryAttr>("energy.plan");
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
    sched->setAttr("energy.plan", fields.getDictionary(sched.getContext()));
    return success();
  }
};

} // namespace
