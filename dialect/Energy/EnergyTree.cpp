//===- EnergyTree.cpp - From energy IR to the calculus --------------------===//

#include "dialect/Energy/EnergyTree.h"
#include "dialect/Energy/Energy.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace energy;
using calculus::DeviceSet;
using calculus::Signature;

namespace {
/// A lowered schedule's root carries its makespan's distribution over the
/// schedule's dependencies (`energy.makespan`, written by --sched-to-energy):
/// it replaces Clark's moments over the per-device lanes, which the lowering
/// pads to one makespan and which are not independent. What jitter adds to
/// the point makespan (expected_T_s - T_s) is added to the composed T, so
/// that a pass that changes the elements' times afterwards (contexts) moves
/// the expectation with them.
void refineMakespan(Operation *op, Signature &sig) {
  auto m = op->getAttrOfType<DictionaryAttr>(
      EnergyDialect::MakespanAttrHelper::getNameStr());
  if (!m)
    return;
  auto point = m.getAs<FloatAttr>("T_s");
  auto mean = m.getAs<FloatAttr>("expected_T_s");
  auto sigma = m.getAs<FloatAttr>("sigma_T_s");
  if (!point || !mean || !sigma)
    return; // the verifier names what is missing
  sig.clarkT =
      sig.T + std::max(0.0, mean.getValueAsDouble() - point.getValueAsDouble());
  sig.varT = sigma.getValueAsDouble() * sigma.getValueAsDouble();
  // The padded devices draw their summed static power s over the whole
  // makespan: its jitter is drawn at s.
  sig.varE = sig.varD + sig.s * sig.s * sig.varT;
  sig.excessE = sig.s * (sig.clarkT - sig.T);
  sig.covUT = 0;
}
} // namespace

ReductionPlace energy::reductionPlace(Operation *leaf, Operation *root) {
  ReductionPlace p;
  for (Operation *x = leaf; x != root; x = x->getParentOp()) {
    Operation *parent = x->getParentOp();
    if (!parent)
      break;
    if (isa<ParOp, MultiOp>(parent) &&
        !llvm::hasSingleElement(parent->getRegion(0).front()))
      p.m = 2;
    if (isa<SeqOp>(parent) && &parent->getRegion(0).front().front() != x)
      p.atStart = false;
  }
  return p;
}

bool energy::isTreeOp(Operation *op) {
  return isa<ElementOp, IdleOp, SeqOp, ParOp, MultiOp, CompositeOp>(op);
}

bool energy::isTreeRoot(Operation *op) {
  if (!isTreeOp(op))
    return false;
  Operation *parent = op->getParentOp();
  return !parent || !isa<SeqOp, ParOp, MultiOp, CompositeOp>(parent);
}

namespace {
struct DeviceInfo {
  StringAttr name;
  double staticPower;
};

class TreeComposer {
public:
  TreeComposer(TreeMode mode,
               function_ref<void(Operation *, const Signature &)> onComposite)
      : mode(mode), onComposite(onComposite) {}

  FailureOr<Signature> visit(Operation *op);
  /// Duplicate names, once the whole tree is visited (Verify mode).
  LogicalResult checkNames();
  /// The recorded names as (name, index in the walk) sorted, and the check
  /// on such keys for all the names (composeInParallel merges the parts').
  using NameKey = std::pair<const void *, uint32_t>;
  std::vector<NameKey> sortedNames() const;
  LogicalResult checkSortedNames(ArrayRef<NameKey> keys);
  size_t numNames() const { return names.size(); }
  /// Records a name for checkNames (Verify mode only).
  void recordName(Operation *op, StringAttr name);

