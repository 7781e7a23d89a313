//===- Sched.h - The sched dialect ------------------------------*- C++ -*-===//

#ifndef DIALECT_SCHED_SCHED_H
#define DIALECT_SCHED_SCHED_H

#include "dialect/Energy/Energy.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "dialect/Sched/SchedDialect.h.inc"

#define GET_OP_CLASSES
#include "dialect/Sched/SchedOps.h.inc"

#endif // DIALECT_SCHED_SCHED_H
