// With a clock switch's cost declared, every frontier point may run past the
// limit once its switches are counted while the baseline, which switches
// nowhere, meets it: the baseline is a candidate, chosen with a warning (it
// was an error: "no frontier point meets the deadline with its clock
// switches"). By hand, static 60 W, a switch 0.5 ms: @a runs fastest and
// cheapest at 1005 MHz (0.9 ms, 1.5 J), @b at 1410 MHz (1 ms, 2 J).
// Frontier (no switches): a1005+b1410 1.9 ms, a1005+b1005 2.9 ms. The
// limit, 10 % over the fastest 1.9 ms: 2.09 ms. a1005+b1410 switches twice
// a period (1005 -> 1410 and back): 2.9 ms; a1005+b1005 2.9 ms; the
// all-fastest is the first. The baseline, both at 1410 MHz: 2 ms, no
// switch, 60 W x 2 ms + 4 J = 4.12 J.
// RUN: energy-opt %s --energy-plan="max-slowdown=10 summary=true" -o %t.mlir 2>&1 | FileCheck %s
// CHECK: warning: energy-plan: no frontier point meets the limit 2.09 ms with its clock switches; the plan keeps every task at its current option (the baseline, 2 ms and 4.12 J with its switches): allow more slowdown to save energy
// CHECK: plan      2 ms  4.12 J  (0.00% less energy, limit 2.09 ms)
// RUN: energy-opt %t.mlir --sched-to-energy --energy-evaluate="summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL: energy   4.12 J

sched.schedule @s {
  sched.device @g kind "A100-SXM4" static 60 W {energy.switch = #energy.sig<T = 0.5 ms, d = 0 J>}
  sched.task @a on @g sig <T = 1 ms, d = 2 J> options [#energy.option<sm_mhz = 1410, T = 1 ms, d = 2 J>, #energy.option<sm_mhz = 1005, T = 0.9 ms, d = 1.5 J>]
  sched.task @b on @g after [@a] sig <T = 1 ms, d = 2 J> options [#energy.option<sm_mhz = 1410, T = 1 ms, d = 2 J>, #energy.option<sm_mhz = 1005, T = 2 ms, d = 1 J>]
}
// deadline=0 is no limit a schedule meets (it read as no deadline at all).
// RUN: not energy-opt %s --energy-plan="deadline=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: energy-plan: deadline=0 is no makespan a schedule can meet; give a positive deadline (seconds), or max-slowdown=PCT (0: the fastest makespan)
// Where a frontier point meets the limit with its switches but they cost
// more than it saves (a switch of 1 J here: 1.5 J + 2 J + 2 switches x 1 J
// against the baseline's 4 J), the baseline is kept and said so, without
// the advice to allow more slowdown.
// RUN: sed 's/T = 0.5 ms, d = 0 J/T = 0.01 ms, d = 1 J/' %s | energy-opt --energy-plan="max-slowdown=10" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COSTLY
// COSTLY: warning: energy-plan: the frontier points within the limit cost more with their clock switches than the baseline; the plan keeps every task at its current option (the baseline, 2 ms and 4.12 J with its switches){{$}}