  /// For composing subtrees on several threads (composeInParallel): every
  /// energy.device of `symbolTable` gets an id, in order, and a device not
  /// among them fails the walk (quietly: it is a trial) instead of taking
  /// the next id, so that all the threads' ids agree.
  void declareDevices(Operation *symbolTable);
  /// (Copies of a composer that declared its devices share its ids.)
  /// Appends `from`'s names after this one's (the walk's order).
  void appendNames(const TreeComposer &from) {
    names.insert(names.end(), from.names.begin(), from.names.end());
  }

private:
  FailureOr<uint32_t> lookupDevice(Operation *user, FlatSymbolRefAttr sym);
  /// The next id, for `device` under the key `sym`.
  uint32_t addDevice(Attribute sym, DeviceOp device);
  FailureOr<Signature> visitComposition(Operation *op, calculus::Op kind,
                                        StringAttr name);
  FailureOr<Signature> visitMeasuredComposite(CompositeOp op);
  std::string describe(const DeviceSet &set) const;
  /// A stretch of one device's time in a par operand: what it draws and at
  /// which device-wide settings (absent: not said), and its SM share.
  struct Stretch {
    double T, s;
    std::optional<int64_t> smMhz = {}, memMhz = {};
    std::optional<double> powerCap = {};
    double smShare = 0;
  };
  /// The operand's stretches in time order (mean durations); false where
  /// it holds a multi or a measured composite (not followed inside).
  /// (Not inlined, nor checkParInstants: their frames would sit in every
  /// level of visitComposition's recursion, and 1,000 levels overflowed
  /// the stack under AddressSanitizer.)
  LLVM_ATTRIBUTE_NOINLINE bool stretchesOf(Operation *op,
                                           std::vector<Stretch> &out);
  /// A par's operands run at once on one device, whose static power and
  /// clocks are device-wide (paper section 3.1, Axiom P2): at every instant
  /// their stretches must draw one static power at one setting, and their
  /// SM shares fit in the device. (The composition compares only the
  /// operands' mean static powers: 200 W then 60 W beside 60 W then 200 W
  /// passed.) Checked where an element inside writes its own `s` or an
  /// operating point.
  LLVM_ATTRIBUTE_NOINLINE LogicalResult checkParInstants(ParOp par);
  /// Why `composer` refused operand #`index` (`child`, of signature `sig`)
  /// of `op`, said at `op` (not inlined either: a diagnostic's frame).
  LLVM_ATTRIBUTE_NOINLINE LogicalResult reportCompositionError(
      Operation *op, const calculus::Composer &composer, const Signature &sig,
      unsigned index, Operation &child);

  TreeMode mode;
  function_ref<void(Operation *, const Signature &)> onComposite;
  /// The devices by symbol and by id. Copies of a composer share one table:
  /// composeInParallel copies the root's composer for each of a multi's
  /// children, and a table per copy made that quadratic in the devices (1 GB
  /// for a multi over 4,000). Only a composer whose devices are not frozen
  /// adds to it, and no copy is taken before declareDevices freezes them.
  struct DeviceTable {
    DenseMap<Attribute, uint32_t> ids;
    SmallVector<DeviceInfo> infos;
  };
  std::shared_ptr<DeviceTable> table = std::make_shared<DeviceTable>();
  bool frozenDevices = false;
  bool scannedTable = false; ///< lookupDevice read the user's table once
  void addDevicesOf(Operation *symbolTable);
  /// (name, op) in visit order; sorted and scanned at the end: cheaper than
  /// a hash map over the million names of a large tree.
  std::vector<std::pair<StringAttr, Operation *>> names;
};
} // namespace

