// RUN: energy-opt %s --sched-to-energy -split-input-file -verify-diagnostics | FileCheck %s

// The lowering counts times from the schedule's start: a task recorded at
// 1e308 s that runs 1e308 s is a makespan of 1e308 s, which a double holds
// (--sched-timing, which writes absolute starts, refuses it:
// sched-timing-overflow.mlir).
// CHECK: energy.element @a on @g0 sig <T = 1.0e+308 s
sched.schedule @s {
  sched.device @g0 kind "A" static 60 W
  sched.task @a on @g0 start 1e308 s sig <T = 1e308 s, d = 1 J>
}

// -----

// Times that add up past the largest double from the start are said at the
// task, not as an infinite duration of an op the lowering made.
sched.schedule @s {
  sched.device @g kind "X" static 1 W
  sched.task @a on @g sig <T = 1e308 s, d = 1 J>
  // expected-error@+1 {{'sched.task' op starts past the largest time a double holds: the ends and delays before it add up to more than 1.8e308 s}}
  sched.task @b on @g after [@a] delay 1e308 s sig <T = 1e308 s, d = 1 J>
}
