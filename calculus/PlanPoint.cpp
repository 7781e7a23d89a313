//===- PlanPoint.cpp - Choosing a frontier point for an objective ---------===//

#include "calculus/DagFrontier.h"

#include <cmath>
#include <limits>

namespace energy {
namespace calculus {

std::optional<PlanObjective> parsePlanObjective(const std::string &name) {
  if (name == "energy")
    return PlanObjective::Energy;
  if (name == "edp")
    return PlanObjective::EDP;
  if (name == "ed2p")
    return PlanObjective::ED2P;
  if (name == "zeus")
    return PlanObjective::ZeusCost;
  return std::nullopt;
}

double planScore(const PlanObjective &objective, double T, double E) {
  switch (objective.kind) {
  case PlanObjective::Energy:
    return E;
  case PlanObjective::EDP:
    return E * T;
  case PlanObjective::ED2P:
    return E * T * T;
  case PlanObjective::ZeusCost: // Zeus (NSDI '23), Eq. 2
    return objective.eta * E + (1 - objective.eta) * objective.maxPower * T;
  }
  return E;
}

std::optional<size_t> choosePlanPoint(
    const std::vector<DagPoint> &frontier, const PlanObjective &objective,
    double limit,
    const std::function<std::pair<double, double>(const DagPoint &)> &asRun) {
  std::optional<size_t> best;
  double bestScore = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < frontier.size(); ++i) {
    const DagPoint &p = frontier[i];
    if (p.T > limit * (1 + 1e-12))
      continue;
    auto [T, E] = asRun(p);
    if (T > limit * (1 + 1e-12))
      continue;
    double score = planScore(objective, T, E);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

} // namespace calculus
} // namespace energy
