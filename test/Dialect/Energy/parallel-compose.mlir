// A root with several children is composed one child per task when the
// context is multithreaded (composeTree in EnergyTree.cpp), else in one walk.
// Both must report the same, single, first-in-the-walk error. MlirOptMain
// parses (and verifies) with threading off; the verifier after a pass runs
// with it on, so the second RUN line, which skips the verifier at parsing,
// verifies through the parallel path.
// RUN: energy-opt %s -split-input-file -verify-diagnostics
// RUN: energy-opt %s -split-input-file -verify-diagnostics --mlir-very-unsafe-disable-verifier-on-parsing --canonicalize

// Duplicates in different children: the one met first in the walk (inside
// the second child) is reported, not the one across the first and third.
energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 60 W
energy.device @c kind "A100" static 60 W
energy.multi @root {
  energy.seq {
    energy.element @p on @a sig <T = 1 ms, d = 1 J>
  }
  energy.seq {
    // expected-note @+1 {{first defined here}}
    energy.element @q on @b sig <T = 1 ms, d = 1 J>
    // expected-error @+1 {{'energy.element' op duplicate name @q in one energy tree}}
    energy.element @q on @b sig <T = 1 ms, d = 1 J>
  }
  energy.seq {
    energy.element @p on @c sig <T = 1 ms, d = 1 J>
  }
}

// -----

// A duplicate of a name from an earlier child, and of the root's own name.
energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 60 W
energy.device @c kind "A100" static 60 W
// expected-note @+1 {{first defined here}}
energy.multi @root {
  energy.element @p on @a sig <T = 1 ms, d = 1 J>
  energy.element @r on @b sig <T = 1 ms, d = 1 J>
  energy.seq {
    // expected-error @+1 {{'energy.element' op duplicate name @root in one energy tree}}
    energy.element @root on @c sig <T = 1 ms, d = 1 J>
    energy.element @p on @c sig <T = 1 ms, d = 1 J>
  }
}

// -----

// Errors in two children: only the first child's is reported.
energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 60 W
energy.device @c kind "A100" static 60 W
energy.multi @root {
  energy.element @p on @a sig <T = 1 ms, d = 1 J>
  // expected-error @+1 {{'energy.par' op operands must share one device}}
  energy.par {
    energy.element @q on @b sig <T = 1 ms, d = 1 J>
    // expected-note @+1 {{operand #1 is here}}
    energy.element @r on @c sig <T = 1 ms, d = 1 J>
  }
  energy.par {
    energy.element @s on @c sig <T = 1 ms, d = 1 J>
    energy.element @t on @b sig <T = 1 ms, d = 1 J>
  }
}

// -----

// An unknown device in the last child, and children that compose but whose
// root does not (they share a device under a multi).
energy.device @a kind "A100" static 60 W
energy.multi @root {
  energy.element @p on @a sig <T = 1 ms, d = 1 J>
  // expected-error @+1 {{'energy.element' op runs on unknown device @nowhere; declare it with energy.device}}
  energy.element @q on @nowhere sig <T = 1 ms, d = 1 J>
}

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'energy.multi' op operands must run on disjoint device sets}}
energy.multi @root {
  energy.element @p on @a sig <T = 1 ms, d = 1 J>
  // expected-note @+1 {{operand #1 is here}}
  energy.element @q on @a sig <T = 1 ms, d = 1 J>
}
