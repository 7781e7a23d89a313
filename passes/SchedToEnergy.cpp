//===- SchedToEnergy.cpp - --sched-to-energy ------------------------------===//
//
// Thin pass: timing and the lowering itself are calculus/Schedule.cpp; this
// file materializes the lowered tree as energy IR.
//
//===----------------------------------------------------------------------===//

#include "calculus/Schedule.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/Passes.h"
#include "passes/PipelineGen.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace energy {
#define GEN_PASS_DEF_SCHEDTOENERGY
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

struct Materializer {
  OpBuilder &b;
  const calculus::Schedule &schedule;
  const calculus::LoweredTree &tree;
  SmallVector<FlatSymbolRefAttr> deviceRefs;
  Location loc;
  /// Where the tasks come from: their ops, or a pipeline lowered without
  /// expansion (its tasks located at the generator).
  ArrayRef<Operation *> taskOps;
  const PipelineGen *gen = nullptr;
  std::optional<Location> genLoc;
  /// Names the tree's elements hold so far, and the tasks' own (filled at
  /// the first collective part): a part is named <collective>.<device>
  /// unless a task or another part holds that name (a task @c.g beside a
  /// collective @c on @g), then <collective>.<device>_<k>.
  llvm::StringSet<> names = {};
  bool namesFilled = false;

  StringAttr partName(StringRef collective, StringRef device) {
    if (!namesFilled) {
      namesFilled = true;
      for (size_t t = 0; t < schedule.tasks.size(); ++t)
        names.insert(gen ? StringRef(gen->taskName(t))
                         : SymbolTable::getSymbolName(taskOps[t]).getValue());
    }
    std::string base = (collective + "." + device).str(), name = base;
    for (int k = 1; names.contains(name); ++k)
      name = base + "_" + std::to_string(k);
    names.insert(name);
    return b.getStringAttr(name);
  }

  DictionaryAttr scaleGrad(DictionaryAttr grad, double scale) {
    SmallVector<NamedAttribute> out;
    for (NamedAttribute set : grad) {
      auto g = dyn_cast<DenseF64ArrayAttr>(set.getValue());
      if (!g)
        continue; // the evaluator names malformed entries
      SmallVector<double> scaled(g.asArrayRef());
      for (double &x : scaled)
        x *= scale;
      out.push_back(
          b.getNamedAttr(set.getName(), b.getDenseF64ArrayAttr(scaled)));
    }
    return b.getDictionaryAttr(out);
  }

  template <typename OpTy> OpTy composite(StringAttr name) {
    auto op = OpTy::create(b, loc, name, std::nullopt);
    op.getBody().emplaceBlock();
    return op;
  }

  void emit(uint32_t id) {
    const calculus::LoweredNode &n = tree.nodes[id];
    switch (n.kind) {
    case calculus::LoweredNode::Element: {
      Operation *taskOp = gen ? nullptr : taskOps[n.task];
      calculus::Signature share =
          calculus::taskShare(schedule, n.task, n.device);
      StringAttr name;
      bool collective;
      if (taskOp) {
        name = SymbolTable::getSymbolName(taskOp);
        collective = isa<CollectiveOp>(taskOp);
      } else {
        name = b.getStringAttr(gen->taskName(n.task));
        collective =
            gen->info[n.task].kind == calculus::PipelineTaskInfo::AllReduce ||
            gen->info[n.task].kind == calculus::PipelineTaskInfo::Sync;
      }
      if (collective)
        name = partName(name.getValue(), deviceRefs[n.device].getValue());
      SigData sig{share.T,
                  share.d,
                  std::sqrt(share.varT),
                  std::sqrt(share.varD),
                  std::nullopt,
                  std::nullopt};
      auto el = ElementOp::create(b, taskOp ? taskOp->getLoc() : *genLoc, name,
                                  deviceRefs[n.device], sig, OpPointAttr());
      // Shared model parameters follow the share of d each element takes.
      if (!taskOp)
        return;
      if (auto grad = taskOp->getAttrOfType<DictionaryAttr>(
              EnergyDialect::GradAttrHelper::getNameStr())) {
        double whole = schedule.tasks[n.task].d;
        double scale = whole > 0 ? share.d / whole : 1.0;
        el->setAttr(EnergyDialect::GradAttrHelper::getNameStr(),
                    scale == 1.0 ? grad : scaleGrad(grad, scale));
      }
      // A task's context declarations (docs/CONTEXTS.md) go with it, so
      // that cache, contention and thermal contexts work from schedules: a
      // task's element keeps its name, so `energy.reuses = @producer` still
      // names the producer's element. A collective's shares are no single
      // element's: they keep none.
      if (!collective)
        for (StringRef attr :
             {EnergyDialect::ReusesAttrHelper::getNameStr(),
              EnergyDialect::TrafficAttrHelper::getNameStr(),
              EnergyDialect::WarmAttrHelper::getNameStr(),
              EnergyDialect::DemandAttrHelper::getNameStr(),
              EnergyDialect::InsensitiveAttrHelper::getNameStr(),
              EnergyDialect::ThermalSigsAttrHelper::getNameStr()})
          if (Attribute a = taskOp->getAttr(attr))
            el->setAttr(attr, a);
      return;
    }
    case calculus::LoweredNode::Idle:
      IdleOp::create(b, loc, deviceRefs[n.device],
                     b.getF64FloatAttr(n.duration), FloatAttr());
      return;
    case calculus::LoweredNode::Seq:
      return nest(composite<SeqOp>(StringAttr()), n);
    case calculus::LoweredNode::Par:
      return nest(composite<ParOp>(StringAttr()), n);
    case calculus::LoweredNode::Multi:
      llvm_unreachable("multi is only the root");
    }
  }

