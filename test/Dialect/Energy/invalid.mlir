// RUN: energy-opt %s -split-input-file -verify-diagnostics

energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 60 W
// expected-error @+1 {{'energy.par' op operands must share one device (CALCULUS.md section 2); operand #1 runs on {@b} but the operands before it on {@a}}}
energy.par {
  energy.element @x on @a sig <T = 1 ms, d = 1 J>
  // expected-note @+1 {{operand #1 is here}}
  energy.element @y on @b sig <T = 1 ms, d = 1 J>
}

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'energy.par' op operands must share one static power (CALCULUS.md section 2); operand #1 draws 75 W but the operands before it 60 W}}
energy.par {
  energy.element @x on @a sig <T = 1 ms, d = 1 J>
  // expected-note @+1 {{operand #1 is here}}
  energy.element @y on @a sig <s = 75 W, T = 1 ms, d = 1 J>
}

// -----

energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 60 W
// expected-error @+1 {{'energy.multi' op operands must run on disjoint device sets (CALCULUS.md section 2); operand #2 shares {@b} with the operands before it}}
energy.multi {
  energy.element @x on @a sig <T = 1 ms, d = 1 J>
  energy.element @y on @b sig <T = 1 ms, d = 1 J>
  // expected-note @+1 {{operand #2 is here}}
  energy.seq {
    energy.element @z on @b sig <T = 1 ms, d = 1 J>
  }
}

// -----

energy.device @a kind "A100" static 60 W
energy.device @b kind "A100" static 60 W
// expected-error @+1 {{'energy.seq' op operands must run on the same set of devices (CALCULUS.md section 2); operand #1 runs on {@b} but the operands before it on {@a}; pad with energy.idle inside an energy.multi}}
energy.seq {
  energy.element @x on @a sig <T = 1 ms, d = 1 J>
  // expected-note @+1 {{operand #1 is here}}
  energy.element @y on @b sig <T = 1 ms, d = 1 J>
}

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{time T must be finite and non-negative (Axiom P1); got -1 ms}}
energy.element @x on @a sig <T = -1 ms, d = 1 J>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{dynamic energy d must be finite and non-negative (Axiom P1); got -3 mJ}}
energy.element @x on @a sig <T = 1 ms, d = -3 mJ>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{standard deviation sigma_d must be finite and non-negative (Axiom P1); got -1 J}}
energy.element @x on @a sig <T = 1 ms, d = 1 J, sigma_d = -1 J>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{static power s must be finite and non-negative (Axiom P1); got -5 W}}
energy.element @x on @a sig <s = -5 W, T = 1 ms, d = 1 J>

// -----

energy.device @a kind "A100" static 60 W
energy.seq {
  // expected-error @+1 {{'energy.element' op runs on unknown device @nope; declare it with energy.device}}
  energy.element @x on @nope sig <T = 1 ms, d = 1 J>
}

// -----

// expected-note @+1 {{symbol defined here}}
func.func @f() {
  return
}
// expected-error @+1 {{'energy.idle' op runs on @f, which is a 'func.func', not an energy.device}}
energy.idle on @f for 1 ms

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'energy.idle' op an idle element has no dynamic energy; got 5 mJ}}
energy.idle on @a for 2 ms dynamic 5 mJ

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'energy.idle' op duration must be finite and non-negative; got -2 ms}}
energy.idle on @a for -2 ms

// -----

// expected-error @+1 {{'energy.composite' op is a measured composite but keeps no parts; a measured element without parts is energy.element}}
energy.composite @c sig <T = 1 ms, d = 1 J> {
}

// -----

// expected-error @+1 {{'energy.seq' op must contain at least one element or composition}}
energy.seq @empty {
}

// -----

energy.device @a kind "A100" static 60 W
energy.seq {
  // expected-note @+1 {{first defined here}}
  energy.element @x on @a sig <T = 1 ms, d = 1 J>
  energy.par {
    // expected-error @+1 {{'energy.element' op duplicate name @x in one energy tree}}
    energy.element @x on @a sig <T = 1 ms, d = 1 J>
  }
}

// -----

