// --energy-evaluate composes a root's children as parallel tasks when the
// context is multithreaded (composeTree, EnergyTree.cpp). The IR it writes
// is the one-thread walk's, byte for byte (a failing child: reported as on
// one thread, evaluate-errors.mlir).
// RUN: energy-opt %s --energy-evaluate -o %t.threads.mlir
// RUN: energy-opt %s --energy-evaluate --mlir-disable-threading -o %t.one.mlir
// RUN: cmp %t.threads.mlir %t.one.mlir
// RUN: FileCheck %s --input-file=%t.threads.mlir

// By hand (CALCULUS.md section 2): seq on @a: T = 1 + 2 = 3 ms, d = 1.5 J;
// par on @b: T = max(2, 4) = 4 ms, d = 0.2 + 0.3 = 0.5 J; multi: T = 4 ms,
// d = 2 J, static (60 + 40) W x 4 ms = 0.4 J, E = 2.4 J.
// CHECK: energy.multi @root -> sig <s = 100 W, T = 4 ms, d = 2 J, sigma_E = 0 J>
// CHECK-SAME: E_J = 2.400000e+00
// CHECK-SAME: static_J = 4.000000e-01
// CHECK: energy.seq -> sig <s = 60 W, T = 3 ms, d = 1.5 J, sigma_E = 0 J>
// CHECK: energy.par -> sig <s = 40 W, T = 4 ms, d = 500 mJ, sigma_E = 0 J>
energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 40 W
energy.multi @root {
  energy.seq {
    energy.element @e1 on @a sig <T = 1 ms, d = 1 J>
    energy.element @e2 on @a sig <T = 2 ms, d = 500 mJ>
  }
  energy.par {
    energy.element @e3 on @b sig <T = 2 ms, d = 200 mJ>
    energy.element @e4 on @b sig <T = 4 ms, d = 300 mJ>
  }
}
