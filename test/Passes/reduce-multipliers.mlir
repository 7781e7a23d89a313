// RUN: energy-opt %s --energy-propagate-context --energy-reduce -split-input-file | FileCheck %s
//
// The Reduction Theorem's bias bound (paper section 4.2): each element
// contributes m c sigma_E, m = 2 where it co-runs (in a par or multi of
// several operands, however deep in sequences), else 1, one less where it
// starts with the composition at the null context. c = 1.959964 at 95 %.
//
// Both operands of a par start with it: m = 1 each, whatever their order:
// c (1 + 3) = 7.83986 J.
energy.device @g kind "A100" static 60 W
// CHECK-LABEL: energy.par @p
// CHECK-SAME: energy.bias_bound_J = 7.83985{{[0-9]*}} : f64
// CHECK-LABEL: energy.par @q
// CHECK-SAME: energy.bias_bound_J = 7.83985{{[0-9]*}} : f64
energy.par @p {
  energy.element @a on @g sig <T = 2 s, d = 100 J, sigma_d = 1 J>
  energy.element @b on @g sig <T = 2 s, d = 100 J, sigma_d = 3 J>
}
energy.par @q {
  energy.element @b2 on @g sig <T = 2 s, d = 100 J, sigma_d = 3 J>
  energy.element @a2 on @g sig <T = 2 s, d = 100 J, sigma_d = 1 J>
}

// -----

// After a first element (at the null context: m = 0), a par's operands
// co-run and do not start at the null: m = 2, also inside a sequence of
// the par: c (0 + 2 x 3 + 2 x 5) = 16 c = 31.3594 J.
energy.device @g kind "A100" static 60 W
// CHECK-LABEL: energy.seq @s
// CHECK-SAME: energy.bias_bound_J = 31.3594{{[0-9]*}} : f64
energy.seq @s {
  energy.element @a3 on @g sig <T = 2 s, d = 100 J, sigma_d = 1 J>
  energy.par @r {
    energy.element @b3 on @g sig <T = 2 s, d = 100 J, sigma_d = 3 J>
    energy.seq {
      energy.element @c3 on @g sig <T = 1 s, d = 100 J, sigma_d = 5 J>
    }
  }
}

// -----

// Across devices, each lane's first element starts at its device's null
// context, wrapped in a sequence or not: m = 2 - 1 each: 2 c = 3.91993 J.
energy.device @g1 kind "A100" static 60 W
energy.device @g2 kind "A100" static 60 W
// CHECK-LABEL: energy.multi @wrapped
// CHECK-SAME: energy.bias_bound_J = 3.91992{{[0-9]*}} : f64
energy.multi @wrapped {
  energy.seq {
    energy.element @x on @g1 sig <T = 2 s, d = 100 J, sigma_d = 1 J>
  }
  energy.seq {
    energy.element @y on @g2 sig <T = 2 s, d = 100 J, sigma_d = 1 J>
  }
}

// -----

// Eq. 23's threshold carries random error only (paper section 5.2.2: the
// bias the reduction accepted is what it catches); the bias bound of what
// the tested op composes -- not the root's -- is reported beside it. @sub
// measured at 340 J and at 330.4 J against 330 J: threshold c sqrt(0.1^2 +
// 0.1^2 + 0.1^2) = 339.5 mJ; own parts: @a at the null (m = 0), @b m = 1:
// bias c x 0.1 J = 196 mJ (the root's, with @big's 50 J, is 98.5 J). 10 J
// is past both; 0.4 J within the bias, which the remark names as the cause.
// RUN: printf '{"sub": {"E_J": 340, "sigma_E_J": 0.1}}' > %t.json
// RUN: energy-opt %s --energy-propagate-context --energy-reduce --energy-check-deviation="measured=%t.json" -split-input-file 2>&1 | FileCheck %s --check-prefix=DEV
// DEV: remark: @sub deviates (Eq. 23): predicted 330 J, measured 340 J, threshold 339.5 mJ; interaction-graph candidate
// DEV: energy.deviation = {bias_bound_J = 0.19599{{[0-9]*}} : f64, failed = true, measured_J = 3.400000e+02 : f64, predicted_J = 3.300000e+02 : f64, threshold_J = 0.33947{{[0-9]*}} : f64}
// RUN: printf '{"sub": {"E_J": 330.4, "sigma_E_J": 0.1}}' > %t.near.json
// RUN: energy-opt %s --energy-propagate-context --energy-reduce --energy-check-deviation="measured=%t.near.json" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: remark: @sub deviates (Eq. 23): predicted 330 J, measured 330.4 J, threshold 339.5 mJ; within the bias the reduction accepted (196 mJ, paper Appendix D): its accumulated bias is the likely cause; characterize @sub as a composite or reduce with a lower tolerance
energy.device @g kind "A100" static 60 W
energy.seq @t {
  energy.seq @sub {
    energy.element @a on @g sig <T = 2 s, d = 100 J, sigma_d = 0.1 J>
    energy.element @b on @g sig <T = 1 s, d = 50 J, sigma_d = 0.1 J>
  }
  energy.element @big on @g sig <T = 10 s, d = 500 J, sigma_d = 50 J>
}

// -----

// An idle goes back to the null context with the elements, and the shift
// its realized (leakage-raised) static power made joins the bound: after
// @hot the device idles 10 s at 65.2795 W instead of 60 W (52.795 J), so
// the bound is c x 1 J (@z; @hot is at the null) + 52.795 J = 54.7547 J
// and the reduced total is the null-context 2,410 J.
// RUN: energy-opt %s --energy-propagate-context --energy-reduce --energy-evaluate -split-input-file | FileCheck %s --check-prefix=IDLE
// IDLE-LABEL: energy.seq @hi
// IDLE-SAME: energy.bias_bound_J = 54.7546{{[0-9]*}} : f64, energy.total = {E_J = 2.410000e+03 : f64
// IDLE-NOT: idle_static
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @hi {
  energy.element @hot on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.idle on @gpu for 10 s
  energy.element @z on @gpu sig <T = 1 s, d = 10 J, sigma_d = 1 J> {energy.insensitive}
}
