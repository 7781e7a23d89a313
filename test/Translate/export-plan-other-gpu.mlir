// Options measured on another GPU (an H100's DB filled into an A100's
// schedule, which --energy-fill-signatures only warns about): a plan that
// runs a task above the highest SM clock of its device's kind is refused by
// --export-plan at that task, not by the job that loads it. A clock the kind
// has is exported.
// RUN: energy-opt %s --energy-plan="max-slowdown=0" | not energy-translate --export-plan -o %t.json 2>&1 | FileCheck %s
// CHECK: error: --export-plan: the plan runs @a at 1980 MHz, above the highest SM clock of @g's kind 'A100-SXM4' (1410 MHz): were its options measured on another GPU?
// RUN: energy-opt %s --energy-plan="max-slowdown=100" | energy-translate --export-plan | FileCheck %s --check-prefix=SLOW
// SLOW: "sm_mhz": 1005

sched.schedule @s {
  sched.device @g kind "A100-SXM4" static 60 W
  sched.task @a on @g sig <T = 1 ms, d = 2 J> options [#energy.option<sm_mhz = 1980, T = 1 ms, d = 2 J>, #energy.option<sm_mhz = 1005, T = 2 ms, d = 1 J>]
}
