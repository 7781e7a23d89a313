//===- PipelineGen.cpp - A sched.pipeline read into the calculus ----------===//

#include "passes/PipelineGen.h"

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

/// A stage's cost; `s` its device's static power (what a sigma_E without
/// sigma_d leaves to var_d, toSignature).
calculus::StageCost costOf(SignatureAttr sig, double s) {
  calculus::Signature c = toSignature(sig, s);
  return {c.T, c.d, c.varT, c.varD};
}

/// The signature a task runs with: its own, or its operating set's default
/// option -- the highest SM clock (GPUs run at their maximum clock unless
/// told otherwise, and Perseus measures savings against it); without clocks,
/// the fastest option.
SignatureAttr effectiveSig(Attribute sig, Attribute options) {
  if (auto s = dyn_cast_or_null<SignatureAttr>(sig))
    return s;
  if (!options)
    return {};
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

} // namespace

FailureOr<PipelineGen> PipelineGen::build(PipelineOp p) {
  PipelineGen g;
  calculus::PipelineSpec &spec = g.spec;
  calculus::parsePipelineKind(p.getSchedule().str(), spec.kind); // verified
  spec.stages = p.getStages();
  spec.microbatches = p.getMicrobatches();
  spec.chunks = p.getChunks();
  spec.dataParallel = p.getDataParallel();
  spec.tensorParallel = p.getTensorParallel();
  spec.staticPowerPerGpu = p.getStaticPower().convertToDouble();
  spec.allreduceLag = p.getAllreduceLag().convertToDouble();
  spec.p2pLatency = p.getP2pLatency().convertToDouble();
  double p2pSigma = p.getP2pLatencySigma().convertToDouble();
  spec.p2pLatencyVar = p2pSigma * p2pSigma;
  spec.sync = p.getSync().convertToDouble();
  double syncSigma = p.getSyncSigma().convertToDouble();
  spec.syncVarT = syncSigma * syncSigma;
  uint32_t V = spec.stages * spec.chunks;
  for (uint32_t vs = 0; vs < V; ++vs) {
    g.forwardDb.push_back(
        cast_or_null<StringAttr>(perStage(p.getForwardDbAttr(), vs, false)));
    g.backwardDb.push_back(
        cast_or_null<StringAttr>(perStage(p.getBackwardDbAttr(), vs, false)));
    g.forwardOptions.push_back(perStage(p.getForwardOptionsAttr(), vs, true));
    g.backwardOptions.push_back(perStage(p.getBackwardOptionsAttr(), vs, true));
    g.forward.push_back(effectiveSig(perStage(p.getForwardAttr(), vs, false),
                                     g.forwardOptions[vs]));
    g.backward.push_back(effectiveSig(perStage(p.getBackwardAttr(), vs, false),
                                      g.backwardOptions[vs]));
    for (auto [what, sig, key] :
         {std::tuple{"forward", g.forward[vs], g.forwardDb[vs]},
          std::tuple{"backward", g.backward[vs], g.backwardDb[vs]}})
      if (!sig)
        return p.emitOpError("virtual stage ")
               << vs << "'s " << what << " has only the signature-DB key '"
               << key.getValue()
               << "'; fill it first (--energy-fill-signatures=db=PATH)";
    spec.forward.push_back(costOf(g.forward[vs], spec.staticPowerPerGpu));
    spec.backward.push_back(costOf(g.backward[vs], spec.staticPowerPerGpu));
    if (spec.kind == calculus::PipelineKind::ZBH1) {
      g.weight.push_back(
          cast<SignatureAttr>(perStage(p.getWeightAttr(), vs, false)));
      spec.weight.push_back(costOf(g.weight[vs], spec.staticPowerPerGpu));
    }
  }
  if (auto ar = p.getAllreduceAttr())
    spec.allreduce = costOf(ar, spec.staticPowerPerGpu);
  std::string err;
  if (!calculus::buildPipeline(spec, g.schedule, g.info, err))
    return p.emitOpError(err);
  g.deviceKind = p.getDeviceKind().str();
  if (spec.tensorParallel > 1)
    g.deviceKind = std::to_string(spec.tensorParallel) + "x" + g.deviceKind;
  return g;
}

std::string PipelineGen::deviceName(uint32_t device) const {
  std::string name = "stage" + std::to_string(device % spec.stages);
  if (dataParallel())
    name += "_r" + std::to_string(device / spec.stages);
  return name;
}

std::string PipelineGen::taskName(size_t task) const {
  const calculus::PipelineTaskInfo &ti = info[task];
  const char *prefix = "";
  switch (ti.kind) {
  case calculus::PipelineTaskInfo::F:
    prefix = "F";
    break;
  case calculus::PipelineTaskInfo::B:
    prefix = "B";
    break;
  case calculus::PipelineTaskInfo::W:
    prefix = "W";
    break;
  case calculus::PipelineTaskInfo::AllReduce:
    return "AR" + std::to_string(ti.vstage);
  case calculus::PipelineTaskInfo::Sync:
    return "sync";
  }
  std::string name =
      prefix + std::to_string(ti.vstage) + "_" + std::to_string(ti.microbatch);
  if (dataParallel())
    name += "_r" + std::to_string(ti.replica);
  return name;
}
