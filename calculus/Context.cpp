//===- Context.cpp - Contexts, mechanisms and the Reduction Theorem -------===//

#include "calculus/Context.h"

#include <limits>

#include <algorithm>
#include <cmath>

namespace energy {
namespace calculus {

double ThermalModel::exit(double entry, double P, double T) const {
  double tau = resistance * capacitance;
  double target = ambient + P * resistance;
  if (!(tau > 0))
    return target;
  return target + (entry - target) * std::exp(-T / tau);
}

Signature ThermalModel::atTemperature(const Signature &null,
                                      double theta) const {
  Signature s = null;
  s.s = null.s * std::max(0.0, 1 + leakage * (theta - reference));
  if (theta > throttleAt) {
    double slow = 1 + throttleSlope * (theta - throttleAt);
    s.T = null.T * slow;
    s.varT = null.varT * slow * slow;
    s.clarkT = s.T;
  }
  s.varE = s.s * s.s * s.varT + s.varD;
  return s;
}

double CacheModel::residency(double bytes) const {
  if (!(capacity > 0))
    return 0;
  return std::clamp(1 - bytes / capacity, 0.0, 1.0);
}

Signature CacheSignature::at(double r) const {
  r = std::clamp(r, 0.0, 1.0);
  auto lerp = [&](double c, double w) { return c + r * (w - c); };
  Signature s = cold;
  s.s = lerp(cold.s, warm.s);
  s.T = lerp(cold.T, warm.T);
  s.d = lerp(cold.d, warm.d);
  s.varT = lerp(cold.varT, warm.varT);
  s.varD = lerp(cold.varD, warm.varD);
  s.varE = s.s * s.s * s.varT + s.varD;
  s.clarkT = s.T;
  return s;
}

double PowerDeliveryModel::extraEnergy(double dP, double T) const {
  if (!(timeConstant > 0))
    return 0;
  // Transient energy E0 = a |dP| decaying as exp(-t / tau): the part that
  // falls inside [0, T] is E0 (1 - exp(-T / tau)).
  return energyPerWatt * std::fabs(dP) * (1 - std::exp(-T / timeConstant));
}

double contentionSlowdown(const std::vector<double> &demands,
                          double capacity) {
  double total = 0;
  for (double d : demands)
    total += d;
  if (!(capacity > 0) || total <= capacity)
    return 1;
  return total / capacity;
}

std::vector<std::vector<double>>
coRunLanes(const std::vector<std::vector<LaneElement>> &lanes,
           const std::vector<double> &capacity) {
  size_t L = lanes.size();
  std::vector<std::vector<double>> realized(L);
  std::vector<size_t> at(L, 0);           // the active element per lane
  std::vector<double> left(L, 0), began(L, 0); // work left; its start time
  for (size_t l = 0; l < L; ++l) {
    realized[l].resize(lanes[l].size());
    if (!lanes[l].empty())
      left[l] = lanes[l][0].T;
  }
  double now = 0;
  while (true) {
    // The slowdown of the current active set.
    std::vector<double> D(capacity.size(), 0);
    bool any = false;
    for (size_t l = 0; l < L; ++l) {
      if (at[l] >= lanes[l].size())
        continue;
      any = true;
      const std::vector<double> &dem = lanes[l][at[l]].demand;
      for (size_t r = 0; r < D.size() && r < dem.size(); ++r)
        D[r] += dem[r];
    }
    if (!any)
      break;
    double slow = 1;
    for (size_t r = 0; r < D.size(); ++r)
      if (capacity[r] > 0)
        slow = std::max(slow, D[r] / capacity[r]);
    // Advance to the next completion (work left x slowdown).
    auto rate = [&](size_t l) {
      return lanes[l][at[l]].wallClock ? 1.0 : 1.0 / slow;
    };
    double dt = std::numeric_limits<double>::infinity();
    for (size_t l = 0; l < L; ++l)
      if (at[l] < lanes[l].size())
        dt = std::min(dt, left[l] / rate(l));
    now += dt;
    for (size_t l = 0; l < L; ++l) {
      if (at[l] >= lanes[l].size())
        continue;
      left[l] -= dt * rate(l);
      if (left[l] <= 1e-15 * std::max(1.0, lanes[l][at[l]].T)) {
        realized[l][at[l]] = now - began[l];
        began[l] = now;
        if (++at[l] < lanes[l].size())
          left[l] = lanes[l][at[l]].T;
      }
    }
  }
  return realized;
}

double contextDeviation(const Signature &a, const Signature &b) {
  double Ds = std::fabs(a.s - b.s), DT = std::fabs(a.T - b.T),
         Dd = std::fabs(a.d - b.d);
  return Ds * b.T + DT * b.s + Ds * DT + Dd; // Eq. 11
}

bool insensitive(const Signature &a, const Signature &b, double sigmaE,
                 double confidence) {
  return contextDeviation(a, b) <= twoSidedQuantile(confidence) * sigmaE;
}

double biasBound(const std::vector<unsigned> &m,
                 const std::vector<double> &sigmaE, double confidence) {
  double c = twoSidedQuantile(confidence), sum = 0;
  for (size_t i = 0; i < m.size() && i < sigmaE.size(); ++i)
    sum += m[i] * c * sigmaE[i];
  return sum;
}

Signature composeThermalChain(const std::vector<ChainElement> &chain,
                              const ThermalModel &model, double entry,
                              std::vector<Signature> *realized,
                              std::vector<double> *entryTemps) {
  Composer c(Op::Seq);
  double theta = entry;
  for (const ChainElement &e : chain) {
    Signature r = e.thermallySensitive ? model.atTemperature(e.null, theta)
                                       : e.null;
    if (realized)
      realized->push_back(r);
    if (entryTemps)
      entryTemps->push_back(theta);
    c.add(r);
    // Mean power over the element drives the device's temperature.
    theta = model.exit(theta, r.T > 0 ? r.E() / r.T : 0, r.T);
  }
  return c.result();
}

size_t firstIrreduciblePrefix(const std::vector<ChainElement> &chain,
                              const ThermalModel &model, double entry,
                              double confidence) {
  std::vector<Signature> realized;
  composeThermalChain(chain, model, entry, &realized);
  double realizedE = 0, nullE = 0;
  std::vector<unsigned> m;
  std::vector<double> sigma;
  for (size_t i = 0; i < chain.size(); ++i) {
    realizedE += realized[i].E();
    nullE += chain[i].null.E();
    m.push_back(i == 0 ? 0 : 1); // the first starts at the null context
    sigma.push_back(chain[i].null.sigmaE());
    if (std::fabs(realizedE - nullE) > biasBound(m, sigma, confidence))
      return i + 1;
  }
  return 0;
}

} // namespace calculus
} // namespace energy
