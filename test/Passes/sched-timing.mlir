// RUN: energy-opt %s --sched-timing -split-input-file -verify-diagnostics | FileCheck %s

// List scheduling: dependencies (finish-to-start, start-to-start with lag),
// stream order, measured starts kept.
// CHECK-LABEL: sched.schedule @t
// CHECK:  sched.task @a on @g start 0 s
// CHECK:  sched.task @b on @g after [@a] start 10 ms
// CHECK:  sched.task @c on @g stream 1 with [@b] lag 2 ms start 12 ms
// CHECK:  sched.task @d on @g start 30 ms
// CHECK:  sched.task @e on @g start 30 ms
// CHECK:  sched.task @f on @h after [@e] start 40 ms
sched.schedule @t {
  sched.device @g kind "A100" static 60 W
  sched.device @h kind "A100" static 60 W
  sched.task @a on @g sig <T = 10 ms, d = 1 J>
  sched.task @b on @g after [@a] sig <T = 5 ms, d = 1 J>
  sched.task @c on @g stream 1 with [@b] lag 2 ms sig <T = 5 ms, d = 1 J>
  // Measured start: kept.
  sched.task @d on @g start 30 ms sig <T = 0 s, d = 0 J>
  // Stream 0 is free at 30 ms (d has zero length).
  sched.task @e on @g sig <T = 10 ms, d = 1 J>
  sched.task @f on @h after [@e] sig <T = 1 ms, d = 1 J>
}

// -----

// A dependency against stream order deadlocks: b waits for c, which is
// behind b on stream 0.
// expected-error @+1 {{'sched.schedule' op cannot be timed: dependencies and stream order form a cycle: @b -> @c -> @b}}
sched.schedule @dead {
  sched.device @g kind "A100" static 60 W
  sched.task @b on @g after [@c] sig <T = 1 ms, d = 1 J>
  sched.task @c on @g sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @nosig {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op @x has no duration: give it `for <time>` or a signature}}
  sched.task @x on @g db "key"
}
