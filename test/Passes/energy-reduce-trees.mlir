// Two trees naming their elements alike (two lowered schedules of one job)
// keep an edge each: a tree's edges follow it, and a rerun updates only its
// own (one edge was overwritten by the other tree's perturbation).
// RUN: energy-opt %s --energy-propagate-context --energy-reduce 2>/dev/null | FileCheck %s
// CHECK: energy.seq @s1
// CHECK: energy.interaction @a -> @c mechanism "thermal" perturbation 10.55
// CHECK: energy.seq @s2
// CHECK: energy.interaction @a -> @c mechanism "thermal" perturbation 13.95
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @s1 {
  energy.element @a on @gpu sig <T = 5 s, d = 1440 J> {energy.insensitive}
  energy.element @c on @gpu sig <T = 2 s, d = 100 J>
}
energy.seq @s2 {
  energy.element @a on @gpu sig <T = 5 s, d = 2000 J> {energy.insensitive}
  energy.element @c on @gpu sig <T = 2 s, d = 100 J>
}
