// Errors about a pass's options, or about the module as a whole, point at
// a line of the file: the first op of the parser's implicit module (which
// itself has no line: it used to print as file:0:0).
// RUN: not energy-opt %s --energy-plan="quantum=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN-NOT: :0:0
// PLAN: option-error-locations.mlir:[[# @LINE + 12]]:1: error: energy-plan: quantum and step must be non-negative (s)
// RUN: not energy-opt %s --energy-evaluate="confidence=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL-NOT: :0:0
// EVAL: option-error-locations.mlir:[[# @LINE + 9]]:1: error: energy-evaluate: confidence must lie in (0, 1)
// RUN: not energy-opt %s --energy-reduce="confidence=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REDUCE
// REDUCE-NOT: :0:0
// REDUCE: option-error-locations.mlir:[[# @LINE + 6]]:1: error: energy-reduce: confidence must lie in (0, 1)
// RUN: not energy-opt %s --energy-fill-signatures -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILL
// FILL-NOT: :0:0
// FILL: option-error-locations.mlir:[[# @LINE + 3]]:1: error: energy-fill-signatures: needs db=PATH

// The first op:
sched.schedule @s {
  sched.device @g kind "X" static 10 W
}
