//===- Passes.h - energy passes ---------------------------------*- C++ -*-===//

#ifndef PASSES_PASSES_H
#define PASSES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"

namespace energy {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace energy

#endif // PASSES_PASSES_H
