// RUN: not energy-opt %s --energy-plan="objective=speed" 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: not energy-opt %s --energy-plan="deadline=1" 2>&1 | FileCheck %s --check-prefix=DEADLINE
// RUN: not energy-opt %s --energy-plan="crash-budget=-5" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not energy-opt %s --energy-frontier="crash-budget=abc" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not energy-opt %s --energy-frontier="class-sweep-above=-1" 2>&1 | FileCheck %s --check-prefix=CLASS
// CLASS: for the --class-sweep-above option: {{.*}} value invalid
// BUDGET: for the --crash-budget option: {{.*}} value invalid

// OBJ: energy-plan: objective must be energy, edp or ed2p; got 'speed'
// DEADLINE: 'sched.schedule' op energy-plan: no frontier point meets the deadline 1 s; the fastest makespan is 10 s
sched.schedule @s {
  sched.device @g0 kind "X" static 1 W
  sched.task @a on @g0 sig <T = 10 s, d = 100 J>
}
