//===- SchedExpand.cpp - --sched-expand -----------------------------------===//
//
// Thin pass: the instruction orders and dependencies are
// calculus/Pipeline.cpp; this file reads the generator's attributes and
// writes the tasks as IR.
//
//===----------------------------------------------------------------------===//

#include "calculus/Pipeline.h"
#include "calculus/Serve.h"
#include "dialect/Sched/Sched.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

#include <limits>

namespace energy {
#define GEN_PASS_DEF_SCHEDEXPAND
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

/// The per-virtual-stage entry of a "one for all or one per stage" attr.
Attribute perStage(Attribute attr, uint32_t vs, bool options) {
  if (!attr)
    return {};
  auto arr = dyn_cast<ArrayAttr>(attr);
  if (!arr)
    return attr;
  // An operating set is itself an array of options.
  if (options && !arr.empty() && isa<OptionAttr>(arr[0]))
    return attr;
  return arr[vs];
}

calculus::StageCost costOf(SignatureAttr sig) {
  return {sig.time(), sig.dynamicEnergy(), sig.sigmaTime() * sig.sigmaTime(),
          sig.sigmaDynamic() * sig.sigmaDynamic()};
}

/// The signature a task runs with: its own, or its operating set's default
/// option -- the highest SM clock (GPUs run at their maximum clock unless
/// told otherwise, and Perseus measures savings against it); without clocks,
/// the fastest option.
SignatureAttr effectiveSig(Attribute sig, Attribute options) {
  if (auto s = dyn_cast_or_null<SignatureAttr>(sig))
    return s;
  OptionAttr best;
  auto better = [](OptionAttr a, OptionAttr b) {
    std::optional<int64_t> ca = a.getOpPoint().getSmMhz(),
                           cb = b.getOpPoint().getSmMhz();
    if (ca && cb && *ca != *cb)
      return *ca > *cb;
    return a.getSig().time() < b.getSig().time();
  };
  for (Attribute o : cast<ArrayAttr>(options))
    if (!best || better(cast<OptionAttr>(o), best))
      best = cast<OptionAttr>(o);
  return best.getSig();
}

struct SchedExpandPass
    : public energy::impl::SchedExpandBase<SchedExpandPass> {
  void runOnOperation() override {
    SmallVector<PipelineOp> pipelines;
    SmallVector<ServeOp> serves;
    getOperation()->walk([&](PipelineOp p) { pipelines.push_back(p); });
    getOperation()->walk([&](ServeOp p) { serves.push_back(p); });
    for (PipelineOp p : pipelines)
      if (failed(expand(p)))
        return signalPassFailure();
    for (ServeOp s : serves)
      if (failed(expand(s)))
        return signalPassFailure();
  }

  LogicalResult expand(ServeOp op) {
    if (!isa<ScheduleOp>(op->getParentOp()))
      return op.emitOpError("must be inside a sched.schedule to be expanded");
    calculus::ServeModel model;
    model.weightBytes = op.getWeightBytes().convertToDouble();
    model.kvBytesPerToken = op.getKvBytesPerToken().convertToDouble();
    model.hbmBandwidth = op.getHbmBandwidth().convertToDouble();
    model.prefillTokensPerS = op.getPrefillTokensPerS().convertToDouble();
    model.iterationOverhead = op.getIterationOverhead().convertToDouble();
    std::vector<calculus::Request> reqs;
    if (ArrayAttr list = op.getRequestsAttr()) {
      for (Attribute r : list) {
        auto arr = cast<ArrayAttr>(r);
        double arrival = isa<FloatAttr>(arr[0])
                             ? cast<FloatAttr>(arr[0]).getValueAsDouble()
                             : double(cast<IntegerAttr>(arr[0]).getInt());
        reqs.push_back({arrival, uint64_t(cast<IntegerAttr>(arr[1]).getInt()),
                        uint64_t(cast<IntegerAttr>(arr[2]).getInt())});
      }
    } else {
      reqs = calculus::generateRequests(
          *op.getNumRequests(), op.getArrivalRate()->convertToDouble(),
          *op.getPromptMin(), *op.getPromptMax(), *op.getOutputMin(),
          *op.getOutputMax(), op.getSeed());
    }
    std::vector<calculus::ServeStep> steps;
    std::string err;
    if (!calculus::simulateServing(model, reqs, op.getMaxBatch(),
                                   op.getPolicy() == "static"
                                       ? calculus::BatchPolicy::Static
                                       : calculus::BatchPolicy::Continuous,
                                   steps, err))
      return op.emitOpError(err);

    OpBuilder b(op);
    // The schedule remembers how many useful output tokens it produces, so
    // that evaluation can report energy per output token.
    uint64_t outputs = 0;
    for (const calculus::Request &r : reqs)
      outputs += r.output;
    Operation *parent = op->getParentOp();
    if (auto prior = parent->getAttrOfType<IntegerAttr>("energy.output_tokens"))
      outputs += uint64_t(prior.getInt());
    parent->setAttr("energy.output_tokens", b.getI64IntegerAttr(int64_t(outputs)));
    Location loc = op.getLoc();
    std::string prefix = op.getSymName().str();
    auto dev = sched::DeviceOp::create(
        b, loc, b.getStringAttr(prefix + "_gpu"), op.getDeviceKindAttr(),
        op.getStaticPowerAttr(), OpPointAttr());
    auto devRef = FlatSymbolRefAttr::get(dev.getSymNameAttr());
    std::optional<double> power;
    if (auto p = op.getDynamicPowerAttr())
      power = p.getValueAsDouble();
    if (op.getGranularity() == "run") {
      // The whole run as one task for run-level models (EnergyLens Eq. 4).
      uint64_t inputTokens = 0, maxTokens = 0;
      for (const calculus::Request &r : reqs) {
        inputTokens += r.prompt;
        maxTokens = std::max<uint64_t>(maxTokens, r.output);
      }
      double start = steps.empty() ? 0 : steps.front().start, end = start;
      for (const calculus::ServeStep &st : steps)
        end = std::max(end, st.start + st.duration);
      double T = end - start;
      NamedAttribute theta[] = {
          b.getNamedAttr("batch", b.getI64IntegerAttr(op.getMaxBatch())),
          b.getNamedAttr("input_tokens",
                         b.getI64IntegerAttr(int64_t(inputTokens))),
          b.getNamedAttr("max_tokens", b.getI64IntegerAttr(int64_t(maxTokens))),
          b.getNamedAttr("pp", b.getI64IntegerAttr(op.getPp())),
          b.getNamedAttr("requests",
                         b.getI64IntegerAttr(int64_t(reqs.size()))),
          b.getNamedAttr("tp", b.getI64IntegerAttr(op.getTp()))};
      SignatureAttr sig;
      if (power)
        sig = SignatureAttr::get(&getContext(), T, *power * T, 0, 0,
                                 std::nullopt, std::nullopt);
      TaskOp::create(b, loc, b.getStringAttr(prefix + "_run"), devRef,
                     IntegerAttr(), ArrayAttr(), ArrayAttr(), FloatAttr(),
                     b.getStringAttr("inference"), b.getDictionaryAttr(theta),
                     b.getF64FloatAttr(start),
                     sig ? FloatAttr() : b.getF64FloatAttr(T), sig,
                     StringAttr(), ArrayAttr());
      op.erase();
      return success();
    }
    StringAttr prev;
    size_t decodeIndex = 0, prefillIndex = 0;
    for (const calculus::ServeStep &st : steps) {
      bool isDecode = st.kind == calculus::ServeStep::Decode;
      StringAttr name = b.getStringAttr(
          prefix + (isDecode ? "_decode" + std::to_string(decodeIndex++)
                             : "_prefill" + std::to_string(prefillIndex++)));
      SmallVector<NamedAttribute> theta;
      if (isDecode) {
        theta = {b.getNamedAttr("batch", b.getI64IntegerAttr(st.batch)),
                 b.getNamedAttr("history", b.getF64FloatAttr(st.historySum)),
                 b.getNamedAttr("mean_history",
                                b.getF64FloatAttr(st.historySum / st.batch)),
                 b.getNamedAttr("weight_bytes", op.getWeightBytesAttr()),
                 b.getNamedAttr("kv_bytes_per_token",
                                op.getKvBytesPerTokenAttr())};
      } else {
        SmallVector<int64_t> ids(st.requests.begin(), st.requests.end());
        theta = {b.getNamedAttr("requests", b.getI64ArrayAttr(ids)),
                 b.getNamedAttr("tokens", b.getI64IntegerAttr(st.tokens)),
                 b.getNamedAttr("token_squares",
                                b.getF64FloatAttr(st.tokenSquares))};
      }
      SignatureAttr sig;
      if (power)
        sig = SignatureAttr::get(&getContext(), st.duration,
                                 *power * st.duration, 0, 0, std::nullopt,
                                 std::nullopt);
      TaskOp::create(
          b, loc, name, devRef, IntegerAttr(),
          prev ? b.getArrayAttr({FlatSymbolRefAttr::get(prev)}) : ArrayAttr(),
          ArrayAttr(), FloatAttr(),
          b.getStringAttr(isDecode ? "decode" : "prefill"),
          b.getDictionaryAttr(theta), b.getF64FloatAttr(st.start),
          sig ? FloatAttr() : b.getF64FloatAttr(st.duration), sig,
          StringAttr(), ArrayAttr());
      prev = name;
    }
    op.erase();
    return success();
  }

  LogicalResult expand(PipelineOp p) {
    auto sched = dyn_cast<ScheduleOp>(p->getParentOp());
    if (!sched)
      return p.emitOpError("must be inside a sched.schedule to be expanded");
    calculus::PipelineSpec spec;
    std::string kindName = p.getSchedule().str();
    calculus::parsePipelineKind(kindName, spec.kind); // verified
    spec.stages = p.getStages();
    spec.microbatches = p.getMicrobatches();
    spec.chunks = p.getChunks();
    spec.dataParallel = p.getDataParallel();
    spec.tensorParallel = p.getTensorParallel();
    spec.staticPowerPerGpu = p.getStaticPower().convertToDouble();
    spec.allreduceLag = p.getAllreduceLag().convertToDouble();
    uint32_t V = spec.stages * spec.chunks;
    SmallVector<SignatureAttr> fwd, bwd, wgt;
    SmallVector<Attribute> fwdOpts, bwdOpts;
    for (uint32_t vs = 0; vs < V; ++vs) {
      fwdOpts.push_back(perStage(p.getForwardOptionsAttr(), vs, true));
      bwdOpts.push_back(perStage(p.getBackwardOptionsAttr(), vs, true));
      fwd.push_back(
          effectiveSig(perStage(p.getForwardAttr(), vs, false), fwdOpts[vs]));
      bwd.push_back(
          effectiveSig(perStage(p.getBackwardAttr(), vs, false), bwdOpts[vs]));
      spec.forward.push_back(costOf(fwd[vs]));
      spec.backward.push_back(costOf(bwd[vs]));
      if (spec.kind == calculus::PipelineKind::ZBH1) {
        wgt.push_back(cast<SignatureAttr>(perStage(p.getWeightAttr(), vs, false)));
        spec.weight.push_back(costOf(wgt[vs]));
      }
    }
    if (auto ar = p.getAllreduceAttr())
      spec.allreduce = costOf(ar);

    calculus::Schedule built;
    std::vector<calculus::PipelineTaskInfo> info;
    std::string err;
    if (!calculus::buildPipeline(spec, built, info, err))
      return p.emitOpError(err);

    OpBuilder b(p);
    Location loc = p.getLoc();
    bool dp = spec.dataParallel > 1;
    // Devices: one per (replica, rank), a lockstep group of tp GPUs.
    std::string kind = p.getDeviceKind().str();
    if (spec.tensorParallel > 1)
      kind = std::to_string(spec.tensorParallel) + "x" + kind;
    SmallVector<FlatSymbolRefAttr> devices;
    for (uint32_t r = 0; r < spec.dataParallel; ++r)
      for (uint32_t s = 0; s < spec.stages; ++s) {
        std::string name = "stage" + std::to_string(s);
        if (dp)
          name += "_r" + std::to_string(r);
        auto dev = sched::DeviceOp::create(
            b, loc, b.getStringAttr(name), b.getStringAttr(kind),
            b.getF64FloatAttr(built.devices[r * spec.stages + s].staticPower),
            OpPointAttr());
        devices.push_back(FlatSymbolRefAttr::get(dev.getSymNameAttr()));
      }
    // Names of every task first: dependencies may point forward.
    SmallVector<StringAttr> names;
    names.reserve(info.size());
    for (const calculus::PipelineTaskInfo &ti : info) {
      std::string name;
      switch (ti.kind) {
      case calculus::PipelineTaskInfo::F:
        name = "F";
        break;
      case calculus::PipelineTaskInfo::B:
        name = "B";
        break;
      case calculus::PipelineTaskInfo::W:
        name = "W";
        break;
      case calculus::PipelineTaskInfo::AllReduce:
        name = "AR" + std::to_string(ti.vstage);
        break;
      }
      if (ti.kind != calculus::PipelineTaskInfo::AllReduce) {
        name += std::to_string(ti.vstage) + "_" + std::to_string(ti.microbatch);
        if (dp)
          name += "_r" + std::to_string(ti.replica);
      }
      names.push_back(b.getStringAttr(name));
    }
    auto refs = [&](const std::vector<calculus::Dependency> &deps,
                    bool startToStart) {
      SmallVector<Attribute> out;
      for (const calculus::Dependency &d : deps)
        if (d.startToStart == startToStart)
          out.push_back(FlatSymbolRefAttr::get(names[d.pred]));
      return out.empty() ? ArrayAttr() : b.getArrayAttr(out);
    };
    StringAttr fKind = b.getStringAttr("forward"),
               bKind = b.getStringAttr("backward"),
               wKind = b.getStringAttr("weight"),
               arKind = b.getStringAttr("allreduce");
    for (size_t t = 0; t < info.size(); ++t) {
      const calculus::PipelineTaskInfo &ti = info[t];
      const calculus::ScheduleTask &task = built.tasks[t];
      if (ti.kind == calculus::PipelineTaskInfo::AllReduce) {
        SmallVector<Attribute> devs;
        for (uint32_t d : task.devices)
          devs.push_back(devices[d]);
        // All replicas' last backwards have the same duration: one lag.
        CollectiveOp::create(
            b, loc, names[t], b.getArrayAttr(devs), b.getI64IntegerAttr(1),
            ArrayAttr(), refs(task.deps, true),
            b.getF64FloatAttr(task.deps.front().lag), arKind,
            b.getDictionaryAttr({b.getNamedAttr(
                "stage", b.getI64IntegerAttr(ti.vstage))}),
            FloatAttr(), p.getAllreduceAttr(), ArrayAttr(), ArrayAttr(),
            ArrayAttr(), ArrayAttr());
        continue;
      }
      uint32_t rank = ti.vstage % spec.stages;
      SmallVector<NamedAttribute> theta{
          b.getNamedAttr("stage", b.getI64IntegerAttr(ti.vstage)),
          b.getNamedAttr("microbatch", b.getI64IntegerAttr(ti.microbatch))};
      if (spec.chunks > 1)
        theta.push_back(b.getNamedAttr(
            "chunk", b.getI64IntegerAttr(ti.vstage / spec.stages)));
      if (dp)
        theta.push_back(
            b.getNamedAttr("replica", b.getI64IntegerAttr(ti.replica)));
      SignatureAttr sig;
      Attribute options;
      StringAttr kindAttr;
      switch (ti.kind) {
      case calculus::PipelineTaskInfo::F:
        sig = fwd[ti.vstage];
        options = fwdOpts[ti.vstage];
        kindAttr = fKind;
        break;
      case calculus::PipelineTaskInfo::B:
        sig = bwd[ti.vstage];
        options = bwdOpts[ti.vstage];
        kindAttr = bKind;
        break;
      default:
        sig = wgt[ti.vstage];
        kindAttr = wKind;
        break;
      }
      TaskOp::create(b, loc, names[t], devices[ti.replica * spec.stages + rank],
                     IntegerAttr(), refs(task.deps, false), ArrayAttr(),
                     FloatAttr(), kindAttr, b.getDictionaryAttr(theta),
                     FloatAttr(), FloatAttr(), sig, StringAttr(),
                     cast_or_null<ArrayAttr>(options));
    }
    p.erase();
    return success();
  }
};
} // namespace
