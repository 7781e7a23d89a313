// The expected makespan over a schedule's dependencies (CALCULUS.md section
// 6, `energy.makespan`): @b and @c both end at 3.01 s, @b after a 10 ms
// transfer that varies by 2 ms. Two independent Gaussian paths of equal
// mean: E[max] = 3.01 s + theta phi(0), theta = sqrt(0.1^2 + 0.002^2 +
// 0.1^2) s = 0.141435 s, phi(0) = 0.398942: 3.06642 s (Clark's formula is
// exact for two), the Monte Carlo within its 1.3 ms standard error; the
// point makespan stays 3.01 s.
// RUN: energy-opt %s | energy-opt | FileCheck %s --check-prefix=ROUND
// RUN: energy-opt %s --sched-to-energy --energy-evaluate | FileCheck %s
// ROUND: sched.task @b on @d1 after [@a] delay 10 ms delay_sigma 2 ms sig
// CHECK: energy.makespan = {T_s = 3.010000e+00 : f64, expected_T_s = 3.06{{[0-9]*}} : f64, sigma_T_s = {{.*}}, std_error_s = 0.001{{[0-9]*}} : f64}
// CHECK-SAME: T_clark_s = 3.06{{[0-9]*}} : f64, T_s = 3.010000e+00 : f64
//
// The deviation test compares a measured mean with the expected energy,
// 30 W x 3.0664 s + 3 J = 94.99 J (point_J: 30 W x 3.01 s + 3 J = 93.3 J).
// RUN: rm -rf %t && mkdir -p %t && echo '{"fj": {"E_J": 95.0, "sigma_E_J": 0.01}}' > %t/m.json
// RUN: energy-opt %s --sched-to-energy --energy-check-deviation=measured=%t/m.json | FileCheck %s --check-prefix=DEV
// DEV: energy.deviation = {failed = false, measured_J = 9.500000e+01 : f64, point_J = 93.{{[0-9]*}} : f64, predicted_J = 94.9{{[0-9]*}} : f64
//
// A pass that changes the elements' times afterwards moves the expectation
// with them: what jitter adds (56 ms) stays on top of the new point time.
// RUN: energy-opt %s --sched-to-energy | sed 's/T = 2.01 s/T = 2.51 s/' | energy-opt --energy-evaluate | FileCheck %s --check-prefix=MOVED
// MOVED: T_clark_s = 3.56{{[0-9]*}} : f64, T_s = 3.510000e+00 : f64
//
// A sample count that is not one: refused.
// RUN: not energy-opt %s --sched-to-energy=makespan-samples=1 2>&1 | FileCheck %s --check-prefix=SAMPLES
// RUN: not energy-opt %s --sched-to-energy=makespan-samples=-5 2>&1 | FileCheck %s --check-prefix=SAMPLES
// SAMPLES: makespan-samples={{-?[0-9]+}} is not a sample count: give 2 to 1000000, 0 for none, or -1 for the default
//
// Nothing varies: no attribute, the point prediction.
// RUN: sed 's/, sigma_T = 100 ms//; s/ delay_sigma 2 ms//' %s | energy-opt --sched-to-energy | FileCheck %s --check-prefix=FIXED
// FIXED-NOT: energy.makespan
//
// Refused: a negative or non-finite spread, a spread without a delay.
// RUN: sed 's/delay_sigma 2 ms/delay_sigma -2 ms/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: delay_sigma must be non-negative with a finite variance; got -2 ms
// RUN: sed 's/delay_sigma 2 ms/delay_sigma 1e160 s/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: delay_sigma must be non-negative with a finite variance
// RUN: sed 's/delay 10 ms delay_sigma/delay_sigma/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=NODELAY
// NODELAY: delay_sigma is the spread of the dependencies' delay; give the delay too
// RUN: sed 's/delay 10 ms/delay 0 ms/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=NODELAY
// A dependency listed twice would be two transfers: refused.
// RUN: sed 's/after \[@a\] delay/after [@a, @a] delay/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: `after` lists @a twice

sched.schedule @fj {
  sched.device @d0 kind "A100-SXM4" static 10 W
  sched.device @d1 kind "A100-SXM4" static 10 W
  sched.device @d2 kind "A100-SXM4" static 10 W
  sched.task @a on @d0 sig <T = 1 s, d = 1 J>
  sched.task @b on @d1 after [@a] delay 10 ms delay_sigma 2 ms sig <T = 2 s, d = 1 J, sigma_T = 100 ms>
  sched.task @c on @d2 after [@a] sig <T = 2.01 s, d = 1 J, sigma_T = 100 ms>
}

