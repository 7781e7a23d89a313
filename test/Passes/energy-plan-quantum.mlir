// A quantum floors the option times the frontier searches (Perseus's
// convention); the plan's figures are as it will run, with the real times.
// One device of 1 W runs @a -> @b. @a: 1.0 s / 10 J, 1.2 s / 7 J,
// 2.0 s / 4 J; @b: 1.0 s / 10 J. At quantum=0.5 s the 1.2 s option floors
// to 1.0 s and looks free: the floored frontier is (2.0 s, 19 J) with @a at
// 1.2 s, and (3.0 s, 17 J). Real: fastest 2.0 s (both at 1.0 s), baseline
// (the current signatures, 1.0 s / 10 J each) 2.0 s and 1 W x 2 s + 20 J =
// 22 J. At max-slowdown=15 the limit is 2.3 s; the first point runs 2.2 s
// and 1 W x 2.2 s + 17 J = 19.2 J: the plan, 1 - 19.2 / 22 = 12.73 % less.
// The bound is the exact floored frontier's least energy within the limit,
// 19 J: within (19.2 - 19) / 19 = 1.05 %.
// RUN: energy-opt %s --energy-plan="quantum=0.5 max-slowdown=15 summary=true" 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY --input-file %t.err
// The method says the frontier is exact for the floored times only.
// CHECK: energy.frontier_method = "exact: series-parallel decomposition over 2 combinations; on option times floored to the quantum 500 ms"
// CHECK-SAME: energy.plan = {
// CHECK-SAME: E_J = 1.920000e+01
// CHECK-SAME: T_s = 2.200000e+00
// CHECK-SAME: baseline_E_J = 2.200000e+01
// CHECK-SAME: baseline_T_s = 2.000000e+00
// CHECK-SAME: fastest_T_s = 2.000000e+00
// CHECK-SAME: frontier_E_J = 1.900000e+01
// CHECK-SAME: frontier_T_s = 2.000000e+00
// CHECK-SAME: gap_pct = 1.05263
// CHECK-SAME: limit_T_s = {{2.2999[0-9]*|2.300000e.00}}
// CHECK-SAME: lower_bound_J = 1.900000e+01
// CHECK-SAME: quantum_s = 5.000000e-01
// CHECK-SAME: saving_pct = 12.7272
// CHECK: sched.task @a {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1200>
// SUMMARY: quantum   500 ms: the frontier and its bound floor option times to it; the figures here are as the plan will run (real option times)
// SUMMARY: plan      2.2 s  19.2 J  (12.73% less energy, limit 2.3 s)
//
// The plan re-lowers and re-evaluates to its claim.
// RUN: energy-opt %s --energy-plan="quantum=0.5 max-slowdown=15" -o %t.plan.mlir
// RUN: energy-opt %t.plan.mlir --sched-to-energy --energy-evaluate -o %t.re.mlir
// RUN: %python %S/plan_reevaluates.py %t.plan.mlir %t.re.mlir | FileCheck %s --check-prefix=AGAIN
// AGAIN: plan re-evaluates to its claim
//
// At max-slowdown=5 (limit 2.1 s) both floored points run past the limit
// with the real times: the all-fastest configuration, a candidate too,
// meets it (2 s, 22 J, no saving). Below the fastest makespan nothing does.
// RUN: energy-opt %s --energy-plan="quantum=0.5 max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=FASTEST
// FASTEST: warning: energy-plan: every frontier point runs past the limit once re-timed with the real option times; the plan is the all-fastest configuration: use a smaller quantum, or none
// FASTEST: energy.plan = {E_J = 2.200000e+01 : f64, T_s = 2.000000e+00 : f64
// RUN: not energy-opt %s --energy-plan="quantum=0.5 deadline=1.5" 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: error: 'sched.schedule' op energy-plan: no frontier point meets the deadline 1.5 s; the fastest makespan is 2 s
// RUN: energy-opt %s --energy-plan="quantum=5 max-slowdown=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: warning: frontier: quantum 5 s floors 4 option times to 0 (the shortest is 1 s): the search cannot tell those options apart; choose a quantum below the tasks' times

sched.schedule @q {
  sched.device @g kind "X" static 1 W
  sched.task @a on @g sig <T = 1 s, d = 10 J> options [#energy.option<sm_mhz = 1400, T = 1 s, d = 10 J>, #energy.option<sm_mhz = 1200, T = 1.2 s, d = 7 J>, #energy.option<sm_mhz = 600, T = 2 s, d = 4 J>]
  sched.task @b on @g after [@a] sig <T = 1 s, d = 10 J> options [#energy.option<sm_mhz = 1400, T = 1 s, d = 10 J>]
}
