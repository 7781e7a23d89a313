// A task's sigma_E without sigma_d gives var_d = sigma_E^2 - s^2 var_T with
// its device's static power, as an element's does (evaluate-sigma-e.mlir):
// 60 W, sigma_T = 10 ms, sigma_E = 2 J -> sigma_d = sqrt(4 - 0.36) J =
// 1.9079 J (it was 2 J: the schedule read s = 0).
// RUN: energy-opt %s --sched-to-energy | FileCheck %s
// CHECK: energy.element @a on @g sig <T = 1 s, d = 1 J, sigma_T = 10 ms, sigma_d = 1.9078784
sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  sched.task @a on @g sig <T = 1 s, d = 1 J, sigma_T = 10 ms, sigma_E = 2 J>
}
