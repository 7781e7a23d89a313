//===- Context.h - Contexts, mechanisms and the Reduction Theorem -*- C++
//-*-===//
//
// CALCULUS.md section 4 (the paper's sections 3.4, 4 and 5.2). An element's
// realized signature depends on its entry context (state inherited from
// earlier execution on its device) and its runtime context (co-runners).
// Each mechanism is a state variable or a shared resource with an update
// rule; adding one never changes the operators.
//
// Mechanisms (documented models; parameters are inputs):
//  - thermal coupling (entry): a lumped RC per device. Over an element of
//    duration T at mean power P the temperature relaxes towards
//    ambient + P R with time constant R C. Static power rises with
//    temperature (leakage: s(theta) = s0 (1 + k (theta - theta0))); above a
//    throttle threshold the element slows by `throttleSlope` per kelvin of
//    entry temperature above it (its dynamic energy is unchanged).
//  - cache state (entry): an element characterized cold (nothing resident)
//    and warm (its working set resident); residency r = max(0, 1 - B / C)
//    after B bytes of intervening traffic on an L2 of C bytes; the
//    signature interpolates linearly in r.
//  - power delivery (entry): a current-draw step of |dP| watts costs an
//    extra dynamic energy `energyPerWatt * |dP|` that decays with a
//    microsecond time constant: only elements shorter than a few time
//    constants see more than a rounding of it.
//  - contention (runtime, Axiom P5): co-runners on a shared resource with
//    total demand D above capacity K are each slowed by D / K; at or below
//    capacity nothing changes.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_CONTEXT_H
#define CALCULUS_CONTEXT_H

#include "calculus/Signature.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct ThermalModel {
  double resistance = 0;    ///< K/W
  double capacitance = 0;   ///< J/K
  double ambient = 25;      ///< degC
  double leakage = 0;       ///< k, 1/K: relative static-power rise per kelvin
  double reference = 25;    ///< theta0, degC: where s was characterized
  double throttleAt = 1e9;  ///< degC
  double throttleSlope = 0; ///< relative slowdown per K above throttleAt

  /// Temperature after `T` seconds at mean power `P` from `entry`.
  double exit(double entry, double P, double T) const;
  /// The signature realized at entry temperature `theta`.
  Signature atTemperature(const Signature &null, double theta) const;
};

struct CacheModel {
  double capacity = 0; ///< bytes of L2
  /// Residency of a working set after `bytes` of intervening traffic.
  double residency(double bytes) const;
};

/// An element characterized cold and warm (cache entry contexts).
struct CacheSignature {
  Signature cold, warm;
  /// Linear interpolation in the residency r in [0, 1].
  Signature at(double residency) const;
};

struct PowerDeliveryModel {
  double energyPerWatt = 0; ///< J per W of current-draw step
  double timeConstant = 0;  ///< s (microseconds)
  /// Extra dynamic energy an element of duration T sees after a step of
  /// |dP| watts: the transient's energy, of which only the part inside the
  /// element is charged to it.
  double extraEnergy(double dP, double T) const;
};

/// Axiom P5: demand above capacity slows every co-runner by D / K.
double contentionSlowdown(const std::vector<double> &demands, double capacity);

/// One element of a co-running lane: its isolated time and its demand on
/// each shared resource (indices into the capacities).
struct LaneElement {
  double T = 0;
  std::vector<double> demand;
  bool wallClock = false; ///< an idle gap: elapses at rate 1, no demand
};

/// Co-runners nested in sequences (Axiom P5 over time): each lane runs its
/// elements back to back; at every instant the active elements (one per
/// lane) progress at rate 1 / s with s = max(1, max_r D_r / K_r) over the
/// (idle gaps elapse in wall time)
/// resources' summed demands D_r and capacities K_r. An event simulation
/// (one event per element completion) returns each element's realized time,
/// lane by lane. Capacities <= 0 are unlimited (the IR's `energy.capacity`
/// takes positive ones only: leave a resource out to leave it unlimited).
std::vector<std::vector<double>>
coRunLanes(const std::vector<std::vector<LaneElement>> &lanes,
           const std::vector<double> &capacity);

