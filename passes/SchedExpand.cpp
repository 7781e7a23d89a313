//===- SchedExpand.cpp - --sched-expand -----------------------------------===//
//
// Thin pass: the instruction orders and dependencies are
// calculus/Pipeline.cpp, read by passes/PipelineGen.cpp; this file writes
// the tasks as IR.
//
//===----------------------------------------------------------------------===//

#include "calculus/Serve.h"
#include "dialect/Sched/Sched.h"
#include "passes/Passes.h"
#include "passes/PipelineGen.h"

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

struct SchedExpandPass : public energy::impl::SchedExpandBase<SchedExpandPass> {
  void runOnOperation() override {
    SmallVector<PipelineOp> pipelines;
    SmallVector<ServeOp> serves;
    getOperation()->walk([&](PipelineOp p) { pipelines.push_back(p); });
    getOperation()->walk([&](ServeOp p) { serves.push_back(p); });
    // A pipeline names its devices stage0, stage1, ...: two in one
    // schedule would declare the same devices twice.
    SmallVector<ScheduleOp> schedules;
    getOperation()->walk([&](ScheduleOp s) { schedules.push_back(s); });
    for (ScheduleOp sched : schedules) {
      Operation *first = nullptr;
      for (Operation &op : sched.getBody().front()) {
        if (!isa<PipelineOp>(op))
          continue;
        if (!first) {
          first = &op;
          continue;
        }
        op.emitOpError("is the second pipeline in @")
                .append(sched.getSymName(),
                        ": a schedule holds one (each names its devices "
                        "stage0, stage1, ...); give it a sched.schedule of "
                        "its own")
                .attachNote(first->getLoc())
            << "the first is here";
        return signalPassFailure();
      }
    }
    for (PipelineOp p : pipelines)
      if (failed(expand(p)))
        return signalPassFailure();
    for (ServeOp s : serves)
      if (failed(expand(s)))
        return signalPassFailure();
  }

