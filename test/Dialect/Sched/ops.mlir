// RUN: energy-opt %s | FileCheck %s
// RUN: energy-opt %s | energy-opt | FileCheck %s
// RUN: energy-opt %s -mlir-print-op-generic | energy-opt | FileCheck %s
// RUN: energy-opt %s -emit-bytecode | energy-opt | FileCheck %s
// A task's start and duration are properties: an f64, or `none`.
// RUN: energy-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// GENERIC: "sched.task"() <{device = @gpu0, duration = none, kind = "forward", sig = #energy.sig<T = 50 ms, d = 20 J>, start = none, sym_name = "F0_0"
// GENERIC: "sched.task"() <{device = @r0, duration = 7.9999999999999996E-6 : f64, kind = "kernel", start = 1.000000e-05 : f64, stream = 7 : i64, sym_name = "k0"

// CHECK-LABEL: sched.schedule @iter {
// CHECK-NEXT:    sched.device @gpu0 kind "A100-SXM4" static 60 W
// CHECK-NEXT:    sched.device @gpu1 kind "A100-SXM4" static 60 W at <sm_mhz = 1410>
// CHECK-NEXT:    sched.task @F0_0 on @gpu0 kind "forward" {microbatch = 0 : i64, stage = 0 : i64} sig <T = 50 ms, d = 20 J>
// CHECK-NEXT:    sched.task @F1_0 on @gpu1 after [@F0_0] kind "forward" sig <T = 50 ms, d = 20 J> options [#energy.option<sm_mhz = 1410, T = 50 ms, d = 20 J>, #energy.option<sm_mhz = 1200, T = 58 ms, d = 16 J>]
// CHECK-NEXT:    sched.task @B1_0 on @gpu1 stream 1 after [@F1_0] release 80 ms kind "backward" start 100 ms sig <T = 100 ms, d = 45 J, sigma_T = 1 ms>
// CHECK-NEXT:    sched.task @B0_0 on @gpu0 after [@B1_0] kind "backward" db "llama3-8b/stage0/bwd"
// CHECK-NEXT:    sched.collective @ar0 on [@gpu0, @gpu1] stream 2 with [@B0_0, @B1_0] lag 10 ms kind "allreduce" sig <T = 30 ms, d = 6 J>
// CHECK-NEXT:  }
sched.schedule @iter {
  sched.device @gpu0 kind "A100-SXM4" static 60 W
  sched.device @gpu1 kind "A100-SXM4" static 60 W at #energy.op_point<sm_mhz = 1410>
  sched.task @F0_0 on @gpu0 kind "forward" {stage = 0, microbatch = 0} sig <T = 50 ms, d = 20 J>
  sched.task @F1_0 on @gpu1 after [@F0_0] kind "forward" sig <T = 50 ms, d = 20 J> options [#energy.option<sm_mhz = 1410, T = 50 ms, d = 20 J>, #energy.option<T = 58 ms, d = 16 J, sm_mhz = 1200>]
  sched.task @B1_0 on @gpu1 stream 1 after [@F1_0] release 80 ms kind "backward" start 0.1 s sig <T = 100 ms, d = 45 J, sigma_T = 1 ms>
  sched.task @B0_0 on @gpu0 after [@B1_0] kind "backward" db "llama3-8b/stage0/bwd"
  sched.collective @ar0 on [@gpu0, @gpu1] stream 2 with [@B0_0, @B1_0] lag 10 ms kind "allreduce" sig <T = 30 ms, d = 6 J>
}

// CHECK-LABEL: sched.schedule @gen {
// CHECK-NEXT:    sched.pipeline @train {backward = #energy.sig<T = 2 ms, d = 4 J>, device_kind = "A40", forward = #energy.sig<T = 1 ms, d = 2 J>, microbatches = 4 : i64, schedule = "1f1b", stages = 2 : i64, static_power = 6.500000e+01 : f64}
sched.schedule @gen {
  sched.pipeline @train {stages = 2, microbatches = 4, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// A measured collective: one part per device with its own start, duration
// and dynamic energy; a task with a measured duration but no energy yet.
// CHECK-LABEL: sched.schedule @measured {
// CHECK:         sched.task @k0 on @r0 stream 7 kind "kernel" {name = "gemm"} start 10 us for 8 us
// CHECK-NEXT:    sched.collective @ar0 on [@r0, @r1] kind "allreduce" starts [20 us, 21 us] durations [2.146 ms, 2.1 ms] energies [150 mJ, 140 mJ] streams [84, 85]
sched.schedule @measured {
  sched.device @r0 kind "V100" static 40 W
  sched.device @r1 kind "V100" static 40 W
  sched.task @k0 on @r0 stream 7 kind "kernel" {name = "gemm"} start 10 us for 8 us
  sched.collective @ar0 on [@r0, @r1] kind "allreduce" starts [20 us, 21 us] durations [2146 us, 2.1 ms] energies [150 mJ, 0.14 J] streams [84, 85]
}
