//===- Serving.h - energy-prof validate-serving and serve-plan -*- C++ -*-===//

#ifndef TOOLS_ENERGY_PROF_SERVING_H
#define TOOLS_ENERGY_PROF_SERVING_H

#include <optional>
#include <string>
#include <vector>

namespace energy {

/// Reads ML.ENERGY measurements (files or directories), validates the
/// providers held out and scores the planner (docs/VALIDATION.md); the
/// report is JSON.
bool validateServingCommand(const std::vector<std::string> &paths,
                            const std::string &generator, double joulesPerFlop,
                            double joulesPerByte, std::string &report,
                            std::string &err);

/// Recommends the batch cap of least predicted energy per token whose
/// predicted p90 inter-token latency meets the SLO, from the measurements of
/// one (model, GPU, TP); the answer is JSON. With `clockModel` ("sim:h100",
/// ...) also the batch cap and SM clock by that simulated GPU's model
/// (`sm_clock`, with the power limit that holds the GPU about that clock
/// where clocks cannot be locked).
bool servePlanCommand(const std::vector<std::string> &paths,
                      const std::string &model, const std::string &gpu, int tp,
                      int gpus, double sloMs,
                      const std::optional<std::string> &clockModel,
                      std::string &text, std::string &err);

} // namespace energy

#endif // TOOLS_ENERGY_PROF_SERVING_H
