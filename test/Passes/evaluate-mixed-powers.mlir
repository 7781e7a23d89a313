// RUN: energy-opt %s --energy-evaluate -split-input-file | FileCheck %s
//
// Mixed static powers (docs/CALCULUS.md section 3): the varying part of a
// composite is drawn at its own static power, not the summary's.
// By hand: a 200 W element (10 ms, 1 J), then a par at 60 W of two
// N(10 ms, 1 ms) parts (1 J each). E[max] of two iid = mu + sigma/sqrt(pi)
// = 10.5641896 ms; E' = 2 + 1 + 60 x 0.0105641896 + 2 = 5.6338514 J (the
// summary s = 130 W would give 5.6733 J). sigma_E = 60 W x sigma_max =
// 60 x 1 ms x sqrt(1 - 1/pi) = 49.5387 mJ.
// CHECK-LABEL: energy.seq @mix
// CHECK-SAME: expected_E_J = 5.63385{{[0-9]*}} : f64
// CHECK-SAME: sigma_E_J = 0.0495387{{[0-9]*}} : f64
energy.device @g kind "A100" static 60 W
energy.seq @mix {
  energy.element @hot on @g sig <s = 200 W, T = 10 ms, d = 1 J>
  energy.par {
    energy.element @a on @g sig <T = 10 ms, d = 1 J, sigma_T = 1 ms>
    energy.element @b on @g sig <T = 10 ms, d = 1 J, sigma_T = 1 ms>
  }
}

// -----

// Across devices: only @x varies (1 ms), while its device draws 60 W and
// the other, padded to the same end, 20 W: sigma_E = 80 W x 1 ms = 80 mJ
// (not the summed summaries' 150 W x 1 ms).
// CHECK-LABEL: energy.multi @across
// CHECK-SAME: sigma_E_J = 8.0000{{[0-9]*}}e-02 : f64
energy.device @g kind "A100" static 60 W
energy.device @h kind "A100" static 20 W
energy.multi @across {
  energy.seq {
    energy.element @hot on @g sig <s = 200 W, T = 10 ms, d = 1 J>
    energy.element @x on @g sig <T = 10 ms, d = 1 J, sigma_T = 1 ms>
  }
  energy.element @c on @h sig <T = 5 ms, d = 1 J>
}