FailureOr<uint32_t> TreeComposer::lookupDevice(Operation *user,
                                               FlatSymbolRefAttr sym) {
  auto it = table->ids.find(sym);
  if (it != table->ids.end())
    return it->second;
  if (frozenDevices)
    return failure(); // a trial: the walk on one thread reports it
  // The first miss reads every device of the user's symbol table at once: a
  // lookup per device scans the whole table (a multi over 40,000 devices
  // took 20 s to verify). What is not there (a device of an enclosing
  // table, a symbol of another kind, none) is looked up and said below.
  if (!scannedTable) {
    scannedTable = true;
    if (Operation *st = SymbolTable::getNearestSymbolTable(user)) {
      addDevicesOf(st);
      it = table->ids.find(sym);
      if (it != table->ids.end())
        return it->second;
    }
  }
  Operation *found = SymbolTable::lookupNearestSymbolFrom(user, sym.getAttr());
  if (!found)
    return user->emitOpError("runs on unknown device ")
           << sym << "; declare it with energy.device";
  auto device = dyn_cast<DeviceOp>(found);
  if (!device)
    return (user->emitOpError("runs on ")
            << sym << ", which is a '" << found->getName()
            << "', not an energy.device")
               .attachNote(found->getLoc())
           << "symbol defined here";
  return addDevice(sym, device);
}

uint32_t TreeComposer::addDevice(Attribute sym, DeviceOp device) {
  uint32_t id = table->infos.size();
  table->infos.push_back(
      {device.getSymNameAttr(), device.getStaticPower().convertToDouble()});
  table->ids[sym] = id;
  return id;
}

void TreeComposer::addDevicesOf(Operation *symbolTable) {
  for (Region &region : symbolTable->getRegions())
    for (Block &block : region)
      for (auto device : block.getOps<DeviceOp>()) {
        auto sym = FlatSymbolRefAttr::get(device.getSymNameAttr());
        if (!table->ids.count(sym))
          addDevice(sym, device);
      }
}

void TreeComposer::declareDevices(Operation *symbolTable) {
  addDevicesOf(symbolTable);
  frozenDevices = true;
}

void TreeComposer::recordName(Operation *op, StringAttr name) {
  // Names are the verifier's business; evaluation runs on verified IR.
  if (name && mode == TreeMode::Verify)
    names.push_back({name, op});
}

std::vector<TreeComposer::NameKey> TreeComposer::sortedNames() const {
  // (name, index) pairs sorted in place: no indirection into `names` per
  // comparison (a cache miss each at a million names).
  std::vector<NameKey> keys(names.size());
  for (uint32_t i = 0; i < keys.size(); ++i)
    keys[i] = {names[i].first.getAsOpaquePointer(), i};
  std::sort(keys.begin(), keys.end());
  return keys;
}

LogicalResult TreeComposer::checkNames() {
  return checkSortedNames(sortedNames());
}

LogicalResult TreeComposer::checkSortedNames(ArrayRef<NameKey> keys) {
  // Sorted by name, then visit order: each run of equal names starts with
  // its first definition. Reported: the duplicate met first in the walk, as
  // a walk with a map would.
  uint32_t dup = UINT32_MAX, first = 0;
  for (size_t i = 1; i < keys.size(); ++i)
    if (keys[i].first == keys[i - 1].first &&
        (i < 2 || keys[i - 2].first != keys[i].first) && keys[i].second < dup) {
      dup = keys[i].second;
      first = keys[i - 1].second;
    }
  if (dup == UINT32_MAX)
    return success();
  InFlightDiagnostic diag = names[dup].second->emitOpError("duplicate name @")
                            << names[dup].first.getValue()
                            << " in one energy tree";
  diag.attachNote(names[first].second->getLoc()) << "first defined here";
  return failure();
}

std::string TreeComposer::describe(const DeviceSet &set) const {
  std::string out = "{";
  bool first = true;
  for (uint32_t id : set.ids()) {
    out += first ? "@" : ", @";
    out +=
        id < table->infos.size() ? table->infos[id].name.getValue().str() : "?";
    first = false;
  }
  return out + "}";
}

