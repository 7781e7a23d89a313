// A pipeline's point-to-point latency: every cross-stage dependency of the
// expansion carries it as a finish-to-start `delay`, timing and lowering
// respect it, and GPipe's makespan is the closed form
// (M + S - 1)(F + B) + 2 (S - 1) delta = 3 x 30 ms + 2 x 5 ms = 100 ms.
// RUN: energy-opt %s --sched-expand | FileCheck %s --check-prefix=EXPAND
// RUN: energy-opt %s --sched-expand | energy-opt | FileCheck %s --check-prefix=EXPAND
// RUN: energy-opt %s --sched-expand --sched-timing | FileCheck %s --check-prefix=TIMING
// RUN: energy-opt %s --sched-expand --sched-timing --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL
// RUN: energy-opt %s --sched-expand --energy-frontier | FileCheck %s --check-prefix=FRONTIER

// EXPAND: sched.task @F0_0 on @stage0 kind "forward"
// EXPAND: sched.task @B0_0 on @stage0 after [@B1_0] delay 5 ms kind "backward"
// EXPAND: sched.task @F1_0 on @stage1 after [@F0_0] delay 5 ms kind "forward"
// The last stage's backward follows its own forward on the same device: no link.
// EXPAND: sched.task @B1_0 on @stage1 after [@F1_0] kind "backward"

// TIMING-DAG: @F1_0 on @stage1 after [@F0_0] delay 5 ms {{.*}} start 15 ms
// TIMING-DAG: @B1_0 on @stage1 after [@F1_0] {{.*}} start 35 ms
// TIMING-DAG: @B0_0 on @stage0 after [@B1_0] delay 5 ms {{.*}} start 0.06{{0*[0-9]*}} s

// EVAL: energy.multi @p -> sig <s = 120 W, T = 0.1000{{[0-9]*}} s
// FRONTIER: energy.frontier = {{\[\[}}0.1000{{[0-9]*}}, 3.600000e+01, 3.600000e+01]]

sched.schedule @p {
  sched.pipeline @train {stages = 2, microbatches = 2, schedule = "gpipe",
      device_kind = "A100-SXM4", static_power = 60.0, p2p_latency = 5.0e-3,
      forward = #energy.sig<T = 10 ms, d = 2 J>,
      backward = #energy.sig<T = 20 ms, d = 4 J>}
}
