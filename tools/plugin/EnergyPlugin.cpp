//===- EnergyPlugin.cpp - the energy dialect and passes for mlir-opt ------===//

#include "passes/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Energy", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            energy::registerAllEnergy(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "EnergyPasses", LLVM_VERSION_STRING,
          []() { energy::registerAllEnergyPasses(); }};
}
