//===- ServePlan.cpp - --energy-serve-plan --------------------------------===//
//
// A thin caller: the measurements' reader is runtime/formats/MlEnergy, the
// fit and the choice calculus/models/ServingValidation; this writes the
// chosen batch cap (and, with a clock model, the SM clock) into each
// sched.serve.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "calculus/models/ServingValidation.h"
#include "dialect/Energy/Units.h"
#include "runtime/formats/MlEnergy.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace energy {
#define GEN_PASS_DEF_ENERGYSERVEPLAN
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {
struct EnergyServePlanPass
    : public energy::impl::EnergyServePlanBase<EnergyServePlanPass> {
  using EnergyServePlanBase::EnergyServePlanBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Errors at the first sched.serve, the op the plan is for.
    Location where = moduleErrorLoc(module);
    module.walk([&](ServeOp serve) {
      where = serve.getLoc();
      return WalkResult::interrupt();
    });
    auto fail = [&](const Twine &msg) {
      mlir::emitError(where, "energy-serve-plan: ") << msg;
      signalPassFailure();
    };
    if (measurements.empty() || model.empty() || gpu.empty())
      return fail("needs measurements=FILE[,FILE...], model= and gpu= (and "
                  "slo-p90-itl-ms=)");
    if (!sloP90ItlMs.hasValue())
      return fail("needs slo-p90-itl-ms= (the p90 inter-token latency SLO, "
                  "ms)");
    if (!(sloP90ItlMs > 0) || !std::isfinite(sloP90ItlMs))
      return fail("slo-p90-itl-ms=" + formatNumber(sloP90ItlMs) +
                  ": the p90 inter-token latency SLO must be a positive "
                  "number of milliseconds");
    std::vector<calculus::ServingObservation> obs;
    std::string err;
    std::vector<std::string> paths(measurements.begin(), measurements.end());
    if (!formats::readObservations(paths, obs, err))
      return fail(err);
    calculus::ServingRecommendation rec;
    calculus::SimGpu sim;
    // Given, even empty, it must name a simulated GPU.
    bool clocked = clockModel.hasValue();
    if (clocked && !calculus::simGpuForDevice(clockModel, sim, err))
      return fail("clock-model=: " + err);
    if (!calculus::recommendServingCap(obs, model, gpu, tp, gpus,
                                       sloP90ItlMs / 1e3, rec, err,
                                       clocked ? &sim : nullptr))
      return fail(err);
    for (const std::string &note : rec.notes)
      mlir::emitWarning(where, "energy-serve-plan: ") << note;
    Builder b(&getContext());
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("batch_cap", b.getI64IntegerAttr(int64_t(rec.cap))),
        b.getNamedAttr("predicted_J_per_token",
                       b.getF64FloatAttr(rec.predicted)),
        b.getNamedAttr("slo_p90_itl_ms", b.getF64FloatAttr(sloP90ItlMs)),
        b.getNamedAttr("predicted_p90_itl_ms",
                       b.getF64FloatAttr(rec.predictedP90 * 1e3)),
        b.getNamedAttr("cap_measured", b.getBoolAttr(rec.capMeasured)),
        b.getNamedAttr("cell", b.getStringAttr(rec.cell)),
        b.getNamedAttr("model", b.getStringAttr(model)),
        b.getNamedAttr("gpu", b.getStringAttr(gpu)),
        b.getNamedAttr("tp", b.getI64IntegerAttr(tp)),
        b.getNamedAttr("measurements",
                       b.getI64IntegerAttr(int64_t(rec.measurements)))};
    if (rec.halfWidth95 >= 0) {
      calculus::Interval ci = rec.interval95();
      fields.push_back(b.getNamedAttr("ci95_J_per_token",
                                      b.getF64ArrayAttr({ci.lo, ci.hi})));
      if (ci.clipped())
        fields.push_back(b.getNamedAttr("ci95_unclipped_lo_J_per_token",
                                        b.getF64FloatAttr(ci.unclippedLo)));
    }
    if (!rec.capMeasured && rec.hasP90Interval())
      fields.push_back(b.getNamedAttr(
          "ci95_p90_itl_ms",
          b.getF64ArrayAttr(
              {rec.predictedP90 * std::exp(rec.p90LogErrLo) * 1e3,
               rec.predictedP90 * std::exp(rec.p90LogErrHi) * 1e3})));
    // SIMULATED: the cap and clock by the simulated GPU's model, to apply
    // together; max_batch stays the default clocks' choice (the joint cap
    // alone may be worse at the default clocks).
    if (rec.clock.mhz) {
      const auto &k = rec.clock;
      SmallVector<NamedAttribute> clock = {
          b.getNamedAttr("basis",
                         b.getStringAttr(calculus::kServingClockBasis)),
          b.getNamedAttr("simulated_gpu", b.getStringAttr(k.model)),
          b.getNamedAttr("batch_cap", b.getI64IntegerAttr(int64_t(k.cap))),
          b.getNamedAttr("sm_clock_mhz", b.getI64IntegerAttr(k.mhz)),
          b.getNamedAttr("predicted_J_per_token",
                         b.getF64FloatAttr(k.predicted)),
          b.getNamedAttr("predicted_J_per_token_low",
                         b.getF64FloatAttr(k.predictedLow)),
          b.getNamedAttr("predicted_p90_itl_ms",
                         b.getF64FloatAttr(k.predictedP90 * 1e3))};
      // Where clocks cannot be locked, the power limit that holds the GPU
      // about the clock (absent outside the settable range).
      if (k.powerLimitW > 0)
        clock.push_back(
            b.getNamedAttr("power_limit_W", b.getF64FloatAttr(k.powerLimitW)));
      fields.push_back(b.getNamedAttr("sm_clock", b.getDictionaryAttr(clock)));
    }
    DictionaryAttr plan = b.getDictionaryAttr(fields);
    bool any = false;
    module.walk([&](ServeOp serve) {
      // The measurements' GPU against the workload's device: a plan made
      // from another GPU's measurements is said.
      if (!StringRef(serve.getDeviceKind()).contains_insensitive(gpu))
        serve.emitWarning("energy-serve-plan: the workload's device '")
            << serve.getDeviceKind() << "' is not the measurements' GPU '"
            << gpu << "': the batch cap is " << gpu << "'s";
      // The measured model against the workload's: sched.serve's
      // weight_bytes is the model's whole (each of its tp GPUs reads 1/tp);
      // one GPU's share is said, anything else not within 2x is another
      // model.
      double w = serve.getWeightBytes().convertToDouble();
      auto near = [&](double ref) {
        return ref > 0 && w >= ref / 2 && w <= ref * 2;
      };
      if (serve.getTp() != uint64_t(rec.tp))
        serve.emitWarning("energy-serve-plan: the workload's tp (")
            << serve.getTp() << ") is not the measurements' TP (" << rec.tp
            << ")";
      // The deployment's GPUs (expert or data parallel beside TP) against
      // the workload's instance, tp x pp GPUs.
      else if (uint64_t(rec.gpus) != serve.getTp() * serve.getPp())
        serve.emitWarning("energy-serve-plan: the measurements' deployment "
                          "holds ")
            << rec.gpus << " GPUs (" << rec.cell
            << ") and the workload's instance " << serve.getTp() * serve.getPp()
            << ": the batch cap is that deployment's";
      // vLLM batches continuously; a static batch fills and drains.
      if (serve.getPolicy() != "continuous")
        serve.emitWarning("energy-serve-plan: the measurements are of "
                          "continuous batching (vLLM) and the workload's "
                          "policy is '")
            << serve.getPolicy()
            << "': the batch cap is continuous "
               "batching's";
      // One GPU's share to 10 % (at TP 2 it lies within 2x of the whole).
      double share = rec.weightBytes / std::max(rec.tp, 1);
      if (rec.tp > 1 && rec.weightBytes > 0 &&
          std::abs(w - share) <= 0.1 * share)
        serve.emitWarning("energy-serve-plan: the workload's weight_bytes (")
            << formatNumber(w) << " B) is one GPU's share of '" << model
            << "' at TP " << rec.tp
            << ": sched.serve takes the whole model's weights (its tp GPUs "
               "each read 1/tp)";
      else if (rec.weightBytes > 0 && !near(rec.weightBytes))
        serve.emitWarning("energy-serve-plan: the workload's weight_bytes (")
            << formatNumber(w) << " B) is not that of '" << model << "' ("
            << formatNumber(rec.weightBytes) << " B"
            << (rec.tp > 1 ? ", " + formatNumber(rec.weightBytes / rec.tp) +
                                 " B per GPU at TP " + std::to_string(rec.tp)
                           : std::string())
            << "): the batch cap is that model's";
      serve.setMaxBatch(uint64_t(rec.cap));
      serve->setAttr(EnergyDialect::ServePlanAttrHelper::getNameStr(), plan);
      any = true;
    });
    if (!any)
      return fail("no sched.serve to plan");
  }
};
} // namespace