FailureOr<Signature> TreeComposer::visit(Operation *op) {
  return TypeSwitch<Operation *, FailureOr<Signature>>(op)
      .Case([&](ElementOp el) -> FailureOr<Signature> {
        recordName(el, el.getSymNameAttr());
        FailureOr<uint32_t> dev = lookupDevice(el, el.getDeviceAttr());
        if (failed(dev))
          return failure();
        const std::optional<SigData> &sig = el.getProperties().sig;
        if (!sig) {
          if (mode == TreeMode::Evaluate)
            return el.emitOpError("@")
                   << el.getSymName()
                   << " has no signature: give it `sig <T = ..., d = ...>` "
                      "or fill it from a signature database";
          return Signature::idle(table->infos[*dev].staticPower, 0,
                                 DeviceSet::single(*dev));
        }
        return toSignature(*sig, table->infos[*dev].staticPower,
                           DeviceSet::single(*dev));
      })
      .Case([&](IdleOp idle) -> FailureOr<Signature> {
        FailureOr<uint32_t> dev = lookupDevice(idle, idle.getDeviceAttr());
        if (failed(dev))
          return failure();
        // A context pass may have set the idle's realized static power.
        double s = table->infos[*dev].staticPower;
        if (auto ctxStatic = idle->getAttrOfType<FloatAttr>(
                EnergyDialect::IdleStaticAttrHelper::getNameStr()))
          s = ctxStatic.getValueAsDouble();
        return Signature::idle(s, idle.getDuration().convertToDouble(),
                               DeviceSet::single(*dev));
      })
      .Case([&](SeqOp c) {
        return visitComposition(c, calculus::Op::Seq, c.getSymNameAttr());
      })
      .Case([&](ParOp c) {
        return visitComposition(c, calculus::Op::Par, c.getSymNameAttr());
      })
      .Case([&](MultiOp c) {
        return visitComposition(c, calculus::Op::Multi, c.getSymNameAttr());
      })
      .Case([&](CompositeOp c) { return visitMeasuredComposite(c); })
      .Default([&](Operation *other) -> FailureOr<Signature> {
        return other->emitOpError(
            "cannot appear in an energy composition; only energy.element, "
            "energy.idle, energy.seq, energy.par, energy.multi and "
            "energy.composite can");
      });
}

namespace {
/// What runs at once in a par, between two instants where an operand's
/// stretch ends or begins: each property's values with how many running
/// stretches hold them and one operand that does.
template <typename Key> struct Held {
  std::map<Key, std::pair<int, size_t>> values;
  void add(Key k, size_t operand) {
    auto &v = values[k];
    ++v.first;
    v.second = operand;
  }
  void remove(Key k) {
    auto it = values.find(k);
    if (it != values.end() && --it->second.first == 0)
      values.erase(it);
  }
};
struct Running {
  Held<double> s, cap;
  Held<int64_t> sm, mem;
  double share = 0;
  size_t count = 0;
};

/// Sweeps the par operands' stretches (each operand's in time order from
/// 0) over their instants, O(events log events): `at(t0, t1, running)` for
/// every stretch of time where something runs; it returns false to stop.
/// Instants closer than 1e-12 of their time (sums of durations grouped
/// otherwise differ in their last bits) are one.
template <typename Stretch, typename Fn>
void sweepStretches(const std::vector<std::vector<Stretch>> &parts, Fn at) {
  struct Event {
    double t;
    bool begins;
    size_t operand;
    const Stretch *st;
  };
  std::vector<Event> events;
  for (size_t i = 0; i < parts.size(); ++i) {
    double t = 0;
    for (const Stretch &st : parts[i]) {
      if (st.T > 0) {
        events.push_back({t, true, i, &st});
        events.push_back({t + st.T, false, i, &st});
      }
      t += st.T;
    }
  }
  // Ends before beginnings at one instant: a stretch that ends where
  // another begins does not run beside it.
  llvm::sort(events, [](const Event &x, const Event &y) {
    return x.t < y.t || (x.t == y.t && !x.begins && y.begins);
  });
  Running run;
  for (size_t e = 0; e < events.size();) {
    double t = events[e].t;
    double tol = 1e-12 * std::fabs(t);
    for (; e < events.size() && events[e].t <= t + tol; ++e) {
      const Event &ev = events[e];
      const Stretch &st = *ev.st;
      int sign = ev.begins ? 1 : -1;
      run.count += ev.begins ? 1 : size_t(-1);
      run.share += sign * st.smShare;
      if (ev.begins) {
        run.s.add(st.s, ev.operand);
        if (st.smMhz)
          run.sm.add(*st.smMhz, ev.operand);
        if (st.memMhz)
          run.mem.add(*st.memMhz, ev.operand);
        if (st.powerCap)
          run.cap.add(*st.powerCap, ev.operand);
      } else {
        run.s.remove(st.s);
        if (st.smMhz)
          run.sm.remove(*st.smMhz);
        if (st.memMhz)
          run.mem.remove(*st.memMhz);
        if (st.powerCap)
          run.cap.remove(*st.powerCap);
      }
    }
    if (e < events.size() && run.count > 0 && !at(t, events[e].t, run))
      return;
  }
}
} // namespace

