//===- Reduce.cpp - --energy-reduce ---------------------------------------===//
//
// The Reduction Theorem (Prop. 4.1) over each energy tree that
// --energy-propagate-context realized: calculus::checkReduction tests every
// element's insensitivity (Eq. 11/12) and every device prefix against its
// bias bound. A reducible tree gets its null-context signatures back and
// `energy.bias_bound_J`; an irreducible one keeps its realized form, its
// failing elements marked `energy.needs_characterization` with
// `energy.interaction` edges naming why, and the prefixes and co-runs to
// characterize as a whole wrapped in `energy.composite`s.
//
//===----------------------------------------------------------------------===//

#include "calculus/Context.h"
#include "dialect/Energy/Contexts.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Energy/EnergyTree.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <map>

namespace energy {
#define GEN_PASS_DEF_ENERGYREDUCE
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;

namespace {
using Devices = DenseMap<StringAttr, DeviceModels>;

/// A device's reference static power (0 for one the models do not know:
/// the verifier has refused an element or idle on an unknown device).
double staticPowerOf(Devices &devices, StringAttr dev) {
  auto it = devices.find(dev);
  return it == devices.end() ? 0 : it->second.mechanisms.staticPower;
}

/// An element of the tree, with its previous element on the same device.
struct Entry {
  ElementOp op;
  calculus::ReductionEntry check;
  ElementOp predecessor;
  const calculus::Signature &realized() const { return check.realized; }
  const calculus::Signature &null() const { return check.null; }
};

struct EnergyReducePass
    : public energy::impl::EnergyReduceBase<EnergyReducePass> {
  using EnergyReduceBase::EnergyReduceBase;

  void runOnOperation() override {
    if (!checkConfidence(getOperation(), "energy-reduce", confidence))
      return signalPassFailure();
    if (!(tolerance >= 0) || !std::isfinite(tolerance)) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-reduce: tolerance must be a finite number of "
                      "joules >= 0 (0: none)");
      return signalPassFailure();
    }
    auto devices = readDeviceModels(getOperation());
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

