// Makespans a femtosecond apart are other times: the frontier's merge of
// equal makespans (sums in another order) is relative only. An absolute
// 1e-15 s term merged (4 fs, 10 J) and (5 fs, 1 J) into a point (4 fs,
// 1 J) that no configuration has, claimed exact.
// RUN: energy-opt %s -split-input-file --energy-frontier=max-error=0 | FileCheck %s
// CHECK: energy.frontier = {{\[\[}}4.000000e-15, 10.0{{[0-9]*}}, 10.0{{[0-9]*}}], [5.000000e-15, 1.0{{[0-9]*}}, 1.0{{[0-9]*}}]]
sched.schedule @one {
  sched.device @g kind "X" static 1 W
  sched.task @a on @g sig <T = 4e-15 s, d = 10 J> options [#energy.option<sm_mhz = 2000, T = 4e-15 s, d = 10 J>, #energy.option<sm_mhz = 1000, T = 5e-15 s, d = 1 J>]
}

// -----

// The fastest point is every task at its fastest option (5 fs: @b's
// release and time), and a plan at no slowdown meets it: by hand @a at
// 2000 MHz, 5 fs, 1 W x 5 fs + 11 J.
// RUN: energy-opt %s -split-input-file --energy-plan=max-slowdown=0 | FileCheck %s --check-prefix=PLAN
// PLAN: energy.plan = {E_J = 11.0{{[0-9]*}} : f64, T_s = 5.000000e-15 : f64
sched.schedule @two {
  sched.device @g0 kind "X" static 1 W
  sched.task @a on @g0 sig <T = 4e-15 s, d = 10 J> options [#energy.option<sm_mhz = 2000, T = 4e-15 s, d = 10 J>, #energy.option<sm_mhz = 1000, T = 6e-15 s, d = 2 J>]
  sched.task @b on @g0 stream 1 release 2e-15 s sig <T = 3e-15 s, d = 1 J>
}
