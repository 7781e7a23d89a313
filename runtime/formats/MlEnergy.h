//===- MlEnergy.h - ML.ENERGY leaderboard measurements ----------*- C++ -*-===//
//
// The one reader of the ML.ENERGY leaderboard's published measurements
// (docs/VALIDATION.md#the-data): v3 task files (`{"task", "configurations":
// [...]}`, vLLM 0.11 on H100/B200) and v2 result files (one configuration
// per `bs<B>+tp<T>+pp<P>.json`, vLLM 0.4 on A100/H100, with the task's
// `models.json` beside the GPU folders for parameter counts). MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_MLENERGY_H
#define RUNTIME_FORMATS_MLENERGY_H

#include "calculus/models/ServingValidation.h"

#include <string>
#include <vector>

namespace energy {
namespace formats {

/// One measured serving configuration in steady state.
struct ServingPoint {
  std::string file;         ///< where it was read
  std::string dataset;      ///< "v2" or "v3"
  std::string task;         ///< lm-arena-chat, gpqa, chat, code, ...
  std::string model, gpu;   ///< model id; "A100", "H100", "B200"
  std::string gpuModel;     ///< the GPU as the file names it
  std::string where;        ///< the configuration in the file ("$...")
  std::string architecture; ///< "dense", "moe" or "hybrid"
  double totalParamsB = 0, activeParamsB = 0; ///< billions
  double bytesPerParam = 2;                   ///< bf16 2, fp8 1
  /// The bytes per parameter of what is not a routed expert: as
  /// bytesPerParam, but bf16 (2) where only the experts are quantized
  /// (gpt-oss's MXFP4 checkpoint).
  double sharedBytesPerParam = 2;
  /// A mixture-of-experts model's routed experts per MoE layer and how
  /// many of them each token goes to (its published configuration; 0, 0:
  /// dense, or routing not known).
  int routedExperts = 0, expertsPerToken = 0;
  /// Where the routing is from: the published model whose configuration
  /// gave it (its name is in this one's: a fine-tune routes as its base),
  /// or the rows' own fields; empty without one.
  std::string routingOf;
  int numGpus = 1, tp = 1, pp = 1, ep = 1, dp = 1;
  double batchCap = 0;        ///< max_num_seqs (x PP in v2)
  double batch = 0;           ///< realized mean running batch
  double outputTokens = 0;    ///< mean output length per request
  double energyPerTokenJ = 0; ///< GPU energy (all GPUs) per output token
  double secondsPerToken = 0; ///< 1 / output throughput (tau = D / T)
  double meanItlS = 0;        ///< v2: mean TPOT; v3: median ITL
  double p90ItlS = -1;        ///< v3 only (-1: not measured)
  double powerW = -1;         ///< v3 only: mean power over all GPUs
};

/// Reads a v3 task file, a v2 result file, or a directory (walked for v2
/// result files; `models.json` and `schema.yaml` are read as metadata).
/// Errors name the file and the field.
bool readMlEnergy(const std::string &path, std::vector<ServingPoint> &out,
                  std::string &err);

/// The measurements as the calculus' observations: M_w = total parameters
/// x bytes per parameter, FLOPs per token = 2 x active parameters.
std::vector<calculus::ServingObservation>
observations(const std::vector<ServingPoint> &points);

/// Reads every path (files or directories) into observations.
bool readObservations(const std::vector<std::string> &paths,
                      std::vector<calculus::ServingObservation> &out,
                      std::string &err);

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_MLENERGY_H