  void nest(Operation *op, const calculus::LoweredNode &n) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&op->getRegion(0).front());
    for (uint32_t i = 0; i < n.numChildren; ++i)
      emit(tree.children[n.firstChild + i]);
  }
};

struct SchedToEnergyPass
    : public energy::impl::SchedToEnergyBase<SchedToEnergyPass> {
  using SchedToEnergyBase::SchedToEnergyBase;

  void runOnOperation() override {
    energy::warnNestedSchedules(getOperation(), "sched-to-energy");
    ModuleOp module = getOperation();
    if (makespanSamples < -1 || makespanSamples == 1 ||
        makespanSamples > 1000000) {
      emitError(energy::moduleErrorLoc(module))
          << "sched-to-energy: makespan-samples=" << int64_t(makespanSamples)
          << " is not a sample count: give 2 to 1000000, 0 for none, or -1 "
             "for the default";
      return signalPassFailure();
    }
    SmallVector<ScheduleOp> schedules(module.getOps<ScheduleOp>());
    SymbolTable symbols(module);
    for (ScheduleOp sched : schedules)
      if (failed(lower(sched, symbols)))
        return signalPassFailure();
  }

  /// A schedule whose whole body is one pipeline generator is lowered
  /// straight from the calculus: the same tree, names and locations as
  /// --sched-expand followed by this pass, without materializing its tasks.
  static PipelineOp onlyPipeline(ScheduleOp sched) {
    Block &body = sched.getBody().front();
    if (!llvm::hasSingleElement(body))
      return {};
    return dyn_cast<PipelineOp>(body.front());
  }

  LogicalResult lower(ScheduleOp sched, SymbolTable &symbols) {
    if (sched.hasNoWork())
      return sched.emitOpError("has no tasks: nothing to lower to an energy "
                               "tree");
    struct DeviceDecl {
      Location loc;
      StringAttr name, kind;
      FloatAttr staticPower;
      OpPointAttr opPoint;
      Operation *op = nullptr; ///< the sched.device (none for a generator)
    };
    SmallVector<DeviceDecl> devices;
    std::optional<SchedGraph> graph;
    std::optional<PipelineGen> gen;
    const calculus::Schedule *schedule;
    OpBuilder b(sched);
    std::string name = sched.getSymName().str();
    // The energy tree takes the schedule's name (measurements and reports
    // look it up by that name), so a schedule kept beside it is renamed.
    if (keepSchedule) {
      StringAttr kept = b.getStringAttr(sched.getSymName() + ".schedule");
      if (Operation *clash = symbols.lookup(kept))
        return sched.emitOpError("cannot be kept as @")
                   .append(kept.getValue(),
                           ": the module already has a symbol of that name")
                   .attachNote(clash->getLoc())
               << "defined here";
      if (failed(symbols.rename(sched, kept)))
        return sched.emitOpError("cannot be renamed to @")
               << kept.getValue() << " to be kept";
    }
    std::vector<double> start;
    PipelineOp pipe = onlyPipeline(sched);
    if (pipe) {
      FailureOr<PipelineGen> built = PipelineGen::build(pipe);
      if (failed(built))
        return failure();
      gen = std::move(*built);
      schedule = &gen->schedule;
      StringAttr kind = b.getStringAttr(gen->deviceKind);
      for (uint32_t d = 0; d < schedule->devices.size(); ++d)
        devices.push_back({pipe.getLoc(), b.getStringAttr(gen->deviceName(d)),
                           kind,
                           b.getF64FloatAttr(schedule->devices[d].staticPower),
                           OpPointAttr(), nullptr});
      std::vector<uint32_t> cycle;
      if (!calculus::computeStartTimes(*schedule, start, cycle))
        return pipe.emitOpError("cannot be timed: its dependencies form a "
                                "cycle");
    } else {
      FailureOr<SchedGraph> g =
          SchedGraph::build(sched, SchedGraph::Need::Signatures);
      if (failed(g))
        return failure();
      graph = std::move(*g);
      schedule = &graph->schedule;
      // Timed from the schedule's start (its makespan counts from there):
      // a microsecond makespan beside releases of days is then no
      // difference of large times.
      calculus::countFromStart(graph->schedule);
      if (failed(graph->startTimes(sched, start)))
        return failure();
      for (sched::DeviceOp dev : graph->deviceOps)
        devices.push_back({dev.getLoc(), dev.getSymNameAttr(),
                           dev.getKindAttr(), dev.getStaticPowerAttr(),
                           dev.getOpPointAttr(), dev.getOperation()});
    }
    calculus::LoweredTree tree = calculus::lowerSchedule(*schedule, start);

    b.setInsertionPointAfter(sched);
    Materializer m{b, *schedule, tree, {}, sched.getLoc(), {}, nullptr, {}};
    if (graph)
      m.taskOps = graph->taskOps;
    if (gen) {
      m.gen = &*gen;
      m.genLoc = pipe.getLoc();
    }
    for (const DeviceDecl &dev : devices) {
      if (Operation *clash = symbols.lookup(dev.name))
        return emitError(dev.loc, "device @")
                   .append(dev.name.getValue(),
                           " cannot be lowered: the module already has a "
                           "symbol of that name")
                   .attachNote(clash->getLoc())
               << "defined here";
      auto edev = energy::DeviceOp::create(b, dev.loc, dev.name, dev.kind,
                                           dev.staticPower, dev.opPoint);
      // The device's context models (docs/CONTEXTS.md) go with it, and a
      // serving workload's plan (--energy-serve-plan, kept by the expansion).
      if (dev.op)
        for (StringRef attr :
             {EnergyDialect::ThermalAttrHelper::getNameStr(),
              EnergyDialect::CacheAttrHelper::getNameStr(),
              EnergyDialect::ServePlanAttrHelper::getNameStr()})
          if (Attribute a = dev.op->getAttr(attr))
            edev->setAttr(attr, a);
      symbols.insert(edev);
      m.deviceRefs.push_back(FlatSymbolRefAttr::get(dev.name));
    }
    // Root: multi over the devices, each a seq named after its device.
    auto root = m.composite<MultiOp>(b.getStringAttr(name));
    if (Attribute tokens =
            sched->getAttr(EnergyDialect::OutputTokensAttrHelper::getNameStr()))
      root->setAttr(EnergyDialect::OutputTokensAttrHelper::getNameStr(),
                    tokens);
    // An assumed power model (--import-kineto's --dynamic-power): the
    // evaluation says its figures rest on it.
    if (Attribute model =
            sched->getAttr(EnergyDialect::ModelAttrHelper::getNameStr()))
      root->setAttr(EnergyDialect::ModelAttrHelper::getNameStr(), model);
    // Where durations or delays vary, the expected makespan over the
    // dependencies (the lowering's lanes no longer know them).
    calculus::MakespanDistribution dist;
    uint32_t samples = makespanSamples < 0
                           ? calculus::makespanSamples(schedule->tasks.size())
                           : uint32_t(makespanSamples);
    if (samples > 0 &&
        calculus::sampleMakespan(*schedule, samples, /*seed=*/1, dist) &&
        dist.samples > 0)
      root->setAttr(
          EnergyDialect::MakespanAttrHelper::getNameStr(),
          b.getDictionaryAttr(
              {b.getNamedAttr("T_s", b.getF64FloatAttr(dist.makespan)),
               b.getNamedAttr("expected_T_s", b.getF64FloatAttr(dist.mean)),
               b.getNamedAttr("sigma_T_s", b.getF64FloatAttr(dist.sigma)),
               b.getNamedAttr("std_error_s",
                              b.getF64FloatAttr(dist.stdError))}));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(&root.getBody().front());
      const calculus::LoweredNode &rootNode = tree.nodes[0];
      for (uint32_t i = 0; i < rootNode.numChildren; ++i) {
        uint32_t devNode = tree.children[rootNode.firstChild + i];
        auto seq = m.composite<SeqOp>(m.deviceRefs[i].getAttr());
        m.nest(seq, tree.nodes[devNode]);
      }
    }
    if (!keepSchedule)
      sched.erase();
    return success();
  }
};
} // namespace
