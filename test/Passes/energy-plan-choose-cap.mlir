// choose-power-cap=true: the job's power cap chosen with its clocks. The
// clocks are planned at every cap the tasks' options were measured at,
// against one limit (max-slowdown= over the fastest makespan of any cap,
// or deadline=), and the cap whose plan uses the least energy is kept.
// Static 50 W, @fwd then @bwd. By hand (T = fwd + bwd, E = 50 W x T + d):
//   300 W: 1410 MHz 10 + 20 ms: 30 ms, 1.5 + 7.5 = 9.0 J
//          fwd at 1005 MHz 14 + 20 ms: 34 ms, 1.7 + 6.2 = 7.9 J
//   200 W: 1410 MHz 12 + 25 ms: 37 ms, 1.85 + 6.2 = 8.05 J
//          fwd at 1005 MHz 14.5 + 25 ms: 39.5 ms, 1.975 + 6.1 = 8.075 J
// max-slowdown=25 (37.5 ms): 300 W with @fwd at 1005 MHz, 7.9 J in 34 ms.
// Choosing the cap first by the job at its highest clocks
// (--energy-power-cap) takes 200 W (8.05 J against 9.0 J), under which the
// clocks reach no less than 8.05 J within the same 37.5 ms: the joint
// choice uses 1.9 % less energy in 8.1 % less time.
// RUN: energy-opt %s --energy-plan="max-slowdown=25 choose-power-cap=true summary=true" -split-input-file -verify-diagnostics 2>%t.err | FileCheck %s --check-prefix=S25
// RUN: FileCheck %s --check-prefix=SUMMARY --input-file %t.err
// SUMMARY: @job power cap and clocks (objective energy, limit 37.5 ms; each cap: the job at its highest clocks, then its clocks planned)
// SUMMARY-NEXT: 300 W  job 30 ms  9 J  plan 34 ms  7.9 J  <- chosen: 12.22% less energy than the schedule as it stood (30 ms, 9 J)
// SUMMARY-NEXT: 200 W  job 37 ms  8.05 J  plan 37 ms  8.05 J
// The plan counts from the schedule as it stood, before the cap (9 J in
// 30 ms; here also the 300 W row), its fastest that of any cap.
// S25-LABEL: sched.schedule @job
// S25-SAME: energy.plan = {E_J = {{7.90*[0-9]?e\+00|7.89999[0-9]*e\+00}} : f64, T_s = {{3.40*[0-9]?e-02|0.0340*[0-9]*}} : f64
// S25-SAME: energy.power_cap_choice = {E_J = 9.000000e+00 : f64, T_s = 3.000000e-02 : f64, before_E_J = 9.000000e+00 : f64, before_T_s = 3.000000e-02 : f64, exact = true, limit_T_s = 3.750000e-02 : f64, lower_bound_J = {{7.90*[0-9]?e\+00|7.89999[0-9]*e\+00}} : f64, max_slowdown_pct = 2.500000e+01 : f64, objective = "clocks-planned-at-each-cap", planned_E_J = {{7.90*[0-9]?e\+00|7.89999[0-9]*e\+00}} : f64, planned_T_s = {{3.40*[0-9]?e-02|0.0340*[0-9]*}} : f64, power_cap_W = 3.000000e+02 : f64, rows = "the tasks' options"}
// S25: sched.device @gpu {{.*}}{energy.power_cap = #energy.op_point<power_cap = 300 W>}
// S25: sched.task @fwd on @gpu sig <T = 14 ms, d = 1.2 J> {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1005, power_cap = 300 W>
// S25: sched.task @bwd on @gpu after [@fwd] sig <T = 20 ms, d = 5 J> {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1410, power_cap = 300 W>
// Cap then clocks, at the same limit: 200 W, 8.05 J.
// RUN: rm -rf %t && mkdir -p %t && sed '/^\/\/ -----/,$d' %s > %t/job.mlir
// RUN: energy-opt %t/job.mlir --energy-power-cap="max-slowdown=25" --energy-plan="deadline=0.0375" | FileCheck %s --check-prefix=THEN
// THEN: energy.plan = {E_J = {{8.050*[0-9]?e\+00|8.04999[0-9]*e\+00}}
// THEN-SAME: power_cap_W = 2.000000e+02
// A cap chosen before is replaced, and the plan file carries the new one.
// RUN: energy-opt %t/job.mlir --energy-power-cap="max-slowdown=25" --energy-plan="max-slowdown=25 choose-power-cap=true" -o %t/planned.mlir
// RUN: energy-translate --export-plan %t/planned.mlir | FileCheck %s --check-prefix=FILE
// FILE: "power_cap_W": 300
// No limit: max-slowdown=0 (30 ms), said, as only the fastest cap meets
// it; 200 W cannot run that fast, said in the summary.
// RUN: energy-opt %t/job.mlir --energy-plan="choose-power-cap=true summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=S0
// S0: warning: energy-plan: choose-power-cap without deadline= or max-slowdown= plans at the fastest makespan of any cap (max-slowdown=0), which only the fastest cap meets; give a limit (e.g. max-slowdown=10)
// S0: 300 W  job 30 ms  9 J  plan 30 ms  9 J  <- chosen: 0.00% less energy
// S0-NEXT: 200 W  job 37 ms  8.05 J  not planned: its fastest makespan, 37 ms, is past the limit
// A deadline no cap meets is the pass's error, each cap's reason a note.
// RUN: not energy-opt %t/job.mlir --energy-plan="deadline=0.02 choose-power-cap=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: energy-plan: choose-power-cap: no power cap of @job has a plan within the limit 20 ms
// NONE: note: 300 W: its fastest makespan, 30 ms, is past the limit
// NONE: note: 200 W: its fastest makespan, 37 ms, is past the limit
// A task planned before (energy.dvfs) or timed (a recorded start) moves to
// its option of each cap like the others: the baseline at 300 W is the
// job at its highest clocks again (30 ms, 9 J), not the planned 1005 MHz.
// RUN: energy-opt %t/job.mlir --energy-plan="max-slowdown=0" --sched-timing | energy-opt --energy-plan="max-slowdown=1 choose-power-cap=true" 2>&1 | FileCheck %s --check-prefix=AGAIN
// AGAIN-NOT: warning
// AGAIN: baseline_E_J = 9.000000e+00 : f64, baseline_T_s = 3.000000e-02
sched.schedule @job {
  sched.device @gpu kind "A100-SXM4" static 50 W
  sched.task @fwd on @gpu sig <T = 10 ms, d = 2.5 J> options [#energy.option<sm_mhz = 1410, power_cap = 300 W, T = 10 ms, d = 2.5 J>, #energy.option<sm_mhz = 1005, power_cap = 300 W, T = 14 ms, d = 1.2 J>, #energy.option<sm_mhz = 1410, power_cap = 200 W, T = 12 ms, d = 2 J>, #energy.option<sm_mhz = 1005, power_cap = 200 W, T = 14.5 ms, d = 1.9 J>]
  sched.task @bwd on @gpu after [@fwd] sig <T = 20 ms, d = 5 J> options [#energy.option<sm_mhz = 1410, power_cap = 300 W, T = 20 ms, d = 5 J>, #energy.option<sm_mhz = 1410, power_cap = 200 W, T = 25 ms, d = 4.2 J>]
}

// -----

// A cap some task has no option at is no configuration of the job: left
// out, said in the summary; the others are still planned.
// S25-LABEL: sched.schedule @partial
// S25-SAME: power_cap_W = 3.000000e+02
// SUMMARY: @partial power cap and clocks
// SUMMARY-NEXT: 300 W  job 30 ms  9 J  plan 30 ms  9 J  <- chosen
// SUMMARY-NEXT: 200 W  not planned: @bwd has no option at this cap
// expected-warning @+1 {{energy-plan: choose-power-cap: caps left out, without an option of every task: 200 W (@bwd)}}
sched.schedule @partial {
  sched.device @gpu kind "A100-SXM4" static 50 W
  sched.task @fwd on @gpu sig <T = 10 ms, d = 2.5 J> options [#energy.option<sm_mhz = 1410, power_cap = 300 W, T = 10 ms, d = 2.5 J>, #energy.option<sm_mhz = 1410, power_cap = 200 W, T = 12 ms, d = 2 J>]
  sched.task @bwd on @gpu after [@fwd] sig <T = 20 ms, d = 5 J> options [#energy.option<sm_mhz = 1410, power_cap = 300 W, T = 20 ms, d = 5 J>]
}

// -----

// Options without caps: nothing to choose from, said at the schedule.
// expected-error @+1 {{energy-plan: choose-power-cap: no task of @clocks has options measured at a power cap (fill the operating sets from a DB characterized with --power-limits)}}
sched.schedule @clocks {
  sched.device @gpu kind "A100-SXM4" static 50 W
  sched.task @fwd on @gpu sig <T = 10 ms, d = 2.5 J> options [#energy.option<sm_mhz = 1410, T = 10 ms, d = 2.5 J>, #energy.option<sm_mhz = 1005, T = 13 ms, d = 2 J>]
}

// -----

// The cap is for the devices whose tasks were measured at caps: a host
// device's tasks, measured at none, keep their options and the host no
// cap. By hand (static 50 + 100 W over the makespan; @pre at 2000 MHz,
// 14 ms, is past the 12.5 ms limit): 300 W 10 ms, 1.5 + 2.5 + 1 = 5 J;
// 200 W 12 ms, 1.8 + 1.2 + 1 = 4 J.
// S25-LABEL: sched.schedule @host
// S25: sched.device @gpu {{.*}}{energy.power_cap = #energy.op_point<power_cap = 200 W>}
// S25-NEXT: sched.device @cpu kind "CPU" static 100 W{{$}}
// SUMMARY: @host power cap and clocks
// SUMMARY-NEXT: 300 W  job 10 ms  5 J  plan 10 ms  5 J
// SUMMARY-NEXT: 200 W  job 12 ms  4 J  plan 12 ms  4 J  <- chosen
// --energy-power-cap from the tasks' options caps the same devices.
// RUN: printf 'sched.schedule @h {\n  sched.device @gpu kind "A100-SXM4" static 50 W\n  sched.device @cpu kind "CPU" static 100 W\n  sched.task @fwd on @gpu sig <T = 10 ms, d = 2.5 J> options [#energy.option<sm_mhz = 1410, power_cap = 300 W, T = 10 ms, d = 2.5 J>, #energy.option<sm_mhz = 1410, power_cap = 200 W, T = 12 ms, d = 1.2 J>]\n  sched.task @pre on @cpu sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 3000, T = 10 ms, d = 1 J>]\n}\n' | energy-opt --energy-power-cap="max-slowdown=25" | FileCheck %s --check-prefix=PCHOST
// PCHOST: sched.device @gpu {{.*}}{energy.power_cap = #energy.op_point<power_cap = 200 W>}
// PCHOST-NEXT: sched.device @cpu kind "CPU" static 100 W{{$}}
sched.schedule @host {
  sched.device @gpu kind "A100-SXM4" static 50 W
  sched.device @cpu kind "CPU" static 100 W
  sched.task @fwd on @gpu sig <T = 10 ms, d = 2.5 J> options [#energy.option<sm_mhz = 1410, power_cap = 300 W, T = 10 ms, d = 2.5 J>, #energy.option<sm_mhz = 1410, power_cap = 200 W, T = 12 ms, d = 1.2 J>]
  sched.task @pre on @cpu sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 3000, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 2000, T = 14 ms, d = 0.6 J>]
}

// -----

// With clock switches that cost (energy.switch, 1 J each), a plan is not
// claimed exact unless it meets the certificate: here the clocks planned
// without their switches (low, high, low: 11 J with 2 switches) lose to
// low, low, high (10.1 J, 1 switch), so exact = false.
// RUN: energy-opt %s -split-input-file --energy-plan="deadline=0.040 choose-power-cap=true" -verify-diagnostics | FileCheck %s --check-prefix=SWITCH
// SWITCH-LABEL: sched.schedule @switching
// SWITCH-SAME: energy.power_cap_choice = {{{[^}]*}}exact = false
sched.schedule @switching {
  sched.device @g kind "X" static 0 W {energy.switch = #energy.sig<T = 0 ms, d = 1 J>}
  sched.task @a on @g sig <T = 10 ms, d = 5 J> options [#energy.option<sm_mhz = 1400, power_cap = 300 W, T = 10 ms, d = 5 J>, #energy.option<sm_mhz = 1000, power_cap = 300 W, T = 15 ms, d = 2 J>]
  sched.task @b on @g after [@a] sig <T = 10 ms, d = 5 J> options [#energy.option<sm_mhz = 1400, power_cap = 300 W, T = 10 ms, d = 5 J>, #energy.option<sm_mhz = 1000, power_cap = 300 W, T = 15 ms, d = 2.1 J>]
  sched.task @c on @g after [@b] sig <T = 10 ms, d = 5 J> options [#energy.option<sm_mhz = 1400, power_cap = 300 W, T = 10 ms, d = 5 J>, #energy.option<sm_mhz = 1000, power_cap = 300 W, T = 15 ms, d = 2 J>]
}

// -----

// A schedule with no tasks: said, as without the option, and the module's
// other schedules still planned.
// expected-warning @+1 {{energy-plan: @empty has no tasks: nothing was planned}}
sched.schedule @empty {
  sched.device @gpu kind "A100-SXM4" static 50 W
}
