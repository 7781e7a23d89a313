// RUN: energy-opt %s | FileCheck %s
// Round trip: printed IR parses back to the same printed IR.
// RUN: energy-opt %s | energy-opt | FileCheck %s
// And through the generic form.
// RUN: energy-opt %s -mlir-print-op-generic | energy-opt | FileCheck %s
// RUN: energy-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// And through bytecode (the signature and closure properties included).
// RUN: energy-opt %s -emit-bytecode | energy-opt | FileCheck %s

// CHECK: energy.device @tp2 kind "2xA100-SXM4" static 120 W
// GENERIC: "energy.device"() <{kind = "2xA100-SXM4", static_power = 1.200000e+02 : f64, sym_name = "tp2"}>
energy.device @tp2 kind "2xA100-SXM4" static 120 W
// CHECK: energy.device @gpu0 kind "A100-SXM4" static 60 W at <sm_mhz = 1410, mem_mhz = 1593, power_cap = 400 W>
energy.device @gpu0 kind "A100-SXM4" static 60 W at #energy.op_point<sm_mhz = 1410, mem_mhz = 1593, power_cap = 400 W>
// CHECK: energy.device @gpu1 kind "A100-SXM4" static 61.5 W
energy.device @gpu1 kind "A100-SXM4" static 61500 mW
// CHECK: energy.device @gpu2 kind "H100-SXM5" static 1.2 kW
energy.device @gpu2 kind "H100-SXM5" static 1.2 kW

// CHECK-LABEL: energy.seq @attention {
// CHECK-NEXT:    energy.element @prefix on @tp2 sig <T = 1.55 ms, d = 900 mJ, sigma_T = 10 us, sigma_d = 5 mJ>
// CHECK-NEXT:    energy.par @overlap {
// CHECK-NEXT:      energy.element @compute on @tp2 sig <T = 2.77 ms, d = 1.4 J>
// CHECK-NEXT:      energy.element @allreduce on @tp2 sig <T = 2.77 ms, d = 502 mJ>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
energy.seq @attention {
  energy.element @prefix on @tp2 sig <T = 1.55 ms, d = 900 mJ, sigma_T = 10 us, sigma_d = 5 mJ>
  energy.par @overlap {
    energy.element @compute on @tp2 sig <T = 2.77 ms, d = 1.4 J>
    energy.element @allreduce on @tp2 sig <d = 0.502 J, T = 2770 us>
  }
}

// All six signature fields, in any order, print in the canonical order.
// CHECK-LABEL: energy.seq @six {
// CHECK-NEXT: energy.element @all on @tp2 sig <s = 70 W, T = 2 ms, d = 3 J, sigma_T = 4 us, sigma_d = 5 mJ, sigma_E = 6 mJ>
energy.seq @six {
  energy.element @all on @tp2 sig <sigma_E = 6 mJ, sigma_d = 5 mJ, sigma_T = 4 us, d = 3 J, T = 2 ms, s = 70 W>
}

// Units normalize to the prefix that reads best; keys in any order; the
// static-power override and an operating point on an element.
// CHECK-LABEL: energy.multi @step {
// CHECK-NEXT:    energy.seq @dev0 {
// CHECK-NEXT:      energy.element @F0 on @gpu0 sig <s = 61 W, T = 50 ms, d = 20 J> at <sm_mhz = 1200, sm_share = 0.5>
// CHECK-NEXT:      energy.idle on @gpu0 for 2 ms
// CHECK-NEXT:      energy.element @B0 on @gpu0
// CHECK-NEXT:    }
// CHECK-NEXT:    energy.seq @dev1 {
// CHECK-NEXT:      energy.idle on @gpu1 for 2 ms
// CHECK-NEXT:      energy.element @F1 on @gpu1 sig <T = 1 s, d = 1.5 uJ>
// CHECK-NEXT:    }
// CHECK-NEXT:    energy.seq {
// CHECK-NEXT:      energy.element @x on @gpu2 sig <T = 10 ns, d = 3 nJ>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
energy.multi @step {
  energy.seq @dev0 {
    energy.element @F0 on @gpu0 sig <T = 0.05 s, d = 20000 mJ, s = 61 W> at #energy.op_point<sm_mhz = 1200, sm_share = 0.5>
    energy.idle on @gpu0 for 2000 us
    energy.element @B0 on @gpu0
  }
  energy.seq @dev1 {
    energy.idle on @gpu1 for 2 ms
    energy.element @F1 on @gpu1 sig <T = 1000 ms, d = 1500 nJ>
  }
  energy.seq {
    energy.element @x on @gpu2 sig <T = 10 ns, d = 3 nJ>
  }
}

