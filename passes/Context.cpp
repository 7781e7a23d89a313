//===- Context.cpp - --energy-propagate-context and --energy-reduce -------===//
//
// Thin passes over calculus/Context.h. Mechanism parameters live in the IR:
//  - `energy.thermal = {resistance = R, capacitance = C, ambient = T_a,
//    leakage = k, reference = theta0, throttle_at = ..., throttle_slope = ...}`
//    on an energy.device (K/W, J/K, degC, 1/K, degC, degC, 1/K);
//  - `energy.capacity = {hbm = 1.0, ...}` on a device and
//    `energy.demand = {hbm = 0.4, ...}` on elements (contention, Axiom P5);
//  - `energy.cache = {l2_bytes = C}` on a device, and on elements
//    `energy.traffic = B` (bytes through L2) and, for an element that reuses
//    an earlier one's data, `energy.reuses = @producer` with
//    `energy.warm = #energy.sig<...>` (its signature with the data
//    resident; its `sig` is the cold, characterized one);
//  - `energy.power_delivery = {energy_per_watt = a, time_constant = tau}`
//    on a device: every element pays the transient of its current-draw step
//    from the previous element's (or idle) power;
//  - `energy.insensitive` on an element that no entry context affects.
//
//===----------------------------------------------------------------------===//

#include "calculus/Context.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Energy/EnergyTree.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <functional>

namespace energy {
#define GEN_PASS_DEF_ENERGYPROPAGATECONTEXT
#define GEN_PASS_DEF_ENERGYREDUCE
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;

namespace {

constexpr const char *kNullSig = "energy.null_sig";
constexpr const char *kEntry = "energy.entry_temperature";
constexpr const char *kSlowdown = "energy.contention_slowdown";
constexpr const char *kIdleStatic = "energy.idle_static";
constexpr const char *kThermalSigs = "energy.thermal_sigs";
constexpr const char *kContentionSigs = "energy.contention_sigs";

struct DeviceInfo {
  double staticPower = 0;
  std::optional<calculus::ThermalModel> thermal;
  std::optional<calculus::CacheModel> cache;
  std::optional<calculus::PowerDeliveryModel> delivery;
  DictionaryAttr capacity;
};

/// A device's entry context at some point of its timeline.
struct DeviceState {
  std::optional<double> theta; ///< temperature (thermal model)
  double traffic = 0;          ///< cumulative L2 traffic, bytes
  std::optional<double> power; ///< the previous element's mean power
};
using State = DenseMap<StringAttr, DeviceState>;

/// Reads the mechanisms of every energy.device in the module.
FailureOr<DenseMap<StringAttr, DeviceInfo>> readDevices(ModuleOp module) {
  DenseMap<StringAttr, DeviceInfo> out;
  bool bad = false;
  module.walk([&](energy::DeviceOp dev) {
    DeviceInfo info;
    info.staticPower = dev.getStaticPower().convertToDouble();
    // A float of a mechanism's parameter dictionary; errors name both.
    auto get = [&](DictionaryAttr dict, StringRef name, StringRef key,
                   double &slot, bool required) {
      Attribute a = dict.get(key);
      if (!a) {
        if (required) {
          dev.emitOpError(name) << " needs '" << key << "'";
          bad = true;
        }
        return;
      }
      auto f = dyn_cast<FloatAttr>(a);
      if (!f) {
        dev.emitOpError(name) << " '" << key << "' must be a float";
        bad = true;
        return;
      }
      slot = f.getValueAsDouble();
    };
    if (auto th = dev->getAttrOfType<DictionaryAttr>("energy.thermal")) {
      calculus::ThermalModel m;
      StringRef n = "energy.thermal";
      get(th, n, "resistance", m.resistance, true);
      get(th, n, "capacitance", m.capacitance, true);
      get(th, n, "ambient", m.ambient, true);
      m.reference = m.ambient;
      get(th, n, "reference", m.reference, false);
      get(th, n, "leakage", m.leakage, false);
      get(th, n, "throttle_at", m.throttleAt, false);
      get(th, n, "throttle_slope", m.throttleSlope, false);
      if (!bad && (!(m.resistance > 0) || !(m.capacitance > 0))) {
        dev.emitOpError("energy.thermal resistance and capacitance must be "
                        "positive");
        bad = true;
      }
      info.thermal = m;
    }
    if (auto c = dev->getAttrOfType<DictionaryAttr>("energy.cache")) {
      calculus::CacheModel m;
      get(c, "energy.cache", "l2_bytes", m.capacity, true);
      if (!bad && !(m.capacity > 0)) {
        dev.emitOpError("energy.cache l2_bytes must be positive");
        bad = true;
      }
      info.cache = m;
    }
    if (auto pd = dev->getAttrOfType<DictionaryAttr>("energy.power_delivery")) {
      calculus::PowerDeliveryModel m;
      StringRef n = "energy.power_delivery";
      get(pd, n, "energy_per_watt", m.energyPerWatt, true);
      get(pd, n, "time_constant", m.timeConstant, true);
      if (!bad && (!(m.energyPerWatt >= 0) || !(m.timeConstant > 0))) {
        dev.emitOpError("energy.power_delivery needs energy_per_watt >= 0 "
                        "and time_constant > 0");
        bad = true;
      }
      info.delivery = m;
    }
    info.capacity = dev->getAttrOfType<DictionaryAttr>("energy.capacity");
    out[dev.getSymNameAttr()] = info;
  });
  if (bad)
    return failure();
  return out;
}

/// The realized (T, d) of a subtree, for its parent's bookkeeping.
struct Realized {
  double T = 0, d = 0;
};

class Propagator {
public:
  Propagator(MLIRContext *ctx, DenseMap<StringAttr, DeviceInfo> &devices)
      : ctx(ctx), devices(devices) {}

