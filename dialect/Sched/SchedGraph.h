//===- SchedGraph.h - A sched.schedule as a calculus::Schedule --*- C++ -*-===//
//
// One pass over a schedule's body resolves every symbol once (no per-op
// symbol-table scans: schedules have millions of tasks) and produces the
// MLIR-free calculus::Schedule that timing and lowering work on.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECT_SCHED_SCHEDGRAPH_H
#define DIALECT_SCHED_SCHEDGRAPH_H

#include "calculus/Schedule.h"
#include "dialect/Sched/Sched.h"

#include "llvm/ADT/SmallVector.h"

namespace energy {
namespace sched {

struct SchedGraph {
  calculus::Schedule schedule;
  llvm::SmallVector<mlir::Operation *> taskOps; ///< index -> task/collective
  llvm::SmallVector<DeviceOp> deviceOps;        ///< index -> device

  enum class Need {
    Structure,  ///< symbols, dependencies; signatures optional
    Durations,  ///< every task needs T (a signature or a measured `for`)
    Signatures, ///< every task needs T and d
  };
  /// Builds the graph; emits located diagnostics and fails on bad symbols
  /// and, with Need::Signatures, on tasks without signatures.
  static mlir::FailureOr<SchedGraph> build(ScheduleOp op, Need need);

  /// Names the tasks of a cycle for a diagnostic: "@a -> @b -> @a".
  std::string describeCycle(llvm::ArrayRef<uint32_t> cycle) const;

  /// List-scheduled start times (calculus::computeStartTimes; a recorded
  /// start is a release). A cycle of dependencies and stream order is an
  /// error on `op` naming its tasks.
  mlir::LogicalResult startTimes(ScheduleOp op,
                                 std::vector<double> &start) const;

  /// Writes `start` (startTimes') as the tasks' and collectives' recorded
  /// starts (`start`; a collective's parts `starts`): every one, or with
  /// `onlyRecorded` those that record one already. A pass that changes
  /// durations re-times recorded starts so: each is a release, so the new
  /// ones are never earlier, and the IR's starts stay consistent with its
  /// durations (the verifier refuses a stream's overlap).
  void writeStarts(llvm::ArrayRef<double> start, bool onlyRecorded) const;
  /// Whether a task or collective of `op` records a start.
  static bool recordsStarts(ScheduleOp op);

  /// The schedule as a plan runs it: every task needs its signature, and
  /// start times come from dependencies, stream order, releases and
  /// recorded starts -- exactly as the lowering times it.
  static mlir::FailureOr<SchedGraph> buildAsPlanned(ScheduleOp op,
                                                    std::vector<double> &start);
};

/// A schedule charges each device's static power over its whole makespan,
/// so a signature's own `s` has no meaning there: refused (at `op`, naming
/// `what`) unless it equals `expected` W, the static power charged there.
/// `fix` says what to change instead.
mlir::LogicalResult checkOwnStaticPower(mlir::Operation *op, SignatureAttr sig,
                                        double expected,
                                        const llvm::Twine &what,
                                        llvm::StringRef fix);

/// A device's declared clock-switch cost (`energy.switch =
/// #energy.sig<T = ..., d = ...>`; the dialect's verifier checks its kind):
/// null when it declares none.
SignatureAttr switchCostOf(DeviceOp dev);

} // namespace sched
} // namespace energy

#endif // DIALECT_SCHED_SCHEDGRAPH_H
