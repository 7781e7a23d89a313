//===- SchedExpand.cpp - --sched-expand -----------------------------------===//
//
// Thin pass: the instruction orders and dependencies are
// calculus/Pipeline.cpp; this file reads the generator's attributes and
// writes the tasks as IR.
//
//===----------------------------------------------------------------------===//

#include "calculus/Pipeline.h"
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

/// The signature a task runs with: its own, or its operating set's fastest
/// option (the maximum-frequency default, as Perseus starts from).
SignatureAttr effectiveSig(Attribute sig, Attribute options) {
  if (auto s = dyn_cast_or_null<SignatureAttr>(sig))
    return s;
  SignatureAttr best;
  for (Attribute o : cast<ArrayAttr>(options)) {
    SignatureAttr s = cast<OptionAttr>(o).getSig();
    if (!best || s.time() < best.time())
      best = s;
  }
  return best;
}

struct SchedExpandPass
    : public energy::impl::SchedExpandBase<SchedExpandPass> {
  void runOnOperation() override {
    SmallVector<PipelineOp> pipelines;
    getOperation()->walk([&](PipelineOp p) { pipelines.push_back(p); });
    for (PipelineOp p : pipelines)
      if (failed(expand(p)))
        return signalPassFailure();
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
