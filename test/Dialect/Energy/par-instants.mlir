// A par's operands agree at every instant on the device-wide static power
// and clocks, and their SM shares fit the device, however their stretches
// are cut: these verify and evaluate (the refused ones are in invalid.mlir).
// By interval accounting, @grouped: 200 W x 0.3 s + 60 W x 1 s + 4 J = 124 J;
// @apart: 60 W x 2 s + 2 J = 122 J.
// RUN: energy-opt %s --energy-evaluate | FileCheck %s
// CHECK: energy.par @grouped {{.*}}E_J = 1.240000e+02
// CHECK: energy.par @apart {{.*}}E_J = 1.220000e+02
energy.device @g kind "A100" static 60 W
// The same 0.3 s at 200 W, cut 0.1 + 0.2 on one side: sums in another
// grouping differ in their last bits, not in time.
energy.par @grouped {
  energy.seq {
    energy.element @A1 on @g sig <s = 200 W, T = 0.1 s, d = 1 J>
    energy.element @A2 on @g sig <s = 200 W, T = 0.2 s, d = 1 J>
    energy.element @B on @g sig <T = 1 s, d = 0 J>
  }
  energy.seq {
    energy.element @C on @g sig <s = 200 W, T = 0.3 s, d = 1 J>
    energy.element @D on @g sig <T = 1 s, d = 1 J>
  }
}
// Different clocks and shares that add past 1, one after the other.
energy.par @apart {
  energy.element @E on @g sig <T = 1 s, d = 1 J> at <sm_share = 0.6, sm_mhz = 1200>
  energy.seq {
    energy.idle on @g for 1 s
    energy.element @F on @g sig <T = 1 s, d = 1 J> at <sm_share = 0.8, sm_mhz = 900>
  }
}
