// A schedule with nothing to run: lowering it is an error at the schedule
// (it used to fail on an energy.multi the user never wrote); planning and
// the frontier warn and write nothing (the plan read gap_pct = -1).
// RUN: energy-opt %s -split-input-file -verify-diagnostics --sched-to-energy
// RUN: energy-opt %s -split-input-file --energy-plan=max-slowdown=1 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: energy-opt %s -split-input-file --energy-frontier 2>&1 | FileCheck %s --check-prefix=FRONT

// PLAN: warning: energy-plan: @s has no tasks: nothing was planned
// PLAN-NOT: energy.plan
// FRONT: warning: energy-frontier: @s has no tasks: it has no frontier
// FRONT-NOT: energy.frontier =

// expected-error @+1 {{'sched.schedule' op has no tasks: nothing to lower to an energy tree}}
sched.schedule @s {
  sched.device @g kind "A100" static 10 W
}
