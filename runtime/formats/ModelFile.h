//===- ModelFile.h - fitted model files: energy-prof fit to the passes -*- C++
//-*-===//
//
// The one reader and writer of model files (docs/MODELS.md): a token-law
// or EnergyLens fit as `energy-prof fit` writes it, or FLOP/byte
// coefficients (hand-written, optionally with their clocks), read by
// --energy-fill-signatures="model=FILE". MLIR-free (LLVM Support's JSON).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_MODELFILE_H
#define RUNTIME_FORMATS_MODELFILE_H

#include "calculus/models/EnergyLens.h"
#include "calculus/models/FlopByte.h"
#include "calculus/models/TokenLaw.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace energy {
namespace formats {

/// A model file's contents (docs/MODELS.md).
struct ModelFile {
  std::string kind;
  calculus::TokenLaw law;
  calculus::FlopByteModel fb;
  std::optional<calculus::FlopByteClocks> clocks; ///< flop-byte "clocks"
  calculus::EnergyLens lens;
  double relSigma = 0;
  /// Covariance of the parameters every priced element shares (row-major;
  /// empty: none declared). Token law: its 4 coefficients; EnergyLens: its
  /// 12 parameters; FLOP/byte: (joules_per_flop, joules_per_byte) from the
  /// optional "coefficient_covariance".
  std::vector<double> sharedCov;
  /// Whether the file gives the fit's residual (token law:
  /// "residual_variance", added to c's shared variance; EnergyLens:
  /// "relative_residual_sd"): without it the filled sigmas hold the
  /// coefficients' uncertainty only.
  bool residualKnown = false;
};

/// Parses a model file's `text` (named `path` in errors: "path: why"):
/// `"version": 1` and `"model"` one of "token-law", "flop-byte",
/// "energylens", with that model's fields checked.
bool parseModelFile(llvm::StringRef text, const std::string &path,
                    ModelFile &mf, std::string &err);

/// A token-law fit as `energy-prof fit --model token-law` writes it.
llvm::json::Object tokenLawModelJson(const calculus::TokenLaw &law);
/// An EnergyLens fit as `energy-prof fit --model energylens` writes it.
llvm::json::Object energyLensModelJson(const calculus::EnergyLens &lens);
/// A FLOP/byte fit as `energy-prof fit --model flop-byte` writes it: the
/// base file's object (`base`, a parsed flop-byte model file: structure
/// and clocks kept) with the fitted coefficients, their covariance and the
/// relative residual.
llvm::json::Object flopByteFitModelJson(llvm::json::Object base,
                                        const calculus::FlopByteFit &fit);

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_MODELFILE_H
