// Stock mlir-opt from the LLVM installation loads the dialect and the passes
// from one plugin library and runs a pass.
// RUN: %mlir_opt %s --load-dialect-plugin=%energy_plugin --load-pass-plugin=%energy_plugin --pass-pipeline="builtin.module(energy-evaluate)" | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%energy_plugin --load-pass-plugin=%energy_plugin --pass-pipeline="builtin.module(canonicalize)" | FileCheck %s --check-prefix=CANON

energy.device @tp2 kind "2xA100-SXM4" static 120 W
// CHECK: energy.seq @attention -> sig <s = 120 W, T = 4.32 ms, d = 2.8 J
// CHECK-SAME: E_J = 3.318
// CANON: energy.seq @attention {
// CANON-NEXT: energy.element @prefix
// CANON-NEXT: energy.element @x
energy.seq @attention {
  energy.element @prefix on @tp2 sig <T = 1.55 ms, d = 900 mJ>
  energy.seq {
    energy.element @x on @tp2 sig <T = 2.77 ms, d = 1.9 J>
  }
}