// CHECK-LABEL: energy.composite @measured sig <T = 4.32 ms, d = 2.8 J, sigma_d = 20 mJ> {
// CHECK-NEXT:    energy.element @m0 on @tp2
// CHECK-NEXT:    energy.element @m1 on @tp2
// CHECK-NEXT:  }
energy.composite @measured sig <T = 4.32 ms, d = 2.8 J, sigma_d = 20 mJ> {
  energy.element @m0 on @tp2
  energy.element @m1 on @tp2
}

// Standalone attributes print with their dialect prefix.
// CHECK: func.func @attrs() attributes {energy.dvfs = #energy.op_point<power_cap = 250 W>, energy.warm = #energy.sig<s = 0 W, T = 0 s, d = 0 J>}
func.func @attrs() attributes {energy.warm = #energy.sig<T = 0 s, d = 0 J, s = 0 W>, energy.dvfs = #energy.op_point<power_cap = 250 W>} {
  return
}

// Interaction-graph edges round-trip.
// CHECK: energy.interaction @F0 -> @B0 mechanism "thermal" perturbation 12 J{{$}}
// CHECK: energy.interaction @F0 -- @F1 mechanism "contention" perturbation 3 J, 4.5 J{{$}}
energy.interaction @F0 -> @B0 mechanism "thermal" perturbation 12 J
energy.interaction @F0 -- @F1 mechanism "contention" perturbation 3 J, 4500 mJ

// Discardable attributes round-trip on the hand-written formats (element,
// idle, seq/par/multi print only these, never their inherent attributes).
// Signatures and closures are properties: the generic form spells them as
// `#energy.sig<...>`, or `none` when absent.
// GENERIC: "energy.multi"() <{closure = #energy.sig<T = 2 ms, d = 1 J>, sym_name = "tagged"}> ({
// GENERIC: "energy.seq"() <{closure = none}> ({
// GENERIC: "energy.element"() <{device = @tp2, op_point = #energy.op_point<sm_mhz = 1200>, sig = #energy.sig<T = 1 ms, d = 1 J>, sym_name = "t0"}> {note = "e"}
// GENERIC: "energy.element"() <{device = @gpu0, sig = none, sym_name = "t1"}>
// CHECK: energy.multi @tagged -> sig <T = 2 ms, d = 1 J> attributes {note = "m"} {
// CHECK-NEXT: energy.seq attributes {note = "s"} {
// CHECK-NEXT: energy.element @t0 on @tp2 sig <T = 1 ms, d = 1 J> at <sm_mhz = 1200> {note = "e"}
// CHECK-NEXT: energy.idle on @tp2 for 1 ms {note = "i"}
// CHECK: energy.par @tp attributes {note = "p"} {
energy.multi @tagged -> sig #energy.sig<T = 2 ms, d = 1 J> attributes {note = "m"} {
  energy.seq attributes {note = "s"} {
    energy.element @t0 on @tp2 sig #energy.sig<T = 1 ms, d = 1 J> at #energy.op_point<sm_mhz = 1200> {note = "e"}
    energy.idle on @tp2 for 1 ms {note = "i"}
  }
  energy.par @tp attributes {note = "p"} {
    energy.element @t1 on @gpu0
  }
}
