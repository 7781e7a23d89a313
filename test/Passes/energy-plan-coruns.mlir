// A device has one SM clock at a time, but the planner chooses each task's
// option on its own: @a and @b run at once on two streams of @g and get 900
// and 1200 MHz, which no device runs. Said at the later task, naming both;
// tasks of one stream, or on two devices, are not.
// RUN: energy-opt %s --energy-plan="max-slowdown=0" -split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK: [[# @LINE + 5]]:3: warning: energy-plan: @b runs at 1200 MHz while @a runs at 900 MHz on the same device (1 such overlap(s)): a device has one SM clock at a time
// CHECK-NOT: warning
sched.schedule @streams {
  sched.device @g kind "X" static 10 W
  sched.task @a on @g sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 14 ms, d = 700 mJ>]
  sched.task @b on @g stream 1 sig <T = 20 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 20 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 28 ms, d = 700 mJ>]
}

// -----

sched.schedule @devices {
  sched.device @g kind "X" static 10 W
  sched.device @h kind "X" static 10 W
  sched.task @a on @g sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 14 ms, d = 700 mJ>]
  sched.task @b on @h sig <T = 20 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 20 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 28 ms, d = 700 mJ>]
  sched.task @c on @g after [@a] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 11 ms, d = 700 mJ>]
}
