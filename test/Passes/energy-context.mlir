// RUN: energy-opt %s --energy-propagate-context -split-input-file | FileCheck %s
// RUN: energy-opt %s --energy-propagate-context --energy-reduce --energy-evaluate -split-input-file 2>/dev/null | FileCheck %s --check-prefix=REDUCE
// RUN: energy-opt %s --energy-propagate-context --energy-reduce -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// --energy-reduce is idempotent: a second run records no edge twice and
// wraps nothing again.
// RUN: energy-opt %s --energy-propagate-context --energy-reduce -split-input-file 2>/dev/null > %t.once
// RUN: energy-opt %t.once --energy-reduce -split-input-file 2>/dev/null > %t.twice
// RUN: diff %t.once %t.twice

// Thermal coupling: a 60 W device, R = 0.1 K/W, C = 50 J/K (tau = 5 s),
// ambient 30 degC, leakage +0.4 %/K. @hot (348 W for 5 s, insensitive)
// heats the device to 30 + 34.8 (1 - e^-1) = 51.9978 degC; @cool then leaks
// 60 x 0.004 x 21.9978 = 5.2795 W more: +10.559 J over its 2 s. The reverse
// order leaves @cool at the null context: the orders differ by that amount.
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
// CHECK-LABEL: energy.seq @hot_first
// CHECK:   energy.element @hot on @gpu sig <T = 5 s, d = 1.44 kJ, sigma_d = 1 J> {energy.entry_temperature = 3.000000e+01 : f64, energy.insensitive}
// CHECK:   energy.element @cool on @gpu sig <s = 65.279{{[0-9]*}} W, T = 2 s, d = 100 J, sigma_d = 1 J> {energy.entry_temperature = 51.9977{{[0-9]*}} : f64, energy.null_sig = #energy.sig<T = 2 s, d = 100 J, sigma_d = 1 J>}
energy.seq @hot_first {
  energy.element @hot on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.element @cool on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
}
// REMARK: remark: entry context from @hot (thermal) shifts its energy by 10.56 J: not reducible
// REDUCE: energy.seq @hot_first -> sig <s = 61.508{{[0-9]*}} W, T = 7 s, d = 1.54 kJ
// REDUCE-SAME: E_J = 1970.55{{[0-9]*}}
// The irreducible prefix is wrapped for characterization as a whole; until
// measured, its signature is the context model's closure (same total).
// REDUCE-NEXT: energy.composite @hot.prefix sig <s = 61.508{{[0-9]*}} W, T = 7 s, d = 1.54 kJ, sigma_d = 1.414{{[0-9]*}} J> attributes {energy.estimate = "context model", energy.needs_characterization} {
// REDUCE-NEXT: energy.element @hot
// REDUCE-NEXT: energy.element @cool {{.*}}energy.needs_characterization
// REDUCE-NEXT: {{^ *[}]$}}
// REDUCE: energy.interaction @hot -> @cool mechanism "thermal" perturbation 10.55{{[0-9]*}} J{{$}}

// -----

// A chain heating step by step: @c2 and @c3 both fail from their
// predecessors' heat, so one composite grows over the whole prefix. By hand
// (static power 60 W x (1 + 0.004 (theta - 30))): 60 x 5 + 1440 + 65.2795 x 2
// + 100 + 64.4511 x 2 + 100 = 2199.46 J, with or without the composite.
// REDUCE-LABEL: energy.seq @chain
// REDUCE-SAME: E_J = 2199.46{{[0-9]*}}
// REDUCE-NEXT: energy.composite @h1.prefix sig <s = 62.162{{[0-9]*}} W, T = 9 s, d = 1.64 kJ
// REDUCE-NEXT: energy.element @h1
// REDUCE-NEXT: energy.element @c2
// REDUCE-NEXT: energy.element @c3
// REDUCE-NEXT: {{^ *[}]$}}
// REDUCE: energy.interaction @h1 -> @c2 mechanism "thermal"
// REDUCE: energy.interaction @c2 -> @c3 mechanism "thermal"
// REMARK: remark: entry context from @h1 (thermal)
// REMARK: remark: entry context from @c2 (thermal)
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @chain {
  energy.element @h1 on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.element @c2 on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
  energy.element @c3 on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
}

// -----

energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
// CHECK-LABEL: energy.seq @cool_first
// CHECK:   energy.element @cool on @gpu sig <s = 60 W, T = 2 s, d = 100 J, sigma_d = 1 J> {energy.entry_temperature = 3.000000e+01 : f64
// REDUCE-LABEL: energy.seq @cool_first -> sig <s = 60 W, T = 7 s, d = 1.54 kJ
// REDUCE-SAME: E_J = 1.960000e+03
energy.seq @cool_first {
  energy.element @cool on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
  energy.element @hot on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
}