/// A co-run program: a node is a leaf (an element or an idle gap) or a
/// composition of its children, in sequence (one after another) or in
/// parallel (all at once; done when every child is). Nodes refer to their
/// children by index.
struct CoRunNode {
  enum Kind : uint8_t { Leaf, Seq, Par } kind = Leaf;
  LaneElement leaf;
  std::vector<uint32_t> children;
};

/// The time-resolved co-run of any nesting of sequences and pars (Axiom P5
/// over time, as coRunLanes): at every instant the active leaves progress
/// at rate 1 / max(1, max_r D_r / K_r) over their summed demands (idle gaps
/// in wall time); a leaf's completion starts its sequence's next child, a
/// par ends with its last child. Returns each leaf's realized time, indexed
/// by node (0 for compositions).
std::vector<double> coRun(const std::vector<CoRunNode> &nodes, uint32_t root,
                          const std::vector<double> &capacity);

/// Eq. 11 (and Eq. 12 with co-run against isolation values): the deviation
/// of an element's energy between two contexts,
/// Ds T' + DT s' + Ds DT + Dd, with primes the second context's values.
double contextDeviation(const Signature &phi, const Signature &phiPrime);

/// The insensitivity test: deviation <= c_alpha sigma_E.
bool insensitive(const Signature &phi, const Signature &phiPrime, double sigmaE,
                 double confidence);

/// Reduction Theorem (Prop. 4.1, Appendix D): worst-case bias of dropping
/// contexts, sum_i m_i c_alpha sigma_i.
double biasBound(const std::vector<unsigned> &m,
                 const std::vector<double> &sigmaE, double confidence);

/// One element of a device timeline for context propagation.
struct ChainElement {
  Signature null; ///< the null-context (isolation, reference) signature
  bool thermallySensitive = true;
};

/// Walks a device's sequence: each element's entry temperature is its
/// predecessor's exit temperature; returns the realized signatures and the
/// sequential composition of them (the context-dependent algebra).
Signature composeThermalChain(const std::vector<ChainElement> &chain,
                              const ThermalModel &model, double entry,
                              std::vector<Signature> *realized = nullptr,
                              std::vector<double> *entryTemps = nullptr);

/// Prefix check: the first prefix of the chain whose realized energy
/// deviates from the context-free composition by more than the bias bound
/// (m = 1 per element, the first starting at the null context: m = 0), as
/// checkReduction tests it. Returns the prefix length, or 0 when every
/// prefix reduces.
size_t firstIrreduciblePrefix(const std::vector<ChainElement> &chain,
                              const ThermalModel &model, double entry,
                              double confidence);

//===----------------------------------------------------------------------===//
// Context propagation along a device's timeline (what
// `--energy-propagate-context` runs, element by element)
//===----------------------------------------------------------------------===//

/// A signature characterized at several values of one context coordinate
/// (entry temperature; co-run slowdown), listed by increasing `x`. A point
/// without a measured static power (`hasStatic` false) takes the caller's
/// `staticAt(x)` at its own coordinate.
struct MeasuredPoint {
  double x = 0;
  Signature sig;
  bool hasStatic = true;
};

/// The signature at `x`: linear between the two nearest points, clamped to
/// the first and the last (an empty table gives a zero Signature(); the
/// passes refuse empty tables before).
Signature interpolateMeasured(const std::vector<MeasuredPoint> &points,
                              double x,
                              const std::function<double(double)> &staticAt);

/// The entry-context mechanisms a device declares.
struct DeviceMechanisms {
  double staticPower = 0; ///< W, at the thermal model's reference
  std::optional<ThermalModel> thermal;
  std::optional<CacheModel> cache;
  std::optional<PowerDeliveryModel> delivery;
};

