//===- EnergyTree.cpp - From energy IR to the calculus --------------------===//

#include "dialect/Energy/EnergyTree.h"
#include "dialect/Energy/Energy.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace mlir;
using namespace energy;
using calculus::DeviceSet;
using calculus::Signature;

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

private:
  FailureOr<uint32_t> lookupDevice(Operation *user, FlatSymbolRefAttr sym);
  /// Records a name for checkNames (Verify mode only).
  void recordName(Operation *op, StringAttr name);
  FailureOr<Signature> visitComposition(Operation *op, calculus::Op kind,
                                        StringAttr name);
  FailureOr<Signature> visitMeasuredComposite(CompositeOp op);
  std::string describe(const DeviceSet &set) const;

  TreeMode mode;
  function_ref<void(Operation *, const Signature &)> onComposite;
  DenseMap<Attribute, uint32_t> deviceIds;
  SmallVector<DeviceInfo> devices;
  /// (name, op) in visit order; sorted and scanned at the end: cheaper than
  /// a hash map over the million names of a large tree.
  std::vector<std::pair<StringAttr, Operation *>> names;
};
} // namespace

FailureOr<uint32_t> TreeComposer::lookupDevice(Operation *user,
                                               FlatSymbolRefAttr sym) {
  auto it = deviceIds.find(sym);
  if (it != deviceIds.end())
    return it->second;
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
  uint32_t id = devices.size();
  devices.push_back(
      {device.getSymNameAttr(), device.getStaticPower().convertToDouble()});
  deviceIds[sym] = id;
  return id;
}

void TreeComposer::recordName(Operation *op, StringAttr name) {
  // Names are the verifier's business; evaluation runs on verified IR.
  if (name && mode == TreeMode::Verify)
    names.push_back({name, op});
}

LogicalResult TreeComposer::checkNames() {
  // Sorted by name, then visit order: each run of equal names starts with
  // its first definition. Reported: the duplicate met first in the walk, as
  // a walk with a map would.
  // (name, index) pairs sorted in place: no indirection into `names` per
  // comparison (a cache miss each at a million names).
  std::vector<std::pair<const void *, uint32_t>> keys(names.size());
  for (uint32_t i = 0; i < keys.size(); ++i)
    keys[i] = {names[i].first.getAsOpaquePointer(), i};
  std::sort(keys.begin(), keys.end());
  uint32_t dup = UINT32_MAX, first = 0;
  for (size_t i = 1; i < keys.size(); ++i)
    if (keys[i].first == keys[i - 1].first &&
        (i < 2 || keys[i - 2].first != keys[i].first) &&
        keys[i].second < dup) {
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
    out += id < devices.size() ? devices[id].name.getValue().str() : "?";
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
          return Signature::idle(devices[*dev].staticPower, 0,
                                 DeviceSet::single(*dev));
        }
        double s = sig->s.value_or(devices[*dev].staticPower);
        return Signature::measured(s, sig->T, sig->d, sig->sigmaT * sig->sigmaT,
                                   sig->sigmaD * sig->sigmaD,
                                   DeviceSet::single(*dev));
      })
      .Case([&](IdleOp idle) -> FailureOr<Signature> {
        FailureOr<uint32_t> dev = lookupDevice(idle, idle.getDeviceAttr());
        if (failed(dev))
          return failure();
        // A context pass may have set the idle's realized static power.
        double s = devices[*dev].staticPower;
        if (auto ctxStatic = idle->getAttrOfType<FloatAttr>("energy.idle_static"))
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
    if (!composer.add(*sig)) {
      const Signature &before = composer.result();
      InFlightDiagnostic diag = op->emitOpError();
      switch (composer.error().kind) {
      case calculus::CompositionError::ParDevices:
        diag << "operands must share one device (CALCULUS.md section 2); "
                "operand #"
             << index << " runs on " << describe(sig->devices)
             << " but the operands before it on " << describe(before.devices);
        break;
      case calculus::CompositionError::ParStaticPower:
        diag << "operands must share one static power (CALCULUS.md section "
                "2); operand #"
             << index << " draws " << formatQuantity(sig->s, Dimension::Power)
             << " but the operands before it "
             << formatQuantity(before.s, Dimension::Power);
        break;
      case calculus::CompositionError::MultiOverlap: {
        DeviceSet shared;
        for (uint32_t id : sig->devices.ids())
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
             << index << " runs on " << describe(sig->devices)
             << " but the operands before it on " << describe(before.devices)
             << "; pad with energy.idle inside an energy.multi";
        break;
      default:
        diag << composer.error().message;
      }
      diag.attachNote(child.getLoc()) << "operand #" << index << " is here";
      return failure();
    }
    ++index;
  }
  if (composer.empty())
    return op->emitOpError("must contain at least one element or composition");
  if (onComposite)
    onComposite(op, composer.result());
  return composer.result();
}

FailureOr<Signature> TreeComposer::visitMeasuredComposite(CompositeOp op) {
  recordName(op, op.getSymNameAttr());
  DeviceSet union_;
  bool any = false;
  for (Operation &child : op.getBody().front()) {
    FailureOr<Signature> sig = visit(&child);
    if (failed(sig))
      return failure();
    union_.unite(sig->devices);
    any = true;
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
      s += devices[id].staticPower;
  }
  Signature result =
      sig ? Signature::measured(s, sig.time(), sig.dynamicEnergy(),
                                sig.sigmaTime() * sig.sigmaTime(),
                                sig.sigmaDynamic() * sig.sigmaDynamic(), union_)
          : Signature::idle(s, 0, union_);
  if (onComposite)
    onComposite(op, result);
  return result;
}

FailureOr<Signature> energy::composeTree(
    Operation *root, TreeMode mode,
    function_ref<void(Operation *, const Signature &)> onComposite) {
  TreeComposer composer(mode, onComposite);
  FailureOr<Signature> sig = composer.visit(root);
  if (failed(sig) || failed(composer.checkNames()))
    return failure();
  return sig;
}
