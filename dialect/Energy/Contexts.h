//===- Contexts.h - The IR of entry and runtime contexts ---------*- C++
//-*-===//
//
// What the context passes read from the IR (docs/CONTEXTS.md): the
// mechanisms an `energy.device` declares, as calculus models. (The
// attributes they write are declared with the dialect's others in
// EnergyDialect.td.)
//
//===----------------------------------------------------------------------===//

#ifndef DIALECT_ENERGY_CONTEXTS_H
#define DIALECT_ENERGY_CONTEXTS_H

#include "calculus/Context.h"
#include "dialect/Energy/Energy.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace energy {

/// A device's context models: its entry-context mechanisms and the
/// capacities of its shared resources (`energy.capacity`, contention).
struct DeviceModels {
  calculus::DeviceMechanisms mechanisms;
  mlir::DictionaryAttr capacity;
};

/// Reads `energy.thermal`, `energy.cache`, `energy.power_delivery` and
/// `energy.capacity` of every `energy.device` in `module`; malformed
/// parameters are located errors on the device.
mlir::FailureOr<llvm::DenseMap<mlir::StringAttr, DeviceModels>>
readDeviceModels(mlir::ModuleOp module);

} // namespace energy

#endif // DIALECT_ENERGY_CONTEXTS_H
