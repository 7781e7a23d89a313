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

#include <set>
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

/// The power caps the tasks' options were measured at (a DB characterized
/// with --power-limits), ascending.
std::vector<double> optionCaps(const Choices &c);

/// The devices a power cap is for: those running a task with options
/// measured at caps (a host device's tasks have none).
std::set<llvm::StringRef> cappedDevices(const Choices &c);

/// The job under power cap `cap` with no clock locked, as the driver runs
/// it: each task at its option of that cap with the highest SM clock (of
/// equal clocks the fastest; the fastest where no clock is named), a task
/// whose options name no cap at its current one. Empty, with `lacking`
/// the first task that has options at other caps but none at this one,
/// where the cap is no configuration of the job.
std::vector<uint32_t> choiceAtCap(const Choices &c, double cap,
                                  size_t &lacking);

/// Each task runs at its option in `choice` from now on: its signature (and
/// `for` where it has one) is that option's, so that the IR says what the
/// job runs (--energy-power-cap's chosen row). A task with a recorded start
/// keeps its signature (a longer one could overlap the next on its stream;
/// --energy-plan re-times them), and so does a planned one (its
/// energy.dvfs names its option; planned again, it moves), unless
/// `evenPlanned` (a plan follows, which re-times the schedule and writes
/// every clock).
void runAtChoice(const Choices &c, const std::vector<uint32_t> &choice,
                 bool evenPlanned = false);

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
