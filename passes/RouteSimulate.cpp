//===- RouteSimulate.cpp - --energy-route-simulate ------------------------===//
//
// A thin caller of calculus/Routing's policies, closed forms and Monte
// Carlo on a fleet file; records the comparison on the schedule.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "calculus/Routing.h"
#include "runtime/formats/Fleet.h"

#include "mlir/IR/Builders.h"

namespace energy {
#define GEN_PASS_DEF_ENERGYROUTESIMULATE
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;
namespace rt = energy::calculus::routing;

namespace {
struct EnergyRouteSimulatePass
    : public energy::impl::EnergyRouteSimulateBase<EnergyRouteSimulatePass> {
  using EnergyRouteSimulateBase::EnergyRouteSimulateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &msg) {
      mlir::emitError(moduleErrorLoc(module), "energy-route-simulate: ") << msg;
      signalPassFailure();
    };
    if (fleet.empty())
      return fail("needs fleet=FILE (docs/ROUTING.md)");
    formats::FleetFile ff;
    std::string err;
    if (!formats::readFleet(fleet, ff, err))
      return fail(err);
    rt::McSettings st = ff.simulation;
    if (runs)
      st.runs = runs;
    if (horizon)
      st.horizon = horizon;
    std::vector<std::vector<std::vector<double>>> splits;
    if (!rt::resolvePolicies(ff.fleet, ff.policies, ff.matchQualityOf,
                             double(st.horizon), splits, err))
      return fail(fleet + ": " + err);
    Builder b(&getContext());
    SmallVector<NamedAttribute> report;
    for (size_t i = 0; i < ff.policies.size(); ++i) {
      rt::McResult mc;
      if (!rt::simulate(ff.fleet, splits[i], st, mc, err))
        return fail(err);
      rt::Prediction pr =
          rt::predict(ff.fleet, splits[i].front(), double(st.horizon));
      report.push_back(b.getNamedAttr(
          ff.policies[i].name,
          b.getDictionaryAttr(
              {b.getNamedAttr("quality",
                              b.getF64FloatAttr(
                                  rt::splitsMeanQuality(ff.fleet, splits[i]))),
               b.getNamedAttr("aux_J", b.getF64FloatAttr(mc.aux.mean)),
               b.getNamedAttr("aux_ci95_J",
                              b.getF64FloatAttr(mc.aux.halfWidth95())),
               b.getNamedAttr("spill_J", b.getF64FloatAttr(mc.spill.mean)),
               b.getNamedAttr("spill_ci95_J",
                              b.getF64FloatAttr(mc.spill.halfWidth95())),
               b.getNamedAttr("predicted_aux_J", b.getF64FloatAttr(pr.auxJ)),
               b.getNamedAttr("predicted_spill_J",
                              b.getF64FloatAttr(pr.spillJ))})));
    }
    bool any = false;
    for (ScheduleOp sched : module.getOps<ScheduleOp>())
      if (sched->hasAttr(EnergyDialect::RequestsAttrHelper::getNameStr())) {
        sched->setAttr(EnergyDialect::RouteReportAttrHelper::getNameStr(),
                       b.getDictionaryAttr(report));
        any = true;
      }
    if (!any)
      fail("no sched.schedule has energy.requests (the fleet's IR form)");
  }
};
} // namespace
