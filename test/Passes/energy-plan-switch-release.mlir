// A clock switch before a task released late starts no earlier than the
// release (the device is not the job's before): the plan's time with its
// switches counts from the release, as --energy-emit-dvfs writes the switch.
// By hand, from the release at 10 s: the lane wraps from @b's 1410 MHz to
// @a's 705 (switch, 50 ms), @a 1.2 s, switch 50 ms, @b 1 s: 2.3 s; 2 W x 2.3
// s + 40 J + 80 J + 2 x 100 mJ = 124.8 J. (The switch began at 0 and the
// plan ran 12.25 s.)
// RUN: energy-opt %s --energy-plan="max-slowdown=1000" --energy-emit-dvfs -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// CHECK: E_with_switches_J = {{124.8000000[0-9]*|1.248000e\+02}}
// CHECK-SAME: T_with_switches_s = {{2.300000[0-9]*|2.300000e\+00}}
// CHECK: sched.task @a.switch on @g release 10 s kind "dvfs-switch"
// RUN: energy-opt %t.mlir --sched-to-energy --energy-evaluate -o %t.re.mlir
// RUN: %python %S/plan_reevaluates.py %t.mlir %t.re.mlir | FileCheck %s --check-prefix=AGAIN
// AGAIN: plan re-evaluates to its claim
sched.schedule @wrap {
  sched.device @g kind "X" static 2 W {energy.switch = #energy.sig<T = 50 ms, d = 100 mJ>}
  sched.task @a on @g release 10 s sig <T = 1 s, d = 100 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 100 J>, #energy.option<sm_mhz = 705, T = 1.2 s, d = 40 J>]
  sched.task @b on @g after [@a] sig <T = 1 s, d = 80 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 80 J>, #energy.option<sm_mhz = 1005, T = 2 s, d = 79 J>]
}
