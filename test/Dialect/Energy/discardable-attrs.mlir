// The energy.* attributes are declared by the dialect (EnergyDialect.td)
// and verified wherever they appear: an unknown name, the wrong kind or a
// value out of range is an error at the attribute's op, never read as
// "absent" by a pass.
// RUN: energy-opt %s -split-input-file -verify-diagnostics

// A declared attribute of the right kind and range verifies (on any op).
energy.device @gpu kind "A100" static 60 W {energy.capacity = {hbm = 1.0}, energy.cache = {l2_bytes = 4.0e7}}
energy.seq @ok {
  energy.element @a on @gpu sig <T = 1 ms, d = 1 J> {energy.traffic = 1.0e6, energy.demand = {hbm = 0.5}, energy.insensitive}
}
func.func @f() attributes {energy.output_tokens = 7 : i64, energy.residency = 1.0} {
  return
}

// -----

energy.device @gpu kind "A100" static 60 W
energy.seq @s {
  // A misspelled name.
  // expected-error@+1 {{'energy.element' op has an unknown energy dialect attribute 'energy.trafic'}}
  energy.element @a on @gpu sig <T = 1 ms, d = 1 J> {energy.trafic = 1.0e6}
}

// -----

energy.device @gpu kind "A100" static 60 W
energy.seq @s {
  // An integer where the pass reads a float: not silently no traffic.
  // expected-error@+1 {{'energy.element' op 'energy.traffic' must be a float; got 1000000 : i64}}
  energy.element @a on @gpu sig <T = 1 ms, d = 1 J> {energy.traffic = 1000000}
}

// -----

energy.device @gpu kind "A100" static 60 W
energy.seq @s {
  // expected-error@+1 {{'energy.element' op 'energy.traffic' must be >= 0; got -1.000000e+00 : f64}}
  energy.element @a on @gpu sig <T = 1 ms, d = 1 J> {energy.traffic = -1.0}
}

// -----

// expected-error@+1 {{'energy.device' op 'energy.capacity' entry 'hbm' must be a positive float (leave out a resource without a limit); got 0.000000e+00 : f64}}
energy.device @gpu kind "A100" static 60 W {energy.capacity = {hbm = 0.0}}

// -----

energy.device @gpu kind "A100" static 60 W
energy.par @p {
  // expected-error@+1 {{'energy.element' op 'energy.demand' entry 'hbm' must be a non-negative float; got "half"}}
  energy.element @a on @gpu sig <T = 1 ms, d = 1 J> {energy.demand = {hbm = "half"}}
}

// -----

// expected-error@+1 {{'func.func' op 'energy.residency' must lie in [0, 1]; got 2.000000e+00 : f64}}
func.func @f() attributes {energy.residency = 2.0} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'energy.contention_slowdown' must be >= 1; got 5.000000e-01 : f64}}
func.func @f() attributes {energy.contention_slowdown = 0.5} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'energy.output_tokens' must be >= 0; got -3 : i64}}
func.func @f() attributes {energy.output_tokens = -3 : i64} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'energy.reuses' must be a symbol reference (@name); got "a"}}
func.func @f() attributes {energy.reuses = "a"} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'energy.dvfs' must be #energy.op_point<...>; got #energy.sig<T = 1 s, d = 1 J>}}
func.func @f() attributes {energy.dvfs = #energy.sig<T = 1 s, d = 1 J>} {
  return
}

// -----

// A plan's time and energy: both present, finite and non-negative.
// expected-error@+1 {{'sched.schedule' op 'energy.plan' 'T_s' must be a finite non-negative float; got -1.000000e+00 : f64}}
sched.schedule @s attributes {energy.plan = {E_J = 1.0, T_s = -1.0}} {
}

// -----

// expected-error@+1 {{'sched.schedule' op 'energy.plan' needs 'E_J'}}
sched.schedule @s attributes {energy.plan = {T_s = 1.0}} {
}

// -----

// expected-error@+1 {{'energy.seq' op 'energy.total' 'E_J' must be a finite non-negative float; got "x"}}
energy.seq @s attributes {energy.total = {E_J = "x"}} {
}

// -----

// A frontier's points are finite and non-negative.
// expected-error@+1 {{'sched.schedule' op 'energy.frontier' point 1 must be [T_s, E_J] or [T_s, E_J, lower_bound_J], finite non-negative floats; got [2.000000e+00, -3.000000e+00]}}
sched.schedule @s attributes {energy.frontier = [[1.0, 2.0], [2.0, -3.0]]} {
}
