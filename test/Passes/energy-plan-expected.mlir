// A plan reports its expected makespan (energy.plan's expected_T_s, the
// summary's "expected", --export-plan's plan.expected_T_s): that of its
// chosen configuration, which re-lowering the plan samples alike.
// RUN: rm -rf %t && mkdir -p %t
// RUN: energy-opt %s "--energy-plan=max-slowdown=50 summary=true" -o %t/planned.mlir 2> %t/summary.txt
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/summary.txt
// SUMMARY: expected  {{[0-9.]+}} s  (the mean makespan as its times and delays vary
// RUN: energy-translate --export-plan %t/planned.mlir -o %t/plan.json
// RUN: energy-opt %t/planned.mlir --sched-to-energy -o %t/lowered.mlir
// RUN: %python -c "import json, re, sys; plan = json.load(open(sys.argv[1]))['schedules'][0]['plan']; low = float(re.search(r'expected_T_s = ([0-9.eE+-]+)', open(sys.argv[2]).read()).group(1)); assert plan['expected_T_s'] == low and plan['expected_T_s'] > plan['T_s'], (plan, low); print('plan expected ok')" %t/plan.json %t/lowered.mlir | FileCheck %s --check-prefix=PLAN
// PLAN: plan expected ok

sched.schedule @fj {
  sched.device @d0 kind "A100-SXM4" static 10 W
  sched.device @d1 kind "A100-SXM4" static 10 W
  sched.device @d2 kind "A100-SXM4" static 10 W
  sched.task @a on @d0 sig <T = 1 s, d = 1 J>
  sched.task @b on @d1 after [@a] delay 10 ms delay_sigma 2 ms sig <T = 2 s, d = 1 J, sigma_T = 100 ms>
  sched.task @c on @d2 after [@a] sig <T = 1 s, d = 3 J, sigma_T = 100 ms> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 3 J, sigma_T = 100 ms>, #energy.option<sm_mhz = 900, T = 2.01 s, d = 1 J, sigma_T = 100 ms>]
}