bool TreeComposer::stretchesOf(Operation *op, std::vector<Stretch> &out) {
  if (auto el = dyn_cast<ElementOp>(op)) {
    FailureOr<uint32_t> dev = lookupDevice(el, el.getDeviceAttr());
    if (failed(dev))
      return false;
    const std::optional<SigData> &sig = el.getProperties().sig;
    Stretch st{sig ? sig->T : 0,
               sig && sig->s ? *sig->s : table->infos[*dev].staticPower};
    if (OpPointAttr at = el.getOpPointAttr()) {
      st.smMhz = at.getSmMhz();
      st.memMhz = at.getMemMhz();
      if (at.getPowerCap())
        st.powerCap = at.getPowerCap()->value;
      if (at.getSmShare())
        st.smShare = at.getSmShare()->value;
    }
    out.push_back(st);
    return true;
  }
  if (auto idle = dyn_cast<IdleOp>(op)) {
    FailureOr<uint32_t> dev = lookupDevice(idle, idle.getDeviceAttr());
    if (failed(dev))
      return false;
    double s = table->infos[*dev].staticPower;
    if (auto ctxStatic = idle->getAttrOfType<FloatAttr>(
            EnergyDialect::IdleStaticAttrHelper::getNameStr()))
      s = ctxStatic.getValueAsDouble();
    out.push_back({idle.getDuration().convertToDouble(), s});
    return true;
  }
  if (isa<SeqOp>(op)) {
    for (Operation &child : op->getRegion(0).front())
      if (!stretchesOf(&child, out))
        return false;
    return true;
  }
  if (!isa<ParOp>(op))
    return false; // a multi or a measured composite
  // A nested par (checked on its own): at each instant its running
  // operands' draw and settings (alike), their shares summed.
  std::vector<std::vector<Stretch>> parts;
  for (Operation &child : op->getRegion(0).front()) {
    parts.emplace_back();
    if (!stretchesOf(&child, parts.back()))
      return false;
  }
  // (The operands' stretches are contiguous from 0: no instant is empty.)
  sweepStretches(parts, [&](double t0, double t1, const Running &run) {
    Stretch merged{t1 - t0, run.s.values.begin()->first};
    if (!run.sm.values.empty())
      merged.smMhz = run.sm.values.begin()->first;
    if (!run.mem.values.empty())
      merged.memMhz = run.mem.values.begin()->first;
    if (!run.cap.values.empty())
      merged.powerCap = run.cap.values.begin()->first;
    merged.smShare = run.share;
    out.push_back(merged);
    return true;
  });
  return true;
}

