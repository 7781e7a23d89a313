// With -split-input-file each chunk is printed on its own; its operating
// sets are written inline (not as `#opset` aliases each chunk would define
// again), so the output reads back as one file and the exporters take it.
// RUN: energy-opt %s -split-input-file -o %t.mlir
// RUN: energy-opt %t.mlir | FileCheck %s
// RUN: energy-translate --export-perfetto %t.mlir -o /dev/null
// CHECK: #opset = [#energy.option<sm_mhz = 1410, T = 1 s, d = 10 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 7 J>]
// CHECK: sched.task @a on @g sig <T = 1 s, d = 10 J> options #opset{{$}}
// CHECK: sched.task @b on @g sig <T = 1 s, d = 10 J> options #opset{{$}}
sched.schedule @one {
  sched.device @g kind "A100" static 60 W
  sched.task @a on @g sig <T = 1 s, d = 10 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 10 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 7 J>]
}

// -----

sched.schedule @two {
  sched.device @g kind "A100" static 60 W
  sched.task @b on @g sig <T = 1 s, d = 10 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 10 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 7 J>]
}
