// A deadline that even the fastest configuration's expected makespan runs
// past: two tied jittered paths (3 s point, E[T] = 3 + sigma/sqrt(pi) for
// two independent N(0, sigma^2) branch times, Clark 1961) against a 3.01 s
// deadline. The plan is the fastest and the pass says why; a point limit
// would not warn.
// RUN: energy-opt %s "--energy-plan=deadline=3.01" -o %t.mlir 2>&1 | FileCheck %s
// CHECK: warning: energy-plan: the plan's expected makespan 3.05{{[0-9]*}} s runs past the limit 3.01 s (its point makespan 3 s meets it)
// RUN: FileCheck %s --check-prefix=PLAN < %t.mlir
// PLAN: energy.plan = {E_J = 9.{{0*}}e+00 : f64, T_s = 3.{{0*}}e+00 : f64
// RUN: energy-opt %s "--energy-plan=deadline=3.01 limit-on=point" -o /dev/null 2>&1 | FileCheck %s --check-prefix=POINT --allow-empty
// POINT-NOT: warning

sched.schedule @tied {
  sched.device @d0 kind "A100-SXM4" static 1 W
  sched.device @d1 kind "A100-SXM4" static 1 W
  sched.task @a on @d0 sig <T = 1 s, d = 1 J>
  sched.task @b on @d0 after [@a] sig <T = 2 s, d = 1 J, sigma_T = 100 ms>
  sched.task @c on @d1 after [@a] sig <T = 2 s, d = 1 J, sigma_T = 100 ms> options [#energy.option<sm_mhz = 1410, T = 2 s, d = 1 J, sigma_T = 100 ms>, #energy.option<sm_mhz = 900, T = 3 s, d = 0.5 J, sigma_T = 100 ms>]
}
