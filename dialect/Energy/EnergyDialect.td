//===- EnergyDialect.td - The energy dialect ---------------*- tablegen -*-===//

#ifndef ENERGY_DIALECT_TD
#define ENERGY_DIALECT_TD

include "mlir/IR/OpBase.td"

def Energy_Dialect : Dialect {
  let name = "energy";
  let cppNamespace = "::energy";
  let summary = "The energy calculus: elements, sequential, parallel and "
                "cross-device composition (arXiv 2607.11087)";
  let description = [{
    The `energy` dialect writes the algebra of the energy calculus as IR.
    An *element* carries a signature (static power `s`, time `T`, dynamic
    energy `d = E - s T` and their standard deviations) measured on a device.
    Elements compose with three region operators that read like the paper's
    expressions: `energy.seq` (sequential, ⊗), `energy.par` (same-device
    parallel, ⊕: static power is drawn once over the makespan) and
    `energy.multi` (cross-device parallel, ⊕multi). Idle elements fill gaps;
    `energy.composite` is a directly measured composite.

    Quantities carry SI units: `W`, `J`, `mJ`, `uJ`, `s`, `ms`, `us`, `ns`
    (also `kW`, `mW`, `kJ`, `nJ`). They are stored in SI base units.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Energy_Op<string mnemonic, list<Trait> traits = []>
    : Op<Energy_Dialect, mnemonic, traits>;

#endif // ENERGY_DIALECT_TD
