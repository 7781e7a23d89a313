// With a quantum the frontier searches floored option times, but the plan
// runs on the real ones: the configuration it plans is also improved at
// the limit on the real times. Two tasks @a -> @b on one device of 1 W,
// each 1.0 s / 10 J or 1.9 s / 5 J. At quantum=1 s both options floor to
// 1 s, so the floored frontier keeps only the slower (cheaper) one: one
// point, (2 s, 12 J) floored, which runs 3.8 s. At max-slowdown=50 (limit
// 3 s, the fastest makespan 2 s) it does not fit; the all-fastest
// configuration does (2 s, 1 W x 2 s + 20 J = 22 J), and one task slowed
// into the slack is best (by hand: 2.9 s, 1 W x 2.9 s + 15 J = 17.9 J,
// 1 - 17.9 / 22 = 18.64 % less; both slow: 3.8 s, past the limit).
// RUN: energy-opt %s --energy-plan="quantum=1 max-slowdown=50 summary=true" 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY --input-file %t.err --implicit-check-not=warning
// CHECK: energy.plan = {
// CHECK-SAME: E_J = 1.790000e+01
// CHECK-SAME: T_s = 2.900000e+00
// CHECK-SAME: baseline_E_J = 2.200000e+01
// CHECK-NOT: frontier_T_s
// CHECK-SAME: improved_on_real_times = true
// CHECK-SAME: saving_pct = 18.636
// SUMMARY: plan      2.9 s  17.9 J  (18.64% less energy, limit 3 s)
//
// The plan re-lowers and re-evaluates to its claim.
// RUN: energy-opt %s --energy-plan="quantum=1 max-slowdown=50" -o %t.plan.mlir
// RUN: energy-opt %t.plan.mlir --sched-to-energy --energy-evaluate -o %t.re.mlir
// RUN: %python %S/plan_reevaluates.py %t.plan.mlir %t.re.mlir | FileCheck %s --check-prefix=AGAIN
// AGAIN: plan re-evaluates to its claim
//
// Without the annealer's budget the plan is the all-fastest configuration,
// said as such.
// RUN: energy-opt %s --energy-plan="quantum=1 max-slowdown=50 anneal-budget=0" 2>&1 | FileCheck %s --check-prefix=FASTEST
// FASTEST: warning: energy-plan: every frontier point runs past the limit once re-timed with the real option times; the plan is the all-fastest configuration
// FASTEST: energy.plan = {E_J = 2.200000e+01 : f64, T_s = 2.000000e+00 : f64

//
// A step that would sweep more than a million deadlines (here 1.8e300 and
// 1.8e12) is a unit mistake, refused: it ran out of memory or for hours.
// RUN: not energy-opt %s --energy-plan="step=1e-300" 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not energy-opt %s --energy-frontier="step=1e-12" 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: error: 'sched.schedule' op frontier: step {{.*}} s would sweep {{.*}} deadlines between the fastest ({{.*}} s) and the slowest ({{.*}} s) makespans; at most 1000000: use a step of at least

sched.schedule @q {
  sched.device @g kind "X" static 1 W
  sched.task @a on @g sig <T = 1 s, d = 10 J> options [#energy.option<sm_mhz = 1400, T = 1 s, d = 10 J>, #energy.option<sm_mhz = 600, T = 1.9 s, d = 5 J>]
  sched.task @b on @g after [@a] sig <T = 1 s, d = 10 J> options [#energy.option<sm_mhz = 1400, T = 1 s, d = 10 J>, #energy.option<sm_mhz = 600, T = 1.9 s, d = 5 J>]
}
