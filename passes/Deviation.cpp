//===- Deviation.cpp - --energy-check-deviation ---------------------------===//

#include "calculus/Signature.h"
#include "runtime/formats/Input.h"

#include "dialect/Energy/Energy.h"
#include "dialect/Energy/EnergyTree.h"
#include "passes/Passes.h"
#include "runtime/AtomicFile.h"
#include "runtime/db/SignatureDb.h"
#include "runtime/formats/Composites.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <map>
#include <set>

namespace energy {
#define GEN_PASS_DEF_ENERGYCHECKDEVIATION
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;

namespace {

/// Reads the measured composites (runtime/formats/Composites.h).
LogicalResult
readMeasurements(ModuleOp module, StringRef path,
                 std::map<std::string, formats::CompositeMeasurement> &out) {
  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> buf = formats::readInput(path.str(), err);
  if (!buf)
    return mlir::emitError(moduleErrorLoc(module), "energy-check-deviation: '")
           << path << "': " << err;
  if (!formats::parseCompositeMeasurements(buf->getBuffer(), path.str(), out,
                                           err))
    return mlir::emitError(moduleErrorLoc(module), "energy-check-deviation: ")
           << err;
  return success();
}

struct EnergyCheckDeviationPass
    : public energy::impl::EnergyCheckDeviationBase<EnergyCheckDeviationPass> {
  using EnergyCheckDeviationBase::EnergyCheckDeviationBase;

  /// The mechanism a deviation most likely comes from.
  static StringRef likelyMechanism(Operation *op) {
    bool thermal = false, contention = false;
    SymbolTableCollection symbols; // a lookup each would scan the table
    auto visit = [&](Operation *inner) {
      if (inner->hasAttr(EnergyDialect::DemandAttrHelper::getNameStr()) ||
          inner->hasAttr(
              EnergyDialect::ContentionSlowdownAttrHelper::getNameStr()))
        contention = true;
      if (auto el = dyn_cast<ElementOp>(inner))
        if (auto dev = symbols.lookupNearestSymbolFrom<energy::DeviceOp>(
                el, el.getDeviceAttr()))
          thermal |=
              dev->hasAttr(EnergyDialect::ThermalAttrHelper::getNameStr());
    };
    visit(op);
    op->walk(visit);
    if (contention)
      return "contention";
    if (thermal)
      return "thermal";
    return "unknown (no mechanism declared on its devices)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols; // a lookup each would scan the table
    if (!checkConfidence(module, "energy-check-deviation", confidence))
      return signalPassFailure();
    std::map<std::string, formats::CompositeMeasurement> data;
    if (!measured.empty() && failed(readMeasurements(module, measured, data)))
      return signalPassFailure();
    double c = calculus::twoSidedQuantile(confidence);
    Builder b(&getContext());
    // The op each measurement was compared with: a name found twice (in two
    // trees, or an element named as a composite) makes the test ambiguous.
    llvm::StringMap<Operation *> seen;
    bool ambiguous = false;
    bool broken = false;
    // A failed test: a remark, or with fail-on-deviation an error.
    unsigned failures = 0;
    // Tests made (Eq. 23 against a measurement, Eq. 24 against parts).
    unsigned checked = 0, skipped = 0;
    auto report = [&](Operation *op) {
      ++failures;
      return failOnDeviation ? op->emitError() : op->emitRemark();
    };

    module->walk<WalkOrder::PreOrder>([&](Operation *root) {
      if (!isTreeRoot(root))
        return WalkResult::advance();
      // A tree --energy-reduce reduced composes null-context signatures:
      // the refinement test's threshold (Eq. 24) adds the bias bound of what
      // it composes (sum of m_i c sigma_i over the op's own parts, with m_i
      // placed in that op's composition; a measured composite inside counts
      // whole, replacing the bias terms within it). Eq. 23 does not: its
      // right-hand side carries random error only, so that it catches the
      // bias the reduction accepted once it accumulates past the propagated
      // interval (paper section 5.2.2); the bound is reported beside it.
      bool reduced =
          root->hasAttr(EnergyDialect::BiasBound_JAttrHelper::getNameStr());
      // Every op's signature as the tree composed it (a measured composite
      // at its devices' static power), then the elements': the tests read
      // them, and a threshold reads its parts'.
      DenseMap<Operation *, calculus::Signature> sigOf;
      SmallVector<Operation *> tested;
      auto biasOf = [&](Operation *node) {
        double bias = 0;
        if (!reduced)
          return bias;
        node->walk<WalkOrder::PreOrder>([&](Operation *x) {
          if (x == node)
            return WalkResult::advance();
          if (auto comp = dyn_cast<CompositeOp>(x); comp && !comp.getSigAttr())
            return WalkResult::advance(); // its parts stand for it
          if (!isa<ElementOp, CompositeOp>(x))
            return WalkResult::advance();
          if (auto it = sigOf.find(x); it != sigOf.end())
            bias +=
                reductionPlace(x, node).multiplier() * c * it->second.sigmaE();
          return WalkResult::skip();
        });
        return bias;
      };
      auto check = [&](Operation *op, const calculus::Signature &sig) {
        auto name = op->getAttrOfType<StringAttr>("sym_name");
        // Eq. 24: a measured composite against the composition of its parts.
        // (One --energy-reduce wrapped for characterization holds the
        // context model's estimate, not a measurement: nothing to test.)
        auto comp = dyn_cast<CompositeOp>(op);
        if (comp &&
            comp->hasAttr(
                EnergyDialect::NeedsCharacterizationAttrHelper::getNameStr()))
          comp = nullptr;
        if (comp) {
          calculus::Composer parts(calculus::Op::Seq);
          bool ok = true;
          calculus::Signature composed;
          Operation &first = comp.getBody().front().front();
          if (comp.getBody().front().getOperations().size() == 1) {
            FailureOr<calculus::Signature> s =
                composeTree(&first, TreeMode::Evaluate);
            ok = succeeded(s);
            if (ok)
              composed = *s;
          } else {
            // Several parts: no operator says how they compose, so there is
            // nothing to compare the measurement with.
            ok = false;
            ++skipped;
            comp.emitWarning("energy-check-deviation: @")
                << comp.getSymName() << " holds "
                << comp.getBody().front().getOperations().size()
                << " parts, not one composition: not checked against its "
                   "parts (Eq. 24); wrap them in one energy.seq, energy.par "
                   "or energy.multi";
          }
          if (ok) {
            ++checked;
            double lhs = std::fabs(sig.E() - composed.expectedE());
            double rhs = biasOf(comp) + c * std::sqrt(sig.varE + composed.varE);
            if (lhs > rhs)
              report(comp) << "refinement inconsistent (Eq. 24): measured "
                           << formatQuantity(sig.E(), Dimension::Energy, 5)
                           << " vs its parts' "
                           << formatQuantity(composed.expectedE(),
                                             Dimension::Energy, 5)
                           << " differ by more than "
                           << formatQuantity(rhs, Dimension::Energy, 4);
          }
        }
        if (!name)
          return;
        auto it = data.find(name.getValue().str());
        if (it == data.end())
          return;
        auto [first, fresh] = seen.try_emplace(name.getValue(), op);
        if (!fresh && first->second != op) {
          op->emitError("energy-check-deviation: the measurement of @")
                  .append(name.getValue(),
                          " matches two ops; give them distinct names")
                  .attachNote(first->second->getLoc())
              << "the other @" << name.getValue() << " is here";
          ambiguous = true;
          return;
        }
        const formats::CompositeMeasurement &m = it->second;
        ++checked;
        // Measured on another GPU model than the op's devices: said (a
        // prediction for one GPU tested against another's energy).
        if (std::string have = rt::gpuModelOf(m.device); !have.empty()) {
          std::set<std::string> want;
          auto note = [&](ElementOp el) {
            if (auto dev = symbols.lookupNearestSymbolFrom<DeviceOp>(
                    el, el.getDeviceAttr()))
              if (std::string g = rt::gpuModelOf(dev.getKind().str());
                  !g.empty())
                want.insert(g);
          };
          if (auto el = dyn_cast<ElementOp>(op))
            note(el);
          else
            op->walk([&](ElementOp el) { note(el); });
          if (want.size() == 1 && *want.begin() != have)
            op->emitWarning("energy-check-deviation: @")
                << name.getValue() << " was measured on '" << m.device << "' ("
                << have << "), its devices are " << *want.begin();
        }
        // A measured mean estimates the expected energy, s E[T] + d: where
        // parallel parts' times vary, E[T] (Clark's E[max], or a lowered
        // schedule's sampled makespan) exceeds the point makespan.
        double predicted = sig.expectedE();
        double threshold = c * std::sqrt(sig.varE + m.varMean);
        double bias = biasOf(op);
        double diff = predicted - m.E;
        bool fails = std::fabs(diff) > threshold;
        SmallVector<NamedAttribute> result = {
            b.getNamedAttr("predicted_J", b.getF64FloatAttr(predicted)),
            b.getNamedAttr("measured_J", b.getF64FloatAttr(m.E)),
            b.getNamedAttr("threshold_J", b.getF64FloatAttr(threshold)),
            b.getNamedAttr("failed", b.getBoolAttr(fails))};
        if (reduced)
          result.push_back(
              b.getNamedAttr("bias_bound_J", b.getF64FloatAttr(bias)));
        if (std::fabs(predicted - sig.E()) > 1e-12 * std::fabs(sig.E()))
          result.push_back(
              b.getNamedAttr("point_J", b.getF64FloatAttr(sig.E())));
        op->setAttr(EnergyDialect::DeviationAttrHelper::getNameStr(),
                    b.getDictionaryAttr(result));
        if (fails) {
          InFlightDiagnostic diag = report(op);
          diag << "@" << name.getValue() << " deviates (Eq. 23): predicted "
               << formatQuantity(predicted, Dimension::Energy, 5)
               << ", measured " << formatQuantity(m.E, Dimension::Energy, 5)
               << ", threshold "
               << formatQuantity(threshold, Dimension::Energy, 4);
          if (reduced && std::fabs(diff) <= threshold + bias)
            diag << "; within the bias the reduction accepted ("
                 << formatQuantity(bias, Dimension::Energy, 4)
                 << ", paper Appendix D): its accumulated bias is the likely "
                    "cause; characterize @"
                 << name.getValue()
                 << " as a composite or reduce with a lower tolerance";
          else
            diag << "; interaction-graph candidate, likely mechanism: "
                 << likelyMechanism(op);
        }
      };
      if (failed(composeTree(root, TreeMode::Evaluate,
                             [&](Operation *op, const calculus::Signature &s) {
                               sigOf[op] = s;
                               tested.push_back(op);
                             }))) {
        broken = true;
        return WalkResult::interrupt();
      }
      // Elements are checked too.
      root->walk([&](ElementOp el) {
        auto sig = el.getSigAsAttr();
        if (!sig)
          return;
        auto dev = symbols.lookupNearestSymbolFrom<energy::DeviceOp>(
            el, el.getDeviceAttr());
        sigOf[el] =
            toSignature(sig, dev ? dev.getStaticPower().convertToDouble() : 0);
        tested.push_back(el);
      });
      for (Operation *op : tested)
        check(op, sigOf.find(op)->second);
      return WalkResult::skip();
    });
    if (broken || ambiguous)
      return signalPassFailure();
    // A measurement that names nothing tests nothing: with
    // fail-on-deviation (a gate) that is an error too.
    for (auto &entry : data)
      if (!seen.contains(entry.first)) {
        ++failures;
        (failOnDeviation ? mlir::emitError(moduleErrorLoc(module))
                         : mlir::emitWarning(moduleErrorLoc(module)))
            << "energy-check-deviation: no composite or element named @"
            << entry.first << " (measurement ignored)";
      }
    if (checked == 0 && skipped == 0 && data.empty())
      mlir::emitWarning(moduleErrorLoc(module))
          << "energy-check-deviation: nothing was checked: "
          << (measured.empty() ? "no measured= file, and no "
                               : "the measurements are empty, and no ")
          << "energy.composite holds one part to compare with";
    if (failOnDeviation && failures > 0)
      return signalPassFailure();
  }
};

} // namespace
