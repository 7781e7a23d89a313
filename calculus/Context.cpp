//===- Context.cpp - Contexts, mechanisms and the Reduction Theorem -------===//

#include "calculus/Context.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

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
  s.excessE = s.covUT = 0; // an element's (Axiom P1)
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
  s.excessE = s.covUT = 0; // an element's (Axiom P1)
  return s;
}

double PowerDeliveryModel::extraEnergy(double dP, double T) const {
  if (!(timeConstant > 0))
    return 0;
  // Transient energy E0 = a |dP| decaying as exp(-t / tau): the part that
  // falls inside [0, T] is E0 (1 - exp(-T / tau)).
  return energyPerWatt * std::fabs(dP) * (1 - std::exp(-T / timeConstant));
}

double contentionSlowdown(const std::vector<double> &demands, double capacity) {
  double total = 0;
  for (double d : demands)
    total += d;
  if (!(capacity > 0) || total <= capacity)
    return 1;
  return total / capacity;
}

std::vector<double> coRun(const std::vector<CoRunNode> &nodes, uint32_t root,
                          const std::vector<double> &capacity) {
  size_t n = nodes.size();
  std::vector<double> realized(n, 0), left(n, 0), began(n, 0);
  std::vector<uint32_t> parent(n, UINT32_MAX), cursor(n, 0);
  for (uint32_t v = 0; v < n; ++v)
    for (uint32_t c : nodes[v].children)
      parent[c] = v;
  std::vector<uint32_t> active; // running leaves
  double now = 0;
  // Starting a node starts its first leaves; finishing one moves its
  // parent on. Zero-length leaves finish at the next event (dt = 0).
  std::function<void(uint32_t)> start, finish;
  start = [&](uint32_t v) {
    const CoRunNode &node = nodes[v];
    switch (node.kind) {
    case CoRunNode::Leaf:
      left[v] = node.leaf.T;
      began[v] = now;
      active.push_back(v);
      return;
    case CoRunNode::Seq:
      cursor[v] = 0;
      if (node.children.empty())
        return finish(v);
      return start(node.children[0]);
    case CoRunNode::Par:
      cursor[v] = 0; // children finished
      if (node.children.empty())
        return finish(v);
      for (uint32_t c : node.children)
        start(c);
      return;
    }
  };
  finish = [&](uint32_t v) {
    uint32_t p = parent[v];
    if (p == UINT32_MAX || v == root)
      return;
    const CoRunNode &up = nodes[p];
    if (up.kind == CoRunNode::Seq) {
      if (++cursor[p] < up.children.size())
        start(up.children[cursor[p]]);
      else
        finish(p);
    } else if (++cursor[p] == up.children.size()) {
      finish(p);
    }
  };
  start(root);
  std::vector<uint32_t> done;
  while (!active.empty()) {
    // The slowdown of the current active set.
    std::vector<double> D(capacity.size(), 0);
    for (uint32_t v : active) {
      const LaneElement &le = nodes[v].leaf;
      for (size_t r = 0; r < D.size() && r < le.demand.size(); ++r)
        D[r] += le.demand[r];
    }
    double slow = 1;
    for (size_t r = 0; r < D.size(); ++r)
      if (capacity[r] > 0)
        slow = std::max(slow, D[r] / capacity[r]);
    auto rate = [&](uint32_t v) {
      return nodes[v].leaf.wallClock ? 1.0 : 1.0 / slow;
    };
    // Advance to the next completion (work left x slowdown).
    double dt = std::numeric_limits<double>::infinity();
    for (uint32_t v : active)
      dt = std::min(dt, left[v] / rate(v));
    // Demands past a double's range (1e10 over a capacity of 1e-300) stop
    // the work: the running leaves never end. Their times are infinite,
    // which the caller refuses as overflowing (the loop ran forever).
    if (!std::isfinite(dt)) {
      for (uint32_t v : active)
        realized[v] = std::numeric_limits<double>::infinity();
      return realized;
    }
    now += dt;
    done.clear();
    std::vector<uint32_t> still;
    for (uint32_t v : active) {
      left[v] -= dt * rate(v);
      if (left[v] <= 1e-15 * std::max(1.0, nodes[v].leaf.T))
        done.push_back(v);
      else
        still.push_back(v);
    }
    active.swap(still);
    for (uint32_t v : done) {
      realized[v] = now - began[v];
      finish(v);
    }
  }
  return realized;
}