  void reduce(Operation *root, Devices &devices) {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    // Elements in program order, with their m and their device predecessor.
    std::vector<Entry> entries;
    DenseMap<StringAttr, ElementOp> last;
    DenseMap<StringAttr, uint32_t> deviceIndex;
    root->walk<WalkOrder::PreOrder>([&](ElementOp el) {
      StringAttr dev = el.getDeviceAttr().getAttr();
      double sdev = staticPowerOf(devices, dev);
      SignatureAttr sig = el.getSigAsAttr();
      if (!sig)
        return;
      auto nullAttr = el->getAttrOfType<SignatureAttr>(
          EnergyDialect::NullSigAttrHelper::getNameStr());
      // The Reduction Theorem's multiplier, the null start's included
      // (checkReduction takes them apart again).
      ReductionPlace place = reductionPlace(el, root);
      unsigned m = place.m;
      bool atStart = place.atStart;
      ElementOp pred = last.lookup(dev);
      uint32_t index =
          deviceIndex.try_emplace(dev, deviceIndex.size()).first->second;
      entries.push_back(
          {el,
           {toSignature(sig, sdev),
            toSignature(nullAttr ? nullAttr : sig, sdev), m, atStart, index},
           pred});
      last[dev] = el;
    });
    // Per-element insensitivity (Eq. 11/12) and per-device prefix checks.
    std::vector<calculus::ReductionEntry> checks;
    for (const Entry &e : entries)
      checks.push_back(e.check);
    calculus::ReductionCheck check =
        calculus::checkReduction(checks, confidence);
    double totalBound = check.biasBound;
    // An element fails where it is sensitive itself, or where its device's
    // prefix first accumulates a bias past its bound; later elements of
    // that prefix fail it only through that bias -- those that move
    // nothing themselves (realized = null: insensitive, marked or not) are
    // not flagged, as characterizing the first failing prefix removes it.
    SmallVector<Entry *> failing;
    DenseSet<uint32_t> prefixFailed;
    for (size_t i = 0; i < entries.size(); ++i) {
      const calculus::ReductionEntry &c = entries[i].check;
      bool own = c.realized.E() != c.null.E();
      bool prefix =
          !check.prefixOk[i] && (prefixFailed.insert(c.device).second || own);
      if (!check.elementOk[i] || prefix)
        failing.push_back(&entries[i]);
    }
    if (failing.empty()) {
      // Reduce: the context-independent form, with its bias bound.
      for (Entry &e : entries)
        if (auto nullAttr = e.op->getAttrOfType<SignatureAttr>(
                EnergyDialect::NullSigAttrHelper::getNameStr())) {
          e.op.setSigFromAttr(nullAttr);
          e.op->removeAttr(EnergyDialect::NullSigAttrHelper::getNameStr());
          e.op->removeAttr(
              EnergyDialect::EntryTemperatureAttrHelper::getNameStr());
          e.op->removeAttr(
              EnergyDialect::ContentionSlowdownAttrHelper::getNameStr());
        }
      // Idles too go back to the null context (their device's static
      // power); an idle has no measured spread to absorb the shift its
      // realized static power made (paper section 4.1.3: the Delta s
      // term), so the shift itself joins the bound.
      root->walk([&](IdleOp idle) {
        auto realized = idle->getAttrOfType<FloatAttr>(
            EnergyDialect::IdleStaticAttrHelper::getNameStr());
        if (!realized)
          return;
        StringAttr dev = idle.getDeviceAttr().getAttr();
        double s = staticPowerOf(devices, dev);
        totalBound += std::fabs(realized.getValueAsDouble() - s) *
                      idle.getDuration().convertToDouble();
        idle->removeAttr(EnergyDialect::IdleStaticAttrHelper::getNameStr());
      });
      root->setAttr(EnergyDialect::BiasBound_JAttrHelper::getNameStr(),
                    b.getF64FloatAttr(totalBound));
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
    // An edge a run before recorded for this tree (the pass run twice) is
    // brought up to date, not added again: the graph holds each interaction
    // once. A tree's edges follow it (another tree may name its elements
    // alike: two lowered schedules of one job).
    // The edges by (from, to, directed, mechanism), read once: a scan of
    // them per new edge made a thermal tree of 40,000 elements take 17 s.
    using EdgeKey = std::tuple<const void *, const void *, bool, std::string>;
    std::map<EdgeKey, InteractionOp> edges;
    auto keyOf = [](StringAttr from, StringAttr to, bool directed,
                    StringRef mech) {
      return EdgeKey{from.getAsOpaquePointer(), to.getAsOpaquePointer(),
                     directed, mech.str()};
    };
    for (Operation *next = root->getNextNode();
         next && isa<InteractionOp>(next); next = next->getNextNode()) {
      auto old = cast<InteractionOp>(next);
      edges.try_emplace(keyOf(old.getFromAttr().getAttr(),
                              old.getToAttr().getAttr(), old.getDirected(),
                              old.getMechanism()),
                        old);
    }
    auto addEdge = [&](Location loc, FlatSymbolRefAttr from,
                       FlatSymbolRefAttr to, bool directed, StringRef mech,
                       double perturbation, std::optional<double> reverse) {
      EdgeKey key = keyOf(from.getAttr(), to.getAttr(), directed, mech);
      if (auto it = edges.find(key); it != edges.end()) {
        it->second.setPerturbation(APFloat(perturbation));
        if (reverse)
          it->second.setReversePerturbation(APFloat(*reverse));
        return;
      }
      edges[key] = InteractionOp::create(
          ob, loc, from, to, directed ? ob.getUnitAttr() : UnitAttr(),
          ob.getStringAttr(mech), ob.getF64FloatAttr(perturbation),
          reverse ? ob.getF64FloatAttr(*reverse) : FloatAttr());
    };
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
      perturbationOf[o.op] = o.realized().E() - o.null().E();
    for (Entry *e : failing) {
      e->op->setAttr(
          EnergyDialect::NeedsCharacterizationAttrHelper::getNameStr(),
          b.getUnitAttr());
      double perturbation = e->realized().E() - e->null().E();
      bool contention = e->op->hasAttr(
          EnergyDialect::ContentionSlowdownAttrHelper::getNameStr());
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
            if (!other->hasAttr(EnergyDialect::ContentionSlowdownAttrHelper::
                                    getNameStr()) ||
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
          addEdge(e->op.getLoc(),
                  FlatSymbolRefAttr::get(e->op.getSymNameAttr()),
                  FlatSymbolRefAttr::get(other.getSymNameAttr()),
                  /*directed=*/false, "contention", perturbation, otherPert);
          if (auto diag = remark(e->op))
            *diag << "runtime interference with @" << other.getSymName()
                  << " (contention): not reducible";
        }
        continue;
      }
      // Entry contexts: which mechanisms moved it, and from where (the
      // producer of reused data for the cache; else the predecessor).
      SmallVector<StringRef> mechanisms;
      auto producer = e->op->getAttrOfType<FlatSymbolRefAttr>(
          EnergyDialect::ReusesAttrHelper::getNameStr());
      if (e->op->hasAttr(EnergyDialect::ResidencyAttrHelper::getNameStr()))
        mechanisms.push_back("cache");
      if (e->op->hasAttr(
              EnergyDialect::EntryTemperatureAttrHelper::getNameStr()) &&
          e->predecessor)
        mechanisms.push_back("thermal");
      if (e->op->hasAttr(EnergyDialect::Delivery_JAttrHelper::getNameStr()))
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
        addEdge(e->op.getLoc(), from,
                FlatSymbolRefAttr::get(e->op.getSymNameAttr()),
                /*directed=*/true, names, perturbation, std::nullopt);
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
      // Wrapped by a run before (the pass run twice): its estimate is
      // brought up to date, not wrapped again.
      if (auto outer = dyn_cast<CompositeOp>(par->getParentOp());
          outer && outer.getSymName() == name &&
          outer->hasAttr(
              EnergyDialect::NeedsCharacterizationAttrHelper::getNameStr())) {
        outer.setSigAttr(toSignatureAttr(ctx, c));
        continue;
      }
      OpBuilder ob(par);
      auto comp =
          CompositeOp::create(ob, par.getLoc(), StringAttr::get(ctx, name),
                              toSignatureAttr(ctx, c));
      Block &body = comp.getBody().emplaceBlock();
      par->moveBefore(&body, body.end());
      comp->setAttr(
          EnergyDialect::NeedsCharacterizationAttrHelper::getNameStr(),
          UnitAttr::get(ctx));
      comp->setAttr(EnergyDialect::EstimateAttrHelper::getNameStr(),
                    StringAttr::get(ctx, "context model"));
    }
  }