/// A device's entry context at one point of its timeline.
struct DeviceContext {
  std::optional<double> theta; ///< temperature; the model's reference until set
  double traffic = 0;          ///< cumulative L2 traffic, bytes
  std::optional<double> power; ///< the previous element's mean power, W

  /// The temperature, starting at the model's reference.
  double &temperature(const ThermalModel &m) {
    if (!theta)
      theta = m.reference;
    return *theta;
  }
};

/// One element's inputs to its contexts.
struct ContextElement {
  Signature null;        ///< null-context signature (cold, isolated)
  bool sensitive = true; ///< false: no entry context affects it
  /// Cache: its signature with the reused data resident, and the device's
  /// cumulative traffic when that data's producer ended.
  std::optional<Signature> warm;
  double producerTraffic = 0;
  /// Characterized at entry temperatures (replaces the leakage model).
  const std::vector<MeasuredPoint> *thermalTable = nullptr;
  /// Co-run slowdown (Axiom P5, >= 1) and, optionally, the element
  /// characterized under co-runners (replaces scaling T by it).
  double slowdown = 1;
  const std::vector<MeasuredPoint> *contentionTable = nullptr;
  double traffic = 0; ///< bytes this element moves through L2
  /// False inside a par: the par heats its device once, over its length.
  bool advanceTemperature = true;
};

/// What the contexts did to one element.
struct ContextOutcome {
  Signature realized;
  bool changed = false; ///< realized differs from the null signature
  std::optional<double> entryTemperature; ///< degC (thermal model)
  std::optional<double> residency;        ///< cache residency in [0, 1]
  std::optional<double> slowdown;         ///< > 1 when co-runners slowed it
  std::optional<double> deliveryEnergy;   ///< J of current-draw transient
};

/// Realizes one element at its device's entry context and advances that
/// context past it. The mechanisms apply in order: cache residency (the
/// null signature moved towards the warm one), entry temperature (leakage
/// and throttling, or the thermal table), co-run slowdown, then the
/// power-delivery transient of the step from the previous element's mean
/// power (or the static power on the device's first element).
ContextOutcome realizeElement(const DeviceMechanisms &device,
                              DeviceContext &context,
                              const ContextElement &element);

/// An idle gap of `T` seconds: the device idles at its leakage-dependent
/// static power, which is returned; the context advances past the gap
/// (the temperature only when `advanceTemperature`).
double realizeIdle(const DeviceMechanisms &device, DeviceContext &context,
                   double T, bool advanceTemperature);

/// The end of an outermost par on the device: the next element steps from
/// the par's mean power, and the device heats over the par from its entry
/// temperature `entryTheta` at that power. `T` and `d` are the par's
/// realized time and dynamic energy.
void finishPar(const DeviceMechanisms &device, DeviceContext &context,
               double entryTheta, double T, double d, bool heats);

//===----------------------------------------------------------------------===//
// The Reduction Theorem's check (what `--energy-reduce` runs)
//===----------------------------------------------------------------------===//

/// One element of a tree, in program order.
struct ReductionEntry {
  Signature realized, null;
  unsigned m = 1;         ///< 1 in a sequence, 2 in a par or multi (Prop. 4.1)
  bool nullStart = false; ///< the first element on its device (m - 1)
  uint32_t device = 0;    ///< prefixes are per device
};

struct ReductionCheck {
  double biasBound = 0; ///< the tree's bound, sum m_i c_alpha sigma_i
  /// Per entry: the element is insensitive (Eq. 11/12), and its device's
  /// prefix up to it deviates by at most the prefix's bias bound.
  std::vector<uint8_t> elementOk, prefixOk;
  bool reducible() const;
};

/// Prop. 4.1 over a tree's elements: each element's insensitivity and every
/// device prefix's deviation against its bias bound (with a relative
/// allowance of 1e-12 for the rounding in the sums).
ReductionCheck checkReduction(const std::vector<ReductionEntry> &entries,
                              double confidence);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_CONTEXT_H
