// A schedule whose dependencies and stream order form a cycle (a task
// after one written later on its stream, a task after a collective on its
// own stream) cannot be timed: --energy-plan says so at the schedule, as
// --sched-timing does, instead of timing it (it crashed).
// RUN: not energy-opt %s --energy-plan="max-slowdown=5" -split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'sched.schedule' op cannot be timed: dependencies and stream order form a cycle: @a -> @b -> @a
// CHECK: error: 'sched.schedule' op cannot be timed: dependencies and stream order form a cycle: @a -> @c -> @a
sched.schedule @streamcyc {
  sched.device @d kind "A100" static 60 W
  sched.task @a on @d after [@b] sig <T = 1 ms, d = 1 J> options [#energy.option<sm_mhz = 1410, T = 1 ms, d = 1 J>, #energy.option<sm_mhz = 1005, T = 2 ms, d = 0.5 J>]
  sched.task @b on @d sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @collcyc {
  sched.device @d kind "A100" static 60 W
  sched.device @e kind "A100" static 60 W
  sched.task @a on @d after [@c] sig <T = 1 ms, d = 1 J>
  sched.collective @c on [@d, @e] sig <T = 1 ms, d = 1 J>
}
