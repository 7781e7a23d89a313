// RUN: energy-opt %s -canonicalize -split-input-file | FileCheck %s

energy.device @g kind "A100" static 60 W

// Associativity: unnamed nested compositions of the same kind are spliced.
// CHECK-LABEL: energy.seq @flat_seq {
// CHECK-NEXT:    energy.element @a on @g
// CHECK-NEXT:    energy.element @b on @g
// CHECK-NEXT:    energy.element @c on @g
// CHECK-NEXT:    energy.element @d on @g
// CHECK-NEXT:  }
energy.seq @flat_seq {
  energy.element @a on @g sig <T = 1 ms, d = 1 J>
  energy.seq {
    energy.element @b on @g sig <T = 1 ms, d = 1 J>
    energy.seq {
      energy.element @c on @g sig <T = 1 ms, d = 1 J>
    }
  }
  energy.element @d on @g sig <T = 1 ms, d = 1 J>
}

// -----

energy.device @g kind "A100" static 60 W
energy.device @h kind "A100" static 60 W
energy.device @k kind "A100" static 60 W

// CHECK-LABEL: energy.multi @flat_multi {
// CHECK-NEXT:    energy.element @a on @g
// CHECK-NEXT:    energy.element @b on @h
// CHECK-NEXT:    energy.element @c on @k
// CHECK-NEXT:  }
energy.multi @flat_multi {
  energy.element @a on @g sig <T = 1 ms, d = 1 J>
  energy.multi {
    energy.element @b on @h sig <T = 1 ms, d = 1 J>
    energy.element @c on @k sig <T = 1 ms, d = 1 J>
  }
}

// -----

energy.device @g kind "A100" static 60 W

// A par whose times vary keeps its grouping: Clark's moments of a max of
// three depend on it (evaluated sigma 19.672 mJ grouped, 18.546 mJ
// spliced), and a seq's sums do not.
// CHECK-LABEL: energy.par @varies {
// CHECK-NEXT:    energy.element @c on @g
// CHECK-NEXT:    energy.par {
// CHECK-NEXT:      energy.element @a on @g
// CHECK-NEXT:      energy.element @b on @g
// CHECK-NEXT:    }
// CHECK-NEXT:  }
energy.par @varies {
  energy.element @c on @g sig <T = 2 ms, d = 1 J, sigma_T = 1 us>
  energy.par {
    energy.element @a on @g sig <T = 2 ms, d = 1 J, sigma_T = 300 us>
    energy.element @b on @g sig <T = 2 ms, d = 1 J, sigma_T = 300 us>
  }
}
// A measured composite counts by its own signature, not its parts'; a
// nested par of one operand is that operand whatever the grouping.
// CHECK-LABEL: energy.par @measured {
// CHECK-NEXT:    energy.element @c3 on @g
// CHECK-NEXT:    energy.composite @k
// CHECK:         energy.element @b3 on @g
// CHECK-NEXT:  }
energy.par @measured {
  energy.element @c3 on @g sig <T = 2 ms, d = 1 J>
  energy.par {
    energy.composite @k sig <T = 2 ms, d = 1 J> {
      energy.element @a3 on @g sig <T = 2 ms, d = 1 J, sigma_T = 1 ms>
    }
    energy.element @b3 on @g sig <T = 3 ms, d = 1 J>
  }
}
// CHECK-LABEL: energy.par @single {
// CHECK-NEXT:    energy.element @c4 on @g
// CHECK-NEXT:    energy.element @a4 on @g
// CHECK-NEXT:  }
energy.par @single {
  energy.element @c4 on @g sig <T = 2 ms, d = 1 J, sigma_T = 1 us>
  energy.par {
    energy.element @a4 on @g sig <T = 2 ms, d = 1 J, sigma_T = 300 us>
  }
}
// CHECK-LABEL: energy.seq @varies_seq {
// CHECK-NEXT:    energy.element @a2 on @g
// CHECK-NEXT:    energy.element @b2 on @g
// CHECK-NEXT:  }
energy.seq @varies_seq {
  energy.seq {
    energy.element @a2 on @g sig <T = 2 ms, d = 1 J, sigma_T = 300 us>
  }
  energy.element @b2 on @g sig <T = 2 ms, d = 1 J, sigma_T = 300 us>
}

// -----

energy.device @g kind "A100" static 60 W