  /// `state` holds each device's context at the subtree's start and is
  /// advanced to its end.
  FailureOr<Realized> visit(Operation *op, State &state);

private:
  double &temperature(StringAttr dev, State &state) {
    DeviceState &ds = state[dev];
    if (!ds.theta)
      ds.theta = devices[dev].thermal->reference;
    return *ds.theta;
  }
  FailureOr<Realized> element(ElementOp el, State &state, double slowdown);
  /// An element characterized at several contexts (`energy.thermal_sigs`:
  /// entry temperatures, key `entry_C`; `energy.contention_sigs`: co-run
  /// slowdowns, key `slowdown`): its signature at `x`, linear between the
  /// two nearest entries, clamped to the first and last. An entry without a
  /// measured `s` takes `staticAt(key value)`.
  FailureOr<calculus::Signature>
  measuredAt(ElementOp el, StringRef attr, StringRef key, double x,
             llvm::function_ref<double(double)> staticAt);
  /// The cache entry context: the cold signature `s` moved towards the
  /// element's warm one by the residency of the data it reuses.
  LogicalResult cacheContext(ElementOp el, const DeviceInfo &info,
                             DeviceState &ds, calculus::Signature &s,
                             bool &changed);

  MLIRContext *ctx;
  DenseMap<StringAttr, DeviceInfo> &devices;
  /// Devices inside a par: static power is device-wide, so every co-running
  /// element sees the par's entry temperature; the device's temperature is
  /// advanced once, over the whole par.
  DenseSet<StringAttr> frozen;
  /// Cumulative L2 traffic on its device at the end of each element.
  DenseMap<StringAttr, double> trafficAfter;
  /// Contention slowdowns of co-runners nested in sequences (set by their
  /// par before its operands are visited).
  DenseMap<Operation *, double> coRunSlowdown;
  /// Pars inside another par's time-resolved co-run: their elements'
  /// slowdowns come from that run.
  DenseSet<Operation *> coveredPars;
  /// The time-resolved co-run of a par whose operands include sequences
  /// (nested at any depth); false when it has none (Axiom P5's constant
  /// form applies). True for a par an enclosing run already covers.
  bool nestedCoRun(ParOp par, const DeviceInfo &info);
};

bool Propagator::nestedCoRun(ParOp par, const DeviceInfo &info) {
  if (coveredPars.contains(par))
    return true; // an enclosing par's run covers it
  if (!info.capacity)
    return false;
  // The time-resolved form applies when some operand is a sequence (at any
  // depth: a par in a seq in a par...); direct elements alone keep Axiom
  // P5's constant form.
  if (llvm::none_of(par.getBody().front(),
                    [](Operation &c) { return isa<SeqOp>(c); }))
    return false;
  SmallVector<StringAttr> resources;
  std::vector<double> capacity;
  for (NamedAttribute a : info.capacity)
    if (auto f = dyn_cast<FloatAttr>(a.getValue())) {
      resources.push_back(a.getName());
      capacity.push_back(f.getValueAsDouble());
    }
  // The program: elements and idles are leaves, seqs and pars compose.
  // An operand holding anything else (a measured composite, a multi) is not
  // modelled as a co-runner.
  std::vector<calculus::CoRunNode> nodes;
  std::vector<Operation *> opOf;
  SmallVector<ParOp> inner;
  std::function<std::optional<uint32_t>(Operation *)> build =
      [&](Operation *op) -> std::optional<uint32_t> {
    uint32_t id = uint32_t(nodes.size());
    nodes.emplace_back();
    opOf.push_back(op);
    if (auto idle = dyn_cast<IdleOp>(op)) {
      nodes[id].leaf.T = idle.getDuration().convertToDouble();
      nodes[id].leaf.wallClock = true;
      return id;
    }
    if (auto el = dyn_cast<ElementOp>(op)) {
      auto sig = el->getAttrOfType<SignatureAttr>(kNullSig);
      if (!sig)
        sig = el.getSigAsAttr();
      calculus::LaneElement &le = nodes[id].leaf;
      le.T = sig ? sig.time() : 0;
      le.demand.assign(resources.size(), 0);
      if (auto d = el->getAttrOfType<DictionaryAttr>("energy.demand"))
        for (size_t r = 0; r < resources.size(); ++r)
          if (auto f = d.getAs<FloatAttr>(resources[r]))
            le.demand[r] = f.getValueAsDouble();
      return id;
    }
    if (!isa<SeqOp, ParOp>(op))
      return std::nullopt;
    nodes[id].kind = isa<SeqOp>(op) ? calculus::CoRunNode::Seq
                                    : calculus::CoRunNode::Par;
    if (auto p = dyn_cast<ParOp>(op); p && p != par)
      inner.push_back(p);
    std::vector<uint32_t> children;
    for (Operation &child : op->getRegion(0).front()) {
      std::optional<uint32_t> c = build(&child);
      if (!c)
        return std::nullopt;
      children.push_back(*c);
    }
    nodes[id].children = std::move(children);
    return id;
  };
  uint32_t root = uint32_t(nodes.size());
  nodes.emplace_back();
  opOf.push_back(par);
  nodes[root].kind = calculus::CoRunNode::Par;
  for (Operation &child : par.getBody().front()) {
    size_t mark = nodes.size(), innerMark = inner.size();
    if (std::optional<uint32_t> c = build(&child)) {
      nodes[root].children.push_back(*c);
      continue;
    }
    nodes.resize(mark); // not modelled: drop what this operand added
    opOf.resize(mark);
    inner.resize(innerMark);
  }
  std::vector<double> realized = calculus::coRun(nodes, root, capacity);
  for (size_t v = 0; v < nodes.size(); ++v)
    if (nodes[v].kind == calculus::CoRunNode::Leaf &&
        !nodes[v].leaf.wallClock && nodes[v].leaf.T > 0 &&
        realized[v] > nodes[v].leaf.T * (1 + 1e-12))
      coRunSlowdown[opOf[v]] = realized[v] / nodes[v].leaf.T;
  for (ParOp p : inner)
    coveredPars.insert(p);
  return true;
}

LogicalResult Propagator::cacheContext(ElementOp el, const DeviceInfo &info,
                                       DeviceState &ds, calculus::Signature &s,
                                       bool &changed) {
  auto reuses = el->getAttrOfType<FlatSymbolRefAttr>("energy.reuses");
  auto warm = el->getAttrOfType<SignatureAttr>("energy.warm");
  if (!reuses && !warm)
    return success();
  if (!reuses || !warm)
    return el.emitOpError("energy.reuses and energy.warm go together (the "
                          "producer whose data it reuses, and its signature "
                          "with that data resident)");
  if (!info.cache)
    return el.emitOpError("reuses cached data but its device declares no "
                          "energy.cache = {l2_bytes = ...}");
  auto it = trafficAfter.find(reuses.getAttr());
  if (it == trafficAfter.end())
    return el.emitOpError("energy.reuses ")
           << reuses << " names no earlier element on its device";
  double between = ds.traffic - it->second;
  double r = info.cache->residency(between);
  calculus::CacheSignature cs{
      s, toSignature(warm, s.s)};
  s = cs.at(r);
  el->setAttr("energy.residency", FloatAttr::get(Float64Type::get(ctx), r));
  changed = true;
  return success();
}

FailureOr<calculus::Signature>
Propagator::measuredAt(ElementOp el, StringRef attr, StringRef key, double x,
                       llvm::function_ref<double(double)> staticAt) {
  auto table = el->getAttrOfType<ArrayAttr>(attr);
  if (!table)
    return el.emitOpError(attr) << " must be an array of {" << key
                                << " = <number>, sig = #energy.sig<...>}";
  std::vector<std::pair<double, calculus::Signature>> points;
  for (Attribute a : table) {
    auto entry = dyn_cast<DictionaryAttr>(a);
    auto at = entry ? entry.getAs<FloatAttr>(key) : FloatAttr();
    auto sig = entry ? entry.getAs<SignatureAttr>("sig") : SignatureAttr();
    if (!at || !sig)
      return el.emitOpError(attr) << " entries are {" << key
                                  << " = <number>, sig = #energy.sig<...>}";
    double v = at.getValueAsDouble();
    if (!points.empty() && !(v > points.back().first))
      return el.emitOpError(attr) << " must list increasing " << key;
    points.push_back(
        {v, toSignature(sig, staticAt(v))});
  }
  if (points.empty())
    return el.emitOpError(attr) << " is empty";
  if (x <= points.front().first)
    return points.front().second;
  if (x >= points.back().first)
    return points.back().second;
  size_t k = 1;
  while (points[k].first < x)
    ++k;
  const auto &[x0, lo] = points[k - 1];
  const auto &[x1, hi] = points[k];
  double w = (x - x0) / (x1 - x0);
  auto mix = [w](double u, double v) { return u + w * (v - u); };
  return calculus::Signature::measured(mix(lo.s, hi.s), mix(lo.T, hi.T),
                                       mix(lo.d, hi.d), mix(lo.varT, hi.varT),
                                       mix(lo.varD, hi.varD), {});
}

FailureOr<Realized> Propagator::element(ElementOp el, State &state,
                                        double slowdown) {
  StringAttr dev = el.getDeviceAttr().getAttr();
  auto found = devices.find(dev);
  if (found == devices.end())
    return el.emitOpError("runs on unknown device ") << el.getDeviceAttr();
  DeviceInfo &info = found->second;
  DeviceState &ds = state[dev];
  // The null-context signature: kept from an earlier propagation, else the
  // element's own.
  auto null = el->getAttrOfType<SignatureAttr>(kNullSig);
  if (!null)
    null = el.getSigAsAttr();
  if (!null)
    return el.emitOpError("@") << el.getSymName() << " has no signature";
  calculus::Signature s = toSignature(null, info.staticPower);
  bool changed = false;
  bool sensitive = !el->hasAttr("energy.insensitive");
  if (sensitive && failed(cacheContext(el, info, ds, s, changed)))
    return failure();
  if (info.thermal) {
    double &th = temperature(dev, state);
    el->setAttr(kEntry, FloatAttr::get(Float64Type::get(ctx), th));
    if (sensitive) {
      if (el->hasAttr(kThermalSigs)) {
        // Without a measured s: the device's at that temperature.
        FailureOr<calculus::Signature> measured = measuredAt(
            el, kThermalSigs, "entry_C", th, [&](double t) {
              return info.thermal
                  ->atTemperature(calculus::Signature::measured(
                                      info.staticPower, 0, 0, 0, 0, {}),
                                  t)
                  .s;
            });
        if (failed(measured))
          return failure();
        s = *measured;
      } else {
        s = info.thermal->atTemperature(s, th);
      }
      changed = true;
    }
    if (!frozen.contains(dev))
      th = info.thermal->exit(th, s.T > 0 ? s.E() / s.T : 0, s.T);
  }
  if (slowdown > 1) {
    if (el->hasAttr(kContentionSigs)) {
      // Characterized under co-runners: the measured signature at this
      // slowdown (its static power, unless measured, as realized so far).
      double sNow = s.s;
      FailureOr<calculus::Signature> measured =
          measuredAt(el, kContentionSigs, "slowdown", slowdown,
                     [&](double) { return sNow; });
      if (failed(measured))
        return failure();
      s = *measured;
    } else {
      s.T *= slowdown;
      s.varT *= slowdown * slowdown;
    }
    el->setAttr(kSlowdown, FloatAttr::get(Float64Type::get(ctx), slowdown));
    changed = true;
  }
  double power = s.T > 0 ? s.E() / s.T : s.s;
  if (info.delivery && sensitive) {
    // The current-draw step from the previous element (or idle, at the
    // static power, on the device's first element).
    double dP = power - ds.power.value_or(info.staticPower);
    double extra = info.delivery->extraEnergy(dP, s.T);
    if (extra > 0) {
      s.d += extra;
      s.varE = s.s * s.s * s.varT + s.varD;
      el->setAttr("energy.delivery_J",
                  FloatAttr::get(Float64Type::get(ctx), extra));
      changed = true;
    }
  }
  ds.power = power;
  if (auto traffic = el->getAttrOfType<FloatAttr>("energy.traffic"))
    ds.traffic += traffic.getValueAsDouble();
  trafficAfter[el.getSymNameAttr()] = ds.traffic;
  if (changed) {
    if (!el->hasAttr(kNullSig))
      el->setAttr(kNullSig, null);
    el.setSigFromAttr(toSignatureAttr(ctx, s));
  }
  return Realized{s.T, s.d};
}

FailureOr<Realized> Propagator::visit(Operation *op, State &state) {
  if (auto el = dyn_cast<ElementOp>(op))
    return element(el, state, coRunSlowdown.lookup_or(el, 1.0));
  if (auto idle = dyn_cast<IdleOp>(op)) {
    StringAttr dev = idle.getDeviceAttr().getAttr();
    double T = idle.getDuration().convertToDouble();
    auto it = devices.find(dev);
    if (it != devices.end()) {
      double s = it->second.staticPower;
      if (it->second.thermal) {
        const calculus::ThermalModel &m = *it->second.thermal;
        double &th = temperature(dev, state);
        // The device idles at its leakage-dependent static power.
        s *= std::max(0.0, 1 + m.leakage * (th - m.reference));
        idle->setAttr(kIdleStatic, FloatAttr::get(Float64Type::get(ctx), s));
        if (!frozen.contains(dev))
          th = m.exit(th, s, T);
      }
      state[dev].power = s;
    }
    return Realized{T, 0};
  }
  if (isa<CompositeOp>(op)) {
    // A measured composite: its own signature, no context model inside.
    auto sig = cast<CompositeOp>(op).getSigAttr();
    return Realized{sig ? sig.time() : 0, sig ? sig.dynamicEnergy() : 0};
  }
  Realized r;
  if (isa<SeqOp>(op)) {
    for (Operation &child : op->getRegion(0).front()) {
      FailureOr<Realized> c = visit(&child, state);
      if (failed(c))
        return failure();
      r.T += c->T;
      r.d += c->d;
    }
    return r;
  }
  if (isa<MultiOp>(op)) {
    for (Operation &child : op->getRegion(0).front()) {
      FailureOr<Realized> c = visit(&child, state); // disjoint devices
      if (failed(c))
        return failure();
      r.T = std::max(r.T, c->T);
      r.d += c->d;
    }
    return r;
  }
  // par: one device; operands share the entry context; direct element
  // operands are co-runners on the device's shared resources.
  auto par = cast<ParOp>(op);
  // The par's device: any element's or idle's inside it (one device).
  StringAttr dev;
  par.walk([&](Operation *inner) {
    if (auto el = dyn_cast<ElementOp>(inner))
      dev = el.getDeviceAttr().getAttr();
    else if (auto idle = dyn_cast<IdleOp>(inner))
      dev = idle.getDeviceAttr().getAttr();
    return dev ? WalkResult::interrupt() : WalkResult::advance();
  });
  bool thermal = dev && devices.count(dev) && devices[dev].thermal;
  double th0 = thermal ? temperature(dev, state) : 0;
  bool outermost = dev && frozen.insert(dev).second;
  State entry = state;
  // Co-runners: the direct element operands' demands on shared resources
  // (elements nested in a sequence are not modelled as co-runners).
  llvm::MapVector<StringAttr, double> demand;
  for (Operation &child : par.getBody().front())
    if (auto el = dyn_cast<ElementOp>(child))
      if (auto d = el->getAttrOfType<DictionaryAttr>("energy.demand"))
        for (NamedAttribute a : d)
          if (auto f = dyn_cast<FloatAttr>(a.getValue()))
            demand[a.getName()] += f.getValueAsDouble();
  double slowdown = 1;
  // Co-runners nested in sequences: the time-resolved form (it reduces to
  // Axiom P5 while the co-runner set is constant); direct elements only:
  // Axiom P5's constant slowdown, D / K over the whole par.
  bool nested = dev && devices.count(dev) && nestedCoRun(par, devices[dev]);
  if (!nested && dev && devices.count(dev))
    if (DictionaryAttr cap = devices[dev].capacity)
      for (auto &[res, total] : demand)
        if (auto k = cap.getAs<FloatAttr>(res))
          slowdown = std::max(slowdown, calculus::contentionSlowdown(
                                            {total}, k.getValueAsDouble()));
  double trafficIn = dev ? entry[dev].traffic : 0, trafficOut = trafficIn;
  for (Operation &child : par.getBody().front()) {
    State mine = entry;
    FailureOr<Realized> c;
    if (auto el = dyn_cast<ElementOp>(child);
        el && el->hasAttr("energy.demand") && !nested)
      c = element(el, mine, slowdown);
    else
      c = visit(&child, mine);
    if (failed(c))
      return failure();
    r.T = std::max(r.T, c->T);
    r.d += c->d;
    if (dev)
      trafficOut += mine[dev].traffic - trafficIn;
  }
  if (outermost)
    frozen.erase(dev);
  if (dev && devices.count(dev)) {
    double s = devices[dev].staticPower;
    DeviceState &ds = state[dev];
    ds.traffic = trafficOut;
    // The next element steps from the par's mean power.
    ds.power = r.T > 0 ? (s * r.T + r.d) / r.T : s;
    // The device heats over the par at its mean power.
    if (thermal && outermost)
      ds.theta = devices[dev].thermal->exit(th0, *ds.power, r.T);
  }
  return r;
}

struct EnergyPropagateContextPass
    : public energy::impl::EnergyPropagateContextBase<
          EnergyPropagateContextPass> {
  void runOnOperation() override {
    auto devices = readDevices(getOperation());
    if (failed(devices))
      return signalPassFailure();
    Propagator prop(&getContext(), *devices);
    WalkResult r = getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isTreeRoot(op))
        return WalkResult::advance();
      State state; // every device starts at the null context
      if (failed(prop.visit(op, state)))
        return WalkResult::interrupt();
      return WalkResult::skip();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

//===----------------------------------------------------------------------===//
// --energy-reduce
//===----------------------------------------------------------------------===//

struct Entry {
  ElementOp op;
  calculus::Signature realized, null;
  unsigned m;        ///< 1 in seq, 2 in par/multi (Prop. 4.1)
  bool nullStart;    ///< the first element on its device
  ElementOp predecessor; ///< previous element on the same device
};

struct EnergyReducePass
    : public energy::impl::EnergyReduceBase<EnergyReducePass> {
  using EnergyReduceBase::EnergyReduceBase;

  void runOnOperation() override {
    if (!(confidence > 0 && confidence < 1)) {
      mlir::emitError(getOperation().getLoc(), "energy-reduce: confidence must lie in (0, 1)");
      return signalPassFailure();
    }
    auto devices = readDevices(getOperation());
    if (failed(devices))
      return signalPassFailure();
    SmallVector<Operation *> roots;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isTreeRoot(op))
        return WalkResult::advance();
      roots.push_back(op);
      return WalkResult::skip();
    });
    for (Operation *root : roots)
      reduce(root, *devices);
  }

