//===- energy-opt.cpp - the energy compiler driver ------------------------===//
//
// mlir-opt with the energy dialects and passes, plus builtin/func and the
// upstream transforms (-canonicalize, -cse, ...).
//
//===----------------------------------------------------------------------===//

#include "passes/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  energy::registerAllEnergy(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::registerTransformsPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "energy-opt: compose, bound and optimize energy\n",
      registry));
}