// Named inner compositions keep their identity; a different kind is never
// spliced (par inside seq is not associativity).
// CHECK-LABEL: energy.par @keep {
// CHECK-NEXT:    energy.par @named {
// CHECK-NEXT:      energy.element @a on @g
// CHECK-NEXT:      energy.element @b on @g
// CHECK-NEXT:    }
// CHECK-NEXT:    energy.seq {
// CHECK-NEXT:      energy.element @c on @g
// CHECK-NEXT:      energy.element @d on @g
// CHECK-NEXT:    }
// CHECK-NEXT:  }
energy.par @keep {
  energy.par @named {
    energy.element @a on @g sig <T = 1 ms, d = 1 J>
    energy.element @b on @g sig <T = 1 ms, d = 1 J>
  }
  energy.seq {
    energy.element @c on @g sig <T = 1 ms, d = 1 J>
    energy.element @d on @g sig <T = 1 ms, d = 1 J>
  }
}

// -----

energy.device @g kind "A100" static 60 W
energy.device @h kind "A100" static 60 W

// Zero-length idles go; adjacent idles on one device merge.
// CHECK-LABEL: energy.seq @idles {
// CHECK-NEXT:    energy.idle on @g for 3.5 ms
// CHECK-NEXT:    energy.element @a on @g
// CHECK-NEXT:    energy.idle on @g for 1 ms
// CHECK-NEXT:  }
energy.seq @idles {
  energy.idle on @g for 1 ms
  energy.idle on @g for 0 s
  energy.idle on @g for 2 ms
  energy.idle on @g for 500 us
  energy.element @a on @g sig <T = 1 ms, d = 1 J>
  energy.idle on @g for 1 ms
  energy.idle on @g for 0 ms
}

// An idle that is the only operand stays (its composition would be empty).
// CHECK-LABEL: energy.multi @sole {
// CHECK-NEXT:    energy.seq {
// CHECK-NEXT:      energy.idle on @g for 0 s
// CHECK-NEXT:    }
// CHECK-NEXT:    energy.idle on @h for 2 ms
// CHECK-NEXT:  }
energy.multi @sole {
  energy.seq {
    energy.idle on @g for 0 s
  }
  energy.idle on @h for 2 ms
}

// A zero-length idle that alone holds its device in a composition stays:
// dropping it would take @g from the second multi's devices and break the
// seq's same-devices rule. Beside another operand on @g it goes.
// CHECK-LABEL: energy.seq @holds {
// CHECK:           energy.element @b on @h
// CHECK-NEXT:    }
// CHECK-NEXT:    energy.multi {
// CHECK-NEXT:      energy.idle on @g for 0 s
// CHECK-NEXT:      energy.element @c on @h
// CHECK-NEXT:    }
// CHECK-NEXT:    energy.multi {
// CHECK-NEXT:      energy.par {
// CHECK-NEXT:        energy.element @e on @g
// CHECK-NEXT:      }
// CHECK-NEXT:      energy.element @f on @h
// CHECK-NEXT:    }
energy.seq @holds {
  energy.multi {
    energy.element @a on @g sig <T = 1 ms, d = 1 J>
    energy.element @b on @h sig <T = 1 ms, d = 1 J>
  }
  energy.multi {
    energy.idle on @g for 0 s
    energy.element @c on @h sig <T = 1 ms, d = 1 J>
  }
  energy.multi {
    energy.par {
      energy.element @e on @g sig <T = 1 ms, d = 1 J>
      energy.idle on @g for 0 s
    }
    energy.element @f on @h sig <T = 1 ms, d = 1 J>
  }
}

// Idles in a par are concurrent, not adjacent: they do not merge.
// CHECK-LABEL: energy.par @concurrent {
// CHECK-NEXT:    energy.idle on @g for 1 ms
// CHECK-NEXT:    energy.idle on @g for 1 ms
// CHECK-NEXT:  }
energy.par @concurrent {
  energy.idle on @g for 1 ms
  energy.idle on @g for 1 ms
}

// -----

energy.device @g kind "A100" static 60 W

// In a par whose times vary, a zero-length idle is a term of Clark's max
// (max(X, 0) of a varying X lies above X): kept, so that canonicalization
// does not change the evaluated moments.
// CHECK-LABEL: energy.par @varying {
// CHECK-NEXT:    energy.idle on @g for 0 s
// CHECK-NEXT:    energy.element @a on @g
energy.par @varying {
  energy.idle on @g for 0 s
  energy.element @a on @g sig <T = 1 ms, d = 1 J, sigma_T = 500 us>
}
