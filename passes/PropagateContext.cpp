//===- PropagateContext.cpp - --energy-propagate-context ------------------===//
//
// Walks each energy tree in program order, carrying every device's entry
// context (calculus::DeviceContext), and realizes each element with
// calculus::realizeElement; co-runners nested in sequences take their
// slowdowns from calculus::coRun. Mechanism parameters live in the IR
// (read by readDeviceModels, dialect/Energy/Contexts.h):
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
//  - `energy.insensitive` on an element that no entry context affects;
//  - `energy.thermal_sigs` / `energy.contention_sigs` on an element
//    characterized at several entry temperatures / co-run slowdowns.
// The realized signature replaces the element's, its null-context one is
// kept in `energy.null_sig` for --energy-reduce (passes/Reduce.cpp).
//
//===----------------------------------------------------------------------===//

#include "calculus/Context.h"
#include "calculus/Schedule.h"
#include "dialect/Energy/Contexts.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Energy/EnergyTree.h"
#include "dialect/Energy/Units.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <functional>

namespace energy {
#define GEN_PASS_DEF_ENERGYPROPAGATECONTEXT
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;

namespace {

using State = DenseMap<StringAttr, calculus::DeviceContext>;
using Devices = DenseMap<StringAttr, DeviceModels>;

/// The realized (T, d) of a subtree, for its parent's bookkeeping.
struct Realized {
  double T = 0, d = 0;
  bool randomT = false; ///< some duration inside has a variance
};

class Propagator {
public:
  Propagator(MLIRContext *ctx, Devices &devices) : ctx(ctx), devices(devices) {}

  /// `state` holds each device's context at the subtree's start and is
  /// advanced to its end.
  FailureOr<Realized> visit(Operation *op, State &state);

private:
  FailureOr<Realized> element(ElementOp el, State &state, double slowdown);
  /// An element's table of signatures characterized at several contexts
  /// (`energy.thermal_sigs`: entry temperatures, key `entry_C`;
  /// `energy.contention_sigs`: co-run slowdowns, key `slowdown`), checked
  /// (entries of that form, increasing keys) with located errors.
  FailureOr<std::vector<calculus::MeasuredPoint>>
  readTable(ElementOp el, StringRef attr, StringRef key);
  /// The cache entry context's inputs: the element's warm signature and its
  /// producer's traffic mark, checked against the IR.
  LogicalResult cacheInputs(ElementOp el, const DeviceModels &info,
                            calculus::ContextElement &in);

  /// A multi pads its shorter operands with idle time on their devices
  /// (paper section 3.3.3: as if idle elements followed them). On a device
  /// with a thermal or power-delivery model that idle time is a context
  /// like any other element's: it draws static power at its entry
  /// temperature, cools the device and resets the delivery transient. Such
  /// pads are written out -- `energy.seq { operand, energy.idle ... }`, the
  /// idle at the mean gap -- and realized, so that evaluation and
  /// --energy-reduce see them. Where a duration inside the multi is random,
  /// a pad of fixed length would move the multi's expected makespan (the
  /// max of a constant and a random time): not written, and said.
  LogicalResult padMulti(MultiOp multi,
                         ArrayRef<std::pair<Operation *, double>> ends,
                         const Realized &r, State &state);

