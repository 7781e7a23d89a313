// RUN: energy-opt %s --energy-propagate-context --energy-evaluate -split-input-file | FileCheck %s

// Co-runners of different lengths, direct or wrapped in one-operand seqs
// and pars, co-run alike: Axiom P5 at every instant. Demand 0.8 + 0.6 on a
// capacity of 1.0: both progress at 1 / 1.4 until x's 1 s of work ends at
// 1.4 s, when y has done 1 s of its 2 s; y's last second runs alone: y
// 2.4 s (slowdown 1.2), E = 100 W x 2.4 s + 100 J + 100 J = 440 J. (Over
// the whole par, D / K = 1.4 gave y 2.8 s and 480 J directly but 440 J
// wrapped; a zero-length idle beside y changed it by 18 %.)
// CHECK-LABEL: energy.par @direct
// CHECK-SAME: E_J = 4.400000e+02 : f64
// CHECK-SAME: T_s = 2.400000e+00 : f64
// CHECK: energy.element @x {{.*}}energy.contention_slowdown = 1.4
// CHECK: energy.element @y {{.*}}energy.contention_slowdown = 1.2
energy.device @g kind "A100" static 100 W {energy.capacity = {hbm = 1.0}}
energy.par @direct {
  energy.element @x on @g sig <T = 1 s, d = 100 J> {energy.demand = {hbm = 0.8}}
  energy.element @y on @g sig <T = 2 s, d = 100 J> {energy.demand = {hbm = 0.6}}
}

// -----

// CHECK-LABEL: energy.par @wrapped
// CHECK-SAME: E_J = 4.400000e+02 : f64
// CHECK-SAME: T_s = 2.400000e+00 : f64
// CHECK: energy.element @y {{.*}}energy.contention_slowdown = 1.2
energy.device @g kind "A100" static 100 W {energy.capacity = {hbm = 1.0}}
energy.par @wrapped {
  energy.element @x on @g sig <T = 1 s, d = 100 J> {energy.demand = {hbm = 0.8}}
  energy.seq {
    energy.par {
      energy.element @y on @g sig <T = 2 s, d = 100 J> {energy.demand = {hbm = 0.6}}
    }
  }
}
