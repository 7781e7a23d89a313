//===- EnergyAttrs.td - energy dialect attributes ----------*- tablegen -*-===//

#ifndef ENERGY_ATTRS_TD
#define ENERGY_ATTRS_TD

include "dialect/Energy/EnergyDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Energy_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Energy_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Energy_SignatureAttr : Energy_Attr<"Signature", "sig"> {
  let summary = "an energy signature: static power, time, dynamic energy and "
                "their uncertainty";
  let description = [{
    `#energy.sig<s = 61 W, T = 1.55 ms, d = 900 mJ, sigma_T = 10 us,
    sigma_d = 5 mJ>`. `T` and `d` are required; `s` overrides the static
    power of the element's device; `sigma_T` and `sigma_d` are standard
    deviations (default 0). `sigma_E` is written by `--energy-evaluate` on
    composites, whose variance of E is not a function of the summary fields
    (CALCULUS.md section 2); written on an element without `sigma_d`, it
    gives `sigma_d = sqrt(sigma_E^2 - s^2 sigma_T^2)` (Axiom P1). Keys may appear in any order; values carry SI
    units and are stored in W, s and J.
  }];
  // energy::Real: a double that attribute storage can hash and compare
  // bit-exactly; the builder and accessors below speak double.
  let parameters = (ins "::energy::Real":$T, "::energy::Real":$d,
                        "::energy::Real":$sigmaT, "::energy::Real":$sigmaD,
                        "std::optional<::energy::Real>":$s,
                        "std::optional<::energy::Real>":$sigmaE);
  let builders = [
    AttrBuilder<(ins "double":$T, "double":$d, "double":$sigmaT,
                     "double":$sigmaD, "std::optional<double>":$s,
                     "std::optional<double>":$sigmaE), [{
      return $_get($_ctxt, ::energy::Real{T}, ::energy::Real{d},
                   ::energy::Real{sigmaT}, ::energy::Real{sigmaD},
                   ::energy::Real::optional(s), ::energy::Real::optional(sigmaE));
    }]>
  ];
  let extraClassDeclaration = [{
    double time() const { return getT().value; }
    double dynamicEnergy() const { return getD().value; }
    double sigmaTime() const { return getSigmaT().value; }
    double sigmaDynamic() const { return getSigmaD().value; }
    std::optional<double> staticPower() const {
      return ::energy::Real::unwrap(getS());
    }
    std::optional<double> sigmaEnergy() const {
      return ::energy::Real::unwrap(getSigmaE());
    }
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Energy_OpPointAttr : Energy_Attr<"OpPoint", "op_point"> {
  let summary = "an operating point: clocks, power cap, SM share";
  let description = [{
    `#energy.op_point<sm_mhz = 1410, mem_mhz = 1593, power_cap = 400 W,
    sm_share = 0.97>`. Every field is optional; clocks are positive integers
    in MHz, the power cap a positive power, the SM share in (0, 1]. The
    device-wide part (clocks, cap) determines static power; `sm_share` is
    the per-element part (CALCULUS.md section 1, omega).
  }];
  let parameters = (ins "std::optional<int64_t>":$smMhz,
                        "std::optional<int64_t>":$memMhz,
                        "std::optional<::energy::Real>":$powerCap,
                        "std::optional<::energy::Real>":$smShare);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Energy_OptionAttr : Energy_Attr<"Option", "option"> {
  let summary = "one choice of an operating set: operating point and signature";
  let description = [{
    `#energy.option<sm_mhz = 1410, T = 12 ms, d = 3 J>`: the keys of
    `#energy.op_point` and `#energy.sig` in one list. An operating set is an
    array of options (CALCULUS.md section 5).
  }];
  let parameters = (ins "OpPointAttr":$opPoint, "SignatureAttr":$sig);
  let hasCustomAssemblyFormat = 1;
}

#endif // ENERGY_ATTRS_TD
