//===- Evaluate.cpp - --energy-evaluate -----------------------------------===//
//
// Thin pass: the walk is EnergyTree.cpp, the algebra calculus/. This file
// attaches what they compute and writes the report.
//
//===----------------------------------------------------------------------===//

#include "calculus/SharedParameters.h"
#include "calculus/Signature.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Energy/EnergyTree.h"
#include "passes/Passes.h"
#include "runtime/AtomicStream.h"
#include "runtime/Version.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <mutex>

namespace energy {
#define GEN_PASS_DEF_ENERGYEVALUATE
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;

namespace {

std::string describeLoc(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// The report fields (docs/REPORT.md); the same keys name the `energy.total`
/// attribute on each root.
llvm::json::Object summarize(const calculus::Signature &sig,
                             double confidence) {
  calculus::Interval iv = calculus::predictionInterval(sig, confidence);
  llvm::json::Object o{{"E_J", sig.E()},
                       {"T_s", sig.T},
                       {"d_J", sig.d},
                       {"static_J", sig.staticEnergy()},
                       {"s_W", sig.s},
                       {"sigma_E_J", sig.sigmaE()},
                       {"interval_J", llvm::json::Array{iv.lo, iv.hi}},
                       {"expected_E_J", sig.expectedE()},
                       {"T_clark_s", sig.clarkT}};
  if (iv.clipped())
    o["interval_unclipped_lo_J"] = iv.unclippedLo;
  return o;
}

/// Correlation through shared model parameters (calculus/SharedParameters.h):
/// sums the `energy.grad` of the elements that count towards `root` (a
/// measured composite replaces its parts) and returns the correction to the
/// root's var_d and the shared variance itself.
LogicalResult sharedParameters(Operation *root, DictionaryAttr sets,
                               double &correction, double &sharedVariance) {
  correction = sharedVariance = 0;
  calculus::SharedParameterSums sums;
  std::string err;
  // One uniqued key, looked up among discardable attributes only: a lookup
  // by string also compares it with every inherent attribute's name, per op.
  StringAttr gradKey = StringAttr::get(
      root->getContext(), EnergyDialect::GradAttrHelper::getNameStr());
  WalkResult r = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<CompositeOp>(op))
      return WalkResult::skip();
    auto grad =
        dyn_cast_or_null<DictionaryAttr>(op->getDiscardableAttr(gradKey));
    if (!grad)
      return WalkResult::advance();
    for (NamedAttribute set : grad) {
      auto g = dyn_cast<DenseF64ArrayAttr>(set.getValue());
      if (!g) {
        op->emitOpError("energy.grad entries must be array<f64: ...>");
        return WalkResult::interrupt();
      }
      ArrayRef<double> v = g.asArrayRef();
      if (!sums.add(set.getName().str(),
                    std::vector<double>(v.begin(), v.end()), 1.0, err)) {
        op->emitOpError("energy.grad: ") << err;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  if (sums.empty())
    return success();
  std::map<std::string, std::vector<double>> cov;
  if (sets)
    for (NamedAttribute set : sets)
      if (auto c = dyn_cast<DenseF64ArrayAttr>(set.getValue()))
        cov[set.getName().str()] =
            std::vector<double>(c.asArrayRef().begin(), c.asArrayRef().end());
  if (!sums.correction(cov, correction, sharedVariance, err))
    return root->emitOpError("shared model parameters: ")
           << err << " (the module's energy.shared_params)";
  return success();
}

StringRef nameOf(Operation *op) {
  if (auto name = op->getAttrOfType<StringAttr>("sym_name"))
    return name.getValue();
  return "";
}

struct EnergyEvaluatePass
    : public energy::impl::EnergyEvaluateBase<EnergyEvaluatePass> {
  using EnergyEvaluateBase::EnergyEvaluateBase;

  /// Useful output tokens recorded by the serving expansion (0 if none).
  static double outputTokens(Operation *op) {
    auto n = op->getAttrOfType<IntegerAttr>(
        EnergyDialect::OutputTokensAttrHelper::getNameStr());
    return n && n.getInt() > 0 ? double(n.getInt()) : 0;
  }

  /// Per device, where the root spans several: static power over the
  /// root's makespan (every device draws it to the end, CALCULUS.md
  /// section 2's multi) and the dynamic energy of its elements and idles.
  /// The largest 16 by energy; the rest summed.
  void printPerDevice(Operation *root, const calculus::Signature &sig,
                      llvm::raw_ostream &os) {
    // Per device: dynamic energy, and its static power as the composition
    // weighs it: the elements' own (a signature may override the device's),
    // weighted by their time (seq's rule, CALCULUS.md section 2).
    struct Acc {
      double d = 0, sT = 0, T = 0;
    };
    llvm::MapVector<StringAttr, Acc> acc;
    SymbolTableCollection symbols; // a lookup each would scan the table
    auto declared = [&](StringAttr dev) -> std::optional<double> {
      auto decl = symbols.lookupNearestSymbolFrom<energy::DeviceOp>(root, dev);
      if (!decl)
        return std::nullopt; // the verifier requires one
      return decl.getStaticPower().convertToDouble();
    };
    bool known = true;
    // Dynamic energy of measured composites over several devices: measured
    // as a whole, it has no per-device split.
    double unsplitD = 0;
    root->walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
      if (auto comp = dyn_cast<CompositeOp>(op)) {
        // A measured composite contributes its own signature, not its parts'
        // (EnergyTree): its static power is spread over its devices in
        // proportion to their declared static powers (their sum, where the
        // signature does not override it), its dynamic energy goes to its
        // device where it has one.
        SignatureAttr sg = comp.getSigAttr();
        if (!sg)
          return WalkResult::advance(); // evaluation requires one
        llvm::SetVector<StringAttr> devs;
        comp.walk([&](Operation *part) {
          if (auto el = dyn_cast<ElementOp>(part))
            devs.insert(el.getDeviceAttr().getAttr());
          else if (auto idle = dyn_cast<IdleOp>(part))
            devs.insert(idle.getDeviceAttr().getAttr());
        });
        SmallVector<double> staticOf;
        double sumDeclared = 0;
        for (StringAttr dev : devs) {
          std::optional<double> sd = declared(dev);
          known = known && sd;
          staticOf.push_back(sd.value_or(0));
          sumDeclared += staticOf.back();
        }
        double sComp = sg.staticPower().value_or(sumDeclared), T = sg.time();
        for (auto [dev, sDev] : llvm::zip_equal(devs, staticOf)) {
          double share =
              sumDeclared > 0 ? sDev / sumDeclared : 1.0 / double(devs.size());
          Acc &a = acc[dev];
          a.sT += sComp * share * T;
          a.T += T;
        }
        if (devs.size() == 1)
          acc[devs.front()].d += sg.dynamicEnergy();
        else
          unsplitD += sg.dynamicEnergy();
        return WalkResult::skip();
      }
      if (auto el = dyn_cast<ElementOp>(op)) {
        StringAttr dev = el.getDeviceAttr().getAttr();
        Acc &a = acc[dev];
        if (auto sg = el.getSigAsAttr()) {
          std::optional<double> sd = declared(dev);
          known = known && sd;
          double sEl = sg.staticPower().value_or(sd.value_or(0));
          a.d += sg.dynamicEnergy();
          a.sT += sEl * sg.time();
          a.T += sg.time();
        }
      } else if (auto idle = dyn_cast<IdleOp>(op)) {
        StringAttr dev = idle.getDeviceAttr().getAttr();
        Acc &a = acc[dev];
        std::optional<double> sd = declared(dev);
        known = known && sd;
        double sIdle = sd.value_or(0);
        if (auto ctx = idle->getAttrOfType<FloatAttr>(
                EnergyDialect::IdleStaticAttrHelper::getNameStr()))
          sIdle = ctx.getValueAsDouble();
        double T = idle.getDuration().convertToDouble();
        a.d += idle.getDynamic() ? idle.getDynamic()->convertToDouble() : 0;
        a.sT += sIdle * T;
        a.T += T;
      }
      return WalkResult::advance();
    });
    if (acc.size() < 2 || !known)
      return;
    struct Row {
      StringRef name;
      double s, d;
    };
    std::vector<Row> rows;
    double sumS = 0;
    for (auto &[dev, a] : acc) {
      double s = a.T > 0 ? a.sT / a.T : declared(dev).value_or(0);
      rows.push_back({dev.getValue(), s, a.d});
      sumS += s;
    }
    auto printUnsplit = [&] {
      if (unsplitD > 0)
        os << llvm::formatv("    measured composites over several devices  "
                            "dynamic {0} (measured as a whole: not split by "
                            "device)\n",
                            formatQuantity(unsplitD, Dimension::Energy, 5));
    };
    // Where the composition's static power is not the sum of the devices'
    // (overrides it weighs otherwise), a static split would not add up to
    // the total: say so rather than print one that does not.
    if (std::fabs(sumS - sig.s) > 1e-9 * std::max(1.0, std::fabs(sig.s))) {
      os << "  per device: the static power does not split by device here "
            "(its elements override it); dynamic only:\n";
      for (const Row &r : rows)
        os << llvm::formatv("    @{0}  dynamic {1}\n", r.name,
                            formatQuantity(r.d, Dimension::Energy, 5));
      printUnsplit();
      return;
    }
    std::sort(rows.begin(), rows.end(), [&](const Row &a, const Row &b) {
      double ea = a.s * sig.T + a.d, eb = b.s * sig.T + b.d;
      return ea > eb || (ea == eb && a.name < b.name);
    });
    auto q = [](double v, Dimension dim) { return formatQuantity(v, dim, 5); };
    os << "  per device (static over the makespan + dynamic of its elements)\n";
    size_t shown = std::min<size_t>(rows.size(), 16);
    for (size_t i = 0; i < shown; ++i)
      os << llvm::formatv("    @{0}  {1} = static {2} + dynamic {3}\n",
                          rows[i].name,
                          q(rows[i].s * sig.T + rows[i].d, Dimension::Energy),
                          q(rows[i].s * sig.T, Dimension::Energy),
                          q(rows[i].d, Dimension::Energy));
    if (shown < rows.size()) {
      double rest = 0;
      for (size_t i = shown; i < rows.size(); ++i)
        rest += rows[i].s * sig.T + rows[i].d;
      os << llvm::formatv("    ... {0} more devices  {1}\n",
                          rows.size() - shown, q(rest, Dimension::Energy));
    }
    printUnsplit();
  }

  void printSummary(Operation *op, const calculus::Signature &sig,
                    calculus::Interval iv, double sharedVariance) {
    auto q = [](double v, Dimension dim) { return formatQuantity(v, dim, 5); };
    auto pct = [&](double part) {
      return sig.E() > 0 ? llvm::formatv("{0:F1}%", 100 * part / sig.E()).str()
                         : std::string("-");
    };
    StringRef name = nameOf(op);
    // Standard error: the IR on standard output stays pipeable.
    llvm::raw_ostream &os = llvm::errs();
    os << (name.empty() ? describeLoc(op->getLoc()) : ("@" + name).str())
       << " (" << op->getName() << ")\n";
    os << llvm::formatv("  energy   {0}  +- {1} (1 sigma)\n",
                        q(sig.E(), Dimension::Energy),
                        q(sig.sigmaE(), Dimension::Energy));
    if (sharedVariance > 0)
      os << llvm::formatv("    of which shared model parameters  +- {0}\n",
                          q(std::sqrt(sharedVariance), Dimension::Energy));
    os << llvm::formatv("  {0:F1}% interval  [{1}, {2}]",
                        100 * double(confidence), q(iv.lo, Dimension::Energy),
                        q(iv.hi, Dimension::Energy));
    if (iv.clipped())
      os << "  (clipped at 0: the normal approximation's lower bound is "
         << q(iv.unclippedLo, Dimension::Energy)
         << "; sigma is large against E)";
    // Where the expected makespan runs past the point one, the interval is
    // about the expected energy, not the point energy printed above (said
    // where the two print differently).
    // Where one static power is drawn throughout, that is s E[T] + d; else
    // each parallel part's extra time is at its own static power.
    if (q(sig.expectedE(), Dimension::Energy) !=
        q(sig.E(), Dimension::Energy)) {
      os << "  (about the expected energy "
         << q(sig.expectedE(), Dimension::Energy);
      double uniform = sig.s * sig.clarkT + sig.d;
      if (std::fabs(uniform - sig.expectedE()) <=
          1e-12 * std::fabs(sig.expectedE()))
        os << " = s E[T] + d)";
      else
        os << ": the parallel parts' expected extra time, each at its own "
              "static power)";
    }
    os << "\n";
    os << llvm::formatv(
        "  time     {0}  ({1}: {2})\n", q(sig.T, Dimension::Time),
        op->hasAttr(EnergyDialect::MakespanAttrHelper::getNameStr())
            ? "expected over the dependencies"
            : "Clark E[max]",
        q(sig.clarkT, Dimension::Time));
    os << llvm::formatv("  static   {0}  ({1}; s = {2})\n",
                        q(sig.staticEnergy(), Dimension::Energy),
                        pct(sig.staticEnergy()), q(sig.s, Dimension::Power));
    os << llvm::formatv("  dynamic  {0}  ({1})\n", q(sig.d, Dimension::Energy),
                        pct(sig.d));
    printPerDevice(op, sig, os);
    if (auto model = op->getAttrOfType<StringAttr>(
            EnergyDialect::ModelAttrHelper::getNameStr()))
      os << "  model    " << model.getValue()
         << " (assumed, not measured: the sigma and interval above leave "
            "out its error)\n";
    if (double n = outputTokens(op); n > 0)
      os << llvm::formatv("  per output token  {0}  +- {1}  [{2}, {3}]  "
                          "({4} tokens)\n",
                          q(sig.E() / n, Dimension::Energy),
                          q(sig.sigmaE() / n, Dimension::Energy),
                          q(iv.lo / n, Dimension::Energy),
                          q(iv.hi / n, Dimension::Energy), uint64_t(n));
    printServePlans(op, os);
  }

  /// A serving workload's plan (--energy-serve-plan, kept on its GPU by the
  /// expansion and the lowering): its batch cap and the Token-Energy Law's
  /// prediction from the measurements, beside the per-token energy this
  /// evaluation computed from the schedule's own model (two estimates of
  /// one quantity, from different sources: the user reads them side by
  /// side).
  void printServePlans(Operation *root, llvm::raw_ostream &os) {
    llvm::SetVector<StringAttr> devs;
    root->walk(
        [&](ElementOp el) { devs.insert(el.getDeviceAttr().getAttr()); });
    SymbolTableCollection symbols;
    for (StringAttr dev : devs) {
      auto decl = symbols.lookupNearestSymbolFrom<energy::DeviceOp>(root, dev);
      if (!decl)
        continue;
      auto plan = decl->getAttrOfType<DictionaryAttr>(
          EnergyDialect::ServePlanAttrHelper::getNameStr());
      if (!plan)
        continue;
      auto num = [&](StringRef key) { return numberIn(plan, key); };
      // A count written by hand may be no integer at all (nan, 1e300).
      auto count = [](double v) {
        return std::isfinite(v) && std::abs(v) < 9e15
                   ? std::to_string(int64_t(v))
                   : formatNumber(v);
      };
      os << "  serve plan @" << dev.getValue() << ": batch cap ";
      if (std::optional<double> cap = num("batch_cap"))
        os << count(*cap);
      auto measured = plan.getAs<BoolAttr>("cap_measured");
      if (measured)
        os << (measured.getValue() ? " (measured)" : " (not measured)");
      // At a measured cap the figure is its measurements' mean.
      if (std::optional<double> j = num("predicted_J_per_token")) {
        os << (measured && measured.getValue() ? ", measured "
                                               : ", the law predicts ")
           << formatQuantity(*j, Dimension::Energy, 5) << "/token";
        if (auto ci = plan.getAs<ArrayAttr>("ci95_J_per_token");
            ci && ci.size() == 2)
          if (auto lo = dyn_cast<FloatAttr>(ci[0]))
            if (auto hi = dyn_cast<FloatAttr>(ci[1]))
              os << " ["
                 << formatQuantity(lo.getValueAsDouble(), Dimension::Energy, 5)
                 << ", "
                 << formatQuantity(hi.getValueAsDouble(), Dimension::Energy, 5)
                 << "] (95 %)";
      }
      if (std::optional<double> p90 = num("predicted_p90_itl_ms"))
        if (std::optional<double> slo = num("slo_p90_itl_ms"))
          os << ", p90 ITL " << formatQuantity(*p90 / 1e3, Dimension::Time, 5)
             << " <= SLO " << formatQuantity(*slo / 1e3, Dimension::Time, 5);
      if (auto cell = plan.getAs<StringAttr>("cell"))
        os << " (from " << cell.getValue() << ")";
      // The cap and clock a simulated GPU's model chose together.
      if (auto clock = plan.getAs<DictionaryAttr>("sm_clock")) {
        auto in = [&](StringRef key) { return numberIn(clock, key); };
        std::optional<double> cap = in("batch_cap"), mhz = in("sm_clock_mhz"),
                              j = in("predicted_J_per_token"),
                              jLow = in("predicted_J_per_token_low"),
                              p90 = in("predicted_p90_itl_ms");
        auto gpu = clock.getAs<StringAttr>("simulated_gpu");
        if (cap && mhz && j && p90 && gpu) {
          os << "; with the SM clock (SIMULATED, " << gpu.getValue()
             << "'s model): batch cap " << count(*cap) << " at " << count(*mhz)
             << " MHz, " << formatQuantity(*j, Dimension::Energy, 5)
             << "/token";
          if (jLow && *jLow < *j)
            os << " (" << formatQuantity(*jLow, Dimension::Energy, 5)
               << " by the other account of the power the model misses)";
          os << ", p90 ITL " << formatQuantity(*p90 / 1e3, Dimension::Time, 5);
          if (std::optional<double> limit = in("power_limit_W"))
            os << " (or a power limit of "
               << formatQuantity(*limit, Dimension::Power, 4) << " per GPU)";
        }
      }
      os << "\n";
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!checkConfidence(module, "energy-evaluate", confidence))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    llvm::json::Array roots, composites;
    auto sharedSets = module->getAttrOfType<DictionaryAttr>(
        EnergyDialect::SharedParamsAttrHelper::getNameStr());
    bool failedAny = false;

    auto onComposite = [&](Operation *op, const calculus::Signature &sig) {
      if (!isa<CompositeOp>(op))
        setClosure(op, SigData{sig.T, sig.d, std::sqrt(sig.varT),
                               std::sqrt(sig.varD), sig.s, sig.sigmaE()});
      if (!report.empty()) {
        llvm::json::Object entry = summarize(sig, confidence);
        entry["name"] = nameOf(op);
        entry["op"] = op->getName().getStringRef();
        entry["loc"] = describeLoc(op->getLoc());
        composites.push_back(std::move(entry));
      }
    };

    // A measured signature's sigma_E is not an input: its var_E is s^2
    // var_T + var_d (Axiom P1). One written otherwise would be ignored
    // silently: said (the first five, then a count).
    unsigned ignoredSigmaE = 0;
    SymbolTableCollection sigmaESymbols;
    auto checkSigmaE = [&](Operation *op, SignatureAttr sig,
                           std::optional<double> s) {
      std::optional<double> given = sig ? sig.sigmaEnergy() : std::nullopt;
      if (!given || (!s && sig.sigmaTime() > 0))
        return;
      double p1 =
          std::hypot(s.value_or(0) * sig.sigmaTime(), sig.sigmaDynamic());
      // As written to four digits or more, it is P1's; without sigma_d,
      // var_d is what sigma_E leaves beyond s^2 var_T (toSignature).
      if (std::fabs(*given - p1) <= 1e-3 * std::max(*given, p1) ||
          (sig.sigmaDynamic() == 0 && *given > p1))
        return;
      if (ignoredSigmaE++ < 5) {
        InFlightDiagnostic diag =
            op->emitWarning("energy-evaluate: sigma_E = ")
            << formatQuantity(*given, Dimension::Energy, 4)
            << " is not used: a measured signature's "
               "variance of E is s^2 var_T + var_d "
               "(Axiom P1); ";
        if (sig.sigmaDynamic() == 0)
          diag << "s sigma_T alone is "
               << formatQuantity(p1, Dimension::Energy, 4)
               << ", more than it (no measurement's sigma_E is below s "
                  "sigma_T)";
        else
          diag << "here sigma_E = " << formatQuantity(p1, Dimension::Energy, 4)
               << "; give sigma_d (and sigma_T), or sigma_E without sigma_d";
      }
    };
    module->walk([&](Operation *op) {
      if (auto el = dyn_cast<ElementOp>(op)) {
        // The device's static power is looked up only for the few
        // signatures that write a sigma_E (a million-element tree walks
        // here once).
        SignatureAttr sig = el.getSigAsAttr();
        if (!sig || !sig.sigmaEnergy())
          return;
        std::optional<double> s = sig.staticPower();
        if (!s)
          if (auto dev = sigmaESymbols.lookupNearestSymbolFrom<DeviceOp>(
                  el, el.getDeviceAttr()))
            s = dev.getStaticPower().convertToDouble();
        checkSigmaE(op, sig, s);
      } else if (auto comp = dyn_cast<CompositeOp>(op)) {
        if (SignatureAttr sig = comp.getSigAttr())
          checkSigmaE(op, sig, sig.staticPower());
      }
    });
    if (ignoredSigmaE > 5)
      mlir::emitWarning(moduleErrorLoc(module), "energy-evaluate: ")
          << ignoredSigmaE - 5 << " more signature(s) give a sigma_E that is "
          << "not used";

    bool anyRoot = false;
    module->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isTreeRoot(op))
        return WalkResult::advance();
      anyRoot = true;
      FailureOr<calculus::Signature> sig =
          composeTree(op, TreeMode::Evaluate, onComposite,
                      /*onCompositeIsThreadSafe=*/report.empty());
      double correction, sharedVariance;
      if (failed(sig) || failed(sharedParameters(op, sharedSets, correction,
                                                 sharedVariance))) {
        failedAny = true;
        return WalkResult::skip();
      }
      // The composed var_d (and var_E, where var_d enters additively under
      // every operator) treats the elements as independent; add the
      // covariance their shared model parameters induce.
      sig->varD = std::max(0.0, sig->varD + correction);
      sig->varE = std::max(0.0, sig->varE + correction);
      if (correction != 0 && !isa<CompositeOp>(op) && !isa<ElementOp>(op))
        setClosure(op, SigData{sig->T, sig->d, std::sqrt(sig->varT),
                               std::sqrt(sig->varD), sig->s, sig->sigmaE()});
      if (!std::isfinite(sig->E()) || !std::isfinite(sig->T) ||
          !std::isfinite(sig->varE)) {
        op->emitError("energy-evaluate: the composition overflows a double "
                      "(T = ")
            << sig->T << " s, E = " << sig->E()
            << " J): an input time, energy or sigma is too large";
        failedAny = true;
        return WalkResult::skip();
      }
      calculus::Interval iv = calculus::predictionInterval(*sig, confidence);
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("E_J", b.getF64FloatAttr(sig->E())),
          b.getNamedAttr("T_s", b.getF64FloatAttr(sig->T)),
          b.getNamedAttr("d_J", b.getF64FloatAttr(sig->d)),
          b.getNamedAttr("static_J", b.getF64FloatAttr(sig->staticEnergy())),
          b.getNamedAttr("sigma_E_J", b.getF64FloatAttr(sig->sigmaE())),
          b.getNamedAttr("interval_J", b.getF64ArrayAttr({iv.lo, iv.hi})),
          b.getNamedAttr("expected_E_J", b.getF64FloatAttr(sig->expectedE())),
          b.getNamedAttr("confidence", b.getF64FloatAttr(confidence)),
          b.getNamedAttr("T_clark_s", b.getF64FloatAttr(sig->clarkT)),
      };
      if (iv.clipped())
        fields.push_back(b.getNamedAttr("interval_unclipped_lo_J",
                                        b.getF64FloatAttr(iv.unclippedLo)));
      if (sharedVariance > 0)
        fields.push_back(b.getNamedAttr(
            "sigma_shared_J", b.getF64FloatAttr(std::sqrt(sharedVariance))));
      op->setAttr(EnergyDialect::TotalAttrHelper::getNameStr(),
                  b.getDictionaryAttr(fields));
      if (summary)
        printSummary(op, *sig, iv, sharedVariance);
      if (!report.empty()) {
        llvm::json::Object entry = summarize(*sig, confidence);
        entry["name"] = nameOf(op);
        entry["op"] = op->getName().getStringRef();
        entry["loc"] = describeLoc(op->getLoc());
        // The Reduction Theorem's worst-case bias (--energy-reduce).
        if (auto bias = op->getAttrOfType<FloatAttr>(
                EnergyDialect::BiasBound_JAttrHelper::getNameStr()))
          entry["bias_bound_J"] = bias.getValueAsDouble();
        if (sharedVariance > 0)
          entry["sigma_shared_J"] = std::sqrt(sharedVariance);
        if (auto model = op->getAttrOfType<StringAttr>(
                EnergyDialect::ModelAttrHelper::getNameStr()))
          entry["assumed_model"] = model.getValue();
        if (double n = outputTokens(op); n > 0) {
          entry["output_tokens"] = int64_t(n);
          entry["J_per_output_token"] = sig->E() / n;
          entry["sigma_J_per_output_token"] = sig->sigmaE() / n;
          entry["interval_J_per_output_token"] =
              llvm::json::Array{iv.lo / n, iv.hi / n};
        }
        roots.push_back(std::move(entry));
      }
      return WalkResult::skip();
    });
    if (failedAny)
      return signalPassFailure();
    if (!anyRoot)
      mlir::emitWarning(moduleErrorLoc(module),
                        "energy-evaluate: no energy tree in the module (a "
                        "schedule needs --sched-to-energy first)");
    // The pass only annotates: `closure` and `energy.total` attributes built
    // here from verified signatures; no op, region, block or use changed.
    // Saying so also lets the pass manager skip re-verifying the module
    // (1.0 s of a 10^6-element tree; bench/RESULTS.md).
    markAllAnalysesPreserved();
    if (report.empty())
      return;

    // The modules of one input evaluated in one process (energy-opt
    // -split-input-file: one pass run per split; nested modules) share the
    // report: each module's roots and composites are kept by where the
    // module starts, a module evaluated again replaces its own, and the
    // file is rewritten (under the lock: the last writer holds every
    // module's) with all of them in the input's order.
    std::string input;
    std::pair<unsigned, unsigned> at{0, 0};
    if (auto loc = dyn_cast<FileLineColLoc>(module.getLoc())) {
      input = loc.getFilename().str();
      at = {loc.getLine(), loc.getColumn()};
    }
    static std::mutex mu;
    static std::map<std::pair<std::string, std::string>,
                    std::map<std::pair<unsigned, unsigned>,
                             std::pair<llvm::json::Array, llvm::json::Array>>>
        modules;
    std::lock_guard<std::mutex> lock(mu);
    {
      // Owned copies: the entries' strings may point into this module's
      // context, which the next split does not share.
      auto copy = [](const llvm::json::Array &from) {
        llvm::json::Array into;
        for (const llvm::json::Value &v : from)
          if (llvm::Expected<llvm::json::Value> c =
                  llvm::json::parse(llvm::formatv("{0}", v).str()))
            into.push_back(std::move(*c));
          else
            llvm::consumeError(c.takeError());
        return into;
      };
      auto &mine = modules[{std::string(report), input}];
      mine[at] = {copy(roots), copy(composites)};
      roots.clear();
      composites.clear();
      for (auto &[where, entries] : mine) {
        for (const llvm::json::Value &v : entries.first)
          roots.push_back(v);
        for (const llvm::json::Value &v : entries.second)
          composites.push_back(v);
      }
    }
    llvm::json::Object doc{{"version", 1},
                           {"confidence", double(confidence)},
                           {"roots", std::move(roots)},
                           {"composites", std::move(composites)}};
    // What made it: the tool's version and the module it read.
    std::vector<std::string> inputs;
    if (!input.empty())
      inputs.push_back(input);
    if (llvm::Expected<llvm::json::Value> g =
            llvm::json::parse(generatorJson("energy-evaluate report", inputs)))
      doc["generator"] = std::move(*g);
    else
      llvm::consumeError(g.takeError());
    std::string err;
    if (!rt::AtomicFile::claimOutput(report, "report=", "", err)) {
      mlir::emitError(moduleErrorLoc(module), "energy-evaluate: ") << err;
      return signalPassFailure();
    }
    if (!rt::writeAtomically(
            report,
            [&](llvm::raw_ostream &os) {
              os << llvm::formatv("{0:2}", llvm::json::Value(std::move(doc)))
                 << "\n";
              return true;
            },
            err)) {
      mlir::emitError(moduleErrorLoc(module),
                      "energy-evaluate: cannot write report: ")
          << err;
      return signalPassFailure();
    }
  }
};

} // namespace
