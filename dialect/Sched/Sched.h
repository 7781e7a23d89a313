//===- Sched.h - The sched dialect ------------------------------*- C++ -*-===//

#ifndef DIALECT_SCHED_SCHED_H
#define DIALECT_SCHED_SCHED_H

#include "calculus/Serve.h"
#include "dialect/Energy/Energy.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "dialect/Sched/SchedDialect.h.inc"

namespace energy::sched {
/// sched.task's `start` / `duration` properties as attributes (generic
/// form, bytecode): an f64 FloatAttr, or `none` when absent; and back.
mlir::Attribute timePropertyAttr(mlir::MLIRContext *ctx,
                                 const std::optional<double> &v);
mlir::LogicalResult
timePropertyFromAttr(std::optional<double> &v, mlir::Attribute attr,
                     llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
/// One request of a serving workload, `[arrival_s, prompt_tokens,
/// output_tokens]` (sched.serve's `requests`, a schedule's
/// `energy.requests`), checked (docs/SCHED.md): nullopt with `why` --
/// worded to follow "request #i" -- for anything else.
std::optional<calculus::Request> readRequest(mlir::Attribute r,
                                             std::string &why);

} // namespace energy::sched

#define GET_OP_CLASSES
#include "dialect/Sched/SchedOps.h.inc"

#endif // DIALECT_SCHED_SCHED_H
