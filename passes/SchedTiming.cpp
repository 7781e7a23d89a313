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
    WalkResult r = getOperation()->walk([&](ScheduleOp sched) {
      FailureOr<SchedGraph> g =
          SchedGraph::build(sched, SchedGraph::Need::Durations);
      if (failed(g))
        return WalkResult::interrupt();
      std::vector<double> start;
      if (failed(g->startTimes(sched, start)))
        return WalkResult::interrupt();
      g->writeStarts(start, /*onlyRecorded=*/false);
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