// -----

// Insensitive enough: leakage 1e-5 /K moves @cool by 26 mJ, within
// c sigma = 1.96 x 1 J; the tree reduces to its null-context form with the
// bias bound m c sigma: @hot starts at the null context (m = 0), @cool has
// m = 1: 1.959964 x 1.0000 J (sigma_E of @cool = 1 J).
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.00001}}
// REDUCE-LABEL: energy.seq @reducible
// REDUCE-SAME: energy.bias_bound_J = 1.95996{{[0-9]*}} : f64
// REDUCE: energy.element @cool on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>{{$}}
energy.seq @reducible {
  energy.element @hot on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.element @cool on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
}

// -----

// Contention (Axiom P5): three co-runners each needing 40 % of HBM
// bandwidth saturate it (1.2 > 1) and each slows by 1.2; two would fit.
energy.device @g kind "H100" static 100 W {energy.capacity = {hbm = 1.0}}
// CHECK-LABEL: energy.par @three
// CHECK: energy.element @x on @g sig <s = 100 W, T = 12.0{{[0-9]*}} ms, d = 1 J> {energy.contention_slowdown = 1.2{{[0-9]*}} : f64, energy.demand = {hbm = 4.000000e-01 : f64}, energy.null_sig = #energy.sig<T = 10 ms, d = 1 J>}
// REMARK: remark: runtime interference with @y (contention): not reducible
// REDUCE: energy.composite @three.corun sig <s = 100 W, T = 12.0{{[0-9]*}} ms, d = 3 J> attributes {energy.estimate = "context model", energy.needs_characterization
// REDUCE-NEXT: energy.par @three
// REDUCE: energy.interaction @x -- @y mechanism "contention"
energy.par @three {
  energy.element @x on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.4}}
  energy.element @y on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.4}}
  energy.element @z on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.4}}
}
// CHECK-LABEL: energy.par @two
// CHECK: energy.element @u on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 4.000000e-01 : f64}}
energy.par @two {
  energy.element @u on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.4}}
  energy.element @v on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.4}}
}


// -----

// Co-runners nested deeper (a par in a seq in a par), every element needing
// half the HBM bandwidth. By hand: @a and @d co-run within capacity; @a
// ends at 1 s; @b, @c and @d then demand 1.5 and run at 1/1.5: @b and @c
// end at 2.5 s (1.5 s each), @d at 3.5 s (1 + 1.5 + 1: slowdown 3.5/3).
energy.device @g kind "H100" static 100 W {energy.capacity = {hbm = 1.0}}
// CHECK-LABEL: energy.par @deep
// CHECK: energy.element @a on @g sig <T = 1 s, d = 1 J> {energy.demand
// CHECK: energy.element @b on @g sig <s = 100 W, T = 1.5 s, d = 1 J> {energy.contention_slowdown = 1.5
// CHECK: energy.element @c on @g sig <s = 100 W, T = 1.5 s, d = 1 J> {energy.contention_slowdown = 1.5
// CHECK: energy.element @d on @g sig <s = 100 W, T = 3.5 s, d = 1 J> {energy.contention_slowdown = 1.1666
// Undirected edges between every pair that runs concurrently: @b -- @c
// (the inner par), @b -- @d and @c -- @d (the outer one); none with @a.
// The interfering co-run is wrapped for characterization as one set, its
// estimate the context model's closure (3.5 s, 100 W x 3.5 s + 4 J = 354 J).
// REDUCE: energy.composite @deep.corun sig <s = 100 W, T = 3.5 s, d = 4 J> attributes {energy.estimate = "context model", energy.needs_characterization, energy.total = {E_J = 3.540000e+02
// REDUCE-LABEL: energy.par @deep -> sig <s = 100 W, T = 3.5 s, d = 4 J
// REDUCE-DAG: energy.interaction @b -- @c mechanism "contention"
// REDUCE-DAG: energy.interaction @b -- @d mechanism "contention"
// REDUCE-DAG: energy.interaction @c -- @d mechanism "contention"
// REDUCE-NOT: energy.interaction @a
energy.par @deep {
  energy.seq {
    energy.element @a on @g sig <T = 1 s, d = 1 J> {energy.demand = {hbm = 0.5}}
    energy.par {
      energy.element @b on @g sig <T = 1 s, d = 1 J> {energy.demand = {hbm = 0.5}}
      energy.element @c on @g sig <T = 1 s, d = 1 J> {energy.demand = {hbm = 0.5}}
    }
  }
  energy.element @d on @g sig <T = 3 s, d = 1 J> {energy.demand = {hbm = 0.5}}
}

