// A measured collective's parts may wait on their own (`part_after`): a
// rank's kernel that its part waited for (an imported trace's flow, by
// hand here) holds that part only. @c's part on @g1 waits for @b (20 us);
// its part on @g0 waits for nothing and starts at 0 -- with a wait on the
// whole collective (`after [@b]`) both parts would start at 20 us.
// RUN: energy-opt %s --split-input-file --sched-timing | FileCheck %s
// CHECK: sched.collective @c on [@g0, @g1] part_after {{\[\[\], \[@b\]\]}} starts [0 s, 20 us] durations [30 us, 15 us] energies [3 mJ, 1.5 mJ]
// CHECK: sched.collective @c on [@g0, @g1] after [@b] starts [20 us, 20 us]
// The lowered tree's makespan: max(0 + 30, 20 + 15) = 35 us; by hand, the
// energy is 2 x 60 W x 35 us + 2 mJ + 4.5 mJ = 10.7 mJ (the whole
// collective waiting: 50 us, 6 mJ + 6.5 mJ = 12.5 mJ).
// RUN: energy-opt %s --split-input-file --sched-timing --sched-to-energy --energy-evaluate="summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL: energy   10.7 mJ
// EVAL: time     35 us
// EVAL: energy   12.5 mJ
// EVAL: time     50 us
sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 60 W
  sched.task @b on @g1 sig <T = 20 us, d = 2 mJ>
  sched.collective @c on [@g0, @g1] part_after [[], [@b]] durations [30 us, 15 us] energies [3 mJ, 1.5 mJ]
}

// -----

sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 60 W
  sched.task @b on @g1 sig <T = 20 us, d = 2 mJ>
  sched.collective @c on [@g0, @g1] after [@b] durations [30 us, 15 us] energies [3 mJ, 1.5 mJ]
}