LogicalResult TreeComposer::checkParInstants(ParOp par) {
  bool settings = false;
  par.walk([&](ElementOp el) {
    const std::optional<SigData> &sig = el.getProperties().sig;
    settings |= (sig && sig->s) || el.getOpPointAttr();
  });
  if (!settings)
    return success();
  std::vector<std::vector<Stretch>> parts;
  for (Operation &child : par.getBody().front()) {
    parts.emplace_back();
    if (!stretchesOf(&child, parts.back()))
      return success(); // not followed inside: the mean check stands
  }
  std::string what;
  double from = 0;
  // Two operands holding different values of one property now: the first
  // two values, each with an operand that holds it.
  auto differ = [&](const auto &held, const char *prop, auto show) {
    if (held.values.size() < 2)
      return false;
    auto a = held.values.begin(), b = std::next(a);
    what = "operand #" + std::to_string(b->second.second) + " " + prop + " " +
           show(b->first) + " where operand #" +
           std::to_string(a->second.second) + " " + prop + " " + show(a->first);
    return true;
  };
  auto power = [](double w) { return formatQuantity(w, Dimension::Power); };
  auto mhz = [](int64_t f) { return std::to_string(f) + " MHz"; };
  sweepStretches(parts, [&](double t0, double, const Running &run) {
    from = t0;
    double lo = run.s.values.begin()->first, hi = run.s.values.rbegin()->first;
    if (hi - lo > 1e-9 * std::fabs(hi) &&
        differ(run.s, "draws static power", power))
      return false;
    if (differ(run.sm, "runs at sm_mhz", mhz) ||
        differ(run.mem, "runs at mem_mhz", mhz) ||
        differ(run.cap, "runs under a power cap of", power))
      return false;
    if (run.share > 1 + 1e-9) {
      what = "their SM shares add up to " + formatNumber(run.share) +
             ", more than the device's whole (1)";
      return false;
    }
    return true;
  });
  if (what.empty())
    return success();
  return par.emitOpError("operands run on one device at once, whose static "
                         "power and clocks are device-wide and whose SM "
                         "shares divide it (CALCULUS.md section 2); from ")
         << formatQuantity(from, Dimension::Time) << " on, " << what;
}

LogicalResult TreeComposer::reportCompositionError(
    Operation *op, const calculus::Composer &composer, const Signature &sig,
    unsigned index, Operation &child) {
  const Signature &before = composer.result();
  InFlightDiagnostic diag = op->emitOpError();
  switch (composer.error().kind) {
  case calculus::CompositionError::ParDevices:
    diag << "operands must share one device (CALCULUS.md section 2); "
            "operand #"
         << index << " runs on " << describe(sig.devices)
         << " but the operands before it on " << describe(before.devices);
    break;
  case calculus::CompositionError::ParStaticPower:
    diag << "operands must share one static power (CALCULUS.md section "
            "2); operand #"
         << index << " draws " << formatQuantity(sig.s, Dimension::Power)
         << " but the operands before it "
         << formatQuantity(before.s, Dimension::Power);
    break;
  case calculus::CompositionError::MultiOverlap: {
    DeviceSet shared;
    for (uint32_t id : sig.devices.ids())
      if (before.devices.contains(id))
        shared.insert(id);
    diag << "operands must run on disjoint device sets (CALCULUS.md "
            "section 2); operand #"
         << index << " shares " << describe(shared)
         << " with the operands before it";
    break;
  }
  case calculus::CompositionError::SeqDevices:
    diag << "operands must run on the same set of devices (CALCULUS.md "
            "section 2); operand #"
         << index << " runs on " << describe(sig.devices)
         << " but the operands before it on " << describe(before.devices)
         << "; pad with energy.idle inside an energy.multi";
    break;
  default:
    diag << composer.error().message;
  }
  diag.attachNote(child.getLoc()) << "operand #" << index << " is here";
  return failure();
}

FailureOr<Signature> TreeComposer::visitComposition(Operation *op,
                                                    calculus::Op kind,
                                                    StringAttr name) {
  recordName(op, name);
  calculus::Composer composer(kind);
  unsigned index = 0;
  for (Operation &child : op->getRegion(0).front()) {
    FailureOr<Signature> sig = visit(&child);
    if (failed(sig))
      return failure();
    if (!composer.add(*sig))
      return reportCompositionError(op, composer, *sig, index, child);
    ++index;
  }
  if (composer.empty())
    return op->emitOpError("must contain at least one element or composition");
  if (auto par = dyn_cast<ParOp>(op);
      par && mode == TreeMode::Verify && failed(checkParInstants(par)))
    return failure();
  Signature result = composer.result();
  refineMakespan(op, result);
  if (onComposite)
    onComposite(op, result);
  return result;
}

