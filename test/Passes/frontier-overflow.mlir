// A schedule whose makespan overflows a double (a closing sync of 1.7e308 s
// after 30 ms of passes) has no finite frontier point: the frontier and the
// plan say so at the schedule instead of planning on nothing (the plan
// crashed here).
// RUN: not energy-opt %s --sched-expand --energy-plan=max-slowdown=5 2>&1 | FileCheck %s
// RUN: not energy-opt %s --sched-expand --energy-frontier 2>&1 | FileCheck %s
// CHECK: frontier-overflow.mlir:[[@LINE+2]]:1: error: 'sched.schedule' op frontier: no finite point (the schedule's times or energies overflow a double)

sched.schedule @p {
  sched.pipeline @train {stages = 1, microbatches = 1, schedule = "gpipe",
      device_kind = "A100-SXM4", static_power = 60.0, sync = 1.7e308,
      forward = #energy.sig<T = 10 ms, d = 2 J>,
      backward = #energy.sig<T = 20 ms, d = 4 J>}
}