  void reduce(Operation *root, DenseMap<StringAttr, DeviceInfo> &devices) {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    double c = calculus::twoSidedQuantile(confidence);
    // Elements in program order, with their m and their device predecessor.
    std::vector<Entry> entries;
    DenseMap<StringAttr, ElementOp> last;
    root->walk<WalkOrder::PreOrder>([&](ElementOp el) {
      StringAttr dev = el.getDeviceAttr().getAttr();
      double sdev = devices.count(dev) ? devices[dev].staticPower : 0;
      SignatureAttr sig = el.getSigAsAttr();
      if (!sig)
        return;
      auto nullAttr = el->getAttrOfType<SignatureAttr>(kNullSig);
      Operation *parent = el->getParentOp();
      unsigned m = parent && isa<ParOp, MultiOp>(parent) ? 2 : 1;
      ElementOp pred = last.lookup(dev);
      entries.push_back({el, toSignature(sig, sdev),
                         toSignature(nullAttr ? nullAttr : sig, sdev), m, !pred,
                         pred});
      last[dev] = el;
    });
    // Per-element insensitivity (Eq. 11/12) and per-device prefix checks.
    DenseMap<StringAttr, double> deviation, bound;
    double totalBound = 0;
    SmallVector<Entry *> failing;
    for (Entry &e : entries) {
      double sigma = e.null.sigmaE();
      unsigned m = e.nullStart ? e.m - 1 : e.m;
      totalBound += m * c * sigma;
      StringAttr dev = e.op.getDeviceAttr().getAttr();
      deviation[dev] += e.realized.E() - e.null.E();
      bound[dev] += m * c * sigma;
      bool elementOk = calculus::insensitive(e.realized, e.null, sigma,
                                             confidence);
      bool prefixOk = std::fabs(deviation[dev]) <= bound[dev] * (1 + 1e-12);
      if (!elementOk || !prefixOk)
        failing.push_back(&e);
    }
    if (failing.empty()) {
      // Reduce: the context-independent form, with its bias bound.
      for (Entry &e : entries)
        if (auto nullAttr = e.op->getAttrOfType<SignatureAttr>(kNullSig)) {
          e.op.setSigFromAttr(nullAttr);
          e.op->removeAttr(kNullSig);
          e.op->removeAttr(kEntry);
          e.op->removeAttr(kSlowdown);
        }
      root->setAttr("energy.bias_bound_J", b.getF64FloatAttr(totalBound));
      if (tolerance > 0 && totalBound > tolerance)
        mlir::emitRemark(root->getLoc(), "reduction bias bound ")
            << formatQuantity(totalBound, Dimension::Energy, 4)
            << " exceeds the tolerance "
            << formatQuantity(tolerance, Dimension::Energy, 4)
            << "; characterize this tree (or its largest sequences) as "
               "measured energy.composite elements";
      return;
    }
    // Irreducible: keep the context-dependent form and record the
    // interactions that broke the reduction. Remarks name the first few;
    // the interaction edges record them all.
    OpBuilder ob(ctx);
    ob.setInsertionPointAfter(root);
    constexpr size_t maxRemarks = 20;
    size_t remarks = 0;
    auto remark = [&](Operation *op) -> std::optional<InFlightDiagnostic> {
      if (remarks++ >= maxRemarks)
        return std::nullopt;
      return op->emitRemark();
    };
    // Entry-context failures whose prefix can be wrapped, and the pars
    // whose co-runners interfere (below).
    SmallVector<Entry *> prefixes;
    llvm::SetVector<ParOp> coRunScopes;
    // Co-runners' perturbations, for undirected edges.
    DenseSet<Operation *> failingOps;
    for (Entry *e : failing)
      failingOps.insert(e->op);
    DenseMap<Operation *, double> perturbationOf;
    for (Entry &o : entries)
      perturbationOf[o.op] = o.realized.E() - o.null.E();
    for (Entry *e : failing) {
      e->op->setAttr("energy.needs_characterization", b.getUnitAttr());
      double perturbation = e->realized.E() - e->null.E();
      bool contention = e->op->hasAttr(kSlowdown);
      if (contention) {
        // Runtime interference: undirected edges to its co-runners -- the
        // slowed elements of the outermost enclosing par (the co-run's
        // scope) whose lowest common ancestor with it is a par, i.e. that
        // run concurrently with it at any depth (each pair once: between two
        // failing ones, from the one the walk meets first).
        ParOp par;
        for (Operation *up = e->op->getParentOp(); up && isa<SeqOp, ParOp>(up);
             up = up->getParentOp())
          if (auto p = dyn_cast<ParOp>(up))
            par = p;
        SmallVector<ElementOp> corunners;
        if (par)
          coRunScopes.insert(par);
        if (par) {
          DenseSet<Operation *> mine;
          for (Operation *up = e->op; up && up != par; up = up->getParentOp())
            mine.insert(up);
          mine.insert(par);
          bool after = false;
          par.walk([&](ElementOp other) {
            if (other == e->op) {
              after = true;
              return;
            }
            // A failing co-runner met earlier drew this edge already.
            if (!other->hasAttr(kSlowdown) ||
                (!after && failingOps.contains(other)))
              return;
            Operation *lca = other;
            while (!mine.contains(lca))
              lca = lca->getParentOp();
            if (isa<ParOp>(lca))
              corunners.push_back(other);
          });
        }
        for (ElementOp other : corunners) {
          double otherPert = perturbationOf.lookup(other);
          InteractionOp::create(
              ob, e->op.getLoc(), FlatSymbolRefAttr::get(e->op.getSymNameAttr()),
              FlatSymbolRefAttr::get(other.getSymNameAttr()), UnitAttr(),
              ob.getStringAttr("contention"), ob.getF64FloatAttr(perturbation),
              ob.getF64FloatAttr(otherPert));
          if (auto diag = remark(e->op))
            *diag << "runtime interference with @" << other.getSymName()
                  << " (contention): not reducible";
        }
        continue;
      }
      // Entry contexts: which mechanisms moved it, and from where (the
      // producer of reused data for the cache; else the predecessor).
      SmallVector<StringRef> mechanisms;
      auto producer = e->op->getAttrOfType<FlatSymbolRefAttr>("energy.reuses");
      if (e->op->hasAttr("energy.residency"))
        mechanisms.push_back("cache");
      if (e->op->hasAttr(kEntry) && e->predecessor)
        mechanisms.push_back("thermal");
      if (e->op->hasAttr("energy.delivery_J"))
        mechanisms.push_back("power-delivery");
      FlatSymbolRefAttr from =
          mechanisms.size() == 1 && mechanisms[0] == "cache" && producer
              ? producer
          : e->predecessor
              ? FlatSymbolRefAttr::get(e->predecessor.getSymNameAttr())
              : producer;
      if (e->predecessor && !mechanisms.empty())
        prefixes.push_back(e);
      if (from && !mechanisms.empty()) {
        std::string names = llvm::join(mechanisms, "+");
        InteractionOp::create(
            ob, e->op.getLoc(), from,
            FlatSymbolRefAttr::get(e->op.getSymNameAttr()), ob.getUnitAttr(),
            ob.getStringAttr(names), ob.getF64FloatAttr(perturbation),
            FloatAttr());
        if (auto diag = remark(e->op))
          *diag << "entry context from " << from << " (" << names
                << ") shifts its energy by "
                << formatQuantity(perturbation, Dimension::Energy, 4)
                << ": not reducible";
      }
    }
    if (remarks > maxRemarks) // located, without dumping the whole tree
      mlir::emitRemark(root->getLoc()) << remarks - maxRemarks
                         << " more irreducible elements (see the "
                            "energy.interaction edges)";
    wrapCoRuns(root, coRunScopes.getArrayRef());
    wrapPrefixes(prefixes, entries, devices);
  }

