// RUN: energy-opt %s -verify-diagnostics -o /dev/null
// Fixed starts: zero-length tasks occupy no time (17 alternating 0 ms / 5 ms
// tasks back to back verify; above 16 elements std::sort is not stable and a
// start-only order used to put a 0 ms task after the 5 ms task that shares
// its start). Overlaps: invalid.mlir.
// --sched-timing's output verifies too.
// RUN: energy-opt %s --sched-timing | energy-opt --sched-timing | FileCheck %s
// CHECK: sched.task @t16 on @g start 40 ms for 0 s
// expected-no-diagnostics
sched.schedule @ok {
  sched.device @g kind "A100" static 60 W
  sched.task @t0 on @g start 0 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t1 on @g start 0 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t2 on @g start 5 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t3 on @g start 5 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t4 on @g start 10 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t5 on @g start 10 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t6 on @g start 15 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t7 on @g start 15 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t8 on @g start 20 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t9 on @g start 20 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t10 on @g start 25 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t11 on @g start 25 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t12 on @g start 30 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t13 on @g start 30 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t14 on @g start 35 ms for 0 ms sig <T = 0 ms, d = 1 J>
  sched.task @t15 on @g start 35 ms for 5 ms sig <T = 5 ms, d = 1 J>
  sched.task @t16 on @g start 40 ms for 0 ms sig <T = 0 ms, d = 1 J>
}