FailureOr<Signature> TreeComposer::visitMeasuredComposite(CompositeOp op) {
  recordName(op, op.getSymNameAttr());
  DeviceSet union_;
  bool any = false;
  // Where its devices wait after it (a multi's padding): as they would
  // after the parts themselves -- a closure or a measurement replaces the
  // parts' energy, not where the devices are left. Per device set: the last
  // part on it or on a set that covers it (an empty part, which
  // -canonicalize drops, leaves it), the sets summed; a part over only some
  // of a set's devices: the composite's own s.
  std::vector<std::pair<DeviceSet, double>> exits;
  bool mixedSets = false;
  for (Operation &child : op.getBody().front()) {
    FailureOr<Signature> sig = visit(&child);
    if (failed(sig))
      return failure();
    union_.unite(sig->devices);
    any = true;
    if (sig->T == 0 && sig->d == 0)
      continue;
    // A part over every device of the sets it meets replaces them; one
    // over only some of a set's devices cannot be told apart from the rest.
    bool covers = true;
    for (const auto &e : exits)
      if (e.first.intersects(sig->devices)) {
        DeviceSet u = sig->devices;
        u.unite(e.first);
        covers = covers && u == sig->devices;
      }
    if (!covers) {
      mixedSets = true;
      continue;
    }
    llvm::erase_if(
        exits, [&](const auto &e) { return e.first.intersects(sig->devices); });
    exits.push_back({sig->devices, sig->exitPower()});
  }
  if (!any)
    return op.emitOpError("is a measured composite but keeps no parts");
  SignatureAttr sig = op.getSigAttr();
  if (!sig && mode == TreeMode::Evaluate)
    return op.emitOpError("@")
           << op.getSymName()
           << " is a measured composite without its measured signature";
  double s = 0;
  if (sig && sig.staticPower()) {
    s = *sig.staticPower();
  } else {
    for (uint32_t id : union_.ids())
      s += table->infos[id].staticPower;
  }
  Signature result =
      sig ? toSignature(sig, s, union_) : Signature::idle(s, 0, union_);
  if (!mixedSets && !exits.empty()) {
    double partsExit = 0;
    for (const auto &e : exits)
      partsExit += e.second;
    result.exitOffset = partsExit - result.s;
  }
  if (onComposite)
    onComposite(op, result);
  return result;
}