  LogicalResult expand(ServeOp op) {
    calculus::ServeModel model;
    model.weightBytes = op.getWeightBytes().convertToDouble();
    model.kvBytesPerToken = op.getKvBytesPerToken().convertToDouble();
    // tp GPUs in lockstep (as sched.pipeline's tensor_parallel): each reads
    // its 1/tp of the weights and KV cache and computes its 1/tp of a
    // prefill; the per-GPU rates add up.
    double tp = double(op.getTp());
    model.hbmBandwidth = tp * op.getHbmBandwidth().convertToDouble();
    model.prefillTokensPerS = tp * op.getPrefillTokensPerS().convertToDouble();
    model.iterationOverhead = op.getIterationOverhead().convertToDouble();
    std::vector<calculus::Request> reqs;
    if (ArrayAttr list = op.getRequestsAttr()) {
      std::string why; // (verified: every request reads)
      for (Attribute r : list)
        reqs.push_back(*sched::readRequest(r, why));
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
    if (auto prior = parent->getAttrOfType<IntegerAttr>(
            EnergyDialect::OutputTokensAttrHelper::getNameStr()))
      outputs += uint64_t(prior.getInt());
    parent->setAttr(EnergyDialect::OutputTokensAttrHelper::getNameStr(),
                    b.getI64IntegerAttr(int64_t(outputs)));
    Location loc = op.getLoc();
    std::string prefix = op.getSymName().str();
    // One device of its tp x pp GPUs' static power (pp > 1: a run-level
    // task only), named as a pipeline's tensor-parallel group
    // ("4xH100-SXM5").
    uint64_t gpus = op.getTp() * op.getPp();
    std::string kind = op.getDeviceKind().str();
    if (gpus > 1)
      kind = std::to_string(gpus) + "x" + kind;
    auto dev = sched::DeviceOp::create(
        b, loc, b.getStringAttr(prefix + "_gpu"), b.getStringAttr(kind),
        b.getF64FloatAttr(double(gpus) * op.getStaticPower().convertToDouble()),
        OpPointAttr());
    // The batch cap --energy-serve-plan chose (now max_batch) and its
    // prediction go with the GPU it configures: the serve op is gone.
    if (Attribute plan =
            op->getAttr(EnergyDialect::ServePlanAttrHelper::getNameStr()))
      dev->setAttr(EnergyDialect::ServePlanAttrHelper::getNameStr(), plan);
    auto devRef = FlatSymbolRefAttr::get(dev.getSymNameAttr());
    std::optional<double> power;
    if (auto p = op.getDynamicPowerAttr())
      power = double(gpus) * p.getValueAsDouble();
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
          b.getNamedAttr("requests", b.getI64IntegerAttr(int64_t(reqs.size()))),
          b.getNamedAttr("tp", b.getI64IntegerAttr(op.getTp()))};
      SignatureAttr sig;
      if (power)
        sig = SignatureAttr::get(&getContext(), T, *power * T, 0, 0,
                                 std::nullopt, std::nullopt);
      TaskOp::create(b, loc, b.getStringAttr(prefix + "_run"), devRef,
                     IntegerAttr(), ArrayAttr(), FloatAttr(), FloatAttr(),
                     ArrayAttr(), FloatAttr(), b.getF64FloatAttr(start),
                     b.getStringAttr("inference"), b.getDictionaryAttr(theta),
                     std::nullopt,
                     sig ? std::nullopt : std::optional<double>(T), sig,
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
        theta = {
            b.getNamedAttr("batch", b.getI64IntegerAttr(st.batch)),
            b.getNamedAttr("history", b.getF64FloatAttr(st.historySum)),
            b.getNamedAttr("mean_history",
                           b.getF64FloatAttr(st.historySum / st.batch)),
            b.getNamedAttr("weight_bytes", op.getWeightBytesAttr()),
            b.getNamedAttr("kv_bytes_per_token", op.getKvBytesPerTokenAttr())};
      } else {
        SmallVector<int64_t> ids(st.requests.begin(), st.requests.end());
        theta = {b.getNamedAttr("requests", b.getI64ArrayAttr(ids)),
                 b.getNamedAttr("tokens", b.getI64IntegerAttr(st.tokens)),
                 b.getNamedAttr("token_squares",
                                b.getF64FloatAttr(st.tokenSquares))};
      }
      SignatureAttr sig;
      if (power)
        sig =
            SignatureAttr::get(&getContext(), st.duration, *power * st.duration,
                               0, 0, std::nullopt, std::nullopt);
      // A prefill may not start before its requests arrive; everything
      // else follows from the chain. List scheduling with these releases
      // reproduces the simulated timeline, and stays right when the
      // signatures are later filled by a model with other durations.
      FloatAttr release;
      if (!isDecode) {
        double arrival = 0;
        for (uint32_t r : st.requests)
          arrival = std::max(arrival, reqs[r].arrival);
        release = b.getF64FloatAttr(arrival);
      }
      TaskOp::create(b, loc, name, devRef, IntegerAttr(),
                     prev ? b.getArrayAttr({FlatSymbolRefAttr::get(prev)})
                          : ArrayAttr(),
                     FloatAttr(), FloatAttr(), ArrayAttr(), FloatAttr(),
                     release, b.getStringAttr(isDecode ? "decode" : "prefill"),
                     b.getDictionaryAttr(theta), std::nullopt,
                     sig ? std::nullopt : std::optional<double>(st.duration),
                     sig, StringAttr(), ArrayAttr());
      prev = name;
    }
    op.erase();
    return success();
  }

  LogicalResult expand(PipelineOp p) {
    FailureOr<PipelineGen> gen = PipelineGen::build(p);
    if (failed(gen))
      return failure();
    const calculus::PipelineSpec &spec = gen->spec;
    const std::vector<calculus::PipelineTaskInfo> &info = gen->info;
    const calculus::Schedule &built = gen->schedule;

    OpBuilder b(p);
    Location loc = p.getLoc();
    bool dp = gen->dataParallel();
    // Devices: one per (replica, rank), a lockstep group of tp GPUs.
    StringAttr kind = b.getStringAttr(gen->deviceKind);
    SmallVector<FlatSymbolRefAttr> devices;
    for (uint32_t d = 0; d < built.devices.size(); ++d) {
      auto dev = sched::DeviceOp::create(
          b, loc, b.getStringAttr(gen->deviceName(d)), kind,
          b.getF64FloatAttr(built.devices[d].staticPower), OpPointAttr());
      devices.push_back(FlatSymbolRefAttr::get(dev.getSymNameAttr()));
    }
    // Names of every task first: dependencies may point forward.
    // (and one symbol reference each, shared by its dependents).
    SmallVector<StringAttr> names;
    SmallVector<Attribute> symbols;
    names.reserve(info.size());
    symbols.reserve(info.size());
    for (size_t t = 0; t < info.size(); ++t) {
      names.push_back(b.getStringAttr(gen->taskName(t)));
      symbols.push_back(FlatSymbolRefAttr::get(names.back()));
    }
    SmallVector<Attribute, 4> out;
    auto refs = [&](const std::vector<calculus::Dependency> &deps,
                    bool startToStart) {
      out.clear();
      for (const calculus::Dependency &d : deps)
        if (d.startToStart == startToStart)
          out.push_back(symbols[d.pred]);
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
            ArrayAttr(), ArrayAttr(), refs(task.deps, true),
            b.getF64FloatAttr(task.deps.front().lag), arKind,
            b.getDictionaryAttr(
                {b.getNamedAttr("stage", b.getI64IntegerAttr(ti.vstage))}),
            FloatAttr(), p.getAllreduceAttr(), ArrayAttr(), ArrayAttr(),
            ArrayAttr(), ArrayAttr());
        continue;
      }
      if (ti.kind == calculus::PipelineTaskInfo::Sync) {
        // The iteration's closing synchronization: every device, after
        // every task nothing else follows; static power only.
        SmallVector<Attribute> devs(devices.begin(), devices.end());
        CollectiveOp::create(
            b, loc, names[t], b.getArrayAttr(devs), IntegerAttr(),
            refs(task.deps, false), ArrayAttr(), ArrayAttr(), FloatAttr(),
            b.getStringAttr("sync"), DictionaryAttr(), FloatAttr(),
            SignatureAttr::get(b.getContext(), task.duration, 0,
                               std::sqrt(task.varT), 0, std::nullopt,
                               std::nullopt),
            ArrayAttr(), ArrayAttr(), ArrayAttr(), ArrayAttr());
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
      StringAttr kindAttr, db;
      switch (ti.kind) {
      case calculus::PipelineTaskInfo::F:
        sig = gen->forward[ti.vstage];
        options = gen->forwardOptions[ti.vstage];
        db = gen->forwardDb[ti.vstage];
        kindAttr = fKind;
        break;
      case calculus::PipelineTaskInfo::B:
        sig = gen->backward[ti.vstage];
        options = gen->backwardOptions[ti.vstage];
        db = gen->backwardDb[ti.vstage];
        kindAttr = bKind;
        break;
      default:
        sig = gen->weight[ti.vstage];
        kindAttr = wKind;
        break;
      }
      // A cross-stage dependency's lag is the pipeline's p2p_latency (one
      // per task: a pass has one cross-stage predecessor at most).
      double delay = 0, delayVar = 0;
      for (const calculus::Dependency &d : task.deps)
        if (!d.startToStart) {
          delay = std::max(delay, d.lag);
          delayVar = std::max(delayVar, d.varLag);
        }
      TaskOp::create(b, loc, names[t], devices[ti.replica * spec.stages + rank],
                     IntegerAttr(), refs(task.deps, false),
                     delay > 0 ? b.getF64FloatAttr(delay) : FloatAttr(),
                     delay > 0 && delayVar > 0
                         ? b.getF64FloatAttr(std::sqrt(delayVar))
                         : FloatAttr(),
                     ArrayAttr(), FloatAttr(), FloatAttr(), kindAttr,
                     b.getDictionaryAttr(theta), std::nullopt, std::nullopt,
                     sig, db, cast_or_null<ArrayAttr>(options));
    }
    p.erase();
    return success();
  }
};
} // namespace