// -----

// An idle between the heating element and the sensitive one belongs to the
// prefix: the composite wraps all three. By hand (static power at the
// realized temperatures): 60 x 5 + 1440 + 65.2795 x 1 (the idle) +
// 64.6065 x 2 + 100 = 2034.49 J, with or without the composite.
// REDUCE-LABEL: energy.seq @gap
// REDUCE-SAME: E_J = 2034.49{{[0-9]*}}
// REDUCE-NEXT: energy.composite @h.prefix sig <s = 61.81{{[0-9]*}} W, T = 8 s, d = 1.54 kJ
// REDUCE-NEXT: energy.element @h
// REDUCE-NEXT: energy.idle on @gpu for 1 s {energy.idle_static = 65.279
// REDUCE-NEXT: energy.element @c
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @gap {
  energy.element @h on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.idle on @gpu for 1 s
  energy.element @c on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
}

// -----

// An element characterized at several entry temperatures takes its measured
// signature at the realized one, linear between the nearest entries: @cool
// enters at 51.998 degC (after @hot), w = 21.998 / 30 = 0.73326: T = 2 +
// 0.2 w = 2.14665 s, d = 100 + 10 w = 107.3326 J, and (no measured s) the
// static power at that temperature, 60 x (1 + 0.004 x 21.998) = 65.2795 W.
// CHECK-LABEL: energy.seq @measured
// CHECK: energy.element @cool on @gpu sig <s = 65.2794{{[0-9]*}} W, T = 2.14665{{[0-9]*}} s, d = 107.3325{{[0-9]*}} J, sigma_d = 1 J>
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @measured {
  energy.element @hot on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.element @cool on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J> {energy.thermal_sigs = [{entry_C = 30.0, sig = #energy.sig<T = 2 s, d = 100 J, sigma_d = 1 J>}, {entry_C = 60.0, sig = #energy.sig<T = 2.2 s, d = 110 J, sigma_d = 1 J>}]}
}

// -----

// Characterized under co-runners: @x was measured alone (10 ms, 1 J) and at
// slowdown 1.5 (14 ms, 1.3 J). Two co-runners at 0.6 of the HBM each demand
// 1.2: slowdown 1.2, w = 0.2 / 0.5 = 0.4: T = 10 + 0.4 x 4 = 11.6 ms,
// d = 1 + 0.4 x 0.3 = 1.12 J (instead of the model's 12 ms, 1 J); @y, without
// a table, takes the model's 12 ms.
// CHECK-LABEL: energy.par @measured_corun
// CHECK: energy.element @x on @g sig <s = 100 W, T = 11.6{{[0-9]*}} ms, d = 1.12{{[0-9]*}} J> {energy.contention_sigs
// CHECK: energy.element @y on @g sig <s = 100 W, T = 12{{(.0*[0-9]*)?}} ms, d = 1 J>
energy.device @g kind "H100" static 100 W {energy.capacity = {hbm = 1.0}}
energy.par @measured_corun {
  energy.element @x on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.6}, energy.contention_sigs = [{slowdown = 1.0, sig = #energy.sig<T = 10 ms, d = 1 J>}, {slowdown = 1.5, sig = #energy.sig<T = 14 ms, d = 1.3 J>}]}
  energy.element @y on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.6}}
}

// -----

// A par heats the device with the static power its co-runners drew (at the
// par's entry temperature), as one element of the same time and energy
// does: @p (4 s, 500 J in all) and @a2 (4 s, 500 J) leave the device at the
// same temperature, so @c and @c2 enter at the same one (50.362 C; with
// the reference's 60 W the par left 50.072 C).
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
// CHECK-LABEL: energy.seq @hp
// CHECK: energy.element @c on @gpu sig <s = [[S:[0-9.]+]] W{{.*}}energy.entry_temperature = [[TH:50.3623[0-9]*]] : f64
// CHECK-LABEL: energy.seq @hs
// CHECK: energy.element @c2 on @gpu sig <s = [[S]] W{{.*}}energy.entry_temperature = [[TH]] : f64
energy.seq @hp {
  energy.element @hot on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.par @p {
    energy.element @a on @gpu sig <T = 4 s, d = 400 J, sigma_d = 1 J>
    energy.element @b on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
  }
  energy.element @c on @gpu sig <T = 1 s, d = 10 J, sigma_d = 1 J>
}
energy.seq @hs {
  energy.element @hot2 on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.element @a2 on @gpu sig <T = 4 s, d = 500 J, sigma_d = 1 J>
  energy.element @c2 on @gpu sig <T = 1 s, d = 10 J, sigma_d = 1 J>
}
