// Errors about a pass's options, or about the module as a whole, point at
// a line of the file: the first op of the parser's implicit module (which
// itself has no line: it used to print as file:0:0).
// RUN: not energy-opt %s --energy-plan="quantum=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN-NOT: :0:0
// PLAN: option-error-locations.mlir:[[# @LINE + 15]]:1: error: energy-plan: quantum and step must be finite and non-negative (s)
// RUN: not energy-opt %s --energy-evaluate="confidence=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL-NOT: :0:0
// EVAL: option-error-locations.mlir:[[# @LINE + 12]]:1: error: energy-evaluate: confidence must lie in (0, 1)
// RUN: not energy-opt %s --energy-reduce="confidence=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REDUCE
// REDUCE-NOT: :0:0
// REDUCE: option-error-locations.mlir:[[# @LINE + 9]]:1: error: energy-reduce: confidence must lie in (0, 1)
// RUN: not energy-opt %s --sched-to-energy="makespan-samples=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SAMPLES
// SAMPLES-NOT: :0:0
// SAMPLES: option-error-locations.mlir:[[# @LINE + 6]]:1: error: sched-to-energy: makespan-samples=1 is not a sample count
// RUN: not energy-opt %s --energy-fill-signatures -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILL
// FILL-NOT: :0:0
// FILL: option-error-locations.mlir:[[# @LINE + 3]]:1: error: energy-fill-signatures: needs db=PATH

// The first op:
sched.schedule @s {
  sched.device @g kind "X" static 10 W
}

// Options MLIR itself cannot parse (a value of the wrong type, an unknown
// option or pass) are refused before the input is read, in the tool's name
// and never at an unknown location; exit code 1.
// RUN: not energy-opt %s --energy-plan="quantum=abc" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE-NOT: unknown
// PARSE: energy-opt: for the --quantum option: 'abc' value invalid for floating point argument!
// PARSE-NEXT: energy-opt: error: invalid pass pipeline or pass options (see above); --help lists each pass's options
// RUN: not energy-opt %s --energy-plan="bogus=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS-NOT: unknown
// BOGUS: energy-opt: error: <Pass-Options-Parser>: no such option bogus
// BOGUS-NEXT: energy-opt: error: invalid pass pipeline or pass options
// RUN: not energy-opt %s --pass-pipeline="builtin.module(energy-nosuch)" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPASS
// NOPASS-NOT: unknown
// NOPASS: energy-opt: error: MLIR Textual PassPipeline Parser:1:1: error: 'energy-nosuch' does not refer to a registered pass or pass pipeline
// RUN: energy-opt %s --energy-plan="quantum=abc" -o /dev/null 2>&1; test $? -eq 1
