// RUN: energy-opt %s --energy-plan="max-slowdown=0" -split-input-file -verify-diagnostics | FileCheck %s
// The plan file holds the device's cap, with the tasks measured without
// one running under it (they were refused as a cap changing mid-run):
// RUN: rm -rf %t && mkdir -p %t
// RUN: head -n 26 %s > %t/capped.mlir
// RUN: energy-opt %t/capped.mlir --energy-plan="max-slowdown=0" -o %t/planned.mlir
// RUN: energy-translate --export-plan %t/planned.mlir -o %t/plan.json
// RUN: %python -c "import json; d = json.load(open('%t/plan.json'))['schedules'][0]; print(d['plan']['T_s'], d['plan']['E_J'], [(x['kind'], x.get('power_cap_W')) for x in d['devices']])" | FileCheck --check-prefix=FILE %s
// FILE: 2.7 475 [('A100-SXM4', 200)]

// A power cap on the device (--energy-power-cap) holds for the plan: the
// options measured at another cap are not candidates, and uncapped ones
// drawing more than the cap on average neither. Static 50 W, cap 200 W:
// @a at 1410 MHz draws 50 + 250 = 300 W, at 1005 MHz 50 + 200 / 1.5 =
// 183 W; @b was measured at caps of 400 W and 200 W. Without the cap the
// plan at no slowdown is @a at 1410 and @b at 400 W (the plan claimed 300 W
// runs under a 200 W cap); with it, @a at 1005 and @b at 200 W.
// CHECK-LABEL: sched.schedule @capped
// CHECK: sched.task @a {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1005>
// CHECK: sched.task @b {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1410, power_cap = 200 W>
// expected-warning @+1 {{energy-plan: 2 task(s) have their own signature outside their device's power cap (measured at another cap, or drawing more than it on average: @a, @b): the baseline and the plan run them at their first option within the cap}}
sched.schedule @capped {
  sched.device @g kind "A100-SXM4" static 50 W {energy.power_cap = #energy.op_point<power_cap = 200 W>}
  sched.task @a on @g sig <T = 1 s, d = 250 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 250 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 200 J>, #energy.option<sm_mhz = 705, T = 2.5 s, d = 180 J>]
  sched.task @b on @g after [@a] sig <T = 1 s, d = 150 J> options [#energy.option<sm_mhz = 1410, power_cap = 400 W, T = 1 s, d = 150 J>, #energy.option<sm_mhz = 1410, power_cap = 200 W, T = 1.2 s, d = 140 J>, #energy.option<sm_mhz = 1005, power_cap = 200 W, T = 1.5 s, d = 130 J>]
}

// -----

// CHECK-LABEL: sched.schedule @uncapped
// CHECK: sched.task @a {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1410>
sched.schedule @uncapped {
  sched.device @g kind "A100-SXM4" static 50 W
  sched.task @a on @g sig <T = 1 s, d = 250 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 250 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 200 J>]
}

// -----

// No option fits the cap: said at the task, nothing planned.
sched.schedule @none {
  sched.device @g kind "A100-SXM4" static 50 W {energy.power_cap = #energy.op_point<power_cap = 100 W>}
  // expected-error @+1 {{no operating point fits its device's power cap of 100 W (--energy-power-cap): its options without a cap draw 183.3 W or more on average}}
  sched.task @a on @g sig <T = 1 s, d = 250 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 250 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 200 J>]
}

// -----

// A cap no option was measured at (a table's 275 W against a DB
// characterized at 250 and 300 W): the caps it has are named.
sched.schedule @unmeasured {
  sched.device @g kind "A100-SXM4" static 50 W {energy.power_cap = #energy.op_point<power_cap = 275 W>}
  // expected-error @+1 {{no operating point fits its device's power cap of 275 W (--energy-power-cap): its options were measured at 250 W, 300 W (choose one of those, e.g. --energy-power-cap without table=, or characterize at this cap)}}
  sched.task @a on @g sig <T = 1 s, d = 250 J> options [#energy.option<sm_mhz = 1410, power_cap = 300 W, T = 1 s, d = 250 J>, #energy.option<sm_mhz = 1410, power_cap = 250 W, T = 1.2 s, d = 220 J>]
}

// -----

// A fixed signature drawing more than the cap: warned (its time and energy
// do not hold under the cap), still planned as given.
// CHECK-LABEL: sched.schedule @fixed
// expected-warning @+1 {{no task of @fixed has an operating set with more than one option}}
sched.schedule @fixed {
  sched.device @g kind "A100-PCIe" static 50 W {energy.power_cap = #energy.op_point<power_cap = 275 W>}
  // expected-warning @+1 {{draws 1.05 kW on average, above its device's power cap of 275 W (--energy-power-cap): its signature does not hold under that cap}}
  sched.task @step on @g sig <T = 6 s, d = 6 kJ>
}

// -----

// A cap chosen from a table of the job's rows (200 W: 1.2 s) over options
// measured without a cap: under it only 1005 MHz fits by its mean power
// (50 + 200 / 1.5 = 183 W; 1410 MHz draws 300 W), so the baseline runs
// 1.5 s, 25 % off the table's row: said (the saving counts from a job that
// did not run).
// CHECK-LABEL: sched.schedule @tabled
// expected-warning @+3 {{energy-plan: the baseline under the chosen power cap runs 1.5 s where the table's row at that cap says 1.2 s}}
// expected-warning @+2 {{have their own signature outside their device's power cap}}
// expected-warning @+1 {{no task of @tabled has more than one option within its device's power cap}}
sched.schedule @tabled attributes {energy.power_cap_choice = {E_J = 3.0e+02 : f64, T_s = 1.2 : f64, objective = "zeus-cost", power_cap_W = 2.0e+02 : f64, rows = "zeus.csv"}} {
  sched.device @g kind "A100-SXM4" static 50 W {energy.power_cap = #energy.op_point<power_cap = 200 W>}
  sched.task @a on @g sig <T = 1 s, d = 250 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 250 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 200 J>]
}
