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

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

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
  const SchedGraph &g;
  const calculus::LoweredTree &tree;
  SmallVector<FlatSymbolRefAttr> deviceRefs;
  Location loc;

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

  template <typename OpTy>
  OpTy composite(StringAttr name) {
    auto op = OpTy::create(b, loc, name, SignatureAttr());
    op.getBody().emplaceBlock();
    return op;
  }

  void emit(uint32_t id) {
    const calculus::LoweredNode &n = tree.nodes[id];
    switch (n.kind) {
    case calculus::LoweredNode::Element: {
      Operation *taskOp = g.taskOps[n.task];
      calculus::Signature share = calculus::taskShare(g.schedule, n.task,
                                                      n.device);
      StringAttr name = SymbolTable::getSymbolName(taskOp);
      if (isa<CollectiveOp>(taskOp))
        name = b.getStringAttr(name.getValue() + "." +
                               deviceRefs[n.device].getValue());
      auto sig = SignatureAttr::get(b.getContext(), share.T, share.d,
                                    std::sqrt(share.varT),
                                    std::sqrt(share.varD), std::nullopt,
                                    std::nullopt);
      auto el = ElementOp::create(b, taskOp->getLoc(), name,
                                  deviceRefs[n.device], sig, OpPointAttr());
      // Shared model parameters follow the share of d each element takes.
      if (auto grad = taskOp->getAttrOfType<DictionaryAttr>("energy.grad")) {
        double whole = g.schedule.tasks[n.task].d;
        double scale = whole > 0 ? share.d / whole : 1.0;
        el->setAttr("energy.grad", scale == 1.0 ? grad : scaleGrad(grad, scale));
      }
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
    ModuleOp module = getOperation();
    SmallVector<ScheduleOp> schedules(module.getOps<ScheduleOp>());
    SymbolTable symbols(module);
    for (ScheduleOp sched : schedules)
      if (failed(lower(sched, symbols)))
        return signalPassFailure();
  }

  LogicalResult lower(ScheduleOp sched, SymbolTable &symbols) {
    FailureOr<SchedGraph> g =
        SchedGraph::build(sched, SchedGraph::Need::Signatures);
    if (failed(g))
      return failure();
    std::vector<double> start;
    if (failed(g->startTimes(sched, start)))
      return failure();
    calculus::LoweredTree tree = calculus::lowerSchedule(g->schedule, start);

    OpBuilder b(sched);
    b.setInsertionPointAfter(sched);
    Materializer m{b, *g, tree, {}, sched.getLoc()};
    for (sched::DeviceOp dev : g->deviceOps) {
      if (symbols.lookup(dev.getSymName()))
        return dev.emitOpError("cannot be lowered: the module already has a "
                               "symbol @")
               << dev.getSymName();
      auto edev = energy::DeviceOp::create(
          b, dev.getLoc(), dev.getSymNameAttr(), dev.getKindAttr(),
          dev.getStaticPowerAttr(), dev.getOpPointAttr());
      symbols.insert(edev);
      m.deviceRefs.push_back(FlatSymbolRefAttr::get(dev.getSymNameAttr()));
    }
    // Root: multi over the devices, each a seq named after its device.
    auto root = m.composite<MultiOp>(sched.getSymNameAttr());
    if (Attribute tokens = sched->getAttr("energy.output_tokens"))
      root->setAttr("energy.output_tokens", tokens);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(&root.getBody().front());
      const calculus::LoweredNode &rootNode = tree.nodes[0];
      for (uint32_t i = 0; i < rootNode.numChildren; ++i) {
        uint32_t devNode = tree.children[rootNode.firstChild + i];
        auto seq = m.composite<SeqOp>(
            m.deviceRefs[i].getAttr());
        m.nest(seq, tree.nodes[devNode]);
      }
    }
    if (!keepSchedule)
      sched.erase();
    return success();
  }
};
} // namespace
