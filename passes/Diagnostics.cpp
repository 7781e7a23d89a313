//===- Diagnostics.cpp - Where module-level errors point ------------------===//

#include "passes/Passes.h"

#include "calculus/Signature.h"
#include "dialect/Energy/Units.h"
#include "dialect/Sched/Sched.h"

#include <cmath>

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
  // Within (0, 1), and far enough from 1 that its two-sided Gaussian
  // quantile is a number (0.9999999999999999 rounds 0.5 + c / 2 to 1: an
  // infinite interval, a deviation test that always passes).
  if (confidence > 0 && confidence < 1 &&
      std::isfinite(calculus::twoSidedQuantile(confidence)))
    return true;
  InFlightDiagnostic d =
      emitError(moduleErrorLoc(module))
      << pass << ": confidence must lie in (0, 1)"
      << (confidence > 0 && confidence < 1 ? ", at most 1 - 1e-15" : "")
      << "; got " << formatNumber(confidence);
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

std::optional<double> energy::numberIn(DictionaryAttr dict, StringRef key) {
  if (!dict)
    return std::nullopt;
  if (auto f = dict.getAs<FloatAttr>(key))
    return f.getValueAsDouble();
  if (auto i = dict.getAs<IntegerAttr>(key))
    return double(i.getInt());
  return std::nullopt;
}
