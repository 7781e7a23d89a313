// RUN: energy-opt --mlir-print-local-scope %s | FileCheck %s
// RUN: energy-opt --mlir-print-local-scope %s | energy-opt --mlir-print-local-scope | FileCheck %s
// By default an operating set prints once, as an alias its tasks name; it
// reads back to the same IR.
// RUN: energy-opt %s | FileCheck %s --check-prefix=ALIAS
// ALIAS: #opset = [#energy.option<sm_mhz = 1410, T = 50 ms, d = 20 J>, #energy.option<sm_mhz = 1200, T = 58 ms, d = 16 J>]
// ALIAS: sched.task @F1_0 on @gpu1 after [@F0_0] kind "forward" sig <T = 50 ms, d = 20 J> options #opset{{$}}
// RUN: energy-opt %s | energy-opt --mlir-print-local-scope | FileCheck %s
// RUN: energy-opt --mlir-print-local-scope %s -mlir-print-op-generic | energy-opt --mlir-print-local-scope | FileCheck %s
// RUN: energy-opt --mlir-print-local-scope %s -emit-bytecode | energy-opt --mlir-print-local-scope | FileCheck %s
// A task's start and duration are properties: an f64, or `none`.
// RUN: energy-opt --mlir-print-local-scope %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
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

// An integer written for a generator's f64 field is that number (MLIR's
// attribute dictionary would type it i64, which the field refuses); one at
// its default is left out, as every default is.
// CHECK-LABEL: sched.schedule @integers {
// CHECK-NEXT:    sched.pipeline @p {backward = #energy.sig<T = 2 ms, d = 4 J>, device_kind = "A40", forward = #energy.sig<T = 1 ms, d = 2 J>, microbatches = 4 : i64, p2p_latency = 1.000000e+00 : f64, schedule = "1f1b", stages = 2 : i64, static_power = 1.000000e+02 : f64}
// CHECK-NEXT:    sched.serve @chat {arrival_rate = 2.000000e+00 : f64, device_kind = "H100", hbm_bandwidth = 3.350000e+12 : f64, iteration_overhead = 0.000000e+00 : f64, kv_bytes_per_token = 1.310720e+05 : f64, layers = 28 : i64, max_batch = 8 : i64, num_requests = 4 : i64, output_max = 16 : i64, output_min = 8 : i64, policy = "continuous", prefill_tokens_per_s = 2.000000e+04 : f64, prompt_max = 32 : i64, prompt_min = 16 : i64, static_power = 1.200000e+02 : f64, weight_bytes = 1.500000e+10 : f64}
sched.schedule @integers {
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "1f1b", device_kind = "A40", static_power = 100, p2p_latency = 1, sync = 0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
  sched.serve @chat {weight_bytes = 15000000000, kv_bytes_per_token = 131072, layers = 28, max_batch = 8, policy = "continuous", num_requests = 4, arrival_rate = 2, prompt_min = 16, prompt_max = 32, output_min = 8, output_max = 16, hbm_bandwidth = 3350000000000, prefill_tokens_per_s = 20000, iteration_overhead = 0, device_kind = "H100", static_power = 120}
}
