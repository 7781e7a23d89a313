// What the deviation check cannot test is said, not passed over: a
// composite of several parts (no operator says how they compose) and a run
// with nothing to check.
// RUN: energy-opt %s -split-input-file -verify-diagnostics --energy-check-deviation="fail-on-deviation=true" -o /dev/null
// RUN: echo 'energy.device @g kind "A100" static 50 W' > %t.mlir
// RUN: echo 'energy.seq @root { energy.element @a on @g sig <T = 10 ms, d = 2 J> }' >> %t.mlir
// RUN: energy-opt %t.mlir --energy-check-deviation -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: {{.*}}.mlir:1:1: warning: energy-check-deviation: nothing was checked: no measured= file, and no energy.composite holds one part to compare with
//
// A measurement made on another GPU model than the element's device is
// said (it was tested silently); runs must be at least one.
// RUN: echo '{"a": {"E_J": 2.5, "sigma_E_J": 0.01, "runs": 3, "device": "sim:H100-SXM5 (simulated)"}}' > %t.h100.json
// RUN: energy-opt %t.mlir --energy-check-deviation="measured=%t.h100.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OTHERGPU
// OTHERGPU: warning: energy-check-deviation: @a was measured on 'sim:H100-SXM5 (simulated)' (H100), its devices are A100
// RUN: echo '{"a": {"E_J": 2.5, "sigma_E_J": 0.01, "runs": 0}}' > %t.runs0.json
// RUN: not energy-opt %t.mlir --energy-check-deviation="measured=%t.runs0.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RUNS0
// RUNS0: runs0.json:1:{{[0-9]+}}: 'a': runs must be a whole number of runs, at least 1
// RUN: echo '{"a": {"runs_J": [2.5, 2.6, 2.4], "runs": 4}}' > %t.runs4.json
// RUN: not energy-opt %t.mlir --energy-check-deviation="measured=%t.runs4.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RUNS4
// RUNS4: runs4.json:1:{{[0-9]+}}: 'a': runs (4) differs from the 3 energies of runs_J

energy.device @g kind "A100" static 50 W
// expected-warning @+1 {{energy-check-deviation: @layer holds 2 parts, not one composition: not checked against its parts (Eq. 24); wrap them in one energy.seq, energy.par or energy.multi}}
energy.composite @layer sig <T = 20 ms, d = 5 J, sigma_T = 1 ms, sigma_d = 0.1 J> {
  energy.element @a on @g sig <T = 10 ms, d = 2 J>
  energy.element @b on @g sig <T = 8 ms, d = 2.5 J>
}

// -----

// The same parts in one sequence are checked, and fail: 50 W x 18 ms +
// 4.5 J = 5.4 J against 6 J, beyond 1.96 x sqrt(0.1^2 + (50 W x 1 ms)^2).
energy.device @g kind "A100" static 50 W
// expected-error @+1 {{refinement inconsistent (Eq. 24): measured 6 J vs its parts' 5.4 J differ by more than 219.1 mJ}}
energy.composite @layer sig <T = 20 ms, d = 5 J, sigma_T = 1 ms, sigma_d = 0.1 J> {
  energy.seq @inner {
    energy.element @a on @g sig <T = 10 ms, d = 2 J>
    energy.element @b on @g sig <T = 8 ms, d = 2.5 J>
  }
}

// -----

// A composite --energy-reduce wrapped for characterization holds the
// context model's estimate, not a measurement: not tested, not warned
// about (the one-part composite beside it is tested, and passes).
energy.device @g kind "A100" static 50 W
energy.seq @root {
  energy.composite @hot.prefix sig <T = 18 ms, d = 4.5 J> attributes {energy.needs_characterization} {
    energy.element @a on @g sig <T = 10 ms, d = 2 J>
    energy.element @b on @g sig <T = 8 ms, d = 2.5 J>
  }
  energy.composite @one sig <T = 10 ms, d = 2 J, sigma_d = 0.1 J> {
    energy.element @c on @g sig <T = 10 ms, d = 2 J>
  }
}

