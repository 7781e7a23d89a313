//===- FleetSource.h - a routing pass's fleet: a file or the IR -*- C++ -*-===//
//
// The routing passes read their fleet (models, arrivals, supply, reserve,
// policies, simulation settings; docs/ROUTING.md) from the pass's `fleet=`
// file or from the schedule's own `energy.fleet` dictionary, which holds the
// same keys as the file. Both go through the one reader,
// runtime/formats/Fleet.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_FLEETSOURCE_H
#define PASSES_FLEETSOURCE_H

#include "dialect/Sched/Sched.h"
#include "runtime/formats/Fleet.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace energy {

class FleetSource {
public:
  /// `file`: the pass's fleet= option (may be empty); `pass`: the pass's
  /// name, which prefixes every error.
  FleetSource(std::string file, std::string pass)
      : file(std::move(file)), pass(std::move(pass)) {}

  /// The fleet of `sched`: its `energy.fleet` attribute or the file (read
  /// once), exactly one of them. Emits a located error and fails otherwise.
  mlir::LogicalResult get(sched::ScheduleOp sched, formats::FleetFile &out,
                          std::string &source);

private:
  std::string file, pass;
  std::optional<formats::FleetFile> fromFile;
};

/// Calls `fn` on every schedule of `module` with a request stream
/// (`energy.requests`), stopping at the first failure; none at all is an
/// error at the module, "<pass>: no sched.schedule has energy.requests
/// (<hint>)".
mlir::LogicalResult forEachRequestStream(
    mlir::ModuleOp module, llvm::StringRef pass, llvm::StringRef hint,
    llvm::function_ref<mlir::LogicalResult(sched::ScheduleOp, mlir::ArrayAttr)>
        fn);

} // namespace energy

#endif // PASSES_FLEETSOURCE_H
