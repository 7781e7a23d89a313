// A collective's parts are named <collective>.<device>; where a task holds
// that name already, the part takes the next free <name>_<k> (the lowering
// made a tree its own verifier refused: "duplicate name @c.g").
// RUN: energy-opt %s --sched-to-energy --energy-evaluate | FileCheck %s
// CHECK-DAG: energy.element @c.g on @g
// CHECK-DAG: energy.element @c.g_1 on @g
// CHECK-DAG: energy.element @c.h on @h
sched.schedule @iter {
  sched.device @g kind "A" static 60 W
  sched.device @h kind "A" static 60 W
  sched.task @c.g on @g sig <T = 1 ms, d = 1 J>
  sched.collective @c on [@g, @h] after [@c.g] sig <T = 1 ms, d = 1 J>
}
