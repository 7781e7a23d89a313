//===- Registration.cpp - the one registration path -----------------------===//

#include "passes/Registration.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"

#include <mutex>

void energy::registerAllEnergyPasses() {
  static std::once_flag once;
  std::call_once(once, [] { registerEnergyPasses(); });
}

void energy::registerAllEnergy(mlir::DialectRegistry &registry) {
  registry.insert<EnergyDialect, sched::SchedDialect>();
  registerAllEnergyPasses();
}
