// A multi pads a shorter operand at its devices' exit static power: its last
// element's (paper section 3.3: an idle device stays at its element's
// operating point). By interval accounting: @A (200 W, 1 ms) then @B (60 W,
// 1 ms) beside @C (20 W, 10 ms): 0.2 + 0.06 + 8 ms x 60 W + 0.2 = 0.94 J.
// The same parts wrapped in a composite that carries their closure (s' = 130
// W) -- as --energy-reduce wraps them, or a measurement of them -- wait where
// the parts leave the device: 0.94 J too; and -canonicalize (which drops an
// empty idle) changes nothing.
// RUN: energy-opt %s --energy-evaluate -split-input-file | FileCheck %s
// RUN: energy-opt %s -canonicalize --energy-evaluate -split-input-file | FileCheck %s
// CHECK: energy.multi @m {{.*}}E_J = {{(9.400000e-01|0.9399999[0-9]*|0.9400000[0-9]*)}} :
// CHECK: energy.multi @wrapped {{.*}}E_J = {{(9.400000e-01|0.9399999[0-9]*|0.9400000[0-9]*)}} :
// CHECK: energy.multi @emptyidle {{.*}}E_J = {{(9.400000e-01|0.9399999[0-9]*|0.9400000[0-9]*)}} :

energy.device @g kind "A100" static 60 W
energy.device @c kind "A100" static 20 W
energy.multi @m {
  energy.seq {
    energy.element @A on @g sig <s = 200 W, T = 1 ms, d = 0 J>
    energy.element @B on @g sig <T = 1 ms, d = 0 J>
  }
  energy.element @C on @c sig <T = 10 ms, d = 0 J>
}

// -----

energy.device @g kind "A100" static 60 W
energy.device @c kind "A100" static 20 W
energy.multi @wrapped {
  energy.composite @lane sig <s = 130 W, T = 2 ms, d = 0 J> {
    energy.seq {
      energy.element @A on @g sig <s = 200 W, T = 1 ms, d = 0 J>
      energy.element @B on @g sig <T = 1 ms, d = 0 J>
    }
  }
  energy.element @C on @c sig <T = 10 ms, d = 0 J>
}

// -----

energy.device @g kind "A100" static 60 W
energy.device @c kind "A100" static 20 W
energy.multi @emptyidle {
  energy.seq {
    energy.element @A on @g sig <s = 200 W, T = 1 ms, d = 0 J>
    energy.element @B on @g sig <T = 1 ms, d = 0 J>
    energy.idle on @g for 0 s
  }
  energy.element @C on @c sig <T = 10 ms, d = 0 J>
}
