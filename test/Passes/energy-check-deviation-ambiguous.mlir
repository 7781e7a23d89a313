// A measurement whose name matches an op in each of two trees is ambiguous:
// an error naming both, not a test of whichever came first.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"a": {"E_J": 1.06, "sigma_E_J": 0.01}}' > %t/m.json
// RUN: energy-opt %s -verify-diagnostics --energy-check-deviation="measured=%t/m.json" -o /dev/null

energy.device @g kind "A100" static 60 W
energy.seq @one {
  // expected-note @+1 {{the other @a is here}}
  energy.element @a on @g sig <T = 1 ms, d = 1 J>
}
energy.seq @two {
  // expected-error @+1 {{energy-check-deviation: the measurement of @a matches two ops; give them distinct names}}
  energy.element @a on @g sig <T = 1 ms, d = 1 J>
}