  MLIRContext *ctx;
  Devices &devices;
  /// Devices inside a par: static power is device-wide, so every co-running
  /// element sees the par's entry temperature; the device's temperature is
  /// advanced once, over the whole par.
  DenseSet<StringAttr> frozen;
  /// Each element of the current tree visited so far: its op, device and
  /// the cumulative L2 traffic on that device at its end (a reuse's
  /// producer must be one of these: cache state is a device's, and every
  /// tree starts at the null context).
  struct Produced {
    Operation *op;
    StringAttr device;
    double traffic;
  };
  DenseMap<StringAttr, Produced> trafficAfter;

public:
  /// A new tree: every device at the null context, no producer yet.
  void startTree() { trafficAfter.clear(); }

private:
  /// Contention slowdowns of co-runners nested in sequences (set by their
  /// par before its operands are visited).
  DenseMap<Operation *, double> coRunSlowdown;
  /// Pars inside another par's time-resolved co-run: their elements'
  /// slowdowns come from that run.
  DenseSet<Operation *> coveredPars;
  /// The time-resolved co-run of a par (any nesting of seqs and pars, to
  /// any depth): its elements' slowdowns into coRunSlowdown; false when
  /// the device has no capacities (nothing contends). True for a par an
  /// enclosing run already covers.
  bool nestedCoRun(ParOp par, const DeviceModels &info);
};

bool Propagator::nestedCoRun(ParOp par, const DeviceModels &info) {
  if (coveredPars.contains(par))
    return true; // an enclosing par's run covers it
  // The time-resolved form (Axiom P5 at every instant) whatever the
  // operands: direct elements of different lengths stop co-running when the
  // shorter ends (a constant D / K over the whole par would slow the longer
  // one after it too), and any nesting of seqs and pars.
  if (!info.capacity)
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
      auto sig = el->getAttrOfType<SignatureAttr>(
          EnergyDialect::NullSigAttrHelper::getNameStr());
      if (!sig)
        sig = el.getSigAsAttr();
      calculus::LaneElement &le = nodes[id].leaf;
      le.T = sig ? sig.time() : 0;
      le.demand.assign(resources.size(), 0);
      if (auto d = el->getAttrOfType<DictionaryAttr>(
              EnergyDialect::DemandAttrHelper::getNameStr()))
        for (size_t r = 0; r < resources.size(); ++r)
          if (auto f = d.getAs<FloatAttr>(resources[r]))
            le.demand[r] = f.getValueAsDouble();
      return id;
    }
    if (!isa<SeqOp, ParOp>(op))
      return std::nullopt;
    nodes[id].kind =
        isa<SeqOp>(op) ? calculus::CoRunNode::Seq : calculus::CoRunNode::Par;
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

LogicalResult Propagator::cacheInputs(ElementOp el, const DeviceModels &info,
                                      calculus::ContextElement &in) {
  auto reuses = el->getAttrOfType<FlatSymbolRefAttr>(
      EnergyDialect::ReusesAttrHelper::getNameStr());
  auto warm = el->getAttrOfType<SignatureAttr>(
      EnergyDialect::WarmAttrHelper::getNameStr());
  if (!reuses && !warm)
    return success();
  if (!reuses || !warm)
    return el.emitOpError("energy.reuses and energy.warm go together (the "
                          "producer whose data it reuses, and its signature "
                          "with that data resident)");
  if (!info.mechanisms.cache)
    return el.emitOpError("reuses cached data but its device declares no "
                          "energy.cache = {l2_bytes = ...}");
  auto it = trafficAfter.find(reuses.getAttr());
  if (it == trafficAfter.end())
    return el.emitOpError("energy.reuses ")
           << reuses
           << " names no earlier element on its device (in this tree)";
  const Produced &p = it->second;
  if (p.device != el.getDeviceAttr().getAttr())
    return el.emitOpError("energy.reuses ")
           << reuses << " runs on @" << p.device.getValue()
           << ": cache state does not cross devices";
  // Produced before it runs: their innermost common composition is a
  // sequence (in a par or multi the two run alongside).
  SmallPtrSet<Operation *, 8> above;
  for (Operation *a = p.op->getParentOp(); a; a = a->getParentOp())
    above.insert(a);
  Operation *common = el->getParentOp();
  while (common && !above.contains(common))
    common = common->getParentOp();
  if (common && isa<ParOp, MultiOp>(common))
    return el.emitOpError("energy.reuses ")
           << reuses
           << " runs alongside it (both in one par), not before it: its "
              "data is not yet resident";
  in.warm = toSignature(warm, in.null.s);
  in.producerTraffic = p.traffic;
  return success();
}

FailureOr<std::vector<calculus::MeasuredPoint>>
Propagator::readTable(ElementOp el, StringRef attr, StringRef key) {
  // The device's static power: what a sigma_E without sigma_d leaves to
  // var_d (toSignature).
  auto devIt = devices.find(el.getDeviceAttr().getAttr());
  double deviceStatic =
      devIt != devices.end() ? devIt->second.mechanisms.staticPower : 0;
  auto table = el->getAttrOfType<ArrayAttr>(attr);
  if (!table)
    return el.emitOpError(attr) << " must be an array of {" << key
                                << " = <number>, sig = #energy.sig<...>}";
  std::vector<calculus::MeasuredPoint> points;
  for (Attribute a : table) {
    auto entry = dyn_cast<DictionaryAttr>(a);
    auto at = entry ? entry.getAs<FloatAttr>(key) : FloatAttr();
    auto sig = entry ? entry.getAs<SignatureAttr>("sig") : SignatureAttr();
    if (!at || !sig)
      return el.emitOpError(attr) << " entries are {" << key
                                  << " = <number>, sig = #energy.sig<...>}";
    double v = at.getValueAsDouble();
    if (!std::isfinite(v))
      return el.emitOpError(attr) << " entries' " << key
                                  << " must be finite; got " << formatNumber(v);
    if (!points.empty() && !(v > points.back().x))
      return el.emitOpError(attr) << " must list increasing " << key;
    points.push_back(
        {v, toSignature(sig, deviceStatic), sig.staticPower().has_value()});
  }
  if (points.empty())
    return el.emitOpError(attr) << " is empty";
  return points;
}

FailureOr<Realized> Propagator::element(ElementOp el, State &state,
                                        double slowdown) {
  StringAttr dev = el.getDeviceAttr().getAttr();
  auto found = devices.find(dev);
  if (found == devices.end())
    return el.emitOpError("runs on unknown device ") << el.getDeviceAttr();
  const DeviceModels &info = found->second;
  const calculus::DeviceMechanisms &mech = info.mechanisms;
  // The null-context signature: kept from an earlier propagation, else the
  // element's own.
  auto null = el->getAttrOfType<SignatureAttr>(
      EnergyDialect::NullSigAttrHelper::getNameStr());
  if (!null)
    null = el.getSigAsAttr();
  if (!null)
    return el.emitOpError("@") << el.getSymName() << " has no signature";
  calculus::ContextElement in;
  in.null = toSignature(null, mech.staticPower);
  in.sensitive =
      !el->hasAttr(EnergyDialect::InsensitiveAttrHelper::getNameStr());
  in.advanceTemperature = !frozen.contains(dev);
  in.slowdown = slowdown;
  if (in.sensitive && failed(cacheInputs(el, info, in)))
    return failure();
  std::vector<calculus::MeasuredPoint> thermalTable, contentionTable;
  if (mech.thermal && in.sensitive &&
      el->hasAttr(EnergyDialect::ThermalSigsAttrHelper::getNameStr())) {
    auto t = readTable(el, EnergyDialect::ThermalSigsAttrHelper::getNameStr(),
                       "entry_C");
    if (failed(t))
      return failure();
    thermalTable = std::move(*t);
    in.thermalTable = &thermalTable;
  }
  if (slowdown > 1 &&
      el->hasAttr(EnergyDialect::ContentionSigsAttrHelper::getNameStr())) {
    auto t = readTable(
        el, EnergyDialect::ContentionSigsAttrHelper::getNameStr(), "slowdown");
    if (failed(t))
      return failure();
    contentionTable = std::move(*t);
    in.contentionTable = &contentionTable;
  }
  if (auto traffic = el->getAttrOfType<FloatAttr>(
          EnergyDialect::TrafficAttrHelper::getNameStr()))
    in.traffic = traffic.getValueAsDouble();
  calculus::ContextOutcome out = calculus::realizeElement(mech, state[dev], in);
  // The models in doubles: an input far outside them (a time of 1e300 s
  // heating the device) overflows; said here, with the element, rather
  // than as an attribute the pass wrote.
  const calculus::Signature &r = out.realized;
  if (!std::isfinite(r.s) || !std::isfinite(r.T) || !std::isfinite(r.d) ||
      !std::isfinite(r.varT) || !std::isfinite(r.varD) ||
      (out.entryTemperature && !std::isfinite(*out.entryTemperature)) ||
      (state[dev].theta && !std::isfinite(*state[dev].theta)))
    return el.emitOpError("the device's context models overflow at @")
           << el.getSymName()
           << " (its time, energy or the device's temperature is no longer a "
              "finite number): an input time or energy is too large for them";
  trafficAfter[el.getSymNameAttr()] = {el, dev, state[dev].traffic};
  auto f64 = [&](double v) { return FloatAttr::get(Float64Type::get(ctx), v); };
  if (out.residency)
    el->setAttr(EnergyDialect::ResidencyAttrHelper::getNameStr(),
                f64(*out.residency));
  if (out.entryTemperature)
    el->setAttr(EnergyDialect::EntryTemperatureAttrHelper::getNameStr(),
                f64(*out.entryTemperature));
  if (out.slowdown)
    el->setAttr(EnergyDialect::ContentionSlowdownAttrHelper::getNameStr(),
                f64(*out.slowdown));
  if (out.deliveryEnergy)
    el->setAttr(EnergyDialect::Delivery_JAttrHelper::getNameStr(),
                f64(*out.deliveryEnergy));
  if (out.changed) {
    if (!el->hasAttr(EnergyDialect::NullSigAttrHelper::getNameStr()))
      el->setAttr(EnergyDialect::NullSigAttrHelper::getNameStr(), null);
    el.setSigFromAttr(toSignatureAttr(ctx, out.realized));
  }
  return Realized{out.realized.T, out.realized.d, out.realized.varT > 0};
}

FailureOr<Realized> Propagator::visit(Operation *op, State &state) {
  if (auto el = dyn_cast<ElementOp>(op))
    return element(el, state, coRunSlowdown.lookup_or(el, 1.0));
  if (auto idle = dyn_cast<IdleOp>(op)) {
    StringAttr dev = idle.getDeviceAttr().getAttr();
    double T = idle.getDuration().convertToDouble();
    auto it = devices.find(dev);
    if (it != devices.end()) {
      const calculus::DeviceMechanisms &mech = it->second.mechanisms;
      double s =
          calculus::realizeIdle(mech, state[dev], T, !frozen.contains(dev));
      if (mech.thermal)
        idle->setAttr(EnergyDialect::IdleStaticAttrHelper::getNameStr(),
                      FloatAttr::get(Float64Type::get(ctx), s));
    }
    return Realized{T, 0};
  }
  if (isa<CompositeOp>(op)) {
    // A measured composite: its own signature, no context model inside.
    auto sig = cast<CompositeOp>(op).getSigAttr();
    return Realized{sig ? sig.time() : 0, sig ? sig.dynamicEnergy() : 0,
                    sig && sig.sigmaTime() > 0};
  }
  Realized r;
  if (isa<SeqOp>(op)) {
    for (Operation &child : op->getRegion(0).front()) {
      FailureOr<Realized> c = visit(&child, state);
      if (failed(c))
        return failure();
      r.T += c->T;
      r.d += c->d;
      r.randomT |= c->randomT;
    }
    return r;
  }
  if (isa<MultiOp>(op)) {
    SmallVector<std::pair<Operation *, double>> ends;
    for (Operation &child : op->getRegion(0).front()) {
      FailureOr<Realized> c = visit(&child, state); // disjoint devices
      if (failed(c))
        return failure();
      r.T = std::max(r.T, c->T);
      r.d += c->d;
      r.randomT |= c->randomT;
      ends.push_back({&child, c->T});
    }
    if (failed(padMulti(cast<MultiOp>(op), ends, r, state)))
      return failure();
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
  bool thermal =
      dev && devices.count(dev) && devices[dev].mechanisms.thermal.has_value();
  double th0 =
      thermal ? state[dev].temperature(*devices[dev].mechanisms.thermal) : 0;
  bool outermost = dev && frozen.insert(dev).second;
  State entry = state;
  // Co-runners: the whole par's program runs once, time-resolved
  // (nestedCoRun), and its elements take their slowdowns from it.
  if (dev && devices.count(dev))
    (void)nestedCoRun(par, devices[dev]);
  double trafficIn = dev ? entry[dev].traffic : 0, trafficOut = trafficIn;
  for (Operation &child : par.getBody().front()) {
    State mine = entry;
    FailureOr<Realized> c = visit(&child, mine);
    if (failed(c))
      return failure();
    r.T = std::max(r.T, c->T);
    r.d += c->d;
    r.randomT |= c->randomT;
    if (dev)
      trafficOut += mine[dev].traffic - trafficIn;
  }
  if (outermost)
    frozen.erase(dev);
  if (dev && devices.count(dev)) {
    calculus::DeviceContext &ds = state[dev];
    ds.traffic = trafficOut;
    calculus::finishPar(devices[dev].mechanisms, ds, th0, r.T, r.d,
                        thermal && outermost);
  }
  return r;
}

LogicalResult
Propagator::padMulti(MultiOp multi,
                     ArrayRef<std::pair<Operation *, double>> ends,
                     const Realized &r, State &state) {
  unsigned unrealized = 0;
  double longest = 0;
  for (auto [child, T] : ends) {
    double pad = r.T - T;
    if (!(pad > calculus::timeTolerance(r.T)))
      continue;
    // The operand's devices, in order of first use; whether any of them
    // has a model that idle time changes.
    SmallVector<StringAttr> devs;
    bool modelled = false;
    child->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      StringAttr dev;
      if (auto el = dyn_cast<ElementOp>(inner))
        dev = el.getDeviceAttr().getAttr();
      else if (auto idle = dyn_cast<IdleOp>(inner))
        dev = idle.getDeviceAttr().getAttr();
      if (!dev || llvm::is_contained(devs, dev))
        return;
      devs.push_back(dev);
      auto it = devices.find(dev);
      modelled |=
          it != devices.end() && (it->second.mechanisms.thermal.has_value() ||
                                  it->second.mechanisms.delivery.has_value());
    });
    if (!modelled)
      continue;
    if (r.randomT) {
      // Said once per multi (a wide one pads many operands).
      if (unrealized++ == 0)
        longest = pad;
      longest = std::max(longest, pad);
      continue;
    }
    OpBuilder b(child);
    Location loc = child->getLoc();
    auto seq = SeqOp::create(b, loc, StringAttr(), std::nullopt);
    Block &body = seq.getBody().emplaceBlock();
    child->moveBefore(&body, body.end());
    b.setInsertionPointToEnd(&body);
    if (devs.size() > 1) {
      auto inner = MultiOp::create(b, loc, StringAttr(), std::nullopt);
      b.setInsertionPointToEnd(&inner.getBody().emplaceBlock());
    }
    for (StringAttr dev : devs) {
      auto idle = IdleOp::create(b, loc, FlatSymbolRefAttr::get(dev),
                                 b.getF64FloatAttr(pad), FloatAttr());
      if (failed(visit(idle, state)))
        return failure();
    }
  }
  if (unrealized)
    multi.emitWarning("pads ")
        << unrealized
        << " operand(s) on devices with a thermal or power-delivery model "
           "(up to "
        << formatQuantity(longest, Dimension::Time, 6)
        << "), but its durations vary: the pads' context is not realized "
           "(write the idles out, energy.idle, where their lengths are known)";
  return success();
}

struct EnergyPropagateContextPass
    : public energy::impl::EnergyPropagateContextBase<
          EnergyPropagateContextPass> {
  void runOnOperation() override {
    auto devices = readDeviceModels(getOperation());
    if (failed(devices))
      return signalPassFailure();
    Propagator prop(&getContext(), *devices);
    WalkResult r =
        getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (!isTreeRoot(op))
            return WalkResult::advance();
          State state; // every device starts at the null context
          prop.startTree();
          if (failed(prop.visit(op, state)))
            return WalkResult::interrupt();
          // Realized signatures make an earlier --energy-evaluate's closures
          // and totals stale (they read 1960 J where the tree now holds
          // 1970.56 J): dropped; evaluate again after this pass.
          dropEvaluation(op);
          return WalkResult::skip();
        });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
