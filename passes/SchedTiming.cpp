//===- SchedTiming.cpp - --sched-timing -----------------------------------===//

#include "calculus/Schedule.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace energy {
#define GEN_PASS_DEF_SCHEDTIMING
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {
struct SchedTimingPass : public energy::impl::SchedTimingBase<SchedTimingPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    WalkResult r = getOperation()->walk([&](ScheduleOp sched) {
      FailureOr<SchedGraph> g =
          SchedGraph::build(sched, SchedGraph::Need::Durations);
      if (failed(g))
        return WalkResult::interrupt();
      std::vector<double> start;
      if (failed(g->startTimes(sched, start)))
        return WalkResult::interrupt();
      for (uint32_t t = 0; t < g->taskOps.size();) {
        auto coll = dyn_cast<CollectiveOp>(g->taskOps[t]);
        if (coll && coll.getDurationsAttr()) {
          SmallVector<double> starts(
              start.begin() + t, start.begin() + t + coll.getDevices().size());
          coll.setStartsAttr(b.getF64ArrayAttr(starts));
          t += starts.size();
          continue;
        }
        if (auto task = dyn_cast<TaskOp>(g->taskOps[t]))
          task.setStart(start[t]);
        else
          cast<CollectiveOp>(g->taskOps[t])
              .setStartAttr(b.getF64FloatAttr(start[t]));
        ++t;
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
