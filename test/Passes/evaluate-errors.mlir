// RUN: energy-opt %s --energy-evaluate -split-input-file -verify-diagnostics
// RUN: energy-opt %s --energy-evaluate -split-input-file -verify-diagnostics --mlir-disable-threading
// RUN: not energy-opt %s --energy-evaluate="confidence=1.5" -split-input-file 2>&1 | FileCheck %s --check-prefix=CONF
// RUN: not energy-opt %s --energy-evaluate="report=/nonexistent-dir/r.json" -split-input-file 2>&1 | FileCheck %s --check-prefix=REPORT
// A percentage for the fraction is named as such.
// RUN: not energy-opt %s --energy-evaluate="confidence=95" -split-input-file 2>&1 | FileCheck %s --check-prefix=PCT
// PCT: energy-evaluate: confidence must lie in (0, 1); got 95 (a fraction: 95 % is 0.95)

// CONF: energy-evaluate: confidence must lie in (0, 1); got 1.5
// REPORT: cannot write report: '/nonexistent-dir/r.json': cannot create a temporary file beside it

energy.device @g kind "A100" static 60 W
energy.seq @layer {
  energy.element @ok on @g sig <T = 1 ms, d = 1 J>
  // expected-error @+1 {{'energy.element' op @missing has no signature: give it `sig <T = ..., d = ...>` or fill it from a signature database}}
  energy.element @missing on @g
}

// -----

// Two children without signatures: the first in the walk is reported, once,
// whether the root's children are composed in parallel or not.
energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 40 W
energy.multi @root {
  energy.seq {
    energy.element @e1 on @a sig <T = 1 ms, d = 1 J>
    // expected-error @+1 {{'energy.element' op @first has no signature}}
    energy.element @first on @a
  }
  energy.seq {
    energy.element @second on @b
  }
}

// -----

energy.device @g kind "A100" static 60 W
// expected-error @+1 {{'energy.composite' op @c is a measured composite without its measured signature}}
energy.composite @c {
  energy.element @p on @g sig <T = 1 ms, d = 1 J>
}

// -----

// A valid tree: only the report path can fail here.
energy.device @g kind "A100" static 60 W
energy.element @fine on @g sig <T = 1 ms, d = 1 J>