// Several duplicates: the one met first in the walk is reported, with the
// first definition of its name (a composition's name counts too).
energy.device @a kind "A100" static 60 W
energy.seq @y {
  energy.element @x on @a sig <T = 1 ms, d = 1 J>
  // expected-note @+1 {{first defined here}}
  energy.element @z on @a sig <T = 1 ms, d = 1 J>
  energy.par {
    // expected-error @+1 {{'energy.element' op duplicate name @z in one energy tree}}
    energy.element @z on @a sig <T = 1 ms, d = 1 J>
    energy.element @x on @a sig <T = 1 ms, d = 1 J>
    energy.element @y on @a sig <T = 1 ms, d = 1 J>
  }
}

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'kg' is not a time unit; expected one of h, min, s, ms, us, ns}}
energy.element @x on @a sig <T = 1 kg, d = 1 J>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'ms' is not an energy unit; expected one of MWh, kWh, Wh, MJ, kJ, J, mJ, uJ, nJ}}
energy.element @x on @a sig <T = 1 ms, d = 1 ms>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{expected a time unit (h, min, s, ms, us, ns) after the number}}
energy.element @x on @a sig <T = 1, d = 1 J>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{a signature needs both the time `T` and the dynamic energy `d`}}
energy.element @x on @a sig <T = 1 ms>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{unknown signature field 'E'; expected s, T, d, sigma_T, sigma_d or sigma_E}}
energy.element @x on @a sig <E = 1 J, T = 1 ms, d = 1 J>

// -----

energy.device @a kind "A100" static 60 W
// Near misses of the field names are unknown too.
// expected-error @+1 {{unknown signature field 'sigma_X'; expected s, T, d, sigma_T, sigma_d or sigma_E}}
energy.element @x on @a sig <T = 1 ms, d = 1 J, sigma_X = 1 us>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{unknown signature field 'sigmaxT'; expected s, T, d, sigma_T, sigma_d or sigma_E}}
energy.element @x on @a sig <T = 1 ms, d = 1 J, sigmaxT = 1 us>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'ks' is not a time unit; expected one of h, min, s, ms, us, ns}}
energy.element @x on @a sig <T = 1 ks, d = 1 J>

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{signature field 'T' given twice}}
energy.element @x on @a sig <T = 1 ms, T = 2 ms, d = 1 J>

// -----

// expected-error @+1 {{'energy.device' op static power must be finite and non-negative; got -60 W}}
energy.device @a kind "A100" static -60 W

// -----

// expected-error @+1 {{SM clock must be positive; got 0 MHz}}
energy.device @a kind "A100" static 60 W at #energy.op_point<sm_mhz = 0>

// -----

// expected-error @+1 {{SM share must lie in (0, 1]; got 1.5}}
energy.device @a kind "A100" static 60 W at #energy.op_point<sm_share = 1.5>

// -----

energy.device @a kind "A100" static 60 W
energy.seq {
  energy.element @x on @a sig <T = 1 ms, d = 1 J>
  // expected-error @+1 {{'builtin.module' op cannot appear in an energy composition; only energy.element, energy.idle, energy.seq, energy.par, energy.multi and energy.composite can}}
  builtin.module {
  }
}

// -----

energy.device @a kind "A100" static 60 W
// An inherent attribute spelled in the attribute dictionary is checked
// like the keyword form.
// expected-error @+1 {{'energy.element' op has an attribute 'sig': the signature is written `sig <T = ..., d = ...>` after the device, not in the attribute dictionary}}
energy.element @x on @a {sig = 1 : i64}

// -----

energy.device @a kind "A100" static 60 W
// The generic form holds the signature as a property: `#energy.sig<...>`
// or `none`, nothing else.
// expected-error @+1 {{expected a signature `#energy.sig<...>` or `none` for property `sig`; got 1 : i64}}
"energy.element"() <{sym_name = "x", device = @a, sig = 1 : i64}> : () -> ()

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{'energy.seq' op has an attribute 'closure': the closure is written `-> sig <T = ..., d = ...>` after the name, not in the attribute dictionary}}
energy.seq attributes {closure = #energy.sig<T = 1 s, d = 1 J>} {
  energy.element @x on @a sig <T = 1 s, d = 1 J>
}

// -----

energy.device @a kind "A100" static 60 W
// expected-error @+1 {{expected a signature, got "fast"}}
energy.seq -> sig "fast" {
  energy.element @x on @a sig <T = 1 s, d = 1 J>
}

// -----

// expected-error @+1 {{'energy.interaction' op mechanism '' is not thermal, cache, power-delivery or contention}}
energy.interaction @a -> @b mechanism "" perturbation 1 J

// -----

// expected-error @+1 {{'energy.interaction' op links @a with itself}}
energy.interaction @a -- @a mechanism "contention" perturbation 1 J, 1 J

// -----

// expected-error @+1 {{'energy.interaction' op contention is runtime interference: an undirected (--) edge}}
energy.interaction @a -> @b mechanism "contention" perturbation 1 J

// -----

// Signed perturbations (a warm cache lowers energy) and joined entry-context
// mechanisms are valid; an element may share its name with a device.
energy.device @g kind "A100" static 10 W
energy.device @b kind "A100" static 10 W
energy.seq @r {
  energy.element @a on @g sig <T = 1 ms, d = 1 J>
  energy.element @b on @g sig <T = 1 ms, d = 1 J>
}
energy.interaction @a -> @b mechanism "cache+thermal" perturbation -1 J

