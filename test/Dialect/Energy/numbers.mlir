// Numbers as Python writes them (1e-06, 2e6, 5E+2) and the hour-based units
// (h, min, Wh, kWh, MWh) parse where the IR takes quantities; values print
// back in the decimal units, exactly.
// RUN: energy-opt %s | FileCheck %s
// RUN: energy-opt %s | energy-opt | FileCheck %s
// RUN: energy-opt %s --emit-bytecode | energy-opt | FileCheck %s
energy.device @g kind "A100" static 5E+2 W
// CHECK: energy.device @g kind "A100" static 500 W
energy.seq @s {
  // CHECK: energy.element @a on @g sig <T = 1 us, d = 2 MJ>
  energy.element @a on @g sig <T = 1e-06 s, d = 2e6 J>
  // CHECK: energy.element @b on @g sig <T = 3600 s, d = 3.6 MJ>
  energy.element @b on @g sig <T = 1 h, d = 1 kWh>
  // CHECK: energy.element @c on @g sig <T = 90 s, d = 1.8 kJ, sigma_d = 3600 MJ>
  energy.element @c on @g sig <T = 1.5 min, d = 0.5 Wh, sigma_d = 1 MWh>
  // CHECK: energy.element @d on @g sig <T = 25 ms, d = 15 mJ>
  energy.element @d on @g sig <T = 25e-3 s, d = 15e-3 J>
  // A whole value past 2^63 prints with an exponent (a bare integer that
  // large is refused by the parser, also inside bytecode).
  // CHECK: energy.element @e on @g sig <T = 1 s, d = 1.2345678901234567e+19 J>
  energy.element @e on @g sig <T = 1 s, d = 1.2345678901234567e19 J>
}

