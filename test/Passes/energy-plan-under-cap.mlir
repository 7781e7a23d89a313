// A plan under a power cap (--energy-power-cap): options drawing more than
// the cap are left out, and tasks whose own signatures do so run at their
// first option within it -- in the baseline too, which says so. Worked by
// hand with a 2 W cap and 1 W static per device: @a's options draw 1 + 10/2
// = 6 W, 1 + 6/3 = 3 W, 1 + 3/6 = 1.5 W (only 500 MHz fits); @b's 1 + 20/4
// = 6 W and 1 + 8/8 = 2 W (800 MHz fits). Baseline: @a 6 s, then @b after
// a 1 s delay, 8 s: 15 s; @c (1 s with @a, no options, 3 W: warned) ends
// at 1.5 s. Energy: 2 devices x 1 W x 15 s + 3 + 8 + 2 = 43 J.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'power_limit,time,energy\n2,10,3000\n' > %t/cap.csv
// RUN: energy-opt %s --energy-power-cap="table=%t/cap.csv max-slowdown=10" --energy-plan="deadline=100 summary=true" -o /dev/null 2>&1 | FileCheck %s
// CHECK: warning: draws 3 W on average, above its device's power cap of 2 W
// CHECK: warning: energy-plan: no task of @s1 has more than one option within its device's power cap (its options at other caps left out): the plan is the schedule as it is
// CHECK: warning: energy-plan: 2 task(s) have their own signature outside their device's power cap (measured at another cap, or drawing more than it on average: @a, @b): the baseline and the plan run them at their first option within the cap
// CHECK: baseline  15 s  43 J  (every task at its current signature, or within its device's power cap at its first option that fits)
// Without the cap the same schedule names no cap:
// RUN: energy-opt %s --energy-plan="deadline=100 summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FREE
// FREE-NOT: power cap
// FREE: baseline  7 s  46 J  (every task at its current signature)

sched.schedule @s1 {
  sched.device @g0 kind "A100-SXM4" static 1 W
  sched.device @g1 kind "A100-SXM4" static 1 W
  sched.task @a on @g0 sig <T = 2 s, d = 10 J> options [#energy.option<sm_mhz = 1500, T = 2 s, d = 10 J>, #energy.option<sm_mhz = 1000, T = 3 s, d = 6 J>, #energy.option<sm_mhz = 500, T = 6 s, d = 3 J>]
  sched.task @b on @g1 after [@a] delay 1 s sig <T = 4 s, d = 20 J> options [#energy.option<sm_mhz = 1500, T = 4 s, d = 20 J>, #energy.option<sm_mhz = 800, T = 8 s, d = 8 J>]
  sched.task @c on @g0 stream 1 with [@a] lag 500 ms sig <T = 1 s, d = 2 J>
}