  /// An element whose entry context from its predecessor breaks the
  /// reduction is wrapped, with that predecessor (for a cache context
  /// alone: with the producer of the data it reuses and every element
  /// between), in an `energy.composite`
  /// marked `energy.needs_characterization`: the prefix to characterize as a
  /// whole. Consecutive failures grow one composite (a chain heating up
  /// step by step is one prefix). Its signature, until measured, is the
  /// context-dependent closure of its parts (`energy.estimate = "context
  /// model"`), so the evaluation is unchanged. Only elements that follow
  /// their predecessor in one sequence, at most with idles between, are
  /// wrapped (the idles with them); the others keep their mark and
  /// interaction edge.
  void wrapPrefixes(ArrayRef<Entry *> failing, std::vector<Entry> &entries,
                    Devices &devices) {
    if (failing.empty())
      return;
    MLIRContext *ctx = &getContext();
    DenseMap<Operation *, const Entry *> entryOf;
    for (const Entry &e : entries)
      entryOf[e.op] = &e;
    DenseMap<Operation *, calculus::Signature> closureOf; // our composites
    DenseMap<StringAttr, Operation *> elementNamed;
    for (Entry &e : entries)
      elementNamed[e.op.getSymNameAttr()] = e.op;
    for (Entry *e : failing) {
      Operation *last = e->op;
      Operation *first = e->predecessor;
      // A cache context alone comes from the producer of the reused data,
      // through everything between it and the consumer (its traffic
      // evicts the data): the prefix starts at the producer.
      bool fromProducer = false;
      if (auto producer = last->getAttrOfType<FlatSymbolRefAttr>(
              EnergyDialect::ReusesAttrHelper::getNameStr());
          producer &&
          !last->hasAttr(
              EnergyDialect::EntryTemperatureAttrHelper::getNameStr()) &&
          !last->hasAttr(EnergyDialect::Delivery_JAttrHelper::getNameStr()))
        if (Operation *p = elementNamed.lookup(producer.getAttr())) {
          first = p;
          fromProducer = true;
        }
      auto grown = dyn_cast<CompositeOp>(first->getParentOp());
      if (grown && closureOf.count(grown))
        first = grown;
      if (first->getBlock() != last->getBlock() ||
          !isa<SeqOp>(last->getParentOp()))
        continue;
      // Only idles may stand between them (the gap belongs to the prefix);
      // from a producer, the elements between too.
      SmallVector<Operation *> between;
      bool adjacent = true;
      for (Operation *op = first->getNextNode(); op && op != last;
           op = op->getNextNode()) {
        if (!isa<IdleOp>(op) && !(fromProducer && entryOf.count(op))) {
          adjacent = false;
          break;
        }
        between.push_back(op);
      }
      if (!adjacent || !first->isBeforeInBlock(last))
        continue;
      const Entry *mine = entryOf.lookup(last);
      calculus::CompositionError err;
      calculus::Signature closure = grown && first == grown.getOperation()
                                        ? closureOf[grown]
                                        : entryOf.lookup(first)->realized();
      for (Operation *op : between) {
        if (!err && entryOf.count(op)) {
          closure = calculus::seq(closure, entryOf.lookup(op)->realized(), err);
          continue;
        }
        auto idle = cast<IdleOp>(op);
        // The idle's realized static power (its entry temperature's), else
        // the device's.
        StringAttr dev = idle.getDeviceAttr().getAttr();
        double s = staticPowerOf(devices, dev);
        if (auto realized = idle->getAttrOfType<FloatAttr>(
                EnergyDialect::IdleStaticAttrHelper::getNameStr()))
          s = realized.getValueAsDouble();
        closure = calculus::seq(
            closure,
            calculus::Signature::idle(s, idle.getDuration().convertToDouble(),
                                      mine->realized().devices),
            err);
      }
      if (!err)
        closure = calculus::seq(closure, mine->realized(), err);
      if (err)
        continue; // not one device: leave the marks
      CompositeOp comp;
      if (grown && first == grown.getOperation()) {
        comp = grown;
        for (Operation *op : between)
          op->moveBefore(&comp.getBody().front(), comp.getBody().front().end());
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
        for (Operation *op : between)
          op->moveBefore(&body, body.end());
        last->moveBefore(&body, body.end());
        comp->setAttr(
            EnergyDialect::NeedsCharacterizationAttrHelper::getNameStr(),
            UnitAttr::get(ctx));
        comp->setAttr(EnergyDialect::EstimateAttrHelper::getNameStr(),
                      StringAttr::get(ctx, "context model"));
      }
      closureOf[comp] = closure;
      comp.setSigAttr(toSignatureAttr(ctx, closure));
    }
  }
};

} // namespace
