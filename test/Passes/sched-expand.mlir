// RUN: energy-opt --mlir-print-local-scope %s --sched-expand -split-input-file | FileCheck %s

// 1F1B, 3 stages, 4 microbatches: stage s warms up with min(S - s - 1, M)
// forwards, then alternates, then drains.
// CHECK-LABEL: sched.schedule @onefoneb
// CHECK:      sched.device @stage0 kind "A40" static 65 W
// CHECK:      sched.task @F0_0 on @stage0 kind "forward" {microbatch = 0 : i64, stage = 0 : i64}
// CHECK-NEXT: sched.task @F0_1 on @stage0 kind "forward" {microbatch = 1
// CHECK-NEXT: sched.task @F0_2
// CHECK-NEXT: sched.task @B0_0 on @stage0 after [@B1_0]
// CHECK-NEXT: sched.task @F0_3
// CHECK-NEXT: sched.task @B0_1
// CHECK-NEXT: sched.task @B0_2
// CHECK-NEXT: sched.task @B0_3
// CHECK-NEXT: sched.task @F1_0 on @stage1 after [@F0_0]
// CHECK-NEXT: sched.task @F1_1
// CHECK-NEXT: sched.task @B1_0 on @stage1 after [@B2_0]
// CHECK-NEXT: sched.task @F1_2
// CHECK-NEXT: sched.task @B1_1
// CHECK-NEXT: sched.task @F1_3
// CHECK-NEXT: sched.task @B1_2
// CHECK-NEXT: sched.task @B1_3
// CHECK-NEXT: sched.task @F2_0 on @stage2 after [@F1_0]
// CHECK-NEXT: sched.task @B2_0 on @stage2 after [@F2_0]
// CHECK-NEXT: sched.task @F2_1
// CHECK-NEXT: sched.task @B2_1
// CHECK-NOT:  sched.pipeline
sched.schedule @onefoneb {
  sched.pipeline @p {stages = 3, microbatches = 4, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// GPipe: all forwards, then all backwards. Tensor parallelism: a lockstep
// group of 4 GPUs per stage, one device of 4 x 65 W.
// CHECK-LABEL: sched.schedule @gpipe
// CHECK:      sched.device @stage0 kind "4xA40" static 260 W
// CHECK:      sched.task @F0_0
// CHECK-NEXT: sched.task @F0_1
// CHECK-NEXT: sched.task @B0_0
// CHECK-NEXT: sched.task @B0_1
sched.schedule @gpipe {
  sched.pipeline @p {stages = 2, microbatches = 2, schedule = "gpipe", tensor_parallel = 4, device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// Interleaved 1F1B (Megatron-LM), 2 ranks x 2 chunks, 2 microbatches: rank
// 0 runs virtual stages 0 and 2; warm-up (S - s - 1) * 2 + (v - 1) * S = 4.
// CHECK-LABEL: sched.schedule @interleaved
// CHECK:      sched.task @F0_0 on @stage0 kind "forward" {chunk = 0 : i64, microbatch = 0 : i64, stage = 0 : i64}
// CHECK-NEXT: sched.task @F0_1 on @stage0
// CHECK-NEXT: sched.task @F2_0 on @stage0 after [@F1_0] kind "forward" {chunk = 1 : i64, microbatch = 0 : i64, stage = 2 : i64}
// CHECK-NEXT: sched.task @F2_1 on @stage0
// CHECK-NEXT: sched.task @B2_0 on @stage0 after [@B3_0]
// CHECK-NEXT: sched.task @B2_1
// CHECK-NEXT: sched.task @B0_0 on @stage0 after [@B1_0]
// CHECK-NEXT: sched.task @B0_1
// CHECK-NEXT: sched.task @F1_0 on @stage1 after [@F0_0]
// CHECK-NEXT: sched.task @F1_1
// CHECK-NEXT: sched.task @F3_0 on @stage1 after [@F2_0]
// CHECK-NEXT: sched.task @B3_0 on @stage1 after [@F3_0]
sched.schedule @interleaved {
  sched.pipeline @p {stages = 2, microbatches = 2, chunks = 2, schedule = "interleaved-1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// ZB-H1: backward split into B and W; stage s keeps s W passes deferred.
// CHECK-LABEL: sched.schedule @zb
// CHECK:      sched.task @F0_0 on @stage0
// CHECK-NEXT: sched.task @F0_1 on @stage0
// CHECK-NEXT: sched.task @B0_0 on @stage0
// CHECK-NEXT: sched.task @W0_0 on @stage0 after [@B0_0] kind "weight"
// CHECK-NEXT: sched.task @F0_2
// CHECK-NEXT: sched.task @B0_1
// CHECK-NEXT: sched.task @W0_1
// CHECK-NEXT: sched.task @B0_2
// CHECK-NEXT: sched.task @W0_2
// CHECK-NEXT: sched.task @F1_0 on @stage1
// CHECK-NEXT: sched.task @B1_0
// CHECK-NEXT: sched.task @F1_1
// CHECK-NEXT: sched.task @B1_1
// CHECK-NEXT: sched.task @W1_0
// CHECK-NEXT: sched.task @F1_2
// CHECK-NEXT: sched.task @B1_2
// CHECK-NEXT: sched.task @W1_1
// CHECK-NEXT: sched.task @W1_2
sched.schedule @zb {
  sched.pipeline @p {stages = 2, microbatches = 3, schedule = "zb-h1", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 1 ms, d = 2 J>, weight = #energy.sig<T = 1 ms, d = 1 J>}
}

// -----

// Operating sets: each task runs at its set's highest-clock option and keeps
// the set.
// CHECK-LABEL: sched.schedule @opsets
// CHECK: sched.task @F0_0 on @stage0 kind "forward" {microbatch = 0 : i64, stage = 0 : i64} sig <T = 10 ms, d = 5 J> options [#energy.option<sm_mhz = 1740, T = 10 ms, d = 5 J>, #energy.option<sm_mhz = 1200, T = 14 ms, d = 3 J>]
sched.schedule @opsets {
  sched.pipeline @p {stages = 1, microbatches = 1, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward_options = [#energy.option<sm_mhz = 1740, T = 10 ms, d = 5 J>, #energy.option<sm_mhz = 1200, T = 14 ms, d = 3 J>], backward = #energy.sig<T = 20 ms, d = 9 J>}
}
