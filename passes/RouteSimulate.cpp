//===- RouteSimulate.cpp - --energy-route-simulate ------------------------===//
//
// A thin caller of calculus/Routing's policies, closed forms and Monte
// Carlo on a schedule's fleet; records the comparison on the schedule. With
// energies=evaluated the models' per-task energies come from the expanded
// endpoints' signatures instead of the fleet's distributions.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "calculus/Routing.h"
#include "passes/FleetSource.h"

#include "mlir/IR/Builders.h"

#include <map>

namespace energy {
#define GEN_PASS_DEF_ENERGYROUTESIMULATE
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;
namespace rt = energy::calculus::routing;

namespace {
/// An endpoint's evaluated energy, by phase: the sum of its tasks' s T + d
/// and the tokens they process.
struct PhaseEnergy {
  double prefillJ = 0, promptTokens = 0;
  double decodeJ = 0, outputTokens = 0;
};

struct EnergyRouteSimulatePass
    : public energy::impl::EnergyRouteSimulateBase<EnergyRouteSimulatePass> {
  using EnergyRouteSimulateBase::EnergyRouteSimulateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (energies != "fleet" && energies != "evaluated") {
      mlir::emitError(moduleErrorLoc(module), "energy-route-simulate: ")
          << "energies='" << energies << "': expected fleet or evaluated";
      return signalPassFailure();
    }
    FleetSource source(fleet, "energy-route-simulate");
    if (failed(forEachRequestStream(
            module, "energy-route-simulate",
            "the request stream; a lowered module has no sched.schedule left",
            [&](ScheduleOp sched, ArrayAttr requests) {
              return simulateSchedule(sched, requests, source);
            })))
      signalPassFailure();
  }

  /// Replaces each model's mean and sd per task by the linear attribution
  /// of its endpoint's evaluated energy (calculus::routing::
  /// tokenLinearEnergy): prefill J per prompt token and decode J per output
  /// token over the tasks on `@<model>_gpu` (the device --sched-expand makes
  /// for the endpoint), applied to the request stream's prompt and output
  /// lengths. A model whose endpoint was dealt no request keeps the fleet's
  /// figures; anything else that cannot be attributed is an error, never a
  /// silent fallback. `sources` says which model got which.
  LogicalResult evaluatedEnergies(ScheduleOp sched, ArrayAttr requests,
                                  rt::Fleet &f,
                                  std::vector<std::string> &sources) {
    auto fail = [&](Location loc, const Twine &msg) {
      mlir::emitError(loc, "energy-route-simulate: energies=evaluated: ")
          << msg;
      return failure();
    };
    for (ServeOp serve : sched.getBody().getOps<ServeOp>())
      return fail(serve.getLoc(), "needs the endpoints expanded and their "
                                  "signatures known: run --sched-expand "
                                  "first");
    std::map<std::string, size_t> modelOf;
    for (size_t i = 0; i < f.models.size(); ++i)
      modelOf[f.models[i].name + "_gpu"] = i;
    std::map<std::string, double> staticPower;
    for (sched::DeviceOp dev : sched.getBody().getOps<sched::DeviceOp>())
      staticPower[dev.getSymName().str()] =
          dev.getStaticPower().convertToDouble();
    std::vector<PhaseEnergy> phases(f.models.size());
    for (TaskOp task : sched.getBody().getOps<TaskOp>()) {
      std::string dev = task.getDevice().str();
      auto model = modelOf.find(dev);
      if (model == modelOf.end())
        return fail(task.getLoc(),
                    "@" + task.getSymName() + " runs on @" + dev +
                        ", which is no model's endpoint device (the fleet's "
                        "model M expands to @M_gpu)");
      std::optional<StringRef> kind = task.getKind();
      if (!kind || (*kind != "prefill" && *kind != "decode"))
        return fail(task.getLoc(),
                    "@" + task.getSymName() + " is of kind '" +
                        kind.value_or("") +
                        "': the energy is attributed per prefill and decode "
                        "step (an endpoint with granularity = \"step\")");
      SignatureAttr sig = task.getSigAttr();
      if (!sig)
        return fail(task.getLoc(), "@" + task.getSymName() +
                                       " has no signature (fill it first: "
                                       "--energy-fill-signatures)");
      double s = sig.staticPower().value_or(staticPower[dev]);
      double e = s * sig.time() + sig.dynamicEnergy();
      DictionaryAttr theta = task.getThetaAttr();
      PhaseEnergy &ph = phases[model->second];
      bool prefill = *kind == "prefill";
      auto tokens = theta
                        ? theta.getAs<IntegerAttr>(prefill ? "tokens" : "batch")
                        : nullptr;
      if (!tokens || tokens.getInt() < 0)
        return fail(task.getLoc(), "@" + task.getSymName() + " has no '" +
                                       (prefill ? "tokens" : "batch") + "'");
      (prefill ? ph.prefillJ : ph.decodeJ) += e;
      (prefill ? ph.promptTokens : ph.outputTokens) += double(tokens.getInt());
    }
    // (Checked where the stream is read: forEachRequestStream.)
    std::vector<std::pair<double, double>> stream;
    std::string why;
    for (Attribute r : requests) {
      calculus::Request req = *sched::readRequest(r, why);
      stream.push_back({double(req.prompt), double(req.output)});
    }
    sources.assign(f.models.size(), "fleet");
    for (size_t i = 0; i < f.models.size(); ++i) {
      const PhaseEnergy &ph = phases[i];
      if (ph.prefillJ == 0 && ph.decodeJ == 0)
        continue; // dealt no request: the fleet's figures stand
      if ((ph.prefillJ > 0 && ph.promptTokens == 0) || ph.outputTokens == 0)
        return fail(sched.getLoc(),
                    "@" + f.models[i].name + "_gpu has " +
                        (ph.outputTokens == 0 ? "no decoded output tokens"
                                              : "prefill energy but no "
                                                "prompt tokens") +
                        " to attribute its energy to");
      rt::TaskEnergy te = rt::tokenLinearEnergy(
          ph.promptTokens > 0 ? ph.prefillJ / ph.promptTokens : 0.0,
          ph.decodeJ / ph.outputTokens, stream);
      f.models[i].meanJ = te.meanJ;
      f.models[i].sdJ = te.sdJ;
      sources[i] = "evaluated";
    }
    std::string err;
    if (!rt::validateFleet(f, err))
      return fail(sched.getLoc(), "the evaluated energies: " + err);
    return success();
  }

