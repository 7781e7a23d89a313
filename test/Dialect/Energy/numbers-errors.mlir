// RUN: energy-opt %s -verify-diagnostics -o /dev/null
// An exponent without digits is named, not "expected integer value".
energy.device @g kind "A100" static 60 W
energy.seq @bad {
  // expected-error @+1 {{expected the exponent's digits after 'e'}}
  energy.element @a on @g sig <T = 1e s, d = 1 J>
}
