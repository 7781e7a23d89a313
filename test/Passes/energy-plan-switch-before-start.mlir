// A clock switch runs before its task and is done by the task's recorded
// start (a start the plan re-timed is where the task runs): the plan's
// claim, --energy-emit-dvfs's switch task and the lowering agree.
// By hand (@s1): @a on g1 0-8 s; on g0 in program order @b after @a at
// 1900 MHz (4 s), its switch 7-8 s while @b waits for @a, @b 8-12 s, then
// @c at 2000 MHz after its switch, 12-13 and 13-15 s: makespan 15 s,
// energy 2 W x 15 s + 3 J = 33 J. The baseline is that configuration too
// (its own clocks switch alike): 0 % saved, not -6.45 %.
// RUN: energy-opt %s -split-input-file --energy-plan="deadline=15 summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: @s1 plan
// SUMMARY: baseline  15 s  33 J
// SUMMARY-NEXT: plan      15 s  33 J  (0.00% less energy, limit 15 s)
// RUN: rm -rf %t && mkdir -p %t
// RUN: head -n 27 %s > %t/s1.mlir
// RUN: energy-opt %t/s1.mlir --energy-plan="deadline=15" --energy-emit-dvfs -o %t/emitted.mlir
// RUN: FileCheck %s --check-prefix=EMIT --input-file %t/emitted.mlir
// EMIT: T_with_switches_s = 1.500000e+01
// EMIT: sched.task @b.switch on @g0 release 7 s kind "dvfs-switch"
// RUN: energy-opt %t/emitted.mlir --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=LOWERED
// LOWERED: energy.total = {E_J = 3.300000e+01 : f64, {{.*}}T_s = 1.500000e+01 : f64
sched.schedule @s1 {
  sched.device @g0 kind "X" static 1 W {energy.switch = #energy.sig<T = 1 s, d = 0 J>}
  sched.device @g1 kind "X" static 1 W
  sched.task @a on @g1 sig <T = 8 s, d = 1 J>
  sched.task @b on @g0 after [@a] start 2 s sig <T = 4 s, d = 1 J> options [#energy.option<sm_mhz = 2000, T = 7 s, d = 0 J>, #energy.option<sm_mhz = 1900, T = 4 s, d = 1 J>]
  sched.task @c on @g0 sig <T = 2 s, d = 1 J> options [#energy.option<sm_mhz = 2000, T = 2 s, d = 1 J>]
}

// -----

// @a slower (1000 MHz, 2 s, 1 J) switches before @b, recorded at 5 s: the
// switch fits in the wait (4-5 s), so the deadline 6 s is met -- it was
// refused ("no frontier point meets the deadline 6 s with its clock
// switches") when the switch could start only at @b's start.
// SUMMARY: @s2 plan
// SUMMARY: plan      6 s  8 J
sched.schedule @s2 {
  sched.device @g kind "X" static 1 W {energy.switch = #energy.sig<T = 1 s, d = 0 J>}
  sched.task @a on @g sig <T = 1 s, d = 5 J> options [#energy.option<sm_mhz = 2000, T = 1 s, d = 5 J>, #energy.option<sm_mhz = 1000, T = 2 s, d = 1 J>]
  sched.task @b on @g start 5 s sig <T = 1 s, d = 1 J> options [#energy.option<sm_mhz = 2000, T = 1 s, d = 1 J>]
}
