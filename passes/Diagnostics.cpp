//===- Diagnostics.cpp - Where module-level errors point ------------------===//

#include "passes/Passes.h"

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