  LogicalResult simulateSchedule(ScheduleOp sched, ArrayAttr requests,
                                 FleetSource &source) {
    auto fail = [&](const Twine &msg) {
      mlir::emitError(sched.getLoc(), "energy-route-simulate: ") << msg;
      return failure();
    };
    formats::FleetFile ff;
    std::string err, from;
    if (failed(source.get(sched, ff, from)))
      return failure();
    std::vector<std::string> sources(ff.fleet.models.size(), "fleet");
    if (energies == "evaluated" &&
        failed(evaluatedEnergies(sched, requests, ff.fleet, sources)))
      return failure();
    rt::McSettings st = ff.simulation;
    if (runs)
      st.runs = runs;
    if (horizon)
      st.horizon = horizon;
    std::vector<std::vector<std::vector<double>>> splits;
    if (!rt::resolvePolicies(ff.fleet, ff.policies, ff.matchQualityOf,
                             double(st.horizon), splits, err))
      return fail(from + ": " + err);
    Builder b(&getContext());
    SmallVector<NamedAttribute> models, report;
    for (size_t i = 0; i < ff.fleet.models.size(); ++i) {
      const rt::Endpoint &m = ff.fleet.models[i];
      models.push_back(b.getNamedAttr(
          m.name,
          b.getDictionaryAttr(
              {b.getNamedAttr("mean_J", b.getF64FloatAttr(m.meanJ)),
               b.getNamedAttr("sd_J", b.getF64FloatAttr(m.sdJ)),
               b.getNamedAttr("source", b.getStringAttr(sources[i]))})));
    }
    for (size_t i = 0; i < ff.policies.size(); ++i) {
      rt::McResult mc;
      if (!rt::simulate(ff.fleet, splits[i], st, mc, err))
        return fail(from + ": " + err);
      rt::Prediction pr =
          rt::predictSplits(ff.fleet, splits[i], double(st.horizon));
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
    sched->setAttr(
        EnergyDialect::RouteReportAttrHelper::getNameStr(),
        b.getDictionaryAttr(
            {b.getNamedAttr("models", b.getDictionaryAttr(models)),
             b.getNamedAttr("policies", b.getDictionaryAttr(report))}));
    return success();
  }
};
} // namespace
