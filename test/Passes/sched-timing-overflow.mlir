// RUN: energy-opt %s --sched-timing -split-input-file -verify-diagnostics
// (--sched-to-energy: sched-to-energy-overflow.mlir.)

// Times that add up past the largest double are said at the task, not as
// an infinite duration of an op the lowering made.
sched.schedule @s {
  sched.device @g0 kind "A" static 60 W
  // expected-error@+1 {{'sched.task' op ends past the largest time a double holds: it starts at 1.000000e+308 s and runs 1.000000e+308 s}}
  sched.task @a on @g0 start 1e308 s sig <T = 1e308 s, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "X" static 1 W
  sched.task @a on @g sig <T = 1e308 s, d = 1 J>
  // expected-error@+1 {{'sched.task' op starts past the largest time a double holds: the ends and delays before it add up to more than 1.8e308 s}}
  sched.task @b on @g after [@a] delay 1e308 s sig <T = 1e308 s, d = 1 J>
}
