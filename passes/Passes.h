//===- Passes.h - energy passes ---------------------------------*- C++ -*-===//

#ifndef PASSES_PASSES_H
#define PASSES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>

#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"

namespace energy {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Where a pass reports an error about its options or about the module as
/// a whole: the module's location, except for the parser's implicit module,
/// whose location is line 0 of its file -- there, the first op in it (what
/// the pass was asked to work on), else the file's first line. Diagnostics
/// then read `file:line:col: error: ...` (passes/Diagnostics.cpp).
mlir::Location moduleErrorLoc(mlir::ModuleOp module);

/// Warns at each sched.schedule inside a nested module: the passes that
/// work on a module's schedules work on its own (as MLIR's module passes
/// do); a nested module's are its own module's, reached by nesting the pass
/// (--pass-pipeline='builtin.module(builtin.module(<pass>))').
void warnNestedSchedules(mlir::ModuleOp module, llvm::StringRef pass);

/// Checks a pass's `confidence` option, a fraction in (0, 1); on a bad
/// value emits `<pass>: confidence must lie in (0, 1); got X` at the
/// module (with "95 % is 0.95" where X reads as a percentage) and returns
/// false.
bool checkConfidence(mlir::ModuleOp module, llvm::StringRef pass,
                     double confidence);

/// A number a dictionary attribute holds at `key` (a float or an integer:
/// a task's theta, a pass's record such as energy.serve_plan); none where
/// absent or of another kind.
std::optional<double> numberIn(mlir::DictionaryAttr dict, llvm::StringRef key);

} // namespace energy

#endif // PASSES_PASSES_H
