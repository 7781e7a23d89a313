//===- FrontierSupport.h - What --energy-frontier and --energy-plan share -===//
//
// Each task's operating set read from the IR, and the schedule's frontier
// computed by calculus/DagFrontier.h with its method written on the
// schedule (`energy.frontier_method`). Internal to the passes library.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_FRONTIERSUPPORT_H
#define PASSES_FRONTIERSUPPORT_H

#include "calculus/DagFrontier.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/SchedGraph.h"

#include <vector>

namespace energy {

/// Every task's operating set, read from the IR.
struct Choices {
  sched::SchedGraph graph;
  std::vector<std::vector<calculus::Option>> options;
  std::vector<std::vector<OpPointAttr>> opPoints; ///< null: no op point
  std::vector<std::vector<SignatureAttr>> sigs;
  std::vector<uint32_t> current; ///< the option the task runs at now
  /// Tasks whose own signature draws more than their device's power cap
  /// (--energy-power-cap): they run at their first option within it, which
  /// `current` names.
  std::vector<uint32_t> movedByCap;
  /// Options the power caps left out, over all tasks.
  size_t droppedByCap = 0;

  /// Reads the operating sets of `sched`'s tasks (located errors);
  /// `deviceCaps`: only the options within a device's power cap
  /// (--energy-power-cap's), else every option.
  static mlir::FailureOr<Choices> build(sched::ScheduleOp sched,
                                        bool deviceCaps = true);
};

/// The schedule's frontier; `method` says how it was obtained (written on
/// the schedule as `energy.frontier_method`, with a warning where the crash
/// sweep was truncated).
mlir::FailureOr<std::vector<calculus::DagPoint>>
computeFrontier(sched::ScheduleOp sched, const Choices &c, double step,
                double quantum, uint64_t crashBudget, uint64_t classSweepAbove,
                uint64_t convexAbove, bool keepChoices,
                calculus::DagFrontierResult &method, double fillDeadline = 0,
                double fillSlowdown = -1, uint64_t annealBudget = 0);

} // namespace energy

#endif // PASSES_FRONTIERSUPPORT_H
