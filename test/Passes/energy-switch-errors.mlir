// A device's clock-switch cost must be a signature: the dialect's
// attribute verifier names the device (before any pass reads it).
// RUN: not energy-opt %s --energy-plan="max-slowdown=25" 2>&1 | FileCheck %s
// RUN: not energy-opt %s --energy-emit-dvfs 2>&1 | FileCheck %s
// CHECK: energy-switch-errors.mlir:7:3: error: 'sched.device' op 'energy.switch' must be #energy.sig<...>; got "1 ms"
sched.schedule @s {
  sched.device @g kind "X" static 10 W {energy.switch = "1 ms"}
  sched.task @a on @g sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 14 ms, d = 700 mJ>] attributes {energy.dvfs = #energy.op_point<sm_mhz = 1200>}
}
