// Releases of days beside microsecond tasks: plans and the lowering time
// a configuration from the schedule's start (the earliest release of a
// task without predecessors), so the makespan is no difference of two
// large times rounded at their magnitude. At max-slowdown=0 the plan is the
// fastest point (it was refused: "no frontier point meets the deadline",
// the fastest makespan computed 3e-13 s short), and the plan re-evaluates
// to what it claims.
// RUN: rm -rf %t && mkdir -p %t
// RUN: energy-opt %s -split-input-file --energy-plan="max-slowdown=0" -o %t/planned.mlir
// RUN: energy-opt %t/planned.mlir -split-input-file --sched-to-energy --energy-evaluate -o %t/re.mlir
// RUN: %python %S/plan_reevaluates.py %t/planned.mlir %t/re.mlir | FileCheck %s
// CHECK: (chunk 1): plan T_s 0.0170201171116, re-evaluated 0.0170201171116
// CHECK: (chunk 2): plan T_s 8.84732745162e-06, re-evaluated 8.84732745162e-06
// CHECK: plan re-evaluates to its claim

sched.schedule @serve {
  sched.device @gpu kind "H100" static 60 W
  sched.task @r0 on @gpu release 4780.2153251743575 s sig <T = 0.0035495087244304417 s, d = 1.0 J> options [#energy.option<sm_mhz = 1980, T = 0.0035495087244304417 s, d = 1.0 J>, #energy.option<sm_mhz = 1680, T = 0.00425941046931653 s, d = 0.6944444444444444 J>, #energy.option<sm_mhz = 1380, T = 0.005324263086645662 s, d = 0.4444444444444444 J>]
  sched.task @r1 on @gpu release 4780.219325174357 s sig <T = 0.005166344843901643 s, d = 1.0 J> options [#energy.option<sm_mhz = 1980, T = 0.005166344843901643 s, d = 1.0 J>, #energy.option<sm_mhz = 1680, T = 0.006199613812681971 s, d = 0.6944444444444444 J>, #energy.option<sm_mhz = 1380, T = 0.007749517265852464 s, d = 0.4444444444444444 J>]
  sched.task @r2 on @gpu sig <T = 0.0078537722678362 s, d = 1.0 J> options [#energy.option<sm_mhz = 1980, T = 0.0078537722678362 s, d = 1.0 J>, #energy.option<sm_mhz = 1680, T = 0.00942452672140344 s, d = 0.6944444444444444 J>, #energy.option<sm_mhz = 1380, T = 0.0117806584017543 s, d = 0.4444444444444444 J>]
}

// -----

sched.schedule @d {
  sched.device @g0 kind "X" static 0.01 W
  sched.device @g1 kind "X" static 3 W
  sched.task @t0 on @g0 release 1000000.0 s sig <T = 2.55318573e-06 s, d = 1.84717038 J> options [#energy.option<sm_mhz = 100, T = 2.55318573e-06 s, d = 1.84717038 J>, #energy.option<sm_mhz = 200, T = 3.1e-06 s, d = 1.2 J>]
  sched.task @t1 on @g1 release 1000000.00000254 s sig <T = 1.87737796e-06 s, d = 1.3426224 J> options [#energy.option<sm_mhz = 100, T = 1.87737796e-06 s, d = 1.3426224 J>, #energy.option<sm_mhz = 200, T = 2.3e-06 s, d = 0.9 J>]
  sched.task @t2 on @g0 after [@t1] sig <T = 3.33e-06 s, d = 0.5 J> options [#energy.option<sm_mhz = 100, T = 3.33e-06 s, d = 0.5 J>, #energy.option<sm_mhz = 200, T = 4.1e-06 s, d = 0.3 J>]
  sched.task @t3 on @g1 after [@t2] sig <T = 1.1e-06 s, d = 0.2 J> options [#energy.option<sm_mhz = 100, T = 1.1e-06 s, d = 0.2 J>, #energy.option<sm_mhz = 200, T = 1.7e-06 s, d = 0.1 J>]
}