  /// A par whose co-runners interfere beyond the bound is wrapped in an
  /// `energy.composite` marked `energy.needs_characterization` (the set to
  /// characterize concurrently, e.g. with `energy-prof measure-composite
  /// --concurrent`), its estimate the context model's closure of the par.
  void wrapCoRuns(Operation *root, ArrayRef<ParOp> pars) {
    if (pars.empty())
      return;
    DenseMap<Operation *, calculus::Signature> closure;
    DenseSet<Operation *> wanted;
    for (ParOp p : pars)
      wanted.insert(p);
    if (failed(composeTree(root, TreeMode::Evaluate,
                           [&](Operation *op, const calculus::Signature &sig) {
                             if (wanted.contains(op))
                               closure[op] = sig;
                           })))
      return; // the evaluation reports it; the marks and edges stand
    MLIRContext *ctx = &getContext();
    for (ParOp par : pars) {
      auto it = closure.find(par);
      if (it == closure.end())
        continue;
      const calculus::Signature &c = it->second;
      std::string name;
      if (auto sym = par.getSymNameAttr())
        name = sym.getValue().str() + ".corun";
      else
        par.walk([&](ElementOp el) {
          name = el.getSymName().str() + ".corun";
          return WalkResult::interrupt();
        });
      OpBuilder ob(par);
      auto comp = CompositeOp::create(
          ob, par.getLoc(), StringAttr::get(ctx, name),
          toSignatureAttr(ctx, c));
      Block &body = comp.getBody().emplaceBlock();
      par->moveBefore(&body, body.end());
      comp->setAttr("energy.needs_characterization", UnitAttr::get(ctx));
      comp->setAttr("energy.estimate", StringAttr::get(ctx, "context model"));
    }
  }

