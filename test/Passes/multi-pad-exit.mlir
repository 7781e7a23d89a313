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
// A composite over two devices waits at both parts' powers, in either
// order: 65 W x 4 ms + 0.5 J + (20 + 45) W x 6 ms + 10 W x 10 ms = 1.25 J.
// CHECK: energy.multi @twodevices {{.*}}E_J = {{(1.250000e\+00|1.2499999[0-9]*|1.2500000[0-9]*)}} :
// CHECK: energy.multi @twoswapped {{.*}}E_J = {{(1.250000e\+00|1.2499999[0-9]*|1.2500000[0-9]*)}} :
// An empty idle last in a composite leaves the exit power at @B's 30 W, as
// in a seq: 0.2 + 0.03 + 8 ms x 30 W + 0.2 = 0.67 J.
// CHECK: energy.multi @compidle {{.*}}E_J = {{(6.700000e-01|0.6699999[0-9]*|0.6700000[0-9]*)}} :
// A later part over more devices replaces the earlier one's: the parts
// leave @g at 30 W and @c at 5 W: 80 W x 4 ms + 0.5 J + 35 W x 6 ms + 0.1 J
// = 1.13 J.
// CHECK: energy.multi @covering {{.*}}E_J = {{(1.130000e\+00|1.1299999[0-9]*|1.1300000[0-9]*)}} :

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

// -----

energy.device @g4 kind "A100" static 20 W
energy.device @g5 kind "A100" static 45 W
energy.device @h kind "A100" static 10 W
energy.multi @twodevices {
  energy.composite @k4 sig <T = 4 ms, d = 0.5 J> {
    energy.element @p4 on @g4 sig <T = 1 ms, d = 0.1 J>
    energy.element @p5 on @g5 sig <T = 2 ms, d = 0.2 J>
  }
  energy.element @long on @h sig <T = 10 ms, d = 0 J>
}

// -----

energy.device @g4 kind "A100" static 20 W
energy.device @g5 kind "A100" static 45 W
energy.device @h kind "A100" static 10 W
energy.multi @twoswapped {
  energy.composite @k4 sig <T = 4 ms, d = 0.5 J> {
    energy.element @p5 on @g5 sig <T = 2 ms, d = 0.2 J>
    energy.element @p4 on @g4 sig <T = 1 ms, d = 0.1 J>
  }
  energy.element @long on @h sig <T = 10 ms, d = 0 J>
}

// -----

energy.device @g kind "A100" static 60 W
energy.device @c kind "A100" static 20 W
energy.multi @compidle {
  energy.composite @lane sig <s = 115 W, T = 2 ms, d = 0 J> {
    energy.seq {
      energy.element @A on @g sig <s = 200 W, T = 1 ms, d = 0 J>
      energy.element @B on @g sig <s = 30 W, T = 1 ms, d = 0 J>
      energy.idle on @g for 0 s
    }
  }
  energy.element @C on @c sig <T = 10 ms, d = 0 J>
}

// -----

energy.device @g kind "A100" static 60 W
energy.device @c kind "A100" static 20 W
energy.device @h kind "A100" static 10 W
energy.multi @covering {
  energy.composite @k sig <T = 4 ms, d = 0.5 J> {
    energy.element @p on @g sig <s = 200 W, T = 1 ms, d = 0 J>
    energy.multi {
      energy.element @q on @g sig <s = 30 W, T = 1 ms, d = 0 J>
      energy.element @r on @c sig <s = 5 W, T = 1 ms, d = 0 J>
    }
  }
  energy.element @long on @h sig <T = 10 ms, d = 0 J>
}