std::vector<std::vector<double>>
coRunLanes(const std::vector<std::vector<LaneElement>> &lanes,
           const std::vector<double> &capacity) {
  // A par of sequences.
  std::vector<CoRunNode> nodes(1);
  nodes[0].kind = CoRunNode::Par;
  std::vector<std::vector<uint32_t>> leafOf(lanes.size());
  for (size_t l = 0; l < lanes.size(); ++l) {
    uint32_t seq = uint32_t(nodes.size());
    nodes.push_back({CoRunNode::Seq, {}, {}});
    nodes[0].children.push_back(seq);
    for (const LaneElement &le : lanes[l]) {
      leafOf[l].push_back(uint32_t(nodes.size()));
      nodes[seq].children.push_back(uint32_t(nodes.size()));
      nodes.push_back({CoRunNode::Leaf, le, {}});
    }
  }
  std::vector<double> realized = coRun(nodes, 0, capacity);
  std::vector<std::vector<double>> out(lanes.size());
  for (size_t l = 0; l < lanes.size(); ++l)
    for (uint32_t v : leafOf[l])
      out[l].push_back(realized[v]);
  return out;
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

Signature interpolateMeasured(const std::vector<MeasuredPoint> &points,
                              double x,
                              const std::function<double(double)> &staticAt) {
  if (points.empty())
    return Signature();
  auto at = [&](const MeasuredPoint &p) {
    const Signature &g = p.sig;
    return Signature::measured(p.hasStatic ? g.s : staticAt(p.x), g.T, g.d,
                               g.varT, g.varD, {});
  };
  if (x <= points.front().x)
    return at(points.front());
  if (x >= points.back().x)
    return at(points.back());
  // Bounded whatever x is (a NaN compares false with both ends).
  size_t k = 1;
  while (k + 1 < points.size() && points[k].x < x)
    ++k;
  Signature lo = at(points[k - 1]), hi = at(points[k]);
  double w = (x - points[k - 1].x) / (points[k].x - points[k - 1].x);
  auto mix = [w](double u, double v) { return u + w * (v - u); };
  return Signature::measured(mix(lo.s, hi.s), mix(lo.T, hi.T), mix(lo.d, hi.d),
                             mix(lo.varT, hi.varT), mix(lo.varD, hi.varD), {});
}

ContextOutcome realizeElement(const DeviceMechanisms &device,
                              DeviceContext &context,
                              const ContextElement &element) {
  ContextOutcome out;
  Signature s = element.null;
  // Cache: the cold signature moved towards the warm one by the residency
  // of the reused data after the traffic since its producer.
  if (element.sensitive && element.warm && device.cache) {
    double r =
        device.cache->residency(context.traffic - element.producerTraffic);
    s = CacheSignature{s, *element.warm}.at(r);
    out.residency = r;
    out.changed = true;
  }
  if (device.thermal) {
    const ThermalModel &m = *device.thermal;
    double theta = context.temperature(m);
    out.entryTemperature = theta;
    if (element.sensitive) {
      if (element.thermalTable) {
        // A point without a measured s: the device's at that temperature.
        s = interpolateMeasured(*element.thermalTable, theta, [&](double t) {
          return m
              .atTemperature(
                  Signature::measured(device.staticPower, 0, 0, 0, 0, {}), t)
              .s;
        });
        s.devices = element.null.devices;
      } else {
        s = m.atTemperature(s, theta);
      }
      out.changed = true;
    }
    // Mean power over the element drives the device's temperature.
    if (element.advanceTemperature)
      context.theta = m.exit(theta, s.T > 0 ? s.E() / s.T : 0, s.T);
  }
  if (element.slowdown > 1) {
    double k = element.slowdown;
    if (element.contentionTable) {
      // Characterized under co-runners: its static power, unless measured,
      // as realized so far.
      double sNow = s.s;
      s = interpolateMeasured(*element.contentionTable, k,
                              [&](double) { return sNow; });
      s.devices = element.null.devices;
    } else {
      // Axiom P5: the work progresses at 1 / k; the dynamic energy is
      // unchanged.
      s = Signature::measured(s.s, s.T * k, s.d, s.varT * k * k, s.varD,
                              s.devices);
    }
    out.slowdown = k;
    out.changed = true;
  }
  double power = s.T > 0 ? s.E() / s.T : s.s;
  if (device.delivery && element.sensitive) {
    // The current-draw step from the previous element (or idle, at the
    // static power, on the device's first element), against the step from
    // idle its null signature was measured with (the null context has no
    // delivery state: paper section 3.4): the first element pays nothing,
    // one after a closer draw less than its null.
    double dP = power - context.power.value_or(device.staticPower);
    double extra =
        device.delivery->extraEnergy(dP, s.T) -
        device.delivery->extraEnergy(power - device.staticPower, s.T);
    if (extra != 0) {
      // Not below zero: a delivery model whose step from idle exceeds the
      // element's measured dynamic energy contradicts that measurement.
      s = Signature::measured(s.s, s.T, std::max(0.0, s.d + extra), s.varT,
                              s.varD, s.devices);
      out.deliveryEnergy = extra;
      out.changed = true;
    }
  }
  context.power = power;
  context.traffic += element.traffic;
  out.realized = s;
  return out;
}

double realizeIdle(const DeviceMechanisms &device, DeviceContext &context,
                   double T, bool advanceTemperature) {
  double s = device.staticPower;
  if (device.thermal) {
    const ThermalModel &m = *device.thermal;
    double theta = context.temperature(m);
    // The device idles at its leakage-dependent static power.
    s = m.atTemperature(Signature::idle(s, T, {}), theta).s;
    if (advanceTemperature)
      context.theta = m.exit(theta, s, T);
  }
  context.power = s;
  return s;
}

void finishPar(const DeviceMechanisms &device, DeviceContext &context,
               double entryTheta, double T, double d, bool heats) {
  // The static power its co-runners drew: at the par's entry temperature,
  // as each of them was realized (not the reference's).
  double s = device.staticPower;
  if (device.thermal)
    s = device.thermal->atTemperature(Signature::idle(s, 0, {}), entryTheta).s;
  context.power = T > 0 ? (s * T + d) / T : s;
  if (device.thermal && heats)
    context.theta = device.thermal->exit(entryTheta, *context.power, T);
}

bool ReductionCheck::reducible() const {
  for (size_t i = 0; i < elementOk.size(); ++i)
    if (!elementOk[i] || !prefixOk[i])
      return false;
  return true;
}

ReductionCheck checkReduction(const std::vector<ReductionEntry> &entries,
                              double confidence) {
  ReductionCheck out;
  double c = twoSidedQuantile(confidence);
  std::vector<unsigned> ms;
  std::vector<double> sigmas;
  // Per device: the prefix's deviation and its bias bound so far.
  std::vector<std::pair<double, double>> prefix;
  for (const ReductionEntry &e : entries) {
    double sigma = e.null.sigmaE();
    unsigned m = e.nullStart ? e.m - 1 : e.m; // the first enters at the null
    ms.push_back(m);
    sigmas.push_back(sigma);
    if (e.device >= prefix.size())
      prefix.resize(size_t(e.device) + 1, {0.0, 0.0});
    auto &[deviation, bound] = prefix[e.device];
    deviation += e.realized.E() - e.null.E();
    bound += m * c * sigma;
    out.elementOk.push_back(insensitive(e.realized, e.null, sigma, confidence));
    out.prefixOk.push_back(std::fabs(deviation) <= bound * (1 + 1e-12));
  }
  out.biasBound = biasBound(ms, sigmas, confidence);
  return out;
}

Signature composeThermalChain(const std::vector<ChainElement> &chain,
                              const ThermalModel &model, double entry,
                              std::vector<Signature> *realized,
                              std::vector<double> *entryTemps) {
  // A device with the thermal mechanism only.
  DeviceMechanisms device;
  device.thermal = model;
  DeviceContext context;
  context.theta = entry;
  Composer c(Op::Seq);
  for (const ChainElement &e : chain) {
    ContextElement element;
    element.null = e.null;
    element.sensitive = e.thermallySensitive;
    ContextOutcome o = realizeElement(device, context, element);
    if (realized)
      realized->push_back(o.realized);
    if (entryTemps)
      entryTemps->push_back(*o.entryTemperature);
    c.add(o.realized);
  }
  return c.result();
}

size_t firstIrreduciblePrefix(const std::vector<ChainElement> &chain,
                              const ThermalModel &model, double entry,
                              double confidence) {
  std::vector<Signature> realized;
  composeThermalChain(chain, model, entry, &realized);
  std::vector<ReductionEntry> entries;
  for (size_t i = 0; i < chain.size(); ++i)
    entries.push_back({realized[i], chain[i].null, 1, i == 0, 0});
  ReductionCheck check = checkReduction(entries, confidence);
  for (size_t i = 0; i < chain.size(); ++i)
    if (!check.prefixOk[i])
      return i + 1;
  return 0;
}

} // namespace calculus
} // namespace energy
