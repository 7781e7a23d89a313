// RUN: energy-opt %s --energy-propagate-context --energy-evaluate -split-input-file | FileCheck %s

// A co-runner wrapped in a one-operand seq is the same co-runner: Axiom P5's
// constant slowdown applies over the par either way. Demand 0.8 + 0.6 on a
// capacity of 1.0: slowdown 1.4 for both, y 2 s -> 2.8 s; E = 100 W x 2.8 s
// + 100 J + 100 J = 480 J (it read 440 J when y sat in `energy.seq { y }`,
// which took the time-resolved form).
// CHECK-LABEL: energy.par @direct
// CHECK-SAME: E_J = 4.800000e+02 : f64
// CHECK-SAME: T_s = 2.800000e+00 : f64
energy.device @g kind "A100" static 100 W {energy.capacity = {hbm = 1.0}}
energy.par @direct {
  energy.element @x on @g sig <T = 1 s, d = 100 J> {energy.demand = {hbm = 0.8}}
  energy.element @y on @g sig <T = 2 s, d = 100 J> {energy.demand = {hbm = 0.6}}
}

// -----

// CHECK-LABEL: energy.par @wrapped
// CHECK-SAME: E_J = 4.800000e+02 : f64
// CHECK-SAME: T_s = 2.800000e+00 : f64
// CHECK: energy.element @y {{.*}}energy.contention_slowdown = 1.4
energy.device @g kind "A100" static 100 W {energy.capacity = {hbm = 1.0}}
energy.par @wrapped {
  energy.element @x on @g sig <T = 1 s, d = 100 J> {energy.demand = {hbm = 0.8}}
  energy.seq {
    energy.par {
      energy.element @y on @g sig <T = 2 s, d = 100 J> {energy.demand = {hbm = 0.6}}
    }
  }
}
