// A plan reports its expected makespan (energy.plan's expected_T_s, the
// summary's "expected", --export-plan's plan.expected_T_s): that of its
// chosen configuration, which re-lowering the plan samples alike.
// RUN: rm -rf %t && mkdir -p %t
// RUN: energy-opt %s "--energy-plan=max-slowdown=50 summary=true" -o %t/planned.mlir 2> %t/summary.txt
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/summary.txt
// SUMMARY: expected  {{[0-9.]+}} s  (the mean makespan as times and delays vary; the limit holds it, over the fastest
// RUN: energy-translate --export-plan %t/planned.mlir -o %t/plan.json
// RUN: energy-opt %t/planned.mlir --sched-to-energy -o %t/lowered.mlir
// RUN: %python -c "import json, re, sys; plan = json.load(open(sys.argv[1]))['schedules'][0]['plan']; low = float(re.search(r'expected_T_s = ([0-9.eE+-]+)', open(sys.argv[2]).read()).group(1)); assert plan['expected_T_s'] == low and plan['expected_T_s'] > plan['T_s'] and plan['limit_on'] == 'expected' and plan['expected_T_s'] <= plan['limit_T_s'], (plan, low); print('plan expected ok')" %t/plan.json %t/lowered.mlir | FileCheck %s --check-prefix=PLAN
// PLAN: plan expected ok
// The evaluation's interval is about the expected energy s E[T] + d, said
// beside it: 3 x 10 W x 3.0664 s + 3 J (c slowed to 1 J) = 94.99 J, the
// point energy 30 W x 3.01 s + 3 J = 93.3 J.
// RUN: energy-opt %t/planned.mlir --sched-to-energy --energy-evaluate=summary=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL: energy   93.3 J
// EVAL-NEXT: interval {{.*}} (about the expected energy 94.99{{[0-9]*}} J = s E[T] + d)

// The limit holds the expected makespan by default (limit-on=expected): at
// 3.03 s, c slowed to 2.01 s ties the path through b (3.01 s point), and the
// two jittered paths average 3.066 s > 3.03 s, so the plan keeps c fast
// (every path but one far from critical: E[T] = the point 3.01 s).
// limit-on=point plans the point makespan: c slowed, 2 J less, E[T] past
// the limit (a deadline below the fastest configuration's E[T]:
// energy-plan-expected-warn.mlir).
// RUN: energy-opt %s "--energy-plan=deadline=3.03" | FileCheck %s --check-prefix=EXP
// EXP: energy.plan = {E_J = 95.29{{[0-9]*}} : f64, T_s = 3.01{{0*}}e+00 : f64,
// EXP-SAME: expected_T_s = 3.01{{0*}}e+00 : f64
// EXP-SAME: fastest_expected_T_s = 3.01{{0*}}e+00 : f64
// EXP-SAME: limit_T_s = 3.03{{0*}}e+00 : f64, limit_on = "expected"
// EXP-SAME: point_limit_T_s = 3.01{{0*}}e+00 : f64
// RUN: energy-opt %s "--energy-plan=deadline=3.03 limit-on=point" | FileCheck %s --check-prefix=POINT
// POINT: energy.plan = {E_J = 93.29{{[0-9]*}} : f64, T_s = 3.01{{0*}}e+00 : f64,
// POINT-SAME: expected_T_s = 3.06{{[0-9]*}} : f64
// POINT-SAME: limit_T_s = 3.03{{0*}}e+00 : f64, limit_on = "point"
// RUN: energy-opt %s "--energy-plan=max-slowdown=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// NOWARN-NOT: warning
// RUN: not energy-opt %s "--energy-plan=limit-on=mean" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: energy-plan: limit-on must be expected or point; got 'mean'

sched.schedule @fj {
  sched.device @d0 kind "A100-SXM4" static 10 W
  sched.device @d1 kind "A100-SXM4" static 10 W
  sched.device @d2 kind "A100-SXM4" static 10 W
  sched.task @a on @d0 sig <T = 1 s, d = 1 J>
  sched.task @b on @d1 after [@a] delay 10 ms delay_sigma 2 ms sig <T = 2 s, d = 1 J, sigma_T = 100 ms>
  sched.task @c on @d2 after [@a] sig <T = 1 s, d = 3 J, sigma_T = 100 ms> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 3 J, sigma_T = 100 ms>, #energy.option<sm_mhz = 900, T = 2.01 s, d = 1 J, sigma_T = 100 ms>]
}
