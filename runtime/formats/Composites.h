//===- Composites.h - measured composites: energy-prof to the passes -*- C++
//-*-===//
//
// The one reader and writer of composite measurements (docs/CONTEXTS.md,
// "Checking a prediction"): `energy-prof measure-composite` writes
// {"name": {"E_J": e, "sigma_E_J": s, "runs": n, "device": "..."}} and
// --energy-check-deviation="measured=FILE" reads it (or, hand-written,
// {"name": {"runs_J": [e1, e2, ...]}}). MLIR-free (LLVM Support's JSON).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_COMPOSITES_H
#define RUNTIME_FORMATS_COMPOSITES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>

namespace energy {
namespace formats {

/// A composite's measured energy per repetition: the mean, and the variance
/// of that mean.
struct CompositeMeasurement {
  double E = 0, varMean = 0;
  /// Where energy-prof measure-composite measured it ("" where not said).
  std::string device = {};
};

/// Parses a composite-measurements file's `text` (named `path` in errors:
/// "path: 'name': why"). From `runs_J` (at least two runs) the mean and
/// the sample variance over n; from `E_J` and `sigma_E_J` (>= 0) as given.
bool parseCompositeMeasurements(
    llvm::StringRef text, const std::string &path,
    std::map<std::string, CompositeMeasurement> &out, std::string &err);

/// One composite's measurement as `energy-prof measure-composite` writes
/// it: `sigmaMean` is the standard error of the mean over `runs` runs.
llvm::json::Object compositeMeasurementJson(const std::string &name, double E,
                                            double sigmaMean, int64_t runs,
                                            const std::string &device);

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_COMPOSITES_H
