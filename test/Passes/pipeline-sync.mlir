// A pipeline's closing synchronization (`sync`): after every device's last
// pass all devices wait `sync` together, as a collective @sync of static
// power only. GPipe with the point-to-point latency of p2p-latency.mlir:
// makespan (M + S - 1)(F + B) + 2 (S - 1) delta + sync
// = 3 x 30 ms + 2 x 5 ms + 3 ms = 103 ms; energy = the 24 J of dynamic
// energy + 120 W x 103 ms = 36.36 J, whether the pipeline is expanded
// first or lowered directly, and on the frontier.
// RUN: energy-opt %s --sched-expand | FileCheck %s --check-prefix=EXPAND
// RUN: energy-opt %s --sched-expand | energy-opt | FileCheck %s --check-prefix=EXPAND
// RUN: energy-opt %s --sched-expand --sched-timing | FileCheck %s --check-prefix=TIMING
// RUN: energy-opt %s --sched-expand --sched-timing --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL
// RUN: energy-opt %s --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL
// RUN: energy-opt %s --sched-expand --energy-frontier | FileCheck %s --check-prefix=FRONTIER

// EXPAND: sched.collective @sync on [@stage0, @stage1] after [@B0_0, @B0_1] kind "sync" sig <T = 3 ms, d = 0 J>
// TIMING: sched.collective @sync on [@stage0, @stage1] after [@B0_0, @B0_1] kind "sync" start 0.1{{0*[0-9]*}} s
// EVAL: energy.multi @p -> sig <s = 120 W, T = 0.1030{{[0-9]*}} s, d = 24 J
// EVAL-SAME: E_J = 3.636000e+01
// FRONTIER: energy.frontier = {{\[\[}}0.1030{{[0-9]*}}, 3.636000e+01, 3.636000e+01]]

sched.schedule @p {
  sched.pipeline @train {stages = 2, microbatches = 2, schedule = "gpipe",
      device_kind = "A100-SXM4", static_power = 60.0, p2p_latency = 5.0e-3,
      sync = 3.0e-3,
      forward = #energy.sig<T = 10 ms, d = 2 J>,
      backward = #energy.sig<T = 20 ms, d = 4 J>}
}
