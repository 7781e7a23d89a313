// A plan that runs a task at an option without an operating point cannot
// be applied (run-plan and plan-clocks would leave the clock as it is and
// the task would run at the fast option): --export-plan refuses it, at the
// task. A task with one option (or none) runs as it is: exported, null.
// RUN: energy-opt %s --energy-plan="max-slowdown=200" -o %t.mlir
// RUN: not energy-translate --export-plan %t.mlir -o %t.json 2>&1 | FileCheck %s
// CHECK: error: --export-plan: the plan runs @a at an option without an operating point (no sm_mhz or power_cap): a plan file cannot set it; give each of the task's options its operating point
// RUN: energy-opt %s --energy-plan="deadline=1.5" | energy-translate --export-plan | FileCheck %s --check-prefix=FAST
// FAST: "sm_mhz": 1500

sched.schedule @z {
  sched.device @g0 kind "X" static 0 W
  sched.task @a on @g0 sig <T = 1 s, d = 1 J> options [#energy.option<sm_mhz = 1500, T = 1 s, d = 1 J>, #energy.option<T = 2 s, d = 0.5 J>]
}
