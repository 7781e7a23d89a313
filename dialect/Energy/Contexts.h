//===- Contexts.h - The IR of entry and runtime contexts ---------*- C++ -*-===//
//
// What the context passes read from and write to the IR (docs/CONTEXTS.md):
// the mechanisms an `energy.device` declares, as calculus models, and the
// discardable attribute names the two passes share.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECT_ENERGY_CONTEXTS_H
#define DIALECT_ENERGY_CONTEXTS_H

#include "calculus/Context.h"
#include "dialect/Energy/Energy.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace energy {

/// Attributes `--energy-propagate-context` writes and `--energy-reduce`
/// reads.
namespace context_attr {
/// An element's null-context signature, kept when its own is realized.
constexpr const char *kNullSig = "energy.null_sig";
/// Its entry temperature, degC (thermal model).
constexpr const char *kEntryTemperature = "energy.entry_temperature";
/// Its co-run slowdown (contention).
constexpr const char *kSlowdown = "energy.contention_slowdown";
/// An idle's realized static power, W (thermal model).
constexpr const char *kIdleStatic = "energy.idle_static";
/// Cache residency of the reused data, in [0, 1].
constexpr const char *kResidency = "energy.residency";
/// Power-delivery transient energy, J.
constexpr const char *kDelivery = "energy.delivery_J";
} // namespace context_attr

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
