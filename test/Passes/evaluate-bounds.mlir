// Numbers a double cannot hold are an error, not "inf J (nan%)"; an energy
// interval never goes below zero, and when the normal approximation would,
// the summary and the attributes say so.
// RUN: energy-opt %s -split-input-file --energy-evaluate -verify-diagnostics -o /dev/null
// RUN: not energy-opt %s -split-input-file --energy-evaluate="summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: not energy-opt %s -split-input-file --energy-evaluate 2>/dev/null | FileCheck %s --check-prefix=ATTR

energy.device @g kind "A100" static 60 W
// expected-error @+1 {{energy-evaluate: the composition overflows a double (T = 1.000000e+308 s, E = INF J): an input time, energy or sigma is too large}}
energy.seq @huge {
  energy.element @a on @g sig <T = 1.0e308 s, d = 1 J>
}

// -----

// E = 60 J + 1 J, sigma 100 J: E - 1.96 sigma = -135 J.
// SUMMARY: 95.0% interval  [0 J, 257 J]  (clipped at 0: the normal approximation's lower bound is -135 J; sigma is large against E)
// ATTR: interval_J = [0.000000e+00, 256.99{{[0-9]*}}], interval_unclipped_lo_J = -134.99{{[0-9]*}} : f64
energy.device @g kind "A100" static 60 W
energy.seq @wide {
  energy.element @a on @g sig <T = 1 s, d = 1 J, sigma_d = 100 J>
}
