// Recorded starts (an imported trace's, or --sched-timing's) mean the same
// thing to the planner and to the lowering: a task never starts before its
// recorded start. So the baseline is the recorded timeline, slack before a
// recorded collective is free to use, and the planned schedule re-lowers to
// exactly what the plan claims.
// RUN: rm -rf %t && mkdir -p %t
// RUN: energy-opt %s --sched-to-energy --energy-evaluate="summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BASE
// RUN: energy-opt %s --energy-plan="max-slowdown=0 summary=true" -o %t/planned.mlir 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: energy-opt %t/planned.mlir --sched-to-energy --energy-evaluate -o %t/re.mlir
// RUN: %python %S/plan_reevaluates.py %t/planned.mlir %t/re.mlir | FileCheck %s --check-prefix=AGAIN
//
// Timeline: a on g0 0-1 ms, b on g1 0-0.5 ms, the all-reduce recorded at
// 2-3 ms on both. Static 2 x 50 W x 3 ms = 300 mJ; d = 200 + 100 + 2 x 80 =
// 460 mJ.
// BASE: energy   760 mJ
// BASE: time     3 ms
// Both tasks slow into the slack before the all-reduce (a to 1.5 ms, b to
// 0.8 ms, both still done by 2 ms): 80 mJ less at the same 3 ms.
// PLAN: baseline  3 ms  760 mJ
// PLAN: plan      3 ms  680 mJ
// AGAIN: plan re-evaluates to its claim
sched.schedule @s {
  sched.device @g0 kind "A100" static 50 W
  sched.device @g1 kind "A100" static 50 W
  sched.task @a on @g0 start 0 ms for 1 ms sig <T = 1 ms, d = 200 mJ> options [#energy.option<sm_mhz = 1410, T = 1 ms, d = 200 mJ>, #energy.option<sm_mhz = 1005, T = 1.5 ms, d = 150 mJ>]
  sched.task @b on @g1 start 0 ms for 0.5 ms sig <T = 0.5 ms, d = 100 mJ> options [#energy.option<sm_mhz = 1410, T = 0.5 ms, d = 100 mJ>, #energy.option<sm_mhz = 1005, T = 0.8 ms, d = 70 mJ>]
  sched.collective @c on [@g0, @g1] kind "allreduce" starts [2 ms, 2 ms] durations [1 ms, 1 ms] energies [80 mJ, 80 mJ]
}
