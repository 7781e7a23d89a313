// A schedule made of one pipeline generator lowers straight from the
// calculus (no sched.task ops in between). Both routes must give the same
// IR, op for op, with locations: GPipe with tensor parallelism, 1F1B with
// data parallelism (all-reduce collectives), interleaved 1F1B, ZB-H1 and an
// operating set.
// RUN: energy-opt %s -split-input-file --sched-expand --sched-to-energy --mlir-print-debuginfo > %t.expanded
// RUN: energy-opt %s -split-input-file --sched-to-energy --mlir-print-debuginfo > %t.direct
// RUN: diff %t.expanded %t.direct
// RUN: FileCheck %s < %t.direct
// And the evaluated totals agree with interval accounting (below).
// RUN: energy-opt %s -split-input-file --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL

// CHECK-LABEL: energy.multi @tp
// CHECK-COUNT-4: energy.element @F{{[01]}}_{{[01]}} on @stage
// CHECK-NOT: sched.
// 2 stages x 2 microbatches GPipe, each a 4-GPU group: F 1 ms, B 2 ms.
// Makespan: F00 F01|F10 F11|B10 B11|B00 B01 -> 1+2+4+2 = 9 ms; static
// 2 devices x 4 x 65 W x 9 ms = 4.68 J; d = 4 x 2 + 4 x 4 = 24 J.
// EVAL-LABEL: energy.multi @tp
// EVAL-SAME: E_J = 2.868000e+01
sched.schedule @tp {
  sched.pipeline @p {stages = 2, microbatches = 2, schedule = "gpipe", tensor_parallel = 4, device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// CHECK-LABEL: energy.multi @dp
// CHECK: energy.element @AR0.stage0_r0
// CHECK: energy.element @AR0.stage0_r1
// Two replicas of 2 stages x 3 microbatches 1F1B (F 1 ms, B 2 ms): stage 0
// runs F0 F1 | B0 F2 | B1 | B2 and ends at 12 ms; its all-reduce starts
// half a backward (1 ms) after its last backward starts (10 ms) and ends at
// 12 ms. Static 4 x 65 W x 12 ms = 3.12 J; d = 2 x 2 x (3 x 2 + 3 x 4) + 2 x 1
// = 74 J.
// EVAL-LABEL: energy.multi @dp
// EVAL-SAME: E_J = 7.712000e+01
sched.schedule @dp {
  sched.pipeline @p {stages = 2, microbatches = 3, schedule = "1f1b", data_parallel = 2, device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J, sigma_T = 10 us, sigma_d = 10 mJ>, backward = #energy.sig<T = 2 ms, d = 4 J>, allreduce = #energy.sig<T = 1 ms, d = 1 J>}
}

// -----

// CHECK-LABEL: energy.multi @interleaved
sched.schedule @interleaved {
  sched.pipeline @p {stages = 2, microbatches = 4, chunks = 2, schedule = "interleaved-1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// CHECK-LABEL: energy.multi @zb
// CHECK: energy.element @W1_0
sched.schedule @zb {
  sched.pipeline @p {stages = 2, microbatches = 3, schedule = "zb-h1", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 1 ms, d = 2 J>, weight = #energy.sig<T = 1 ms, d = 1 J>}
}

// -----

// The default option of an operating set is the highest clock (1740 MHz).
// CHECK-LABEL: energy.multi @opts
// CHECK: energy.element @F0_0 on @stage0 sig <T = 10 ms, d = 5 J>
sched.schedule @opts {
  sched.pipeline @p {stages = 1, microbatches = 1, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward_options = [#energy.option<sm_mhz = 1740, T = 10 ms, d = 5 J>, #energy.option<sm_mhz = 1200, T = 14 ms, d = 3 J>], backward = #energy.sig<T = 20 ms, d = 9 J>}
}