// -----

// Endpoints name elements of the module: not a missing name, not a device.
energy.device @g kind "A100" static 10 W
energy.seq @r {
  energy.element @a on @g sig <T = 1 ms, d = 1 J>
}
energy.interaction @r -> @a mechanism "thermal" perturbation 1 J
// expected-error @+1 {{'energy.interaction' op endpoint @zz names no element, composite, seq, par or multi}}
energy.interaction @a -> @zz mechanism "thermal" perturbation 1 J
// expected-error @+1 {{'energy.interaction' op endpoint @g is a device: interactions link elements}}
energy.interaction @g -- @a mechanism "contention" perturbation 1 J, -5 J

// -----

// MLIR reads 0x... as an integer (or a float's bit pattern): not a quantity.
energy.device @g kind "A100" static 10 W
energy.seq @r {
  // expected-error @+1 {{a hexadecimal literal is not a quantity; write the number in decimal}}
  energy.element @a on @g sig <T = 0x7FF8000000000000 s, d = 2 J>
}

// -----

// A directed edge has one perturbation: a second is said to be an
// undirected edge's, not read as a parse error about operation names.
// expected-error @+1 {{a directed (->) edge has one perturbation, its target's; a second endpoint's is for an undirected (--) edge}}
energy.interaction @a -> @b mechanism "thermal" perturbation 1 J, 2 J

// -----

// Static power and clocks are device-wide (paper section 3.1, Axiom P2): at
// every instant a par's operands draw one static power at one setting. Equal
// means are not enough: 200 W then 60 W beside 60 W then 200 W.
energy.device @g kind "A100" static 60 W
// expected-error @+1 {{'energy.par' op operands run on one device at once, whose static power and clocks are device-wide and whose SM shares divide it (CALCULUS.md section 2); from 0 s on, operand #0 draws static power 200 W where operand #1 draws static power 60 W}}
energy.par @means {
  energy.seq {
    energy.element @A on @g sig <s = 200 W, T = 1 s, d = 1 J>
    energy.element @B on @g sig <T = 1 s, d = 1 J>
  }
  energy.seq {
    energy.element @C on @g sig <T = 1 s, d = 1 J>
    energy.element @D on @g sig <s = 200 W, T = 1 s, d = 1 J>
  }
}

// -----

energy.device @g kind "A100" static 60 W
// expected-error @+1 {{'energy.par' op operands run on one device at once, whose static power and clocks are device-wide and whose SM shares divide it (CALCULUS.md section 2); from 1 s on, operand #0 runs at sm_mhz 1200 MHz where operand #1 runs at sm_mhz 900 MHz}}
energy.par @clocks {
  energy.element @A on @g sig <T = 2 s, d = 1 J> at <sm_mhz = 1200>
  energy.seq {
    energy.idle on @g for 1 s
    energy.element @B on @g sig <T = 1 s, d = 1 J> at <sm_mhz = 900>
  }
}

// -----

// The SM shares of co-running elements divide the device (section 3.1).
energy.device @g kind "A100" static 60 W
// expected-error @+1 {{'energy.par' op operands run on one device at once, whose static power and clocks are device-wide and whose SM shares divide it (CALCULUS.md section 2); from 0 s on, their SM shares add up to 1.6, more than the device's whole (1)}}
energy.par @shares {
  energy.element @A on @g sig <T = 1 s, d = 1 J> at <sm_share = 0.8>
  energy.element @B on @g sig <T = 2 s, d = 1 J> at <sm_share = 0.8>
}

// -----

// Every pair of co-runners, not only each against the first: @A says no
// clock, @B and @C say two.
energy.device @g kind "A100" static 60 W
// expected-error @+1 {{from 0 s on, operand #1 runs at sm_mhz 1200 MHz where operand #2 runs at sm_mhz 900 MHz}}
energy.par @third {
  energy.element @A on @g sig <T = 1 s, d = 1 J>
  energy.element @B on @g sig <T = 1 s, d = 1 J> at <sm_mhz = 1200>
  energy.element @C on @g sig <T = 1 s, d = 1 J> at <sm_mhz = 900>
}

// -----

// A short conflict late in the timeline is a conflict, not rounding.
energy.device @g kind "A100" static 60 W
// expected-error @+1 {{from 1000 s on, operand #0 runs at sm_mhz 1200 MHz where operand #1 runs at sm_mhz 900 MHz}}
energy.par @late {
  energy.element @A on @g sig <T = 1001 s, d = 1 J> at <sm_mhz = 1200>
  energy.seq {
    energy.idle on @g for 1000 s
    energy.element @B on @g sig <T = 500 ns, d = 1 J> at <sm_mhz = 900>
    energy.idle on @g for 999.9995 ms
  }
}
