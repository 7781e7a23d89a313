//===- Registration.h - the one registration path ---------------*- C++ -*-===//
//
// `energy-opt` and the mlir-opt plugin both register through these two
// functions, so the tool and the plugin never drift (ARCHITECTURE.md).
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_REGISTRATION_H
#define PASSES_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace energy {
/// Registers every energy pass and pipeline (idempotent).
void registerAllEnergyPasses();
/// Inserts every energy dialect into `registry` and registers the passes.
void registerAllEnergy(mlir::DialectRegistry &registry);
} // namespace energy

#endif // PASSES_REGISTRATION_H
