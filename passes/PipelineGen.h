//===- PipelineGen.h - A sched.pipeline read into the calculus -*- C++ -*-===//
//
// Reads a `sched.pipeline` generator's attributes into a
// calculus::PipelineSpec, builds the schedule (calculus/Pipeline.cpp) and
// names its devices and tasks. Used by --sched-expand (which writes the tasks
// as IR) and by --sched-to-energy (which lowers a schedule made of one
// pipeline straight from the calculus, without a million sched.task ops).
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_PIPELINEGEN_H
#define PASSES_PIPELINEGEN_H

#include "calculus/Pipeline.h"
#include "dialect/Sched/Sched.h"

#include <string>
#include <vector>

namespace energy {
namespace sched {

struct PipelineGen {
  calculus::PipelineSpec spec;
  calculus::Schedule schedule;
  std::vector<calculus::PipelineTaskInfo> info;
  /// Per virtual stage: the signature each task runs with and its operating
  /// set (null when none).
  llvm::SmallVector<SignatureAttr> forward, backward, weight;
  llvm::SmallVector<mlir::Attribute> forwardOptions, backwardOptions;
  /// Per virtual stage: the signature-DB key (null when none).
  llvm::SmallVector<mlir::StringAttr> forwardDb, backwardDb;
  std::string deviceKind; ///< "A100", or "2xA100" for tensor parallelism

  /// Reads and builds; a located error on `p` when the spec is invalid.
  static mlir::FailureOr<PipelineGen> build(PipelineOp p);

  bool dataParallel() const { return spec.dataParallel > 1; }
  /// Device index r * stages + s: "stage<s>" (+ "_r<r>" with data parallelism).
  std::string deviceName(uint32_t device) const;
  /// "F<vs>_<m>", "B..", "W.." (+ "_r<r>"), "AR<rank>", or "sync".
  std::string taskName(size_t task) const;
};

} // namespace sched
} // namespace energy

#endif // PASSES_PIPELINEGEN_H
