// --sched-to-energy keeps the context declarations (docs/CONTEXTS.md): the
// device's cache (and thermal) model and each task's traffic, reuse and
// warm signature, so the cache entry context works from a schedule. The
// schedule of the cache test's layer (energy-context-cache.mlir): @c reuses
// @a's data with 8 MB of @b's traffic in between in a 40 MB L2, residency
// 0.8: T = 2 - 0.8 x 1 = 1.2 ms, d = 400 - 0.8 x 100 = 320 mJ.
// RUN: energy-opt %s --sched-to-energy | FileCheck %s --check-prefix=LOWER
// LOWER: energy.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 4.000000e+07 : f64}, energy.thermal = {{.*}}}
// LOWER: energy.element @c on @g sig <T = 2 ms, d = 400 mJ> {energy.reuses = @a, energy.traffic = 1.200000e+07 : f64, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
// RUN: energy-opt %s --sched-to-energy --energy-propagate-context | FileCheck %s
// CHECK: energy.element @c on @g sig <s = 60 W, T = {{1.2|1.20000000[0-9]*|1.1999999[0-9]*}} ms, d = {{320|320.0000000[0-9]*|319.999999[0-9]*}} mJ>
// CHECK-SAME: energy.residency = {{8.000000e-01|0.8000000[0-9]*|0.7999999[0-9]*}} : f64
sched.schedule @layer {
  sched.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}, energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.0}}
  sched.task @a on @g sig <T = 2 ms, d = 500 mJ> attributes {energy.traffic = 1.6e7}
  sched.task @b on @g after [@a] sig <T = 1 ms, d = 100 mJ> attributes {energy.traffic = 8.0e6}
  sched.task @c on @g after [@b] sig <T = 2 ms, d = 400 mJ> attributes {energy.traffic = 1.2e7, energy.reuses = @a, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
}
