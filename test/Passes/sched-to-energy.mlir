// RUN: energy-opt %s --sched-expand --sched-to-energy | FileCheck %s
// RUN: energy-opt %s --sched-expand --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL

// The paper's two-stage, two-microbatch 1F1B pipeline with a data-parallel
// all-reduce that overlaps the last backward (CALCULUS.md section 6):
//   (F1 (x) F2 (x) i (x) B1 (x) i (x) (B2 (+) (i (x) AR)))
//     (+)multi
//   (i (x) F1 (x) B1 (x) F2 (x) (B2 (+) (i (x) AR)) (x) i)
// F = 1 s, B = 2 s, AR = 0.8 s launched half-way into the last backward.
sched.schedule @iter {
  sched.pipeline @train {stages = 2, microbatches = 2, schedule = "1f1b", data_parallel = 2, device_kind = "A100-SXM4", static_power = 60.0, forward = #energy.sig<T = 1 s, d = 10 J>, backward = #energy.sig<T = 2 s, d = 20 J>, allreduce = #energy.sig<T = 800 ms, d = 8 J>}
}

// CHECK-LABEL: energy.multi @iter {
// CHECK-NEXT:    energy.seq @stage0_r0 {
// CHECK-NEXT:      energy.element @F0_0_r0 on @stage0_r0 sig <T = 1 s, d = 10 J>
// CHECK-NEXT:      energy.element @F0_1_r0 on @stage0_r0
// CHECK-NEXT:      energy.idle on @stage0_r0 for 2 s
// CHECK-NEXT:      energy.element @B0_0_r0 on @stage0_r0 sig <T = 2 s, d = 20 J>
// CHECK-NEXT:      energy.idle on @stage0_r0 for 1 s
// CHECK-NEXT:      energy.par {
// CHECK-NEXT:        energy.element @B0_1_r0 on @stage0_r0
// CHECK-NEXT:        energy.seq {
// CHECK-NEXT:          energy.idle on @stage0_r0 for 1 s
// CHECK-NEXT:          energy.element @AR0.stage0_r0 on @stage0_r0 sig <T = 800 ms, d = 4 J>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    energy.seq @stage1_r0 {
// CHECK-NEXT:      energy.idle on @stage1_r0 for 1 s
// CHECK-NEXT:      energy.element @F1_0_r0 on @stage1_r0
// CHECK-NEXT:      energy.element @B1_0_r0 on @stage1_r0
// CHECK-NEXT:      energy.element @F1_1_r0 on @stage1_r0
// CHECK-NEXT:      energy.par {
// CHECK-NEXT:        energy.element @B1_1_r0 on @stage1_r0
// CHECK-NEXT:        energy.seq {
// CHECK-NEXT:          energy.idle on @stage1_r0 for 1 s
// CHECK-NEXT:          energy.element @AR1.stage1_r0 on @stage1_r0
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      energy.idle on @stage1_r0 for 2 s
// CHECK-NEXT:    }
// CHECK:         energy.seq @stage0_r1 {
// CHECK:         energy.seq @stage1_r1 {
// CHECK-NOT:   sched.

// Interval accounting: 4 devices x 60 W x 9 s + (8 F x 10 J + 8 B x 20 J
// + 2 AR x 8 J) = 2160 J + 256 J = 2416 J.
// EVAL: energy.multi @iter -> sig <s = 240 W, T = 9 s, d = 256 J
// EVAL-SAME: E_J = 2.416000e+03
// EVAL-SAME: static_J = 2.160000e+03
