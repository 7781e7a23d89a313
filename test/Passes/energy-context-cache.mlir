// RUN: not energy-opt %s --energy-propagate-context -split-input-file 2>/dev/null | FileCheck %s
// RUN: not energy-opt %s --energy-propagate-context --energy-reduce -split-input-file 2>&1 | FileCheck %s --check-prefix=REDUCE
// RUN: not energy-opt %s --energy-propagate-context -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// Cache entry context: a 40 MB L2. @c reuses @a's data; between them @b
// moves 8 MB through the L2, so the residency is 1 - 8/40 = 0.8 and @c
// realizes cold + 0.8 (warm - cold): T = 2 - 0.8 x 1 = 1.2 ms,
// d = 400 - 0.8 x 100 = 320 mJ.
energy.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
// CHECK-LABEL: energy.seq @layer
// CHECK: energy.element @c on @g sig <s = 60 W, T = {{1.2|1.20000000[0-9]*|1.1999999[0-9]*}} ms, d = {{320|320.0000000[0-9]*|319.999999[0-9]*}} mJ>
// CHECK-SAME: energy.null_sig = #energy.sig<T = 2 ms, d = 400 mJ>
// CHECK-SAME: energy.residency = {{8.000000e-01|0.8000000[0-9]*|0.7999999[0-9]*}} : f64
energy.seq @layer {
  energy.element @a on @g sig <T = 2 ms, d = 500 mJ> {energy.traffic = 1.6e7}
  energy.element @b on @g sig <T = 1 ms, d = 100 mJ> {energy.traffic = 8.0e6}
  energy.element @c on @g sig <T = 2 ms, d = 400 mJ> {energy.traffic = 1.2e7, energy.reuses = @a, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
}
// The warm reuse moves @c by (1.2 ms x 60 W + 320 mJ) - (2 ms x 60 W +
// 400 mJ) = -128 mJ, far beyond its (zero) sigma: not reducible, and the
// interaction edge names the producer and the mechanism.
// REDUCE: remark: entry context from @a (cache) shifts its energy by -128 mJ: not reducible
// The prefix to characterize starts at the producer and holds what evicts
// its data (it wrapped @b and @c, whose run from a flushed L2 cannot show
// @a's data in it): 2 + 1 + 1.2 ms, 500 + 100 + 320 mJ.
// REDUCE: energy.composite @a.prefix sig <s = 60 W, T = {{4.2|4.20000[0-9]*|4.19999[0-9]*}} ms, d = {{920|919.99999[0-9]*|920.00000[0-9]*}} mJ>
// REDUCE-NEXT: energy.element @a
// REDUCE-NEXT: energy.element @b
// REDUCE-NEXT: energy.element @c
// REDUCE: energy.interaction @a -> @c mechanism "cache" perturbation -128 mJ

// -----

// 50 MB between producer and consumer flush a 40 MB L2: residency 0, @c
// stays at its cold signature.
energy.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
// CHECK-LABEL: energy.seq @flushed
// CHECK: energy.element @c on @g sig <s = 60 W, T = 2 ms, d = 400 mJ> {{.*}}energy.residency = 0.000000e+00 : f64
energy.seq @flushed {
  energy.element @a on @g sig <T = 2 ms, d = 500 mJ> {energy.traffic = 1.6e7}
  energy.element @b on @g sig <T = 1 ms, d = 100 mJ> {energy.traffic = 5.0e7}
  energy.element @c on @g sig <T = 2 ms, d = 400 mJ> {energy.reuses = @a, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
}

// -----

// Power delivery: 100 uJ per watt of current-draw step, tau = 10 us,
// against the step from idle each null signature was measured with. @x
// (300 W over 50 us) is the device's first element: it steps from idle as
// its null did, and pays nothing; @y (500 W over 1 s) steps 200 W up from
// @x's draw where its null stepped 400 W from idle (100 W):
// 1e-4 x (200 - 400) x (1 - e^-100000) = -20 mJ on 400 J.
energy.device @h kind "H100" static 100 W {energy.power_delivery = {energy_per_watt = 1.0e-4, time_constant = 1.0e-5}}
// CHECK-LABEL: energy.seq @steps
// CHECK: energy.element @x on @h sig <T = 50 us, d = 10 mJ>{{$}}
// CHECK: energy.element @y on @h sig <s = 100 W, T = 1 s, d = 399.98{{0*[0-9]*}} J> {energy.delivery_J = -2.000000e-02 : f64
energy.seq @steps {
  energy.element @x on @h sig <T = 50 us, d = 10 mJ>
  energy.element @y on @h sig <T = 1 s, d = 400 J>
}

// -----

// Bad declarations are named.
// ERR: error: 'energy.element' op energy.reuses and energy.warm go together
energy.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
energy.seq @s {
  energy.element @a on @g sig <T = 2 ms, d = 500 mJ>
  energy.element @c on @g sig <T = 2 ms, d = 400 mJ> {energy.reuses = @a}
}

// -----

// ERR: error: 'energy.element' op reuses cached data but its device declares no energy.cache = {l2_bytes = ...}
energy.device @g kind "A100" static 60 W
energy.seq @s {
  energy.element @a on @g sig <T = 2 ms, d = 500 mJ>
  energy.element @c on @g sig <T = 2 ms, d = 400 mJ> {energy.reuses = @a, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
}

// -----

// ERR: error: 'energy.element' op energy.reuses @z names no earlier element on its device
energy.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
energy.seq @s {
  energy.element @c on @g sig <T = 2 ms, d = 400 mJ> {energy.reuses = @z, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
}

// -----

// ERR: error: 'energy.device' op 'energy.cache' parameter 'l2_bytes' must be a finite positive float
energy.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 0.0}}

// -----

// ERR: error: 'energy.device' op 'energy.power_delivery' needs 'time_constant'
energy.device @g kind "A100" static 60 W {energy.power_delivery = {energy_per_watt = 1.0e-4}}

// -----

// Co-runners nested in a sequence (capacity 1 of HBM): @a (2 s, 0.6) then
// @b (2 s, 0.2) beside @c (3 s, 0.6). While @a and @c co-run the demand
// is 1.2: both progress at 1/1.2 and @a ends at 2.4 s with @c 2 s in; then
// @b + @c fit: @c ends at 3.4 s, @b at 4.4 s. Slowdowns: @a 1.2, @c 3.4/3,
// @b none.
energy.device @g kind "A100" static 60 W {energy.capacity = {hbm = 1.0}}
// CHECK-LABEL: energy.par @nested
// CHECK: energy.element @a on @g sig <s = 60 W, T = {{2.4|2.39999[0-9]*|2.40000[0-9]*}} s, d = 10 J> {energy.contention_slowdown = {{1.2[0-9]*e\+00|1.2[0-9]*}} : f64, energy.demand = {hbm = 6.000000e-01 : f64}
// CHECK: energy.element @b on @g sig <T = 2 s, d = 5 J> {energy.demand = {hbm = 2.000000e-01 : f64}}
// CHECK: energy.element @c on @g sig <s = 60 W, T = {{3.4|3.39999[0-9]*|3.40000[0-9]*}} s, d = 15 J> {energy.contention_slowdown = 1.1333{{[0-9]*}} : f64
energy.par @nested {
  energy.seq {
    energy.element @a on @g sig <T = 2 s, d = 10 J> {energy.demand = {hbm = 0.6}}
    energy.element @b on @g sig <T = 2 s, d = 5 J> {energy.demand = {hbm = 0.2}}
  }
  energy.element @c on @g sig <T = 3 s, d = 15 J> {energy.demand = {hbm = 0.6}}
}
// REDUCE: energy.interaction @a -- @c mechanism "contention" perturbation 24 J, 24 J
