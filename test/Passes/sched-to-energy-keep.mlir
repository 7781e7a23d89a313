// keep-schedule=true keeps the schedule beside its energy tree: the tree
// takes the schedule's name (what measurements and reports look up), the
// schedule is renamed @<name>.schedule, and the result verifies and
// evaluates.
// RUN: energy-opt %s -split-input-file -verify-diagnostics --sched-to-energy="keep-schedule=true" | FileCheck %s
// RUN: energy-opt %s -split-input-file -verify-diagnostics --sched-to-energy="keep-schedule=true" --energy-evaluate | FileCheck %s --check-prefix=EVAL

// CHECK: sched.schedule @iter.schedule {
// CHECK:   sched.task @b on @g1 after [@a]
// CHECK: energy.multi @iter {
// The energy (interval accounting): 2 devices x 60 W x 30 ms + 3 J + 2 J.
// EVAL: energy.multi @iter {{.*}}E_J = 8.6
sched.schedule @iter {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 60 W
  sched.task @a on @g0 sig <T = 10 ms, d = 3 J>
  sched.task @b on @g1 after [@a] sig <T = 20 ms, d = 2 J>
}

// -----

// expected-note @below {{defined here}}
energy.device @s.schedule kind "A100" static 60 W
// expected-error @below {{cannot be kept as @s.schedule: the module already has a symbol of that name}}
sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.task @a on @g0 sig <T = 10 ms, d = 3 J>
}
