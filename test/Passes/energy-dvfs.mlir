// RUN: energy-opt %s --energy-emit-dvfs | FileCheck %s
// RUN: energy-opt %s --energy-emit-dvfs --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL

// A planned device: clocks 1200, 1200, 900, 1200. Runs of equal clocks keep
// the setting on their first task; each switch (1200 -> 900 -> 1200) costs
// the device's declared 1 ms and 50 mJ and becomes a task.
// CHECK-LABEL: sched.schedule @s
// CHECK:      sched.task @a on @g sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
// CHECK-NEXT: sched.task @b on @g sig <T = 10 ms, d = 1 J>{{$}}
// CHECK-NEXT: sched.task @c.switch on @g kind "dvfs-switch" {from_mhz = 1200 : i64, to_mhz = 900 : i64} sig <T = 1 ms, d = 50 mJ>
// CHECK-NEXT: sched.task @c on @g sig <T = 14 ms, d = 700 mJ> attributes {energy.dvfs = #energy.op_point<sm_mhz = 900>}
// CHECK-NEXT: sched.task @d.switch on @g kind "dvfs-switch" {from_mhz = 900 : i64, to_mhz = 1200 : i64}
// CHECK-NEXT: sched.task @d on @g sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
sched.schedule @s {
  sched.device @g kind "X" static 10 W {energy.switch = #energy.sig<T = 1 ms, d = 50 mJ>}
  sched.task @a on @g sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
  sched.task @b on @g sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
  sched.task @c on @g sig <T = 14 ms, d = 700 mJ> attributes {energy.dvfs = #energy.op_point<sm_mhz = 900>}
  sched.task @d on @g sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
}
// Interval accounting: 10 W x (10 + 10 + 1 + 14 + 1 + 10) ms + (3.7 + 0.1) J
// = 0.46 J + 3.8 J = 4.26 J.
// EVAL: energy.multi @s -> sig <s = 10 W, T = {{46 ms|0.04600*[0-9]* s}}, d = 3.8 J
// EVAL-SAME: E_J = 4.26

// A planned schedule learns what its switches cost: 2 clock changes, the
// re-timed makespan 46 ms and energy 4.26 J (as above) next to the plan's
// own 44 ms / 4.14 J.
// CHECK-LABEL: sched.schedule @planned attributes {energy.plan = {E_J = 4.140000e+00 : f64, E_with_switches_J = {{4.26[0-9]*e\+00|4.26[0-9]*}} : f64, T_s = 4.400000e-02 : f64, T_with_switches_s = {{4.6[0-9]*e-02|0.0460000[0-9]*}} : f64, switches = 2 : i64}}
sched.schedule @planned attributes {energy.plan = {T_s = 4.4e-2, E_J = 4.14}} {
  sched.device @h kind "X" static 10 W {energy.switch = #energy.sig<T = 1 ms, d = 50 mJ>}
  sched.task @a on @h sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
  sched.task @b on @h sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
  sched.task @c on @h sig <T = 14 ms, d = 700 mJ> attributes {energy.dvfs = #energy.op_point<sm_mhz = 900>}
  sched.task @d on @h sig <T = 10 ms, d = 1 J> attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
}
