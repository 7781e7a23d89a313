// RUN: energy-opt %s --energy-propagate-context -split-input-file -verify-diagnostics
// RUN: not energy-opt %s --energy-reduce="confidence=2" -split-input-file 2>&1 | FileCheck %s --check-prefix=CONF
// CONF: energy-reduce: confidence must lie in (0, 1)
// RUN: not energy-opt %s --energy-reduce="tolerance=-1" -split-input-file 2>&1 | FileCheck %s --check-prefix=TOL
// TOL: energy-reduce: tolerance must be a finite number of joules >= 0 (0: none)

// expected-error@+1 {{'energy.device' op 'energy.thermal' needs 'capacitance'}}
energy.device @bad kind "X" static 1 W {energy.thermal = {resistance = 0.1, ambient = 30.0}}

// -----

// expected-error@+1 {{'energy.device' op 'energy.thermal' parameter 'leakage' must be a finite non-negative float; got "high"}}
energy.device @bad kind "X" static 1 W {energy.thermal = {resistance = 0.1, capacitance = 1.0, ambient = 30.0, leakage = "high"}}

// -----

// expected-error@+1 {{'energy.device' op 'energy.thermal' parameter 'resistance' must be a finite positive float}}
energy.device @bad kind "X" static 1 W {energy.thermal = {resistance = 0.0, capacitance = 1.0, ambient = 30.0}}

// -----

// A misspelt parameter is not read as absent.
// expected-error@+1 {{'energy.device' op 'energy.thermal' has an unknown parameter 'leakge' (its parameters: resistance, capacitance, ambient, reference, leakage, throttle_at, throttle_slope)}}
energy.device @bad kind "X" static 1 W {energy.thermal = {resistance = 0.1, capacitance = 1.0, ambient = 30.0, leakge = 0.004}}

// -----

energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @s {
  // expected-error@+1 {{'energy.element' op energy.thermal_sigs must list increasing entry_C}}
  energy.element @c on @gpu sig <T = 2 s, d = 100 J> {energy.thermal_sigs = [{entry_C = 60.0, sig = #energy.sig<T = 2 s, d = 100 J>}, {entry_C = 30.0, sig = #energy.sig<T = 2 s, d = 90 J>}]}
}

// -----

energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @s {
  // expected-error@+1 {{'energy.element' op energy.thermal_sigs entries are {entry_C = <number>, sig = #energy.sig<...>}}}
  energy.element @c on @gpu sig <T = 2 s, d = 100 J> {energy.thermal_sigs = [{entry_C = 60.0}]}
}

// -----

energy.device @g kind "H100" static 100 W {energy.capacity = {hbm = 1.0}}
energy.par @p {
  // expected-error@+1 {{'energy.element' op energy.contention_sigs entries are {slowdown = <number>, sig = #energy.sig<...>}}}
  energy.element @x on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.6}, energy.contention_sigs = [{slowdown = "high", sig = #energy.sig<T = 10 ms, d = 1 J>}]}
  energy.element @y on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.6}}
}

// -----

energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @s {
  // expected-error@+1 {{'energy.element' op energy.thermal_sigs is empty}}
  energy.element @c on @gpu sig <T = 2 s, d = 100 J> {energy.thermal_sigs = []}
}

// -----

energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @s {
  // expected-error@+1 {{'energy.element' op 'energy.thermal_sigs' must be an array; got 3.000000e+00 : f64}}
  energy.element @c on @gpu sig <T = 2 s, d = 100 J> {energy.thermal_sigs = 3.0}
}

// -----

// A table key that is no number (a NaN slowdown read past the table's end
// and crashed).
energy.device @g kind "A100" static 60 W {energy.capacity = {hbm = 1.0}}
energy.par @p {
  // expected-error@+1 {{'energy.element' op energy.contention_sigs entries' slowdown must be finite; got nan}}
  energy.element @x on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.6}, energy.contention_sigs = [{slowdown = 0x7FF8000000000000 : f64, sig = #energy.sig<T = 12 ms, d = 1 J>}]}
  energy.element @y on @g sig <T = 10 ms, d = 1 J> {energy.demand = {hbm = 0.6}}
}

// -----

// Inputs far outside the thermal model overflow it: said at the element.
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 1.0e300, capacitance = 1.0e300, ambient = 30.0, leakage = 1.0e300}}
energy.seq @s {
  // expected-error@+1 {{the device's context models overflow at @hot}}
  energy.element @hot on @gpu sig <T = 1e-300 s, d = 1e300 J>
  energy.element @x on @gpu sig <T = 1e300 s, d = 100 J>
}

// -----

// Demands past a double's range over their capacity stop the co-run's
// work (its loop ran forever): said at the element.
energy.device @g kind "A100" static 60 W {energy.capacity = {hbm = 1.0e-300}}
energy.par @a {
  // expected-error@+1 {{the device's context models overflow at @e}}
  energy.element @e on @g sig <T = 1 s, d = 1 J> {energy.demand = {hbm = 1.0e10}}
  energy.element @f on @g sig <T = 1 s, d = 1 J> {energy.demand = {hbm = 1.0e10}}
}

// -----

energy.device @g kind "A100" static 60 W {energy.capacity = {hbm = 1.0}}
energy.par @b {
  // expected-error@+1 {{the device's context models overflow at @e}}
  energy.element @e on @g sig <T = 1 s, d = 1 J> {energy.demand = {hbm = 1.0e308}}
  energy.element @f on @g sig <T = 1 s, d = 1 J> {energy.demand = {hbm = 1.0e308}}
}

// -----

// A reuse's producer is an earlier element of the same device in the same
// tree: cache state does not cross devices,
energy.device @g1 kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
energy.device @g2 kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
energy.multi @m {
  energy.seq {
    energy.element @a on @g1 sig <T = 2 ms, d = 500 mJ> {energy.traffic = 1.6e7}
  }
  energy.seq {
    // expected-error@+1 {{energy.reuses @a runs on @g1: cache state does not cross devices}}
    energy.element @c on @g2 sig <T = 2 ms, d = 400 mJ> {energy.reuses = @a, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
  }
}

// -----

// nor trees (each starts at the null context),
energy.device @g1 kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
energy.seq @first {
  energy.element @a on @g1 sig <T = 2 ms, d = 500 mJ> {energy.traffic = 1.6e7}
}
energy.seq @second {
  // expected-error@+1 {{energy.reuses @a names no earlier element on its device (in this tree)}}
  energy.element @c on @g1 sig <T = 2 ms, d = 400 mJ> {energy.reuses = @a, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
}

// -----

// and a co-running sibling has not produced it yet (in either order).
energy.device @g kind "A100" static 60 W {energy.cache = {l2_bytes = 4.0e7}}
energy.par @p1 {
  energy.element @a on @g sig <T = 2 ms, d = 500 mJ> {energy.traffic = 1.6e7}
  // expected-error@+1 {{energy.reuses @a runs alongside it (both in one par), not before it}}
  energy.element @c on @g sig <T = 2 ms, d = 400 mJ> {energy.reuses = @a, energy.warm = #energy.sig<T = 1 ms, d = 300 mJ>}
}