namespace {
/// Set on a thread that composes a subtree as a trial: its diagnostics are
/// dropped. A trial that fails is redone on one thread, which reports the
/// same diagnostics as always, in the walk's order.
thread_local bool quietTrial = false;

/// A seq/par/multi root with two or more children, in a multithreaded
/// context: its children are composed as tasks on the context's thread pool
/// (the calling thread takes its share), then the root from their
/// signatures. nullopt: not split, or a trial failed (nothing reported);
/// the caller composes the tree on one thread.
std::optional<FailureOr<Signature>> composeInParallel(
    Operation *root, TreeMode mode,
    function_ref<void(Operation *, const Signature &)> onComposite) {
  calculus::Op kind;
  StringAttr name;
  if (auto seq = dyn_cast<SeqOp>(root))
    kind = calculus::Op::Seq, name = seq.getSymNameAttr();
  else if (auto par = dyn_cast<ParOp>(root))
    kind = calculus::Op::Par, name = par.getSymNameAttr();
  else if (auto multi = dyn_cast<MultiOp>(root))
    kind = calculus::Op::Multi, name = multi.getSymNameAttr();
  else
    return std::nullopt;
  MLIRContext *ctx = root->getContext();
  Operation *symbolTable = SymbolTable::getNearestSymbolTable(root);
  if (!ctx->isMultithreadingEnabled() || !symbolTable ||
      root->getRegion(0).empty())
    return std::nullopt;
  SmallVector<Operation *> children;
  for (Operation &child : root->getRegion(0).front())
    children.push_back(&child);
  llvm::ThreadPoolInterface &pool = ctx->getThreadPool();
  unsigned threads =
      std::min<size_t>(pool.getMaxConcurrency(), children.size());
  if (threads < 2)
    return std::nullopt;

  TreeComposer top(mode, onComposite);
  top.declareDevices(symbolTable);
  std::vector<TreeComposer> parts(children.size(), top);
  std::vector<std::optional<Signature>> sigs(children.size());
  std::vector<std::vector<TreeComposer::NameKey>> partNames(children.size());
  std::atomic<bool> ok{true};
  std::atomic<size_t> next{0};
  {
    ScopedDiagnosticHandler drop(
        ctx, [](Diagnostic &) { return success(quietTrial); });
    auto work = [&] {
      bool outer = quietTrial;
      quietTrial = true;
      for (size_t i; ok && (i = next++) < children.size();) {
        FailureOr<Signature> sig = parts[i].visit(children[i]);
        if (failed(sig)) {
          ok = false;
        } else {
          sigs[i] = std::move(*sig);
          partNames[i] = parts[i].sortedNames();
        }
      }
      quietTrial = outer;
    };
    llvm::ThreadPoolTaskGroup group(pool);
    for (unsigned t = 1; t < threads; ++t)
      group.async(work);
    work();
    group.wait();
  }
  if (!ok)
    return std::nullopt;
  calculus::Composer composer(kind);
  for (std::optional<Signature> &sig : sigs)
    if (!composer.add(*sig))
      return std::nullopt;
  if (composer.empty())
    return std::nullopt;
  Signature result = composer.result();
  refineMakespan(root, result);
  if (onComposite)
    onComposite(root, result);
  // The names in the walk's order: the root's, then each part's. The parts'
  // sorted keys, shifted to walk indices, stay sorted runs; merged pairwise.
  top.recordName(root, name);
  std::vector<TreeComposer::NameKey> keys = top.sortedNames();
  std::vector<size_t> runEnds = {keys.size()};
  for (size_t i = 0; i < parts.size(); ++i) {
    auto offset = uint32_t(top.numNames());
    for (const TreeComposer::NameKey &key : partNames[i])
      keys.push_back({key.first, key.second + offset});
    top.appendNames(parts[i]);
    runEnds.push_back(keys.size());
  }
  std::vector<TreeComposer::NameKey> merged(keys.size());
  for (size_t width = 1; width < runEnds.size(); width *= 2) {
    for (size_t r = 0; r < runEnds.size(); r += 2 * width) {
      size_t from = r == 0 ? 0 : runEnds[r - 1];
      size_t mid = runEnds[std::min(r + width, runEnds.size()) - 1];
      size_t to = runEnds[std::min(r + 2 * width, runEnds.size()) - 1];
      std::merge(keys.begin() + from, keys.begin() + mid, keys.begin() + mid,
                 keys.begin() + to, merged.begin() + from);
    }
    keys.swap(merged);
  }
  if (failed(top.checkSortedNames(keys)))
    return FailureOr<Signature>(failure());
  return FailureOr<Signature>(result);
}
} // namespace

FailureOr<Signature> energy::composeTree(
    Operation *root, TreeMode mode,
    function_ref<void(Operation *, const Signature &)> onComposite,
    bool onCompositeIsThreadSafe) {
  if (!onComposite || onCompositeIsThreadSafe)
    if (std::optional<FailureOr<Signature>> sig =
            composeInParallel(root, mode, onComposite))
      return *sig;
  TreeComposer composer(mode, onComposite);
  FailureOr<Signature> sig = composer.visit(root);
  if (failed(sig) || failed(composer.checkNames()))
    return failure();
  return sig;
}
