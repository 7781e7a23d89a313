//===- Diagnostics.cpp - Where module-level errors point ------------------===//

#include "passes/Passes.h"

#include "dialect/Energy/Units.h"
#include "dialect/Sched/Sched.h"

using namespace mlir;

Location energy::moduleErrorLoc(ModuleOp module) {
  Location loc = module.getLoc();
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file || file.getLine() != 0)
    return loc;
  Block *body = module.getBody();
  if (!body->empty())
    return body->front().getLoc();
  return FileLineColLoc::get(file.getFilename(), 1, 1);
}

bool energy::checkConfidence(ModuleOp module, llvm::StringRef pass,
                             double confidence) {
  if (confidence > 0 && confidence < 1)
    return true;
  InFlightDiagnostic d = emitError(moduleErrorLoc(module))
                         << pass << ": confidence must lie in (0, 1); got "
                         << formatNumber(confidence);
  if (confidence >= 50 && confidence < 100)
    d << " (a fraction: " << formatNumber(confidence) << " % is "
      << formatNumber(confidence / 100) << ")";
  return false;
}

void energy::warnNestedSchedules(ModuleOp module, llvm::StringRef pass) {
  module.walk([&](sched::ScheduleOp s) {
    if (s->getParentOfType<ModuleOp>() != module)
      emitWarning(s.getLoc(), pass)
          << ": @" << s.getSymName()
          << " is in a nested module and is left alone: this pass works "
             "on its module's own schedules; nest it to reach that "
             "module's (--pass-pipeline='builtin.module(builtin.module("
          << pass << "))')";
  });
}
