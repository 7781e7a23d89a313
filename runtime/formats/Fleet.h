//===- Fleet.h - the fleet file: models, supply, policies ------*- C++ -*-===//
//
// The one reader of fleet files (docs/ROUTING.md#the-fleet-file): the
// routing model's endpoints, arrivals, supply and reserve, the policies to
// compare and the Monte Carlo settings. MLIR-free (LLVM Support's JSON).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_FLEET_H
#define RUNTIME_FORMATS_FLEET_H

#include "calculus/Routing.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
namespace json {
class Value;
} // namespace json
} // namespace llvm

namespace energy {
namespace formats {

struct FleetFile {
  calculus::routing::Fleet fleet;
  std::vector<calculus::routing::Policy> policies;
  /// quality_target {"match": name}: the index of that policy, else -1.
  std::vector<int> matchQualityOf;
  calculus::routing::McSettings simulation;
};

/// Parses `text` (read from `file`, named in errors as "file: $.path: what").
/// Unknown keys are errors (a misspelt key would otherwise be a silent
/// default).
bool parseFleet(const std::string &text, const std::string &file,
                FleetFile &out, std::string &err);

/// The same from a JSON value already parsed (e.g. the IR's `energy.fleet`
/// attribute, docs/ROUTING.md#the-fleet-in-the-ir); `source` names it in
/// errors, at their line and column in `text` where it is the source's text.
bool parseFleet(const llvm::json::Value &doc, const std::string &source,
                FleetFile &out, std::string &err, llvm::StringRef text = {});

/// Reads and parses the fleet file at `path` ("-": standard input).
bool readFleet(const std::string &path, FleetFile &out, std::string &err);

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_FLEET_H