  /// An element whose entry context from its predecessor breaks the
  /// reduction is wrapped, with that predecessor, in an `energy.composite`
  /// marked `energy.needs_characterization`: the prefix to characterize as a
  /// whole. Consecutive failures grow one composite (a chain heating up
  /// step by step is one prefix). Its signature, until measured, is the
  /// context-dependent closure of its parts (`energy.estimate = "context
  /// model"`), so the evaluation is unchanged. Only elements that follow
  /// their predecessor in one sequence, at most with idles between, are
  /// wrapped (the idles with them); the others keep their mark and
  /// interaction edge.
  void wrapPrefixes(ArrayRef<Entry *> failing, std::vector<Entry> &entries,
                    DenseMap<StringAttr, DeviceInfo> &devices) {
    if (failing.empty())
      return;
    MLIRContext *ctx = &getContext();
    DenseMap<Operation *, const Entry *> entryOf;
    for (const Entry &e : entries)
      entryOf[e.op] = &e;
    DenseMap<Operation *, calculus::Signature> closureOf; // our composites
    for (Entry *e : failing) {
      Operation *last = e->op;
      Operation *first = e->predecessor;
      auto grown = dyn_cast<CompositeOp>(first->getParentOp());
      if (grown && closureOf.count(grown))
        first = grown;
      if (first->getBlock() != last->getBlock() ||
          !isa<SeqOp>(last->getParentOp()))
        continue;
      // Only idles may stand between them (the gap belongs to the prefix).
      SmallVector<IdleOp> gaps;
      bool adjacent = true;
      for (Operation *op = first->getNextNode(); op && op != last;
           op = op->getNextNode()) {
        auto idle = dyn_cast<IdleOp>(op);
        if (!idle) {
          adjacent = false;
          break;
        }
        gaps.push_back(idle);
      }
      if (!adjacent || !first->isBeforeInBlock(last))
        continue;
      const Entry *mine = entryOf.lookup(last);
      calculus::CompositionError err;
      calculus::Signature closure = grown && first == grown.getOperation()
                                        ? closureOf[grown]
                                        : entryOf.lookup(first)->realized;
      for (IdleOp idle : gaps) {
        // The idle's realized static power (its entry temperature's), else
        // the device's.
        StringAttr dev = idle.getDeviceAttr().getAttr();
        double s = devices.count(dev) ? devices[dev].staticPower : 0;
        if (auto realized = idle->getAttrOfType<FloatAttr>(kIdleStatic))
          s = realized.getValueAsDouble();
        closure = calculus::seq(
            closure,
            calculus::Signature::idle(s, idle.getDuration().convertToDouble(),
                                      mine->realized.devices),
            err);
      }
      if (!err)
        closure = calculus::seq(closure, mine->realized, err);
      if (err)
        continue; // not one device: leave the marks
      CompositeOp comp;
      if (grown && first == grown.getOperation()) {
        comp = grown;
        for (IdleOp idle : gaps)
          idle->moveBefore(&comp.getBody().front(),
                           comp.getBody().front().end());
        last->moveBefore(&comp.getBody().front(), comp.getBody().front().end());
      } else {
        OpBuilder ob(first);
        comp = CompositeOp::create(
            ob, first->getLoc(),
            StringAttr::get(ctx, SymbolTable::getSymbolName(first).getValue() +
                                     ".prefix"),
            SignatureAttr());
        Block &body = comp.getBody().emplaceBlock();
        first->moveBefore(&body, body.end());
        for (IdleOp idle : gaps)
          idle->moveBefore(&body, body.end());
        last->moveBefore(&body, body.end());
        comp->setAttr("energy.needs_characterization", UnitAttr::get(ctx));
        comp->setAttr("energy.estimate", StringAttr::get(ctx, "context model"));
      }
      closureOf[comp] = closure;
      comp.setSigAttr(toSignatureAttr(ctx, closure));
    }
  }
};

} // namespace
