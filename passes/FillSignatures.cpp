//===- FillSignatures.cpp - --energy-fill-signatures ----------------------===//

#include "calculus/SharedParameters.h"
#include "runtime/formats/Input.h"

#include "calculus/models/EnergyLens.h"
#include "calculus/models/FlopByte.h"
#include "calculus/models/TokenLaw.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/Passes.h"
#include "runtime/AtomicFile.h"
#include "runtime/db/SignatureDb.h"
#include "runtime/formats/ModelFile.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace energy {
#define GEN_PASS_DEF_ENERGYFILLSIGNATURES
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;

namespace {

/// Everything derived from a task's previous signature: a refill replaces
/// it, never mixes the old model's gradient, method or operating set with
/// the new signature.
void forgetDerived(sched::TaskOp task) {
  task->removeAttr(EnergyDialect::GradAttrHelper::getNameStr());
  task->removeAttr(EnergyDialect::OptionGradsAttrHelper::getNameStr());
  task->removeAttr(EnergyDialect::MethodAttrHelper::getNameStr());
  task.removeOptionsAttr();
}

/// A number in a task's theta (float or integer), if present.
std::optional<double> thetaNumber(sched::TaskOp task, StringRef key) {
  return numberIn(task.getThetaAttr(), key);
}

/// The task's duration: `for`, else its signature's time; -1 when neither.
double taskDuration(sched::TaskOp task) {
  return task.getDuration()  ? *task.getDuration()
         : task.getSigAttr() ? task.getSigAttr().time()
                             : -1;
}

using formats::ModelFile;

using rt::DbEntry;

/// A DB measured on another GPU model than the schedule's device prices
/// the schedule with another GPU's signatures: say so.
void warnOnDeviceKind(Location loc, StringRef kind, StringRef dbDevice) {
  std::string want = rt::gpuModelOf(kind.str()),
              have = rt::gpuModelOf(dbDevice.str());
  if (!want.empty() && !have.empty() && want != have)
    emitWarning(loc, "device kind '")
        << kind << "' is GPU model " << want
        << ", but the signature DB was measured on '" << dbDevice << "' ("
        << have << ")";
}

/// Reads and validates a version-1 DB (runtime/db), grouped by key with
/// the fastest clock first; errors name the file and entry.
LogicalResult readDb(Location loc, StringRef path,
                     llvm::StringMap<std::vector<DbEntry>> &out,
                     llvm::StringMap<DbEntry> &warm, std::string &device) {
  rt::SignatureDb db;
  std::string err;
  if (!rt::readSignatureDb(path.str(), db, err))
    return emitError(loc, "energy-fill-signatures: ") << err;
  device = db.device;
  // Entries of one run have no spread to measure: their sigmas are 0, and a
  // plan's interval from them is too narrow (a rank that ended early, a
  // sweep of one iteration per clock). Said once, naming a few.
  std::string single;
  size_t singles = 0;
  for (const DbEntry &e : db.entries)
    if (e.runs == 1 && ++singles <= 3)
      single += (single.empty() ? "" : ", ") + e.key + " at " +
                std::to_string(e.smMhz) + " MHz";
  if (singles)
    emitWarning(loc, "energy-fill-signatures: ")
        << path << ": " << singles << " entr"
        << (singles == 1 ? "y rests" : "ies rest") << " on one run (" << single
        << (singles > 3 ? ", ..." : "")
        << "): no spread was measured, so their sigmas read as 0 and what is "
           "predicted from them is more certain than it is";
  for (DbEntry &e : db.entries) {
    if (e.l2 == "warm") { // a cache context, not an option: the fastest
      DbEntry &w = warm[e.key];
      if (w.key.empty() || e.smMhz > w.smMhz)
        w = e;
      continue;
    }
    out[e.key].push_back(std::move(e));
  }
  // Fastest first: highest clock, then the highest (or no) power limit.
  auto limit = [](const DbEntry &e) {
    return e.powerLimit.value_or(std::numeric_limits<double>::infinity());
  };
  for (auto &kv : out) {
    std::sort(kv.second.begin(), kv.second.end(),
              [&](const DbEntry &a, const DbEntry &b) {
                return a.smMhz > b.smMhz ||
                       (a.smMhz == b.smMhz && limit(a) > limit(b));
              });
    // Two entries for one operating point would be two options at the same
    // clock, and a plan could not say which it meant.
    for (size_t i = 1; i < kv.second.size(); ++i)
      if (kv.second[i].smMhz == kv.second[i - 1].smMhz &&
          limit(kv.second[i]) == limit(kv.second[i - 1]))
        return emitError(loc, "energy-fill-signatures: ")
               << path << ": key '" << kv.getKey() << "' has two entries at "
               << kv.second[i].smMhz << " MHz"
               << (kv.second[i].powerLimit ? " under the same power limit" : "")
               << "; pool them (energy-prof merge) or remove one";
  }
  return success();
}

struct EnergyFillSignaturesPass
    : public energy::impl::EnergyFillSignaturesBase<EnergyFillSignaturesPass> {
  using EnergyFillSignaturesBase::EnergyFillSignaturesBase;

  /// Reads the model file (runtime/formats/ModelFile.h).
  LogicalResult readModel(Location loc, ModelFile &mf) {
    std::string err;
    std::unique_ptr<llvm::MemoryBuffer> buf = formats::readInput(model, err);
    if (!buf)
      return emitError(loc, "energy-fill-signatures: '")
             << model << "': " << err;
    if (!formats::parseModelFile(buf->getBuffer(), model, mf, err))
      return emitError(loc, "energy-fill-signatures: ") << err;
    return success();
  }

  /// A model file's pricing of tasks: the file, and the covariance set its
  /// elements share (empty `setId`: nothing shared).
  struct Pricing {
    ModelFile mf;
    std::string setId;
    SymbolTableCollection symbols;
  };

  /// Elements priced by one file share its parameters: each gets its
  /// gradient d(d)/d(theta) in `energy.grad`, and the module records the
  /// covariance in `energy.shared_params`, so that compositions add the
  /// correlation (calculus/SharedParameters.h). The set is named after the
  /// model kind and file name (a different covariance under the same name
  /// gets a suffix); an all-zero covariance shares nothing.
  void registerSharedSet(ModuleOp module, Pricing &p) {
    if (llvm::none_of(p.mf.sharedCov, [](double c) { return c != 0; }))
      return;
    MLIRContext *ctx = &getContext();
    std::string base = p.mf.kind + ":" + llvm::sys::path::filename(model).str();
    p.setId = base;
    NamedAttrList sets;
    if (auto old = module->getAttrOfType<DictionaryAttr>(
            EnergyDialect::SharedParamsAttrHelper::getNameStr()))
      sets.append(old.getValue());
    auto cov = DenseF64ArrayAttr::get(ctx, p.mf.sharedCov);
    for (int k = 2; sets.get(p.setId) && sets.get(p.setId) != cov; ++k)
      p.setId = base + "#" + std::to_string(k);
    sets.set(p.setId, cov);
    module->setAttr(EnergyDialect::SharedParamsAttrHelper::getNameStr(),
                    sets.getDictionary(ctx));
  }

  /// Sets a priced task's signature and method (and its gradient in the
  /// shared set), replacing what an earlier fill derived.
  void setPriced(sched::TaskOp task, const Pricing &p, double T, double d,
                 double sigmaD, StringRef method, ArrayRef<double> grad) {
    MLIRContext *ctx = &getContext();
    forgetDerived(task);
    task.setSigAttr(
        SignatureAttr::get(ctx, T, d, 0, sigmaD, std::nullopt, std::nullopt));
    task->setAttr(EnergyDialect::MethodAttrHelper::getNameStr(),
                  StringAttr::get(ctx, method));
    if (p.setId.empty())
      return;
    NamedAttribute entry(StringAttr::get(ctx, p.setId),
                         DenseF64ArrayAttr::get(ctx, grad));
    task->setAttr(EnergyDialect::GradAttrHelper::getNameStr(),
                  DictionaryAttr::get(ctx, {entry}));
  }

  /// Above this mean dynamic power per GPU no accelerator draws (the
  /// largest boards draw ~1-2 kW in all).
  static constexpr double kPlausibleWattsPerGpu = 20e3;
  /// The GPUs of the task's device: N for a kind "Nx...", else 1.
  static double gpusOf(sched::TaskOp task, Pricing &p) {
    if (auto dev = p.symbols.lookupNearestSymbolFrom<sched::DeviceOp>(
            task, task.getDeviceAttr())) {
      StringRef kind = dev.getKind();
      unsigned n = 0;
      size_t x = kind.find('x');
      if (x != StringRef::npos && !kind.take_front(x).getAsInteger(10, n) &&
          n > 0)
        return double(n);
    }
    return 1;
  }

  /// The static power of the task's device (0 where it declares none).
  static double staticPowerOf(sched::TaskOp task, Pricing &p) {
    if (auto dev = p.symbols.lookupNearestSymbolFrom<sched::DeviceOp>(
            task, task.getDeviceAttr()))
      return dev.getStaticPower().convertToDouble();
    return 0;
  }

  /// EnergyLens Eq. 4 prices a whole inference run: tasks of kind
  /// "inference" with theta input_tokens, max_tokens, batch, tp, pp.
  LogicalResult priceEnergyLens(sched::TaskOp task, Pricing &p) {
    auto num = [&](StringRef key) { return thetaNumber(task, key); };
    auto nin = num("input_tokens"), nout = num("max_tokens"), B = num("batch"),
         tp = num("tp"), pp = num("pp");
    double T = taskDuration(task);
    if (!nin || !nout || !B || !tp || !pp || T < 0 || *B < 1 || *tp < 1 ||
        *pp < 1)
      return task.emitOpError("inference task needs theta input_tokens, "
                              "max_tokens, batch, tp, pp (>= 1) and a "
                              "duration for the energylens model");
    calculus::EnergyLensRow row{*nin, *nout, *B, *tp, *pp, 0, ""};
    if (int i = p.mf.lens.unidentifiedAt(row); i >= 0)
      return task.emitOpError("the energylens model's fit did not identify ")
             << calculus::EnergyLens::kNames[i]
             << " (no row of its data moved it: e.g. every row at tp = pp = "
                "1), which this task (tp = "
             << formatNumber(*tp) << ", pp = " << formatNumber(*pp)
             << ") needs: fit on rows that vary it";
    double E = p.mf.lens.predict(row);
    double s = staticPowerOf(task, p);
    double d = E - s * T;
    if (d < 0)
      return task.emitOpError("energylens predicts ")
             << formatQuantity(E, Dimension::Energy, 4)
             << ", less than static power x time ("
             << formatQuantity(s * T, Dimension::Energy, 4) << ")";
    // The coefficients' uncertainty and the run's own deviation (the fit's
    // relative residual's standard deviation), independent across runs.
    double rel = p.mf.lens.relativeResidualSd * E;
    setPriced(task, p, T, d,
              std::sqrt(p.mf.lens.predictionVariance(row) + rel * rel),
              "analytical: energylens", p.mf.lens.gradient(row));
    return success();
  }

  /// FLOP/byte accounting for decode and prefill tasks, with an operating
  /// set per task where the file gives clocks (the planner can slow
  /// memory-bound phases: calculus/models/FlopByte.h).
  LogicalResult priceFlopByte(sched::TaskOp task, Pricing &p) {
    MLIRContext *ctx = &getContext();
    const calculus::FlopByteModel &fb = p.mf.fb;
    double relSigma = p.mf.relSigma;
    bool decode = task.getKind() == "decode";
    auto num = [&](StringRef key) { return thetaNumber(task, key); };
    double T = taskDuration(task);
    std::optional<double> a = num(decode ? "batch" : "tokens"),
                          b2 = num(decode ? "history" : "token_squares");
    if (!a || !b2 || T < 0)
      return task.emitOpError(decode ? "decode task needs theta batch and "
                                       "history and a duration"
                                     : "prefill task needs theta tokens and "
                                       "token_squares and a duration");
    calculus::FlopByteEnergy e = decode ? calculus::decodeEnergy(fb, *a, *b2)
                                        : calculus::prefillEnergy(fb, *a, *b2);
    // Independent residual plus the shared coefficients' part, for a
    // dynamic energy d with gradient g = d(d)/d(joules_per_flop,
    // joules_per_byte).
    auto sigmaOf = [&](double d, const std::array<double, 2> &g) {
      double shared =
          p.setId.empty()
              ? 0.0
              : calculus::quadraticForm(std::vector<double>(g.begin(), g.end()),
                                        p.mf.sharedCov);
      return std::sqrt(relSigma * d * relSigma * d + shared);
    };
    double d = e.total();
    std::array<double, 2> g = e.gradient();
    // peak_flops is one GPU's: a device of N in lockstep computes N times.
    std::optional<calculus::FlopByteClocks> clocks = p.mf.clocks;
    if (clocks)
      clocks->peakFlops *= gpusOf(task, p);
    if (clocks) {
      // At the highest clock the task takes at least its compute at peak
      // (the option below): a duration shorter than that (a prefill rate
      // above what peak_flops computes) would make the baseline faster
      // than any of its options.
      calculus::FlopByteOption top =
          calculus::atClock(fb, *clocks, e, T, clocks->fmaxMhz);
      if (top.T > T * (1 + 1e-12)) {
        if (!slowerThanDuration++)
          firstSlower = {task, T, top.T};
        T = top.T;
        if (task.getDuration())
          task.setDuration(T);
      }
    }
    setPriced(task, p, T, d, sigmaOf(d, g), "analytical: flop-byte", g);
    if (!clocks)
      return success();
    SmallVector<Attribute> opts, grads;
    for (double mhz : clocks->smMhz) {
      calculus::FlopByteOption o = calculus::atClock(fb, *clocks, e, T, mhz);
      // d at this clock: joules_per_flop x (V/Vmax)^2 x FLOPs + joules_per_byte
      // x bytes, so its gradient is (FLOPs (V/Vmax)^2, bytes).
      std::array<double, 2> go = {o.flopScale * e.flops, e.bytes};
      opts.push_back(
          OptionAttr::get(ctx,
                          OpPointAttr::get(ctx, int64_t(mhz), std::nullopt,
                                           std::nullopt, std::nullopt),
                          SignatureAttr::get(ctx, o.T, o.d, 0, sigmaOf(o.d, go),
                                             std::nullopt, std::nullopt)));
      if (!p.setId.empty())
        grads.push_back(DictionaryAttr::get(
            ctx, {NamedAttribute(StringAttr::get(ctx, p.setId),
                                 DenseF64ArrayAttr::get(ctx, go))}));
    }
    task.setOptionsAttr(ArrayAttr::get(ctx, opts));
    if (!grads.empty())
      task->setAttr(EnergyDialect::OptionGradsAttrHelper::getNameStr(),
                    ArrayAttr::get(ctx, grads));
    return success();
  }
  /// Tasks whose duration was shorter than the clock model's time at the
  /// highest clock (said once, with the first).
  size_t slowerThanDuration = 0;
  struct {
    Operation *task = nullptr;
    double was = 0, now = 0;
  } firstSlower;

  /// The Token-Energy Law prices decode iterations.
  LogicalResult priceTokenLaw(sched::TaskOp task, Pricing &p) {
    const calculus::TokenLaw &law = p.mf.law;
    auto num = [&](StringRef key) { return thetaNumber(task, key); };
    auto B = num("batch"), L = num("mean_history"), Mw = num("weight_bytes"),
         K = num("kv_bytes_per_token");
    double T = taskDuration(task);
    if (!B || !L || !Mw || !K || T < 0 || *B <= 0)
      return task.emitOpError("decode task needs theta batch, mean_history, "
                              "weight_bytes, kv_bytes_per_token and a "
                              "duration for the token-law model");
    calculus::DecodeCoordinates x =
        calculus::decodeCoordinates(*Mw, *K, *B, *L, T / *B);
    double e = law.predict(x.qw, x.qkv, x.tau);
    double varE = law.predictionVariance(x.qw, x.qkv, x.tau);
    double s = staticPowerOf(task, p);
    double d = *B * e - s * T;
    if (d < 0)
      return task.emitOpError("the token law predicts ")
             << formatQuantity(*B * e, Dimension::Energy, 4)
             << ", less than static power x time ("
             << formatQuantity(s * T, Dimension::Energy, 4) << ")";
    // d = B e - s T: d(d)/d(coef) = B (qw, qkv, tau, 1).
    std::array<double, 4> g = calculus::TokenLaw::gradient(x.qw, x.qkv, x.tau);
    for (double &gi : g)
      gi *= *B;
    // The coefficients' uncertainty and the run's deviation from the law
    // (its residual variance; shared across the run's iterations through
    // c's variance in the shared set, runtime/formats/ModelFile.cpp).
    setPriced(task, p, T, d, *B * std::sqrt(varE + law.residualVariance),
              "analytical: token-law", g);
    return success();
  }

  /// Fills the tasks for which `wanted` holds from the model file: each
  /// task of the kinds the model prices (energylens: inference; flop-byte:
  /// decode and prefill; token-law: decode).
  LogicalResult fillFromModel(ModuleOp module,
                              llvm::function_ref<bool(sched::TaskOp)> wanted) {
    Pricing p;
    if (failed(readModel(moduleErrorLoc(module), p.mf)))
      return failure();
    if ((p.mf.kind == "token-law" || p.mf.kind == "energylens") &&
        !p.mf.residualKnown)
      mlir::emitWarning(moduleErrorLoc(module), "energy-fill-signatures: ")
          << model << " gives no residual (\""
          << (p.mf.kind == "token-law" ? "residual_variance"
                                       : "relative_residual_sd")
          << "\", which energy-prof fit writes): the filled sigmas hold the "
             "coefficients' uncertainty only, not a run's own deviation";
    registerSharedSet(module, p);
    const std::string &kind = p.mf.kind;
    bool bad = false;
    slowerThanDuration = 0;
    size_t moreFailed = 0; // tasks that failed after the first (said once)
    size_t implausible = 0;
    Operation *firstImplausible = nullptr;
    double implausibleW = 0;
    size_t tried = 0; // tasks of a kind the model prices
    module.walk([&](sched::TaskOp task) {
      std::optional<StringRef> k = task.getKind();
      LogicalResult priced = success();
      size_t before = tried;
      // After the first task the model cannot price, the others' errors
      // (a workload's every step, often) are counted, not repeated.
      std::optional<ScopedDiagnosticHandler> quiet;
      if (bad)
        quiet.emplace(&getContext(), [](Diagnostic &) { return success(); });
      // A planned task's `for` holds its chosen option's time (--energy-plan
      // wrote it), not the duration a model prices from: refilled, it
      // would mix the planned clock's time with the top clock's energy.
      if (task->hasAttr(EnergyDialect::DvfsAttrHelper::getNameStr()) &&
          wanted(task) &&
          ((kind == "energylens" && k == "inference") ||
           (kind == "flop-byte" && (k == "decode" || k == "prefill")) ||
           (kind != "energylens" && kind != "flop-byte" && k == "decode"))) {
        task.emitOpError("energy-fill-signatures: @")
            << task.getSymName()
            << " was planned (energy.dvfs; its duration is now the planned "
               "option's): a model prices unplanned tasks only; fill before "
               "--energy-plan";
        bad = true;
        return;
      }
      if (kind == "energylens") {
        if (k == "inference" && wanted(task))
          ++tried, priced = priceEnergyLens(task, p);
      } else if (kind == "flop-byte") {
        if ((k == "decode" || k == "prefill") && wanted(task))
          ++tried, priced = priceFlopByte(task, p);
      } else if (k == "decode" && wanted(task)) {
        ++tried, priced = priceTokenLaw(task, p);
      }
      if (tried == before)
        return;
      // A coefficient past a double's range (1e300 J per FLOP) prices
      // infinite energies, which no reader takes back: refused at the
      // task, naming the model.
      if (succeeded(priced)) {
        auto finite = [](SignatureAttr sig) {
          return std::isfinite(sig.time()) &&
                 std::isfinite(sig.dynamicEnergy()) &&
                 std::isfinite(sig.sigmaTime()) &&
                 std::isfinite(sig.sigmaDynamic());
        };
        SignatureAttr worst = task.getSigAttr();
        if (ArrayAttr opts = task.getOptionsAttr())
          for (Attribute a : opts)
            if (auto o = dyn_cast<OptionAttr>(a); o && !finite(o.getSig()))
              worst = o.getSig();
        if (worst && !finite(worst)) {
          priced = task.emitOpError("energy-fill-signatures: ")
                   << model << " prices this task at T = " << worst.time()
                   << " s, d = " << worst.dynamicEnergy()
                   << " J, sigma_d = " << worst.sigmaDynamic()
                   << " J: a coefficient overflows a double (its field in "
                      "the wrong unit?)";
        }
      }
      if (failed(priced)) {
        moreFailed += bad;
        bad = true;
        return;
      }
      // A coefficient in the wrong unit (pJ written as J) prices a step at
      // megawatts: said once, with the first such task.
      if (SignatureAttr sig = task.getSigAttr();
          sig && task->hasAttr(EnergyDialect::MethodAttrHelper::getNameStr()) &&
          sig.time() > 0) {
        double w = sig.dynamicEnergy() / sig.time();
        if (w > kPlausibleWattsPerGpu * gpusOf(task, p)) {
          if (!implausible++) {
            firstImplausible = task;
            implausibleW = w;
          }
        }
      }
    });
    if (moreFailed)
      mlir::emitError(moduleErrorLoc(module), "energy-fill-signatures: ")
          << moreFailed << " more task(s) failed as the first did";
    // A model that prices nothing fills nothing: said, as a DB nothing
    // names is (a FLOP/byte model on a training pipeline, EnergyLens on a
    // serving workload's decode steps).
    if (tried == 0 && db.empty()) // with a DB the model only falls back
      mlir::emitWarning(moduleErrorLoc(module), "energy-fill-signatures: ")
          << model << " (" << kind << ") priced no task: it prices "
          << (kind == "energylens" ? "sched.task kind \"inference\""
              : kind == "flop-byte"
                  ? "sched.task kinds \"prefill\" and \"decode\""
                  : "sched.task kind \"decode\"")
          << " (a sched.serve's steps at step granularity), and this module "
             "has none to price";
    if (implausible)
      firstImplausible->emitWarning("energy-fill-signatures: ")
          << implausible << " task(s) priced by " << model
          << " draw over 20 kW of dynamic power per GPU on average (@"
          << SymbolTable::getSymbolName(firstImplausible).getValue() << ": "
          << formatQuantity(implausibleW, Dimension::Power, 4)
          << "): a coefficient in the wrong unit?";
    if (slowerThanDuration)
      firstSlower.task->emitWarning("energy-fill-signatures: ")
          << slowerThanDuration
          << " task(s) compute longer at the highest clock than their "
             "durations allow (@"
          << SymbolTable::getSymbolName(firstSlower.task).getValue() << ": "
          << formatQuantity(firstSlower.was, Dimension::Time, 4) << " -> "
          << formatQuantity(firstSlower.now, Dimension::Time, 4)
          << ", FLOPs / peak_flops): they take the clock model's time (a "
             "prefill rate above what peak_flops computes?)";
    return failure(bad);
  }

  /// Covariance sets no task refers to any more (a refill replaced their
  /// gradients) are dropped with them.
  void pruneCovarianceSets(ModuleOp module) {
    auto sets = module->getAttrOfType<DictionaryAttr>(
        EnergyDialect::SharedParamsAttrHelper::getNameStr());
    if (!sets)
      return;
    llvm::StringSet<> used;
    module.walk([&](sched::TaskOp task) {
      if (auto g = task->getAttrOfType<DictionaryAttr>(
              EnergyDialect::GradAttrHelper::getNameStr()))
        for (NamedAttribute na : g)
          used.insert(na.getName().getValue());
    });
    NamedAttrList kept;
    for (NamedAttribute na : sets)
      if (used.contains(na.getName().getValue()))
        kept.append(na);
    if (kept.empty())
      module->removeAttr(EnergyDialect::SharedParamsAttrHelper::getNameStr());
    else
      module->setAttr(EnergyDialect::SharedParamsAttrHelper::getNameStr(),
                      kept.getDictionary(&getContext()));
  }

  void runOnOperation() override {
    fill();
    if (getPassState().irAndPassFailed.getInt())
      return;
    // Recorded starts (--sched-timing's, a trace's) are releases; with the
    // filled times they may overlap on a stream (the verifier refuses
    // that): each becomes the start list scheduling gives, never earlier.
    getOperation().walk([&](sched::ScheduleOp sched) {
      if (!sched::SchedGraph::recordsStarts(sched))
        return;
      // A schedule that cannot be timed yet (a task without a duration)
      // keeps its starts; later passes say why.
      ScopedDiagnosticHandler quiet(&getContext(),
                                    [](Diagnostic &) { return success(); });
      FailureOr<sched::SchedGraph> g =
          sched::SchedGraph::build(sched, sched::SchedGraph::Need::Durations);
      std::vector<double> start;
      if (succeeded(g) && succeeded(g->startTimes(sched, start)))
        g->writeStarts(start, /*onlyRecorded=*/true);
    });
  }

  void fill() {
    ModuleOp module = getOperation();
    if (db.empty() && model.empty()) {
      emitError(moduleErrorLoc(module),
                "energy-fill-signatures: needs db=PATH, "
                "model=PATH or both");
      return signalPassFailure();
    }
    if (!fallback.empty() && fallback != "model") {
      emitError(moduleErrorLoc(module), "energy-fill-signatures: fallback='")
          << fallback << "' is not a fallback; expected fallback=model";
      return signalPassFailure();
    }
    if (fallback == "model" && (db.empty() || model.empty())) {
      emitError(moduleErrorLoc(module),
                "energy-fill-signatures: fallback=model "
                "needs both db=PATH and model=PATH");
      return signalPassFailure();
    }
    // Tasks whose DB key is missing and that fall back to the model.
    llvm::DenseSet<Operation *> fallbackTasks;
    stalePlans.clear();
    if (!db.empty() && failed(fillFromDb(module, fallbackTasks)))
      return signalPassFailure();
    for (Operation *sched : stalePlans)
      if (sched->removeAttr(EnergyDialect::PlanAttrHelper::getNameStr()))
        sched->emitWarning("energy-fill-signatures: the DB's numbers at the "
                           "planned clocks differ from those the plan was "
                           "made on: its figures (energy.plan) are dropped; "
                           "--energy-evaluate after --sched-to-energy gives "
                           "the plan's energy on these, --energy-plan plans "
                           "again");
    if (db.empty()) {
      // Pipelines name DB keys per stage; a model prices tasks, not them.
      bool bad = false;
      module.walk([&](sched::PipelineOp p) {
        if (p.getForwardDbAttr() || p.getBackwardDbAttr()) {
          p.emitOpError("names signature-DB keys (forward_db, backward_db): "
                        "fill it with db=PATH (a model prices expanded tasks "
                        "only)");
          bad = true;
        }
      });
      if (bad)
        return signalPassFailure();
    }
    if (model.empty()) {
      pruneCovarianceSets(module);
      return;
    }
    // The DB wins where it has the key; the model prices the rest.
    auto wanted = [&](sched::TaskOp task) {
      return !task.getDbAttr() || fallbackTasks.contains(task);
    };
    if (failed(fillFromModel(module, wanted)))
      return signalPassFailure();
    pruneCovarianceSets(module);
    // Mark every fallback estimate; a task the model cannot price is an error.
    bool bad = false;
    for (Operation *op : fallbackTasks) {
      auto task = cast<sched::TaskOp>(op);
      auto method = task->getAttrOfType<StringAttr>(
          EnergyDialect::MethodAttrHelper::getNameStr());
      if (!method) {
        task.emitOpError("signature-DB key '")
            << task.getDbAttr().getValue() << "' is not in " << db
            << " and the model (" << model << ") does not price tasks of kind '"
            << task.getKind().value_or("") << "'";
        bad = true;
        continue;
      }
      task->setAttr(EnergyDialect::MethodAttrHelper::getNameStr(),
                    StringAttr::get(
                        &getContext(),
                        "estimate: " + method.getValue().str() + " (db key '" +
                            task.getDbAttr().getValue().str() + "' missing)"));
    }
    if (bad)
      return signalPassFailure();
    if (!fallbackTasks.empty())
      emitWarning(moduleErrorLoc(module), "energy-fill-signatures: ")
          << fallbackTasks.size()
          << " task(s) priced by the model because their DB key is missing "
             "(marked energy.method = \"estimate: ...\")";
  }

  /// Schedules whose planned tasks were refilled with other numbers than
  /// they were planned on: their energy.plan is dropped, and said.
  llvm::SetVector<Operation *> stalePlans;

  LogicalResult fillFromDb(ModuleOp module,
                           llvm::DenseSet<Operation *> &fallbackTasks) {
    llvm::StringMap<std::vector<DbEntry>> entries;
    llvm::StringMap<DbEntry> warm;
    std::string dbDevice;
    if (failed(readDb(moduleErrorLoc(module), db, entries, warm, dbDevice)))
      return failure();
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto sigOf = [&](const DbEntry &e) {
      return SignatureAttr::get(ctx, e.T, e.d, e.sigmaT, e.sigmaD, std::nullopt,
                                std::nullopt);
    };
    // Said once per key and declared power: a trace's thousands of events
    // of one kernel would otherwise repeat it thousands of times.
    std::set<std::pair<std::string, double>> staticSaid;
    auto checkStatic = [&](Operation *user, double declared, const DbEntry &e,
                           StringRef key) {
      if (std::fabs(declared - e.s) > 0.01 * std::max(declared, e.s) &&
          staticSaid.emplace(key.str(), declared).second)
        user->emitWarning("device static power ")
            << formatQuantity(declared, Dimension::Power, 5)
            << " differs from the DB's "
            << formatQuantity(e.s, Dimension::Power, 5) << " for '" << key
            << "'; d = E - s T was measured against the DB's (said once "
               "per key)";
    };
    // One option per entry. Power limits are part of the operating point
    // where the DB swept them (more than one limit for this key), or where
    // the one limit it was measured under is below the device's default
    // then (characterize --power-limits 200 on a 400 W card: the plan must
    // set it, or its times are not the card's at its default).
    // A clock measured both under no recorded limit and at the default
    // limit (two profiles merged: one across clocks, one across limits and
    // clocks) is one operating point measured twice, which the planner
    // would take as two options and choose the luckier: said once per key
    // (each key checked once: a trace names one key in thousands of tasks).
    std::set<std::string> twiceChecked;
    auto optionsOf = [&](const std::vector<DbEntry> &es, Location loc) {
      bool capped = llvm::any_of(es, [&](const DbEntry &e) {
        return e.powerLimit != es.front().powerLimit ||
               (e.powerLimit && e.defaultPowerLimit &&
                *e.powerLimit < *e.defaultPowerLimit * (1 - 1e-9));
      });
      if (capped && twiceChecked.insert(es.front().key).second) {
        std::set<int64_t> atDefault; // clocks measured at the default limit
        for (const DbEntry &e : es)
          if (e.powerLimit && e.defaultPowerLimit &&
              *e.powerLimit >= *e.defaultPowerLimit * (1 - 1e-9))
            atDefault.insert(e.smMhz);
        for (const DbEntry &e : es)
          if (!e.powerLimit && atDefault.count(e.smMhz)) {
            emitWarning(loc, "DB key '")
                << e.key << "' has entries at " << e.smMhz
                << " MHz both under no recorded power limit and at the "
                   "default limit: one operating point measured twice (two "
                   "profiles merged?), kept as two options, of which a plan "
                   "takes the luckier; keep one of them in the DB";
            break;
          }
      }
      SmallVector<Attribute> opts;
      for (const DbEntry &e : es)
        opts.push_back(OptionAttr::get(
            ctx,
            OpPointAttr::get(ctx, e.smMhz, std::nullopt,
                             capped && e.powerLimit
                                 ? std::optional<Real>(Real{*e.powerLimit})
                                 : std::nullopt,
                             std::nullopt),
            sigOf(e)));
      return b.getArrayAttr(opts);
    };
    bool bad = false;
    // Pipelines that name DB keys: every virtual stage's operating set from
    // its key's entries (a key with one entry is a set of one); a signature
    // given before is replaced, so that the set's highest clock is what the
    // stage runs with.
    size_t named = 0; // pipelines, tasks and elements naming a DB key
    module.walk([&](sched::PipelineOp p) {
      if (!p.getForwardDbAttr() && !p.getBackwardDbAttr())
        return;
      ++named;
      warnOnDeviceKind(p.getLoc(), p.getDeviceKind(), dbDevice);
      int64_t stages = p.getStages() * p.getChunks();
      auto fill = [&](Attribute keys, StringRef what) -> ArrayAttr {
        if (!keys)
          return {};
        SmallVector<Attribute> sets;
        for (int64_t vs = 0; vs < stages; ++vs) {
          auto arr = dyn_cast<ArrayAttr>(keys);
          StringRef key = cast<StringAttr>(arr ? arr[vs] : keys).getValue();
          auto it = entries.find(key);
          if (it == entries.end()) {
            p.emitOpError("signature-DB key '")
                << key << "' (" << what << " of virtual stage " << vs
                << ") is not in " << db;
            bad = true;
            return {};
          }
          double declared =
              p.getStaticPower().convertToDouble() * p.getTensorParallel();
          const DbEntry &top = it->second.front();
          if (std::fabs(declared - top.s) > 0.01 * std::max(declared, top.s))
            emitWarning(p.getLoc(), "pipeline static power ")
                << formatQuantity(declared, Dimension::Power, 5)
                << " (static_power x tensor_parallel) differs from the DB's "
                << formatQuantity(top.s, Dimension::Power, 5) << " for '" << key
                << "'; d = E - s T was measured against the DB's";
          sets.push_back(optionsOf(it->second, p.getLoc()));
        }
        return b.getArrayAttr(sets);
      };
      if (ArrayAttr f = fill(p.getForwardDbAttr(), "forward")) {
        p.setForwardOptionsAttr(f);
        p.removeForwardAttr();
      }
      if (ArrayAttr bw = fill(p.getBackwardDbAttr(), "backward")) {
        p.setBackwardOptionsAttr(bw);
        p.removeBackwardAttr();
      }
    });
    SymbolTableCollection symbols; // one hash table per symbol table
    llvm::DenseSet<Operation *> kindChecked;
    llvm::StringSet<> scaledKeys; // keys whose scale was said
    module.walk([&](sched::TaskOp task) {
      StringAttr key = task.getDbAttr();
      if (!key)
        return;
      ++named;
      auto it = entries.find(key.getValue());
      if (it == entries.end() && fallback == "model") {
        fallbackTasks.insert(task);
        return;
      }
      if (it == entries.end()) {
        task.emitOpError("signature-DB key '")
            << key.getValue() << "' is not in " << db;
        bad = true;
        return;
      }
      const std::vector<DbEntry> *esp = &it->second;
      // A task measured in a trace (energy.measured_T: --import-kineto
      // --db-keys): the DB's operating set scaled to that duration, so that
      // its entry at the highest clock has the measured time and every
      // option keeps its ratio to it, in time and in energy (the same work
      // at the same power for longer or shorter: another input). Read from
      // the attribute, not from `for`, which a plan rewrites: filling a
      // planned schedule again gives the same options. It assumes the trace
      // ran at the DB's highest clock, uncapped (said where the scale is off
      // by more than 10 %).
      std::vector<DbEntry> scaled;
      if (auto measured = task->getAttrOfType<FloatAttr>(
              EnergyDialect::Measured_TAttrHelper::getNameStr())) {
        double T = measured.getValueAsDouble();
        if (!(esp->front().T > 0)) {
          task.emitOpError("its measured duration cannot scale '")
              << key.getValue() << "' of " << db
              << ": its entry at the highest clock has T = 0";
          bad = true;
          return;
        }
        double k = T / esp->front().T;
        scaled = *esp;
        for (DbEntry &e : scaled) {
          e.T *= k;
          e.d *= k;
          e.sigmaT *= k;
          e.sigmaD *= k;
        }
        scaled.front().T = T;
        esp = &scaled;
        if (std::fabs(k - 1) > 0.1 && scaledKeys.insert(key.getValue()).second)
          task.emitWarning("its measured duration ")
              << formatQuantity(T, Dimension::Time, 5) << " is "
              << llvm::formatv("{0:F1}", 100 * (k - 1)) << " % off the DB's "
              << formatQuantity(it->second.front().T, Dimension::Time, 5)
              << " for '" << key.getValue() << "' at "
              << it->second.front().smMhz
              << " MHz: its operating set is scaled by "
              << llvm::formatv("{0:F4}", k)
              << " (said once per key; the entry may be another shape's, or "
                 "the trace ran at another clock or under a cap)";
      }
      const std::vector<DbEntry> &es = *esp;
      // A planned task (energy.dvfs) takes the entry at its planned clock:
      // the plan stands, on the DB's numbers (the highest clock's signature
      // beside a planned 900 MHz would be no option's). Where those numbers
      // differ from the ones planned on, the plan's figures are dropped.
      const DbEntry *pick = &es.front(); // the highest clock
      bool isPlanned = false;
      OpPointAttr planned = task->getAttrOfType<OpPointAttr>(
          EnergyDialect::DvfsAttrHelper::getNameStr());
      bool marked = planned && planned.getSmMhz();
      // In a planned schedule, a task --energy-emit-dvfs left unmarked (it
      // keeps the clock the task before it set) still runs at its chosen
      // option: the one its signature is.
      auto sched = task->getParentOfType<sched::ScheduleOp>();
      if (!marked && sched &&
          sched->hasAttr(EnergyDialect::PlanAttrHelper::getNameStr()) &&
          task.getSigAttr() && task.getOptionsAttr())
        for (Attribute a : task.getOptionsAttr())
          if (auto o = dyn_cast<OptionAttr>(a);
              o && o.getSig() == task.getSigAttr() && o.getOpPoint() &&
              o.getOpPoint().getSmMhz()) {
            planned = o.getOpPoint();
            break;
          }
      if (planned && planned.getSmMhz()) {
        pick = nullptr;
        for (const DbEntry &e : es)
          if (e.smMhz == *planned.getSmMhz() &&
              (!planned.getPowerCap() || !e.powerLimit ||
               *e.powerLimit == planned.getPowerCap()->value))
            pick = &e;
        if (!pick) {
          task.emitOpError("signature-DB key '")
              << key.getValue() << "' has no entry at the planned "
              << *planned.getSmMhz() << " MHz ("
              << (marked ? "energy.dvfs" : "its chosen option's clock")
              << ") in " << db;
          bad = true;
          return;
        }
        isPlanned = true;
        SignatureAttr before = task.getSigAttr();
        if (before != sigOf(*pick) && sched)
          stalePlans.insert(sched);
      }
      forgetDerived(task);
      task.setSigAttr(sigOf(*pick));
      // A planned task's `for` is its option's time (the plan wrote it); an
      // unplanned one's is a measured duration (a trace's), kept.
      if (isPlanned && task.getDuration())
        task.setDuration(pick->T);
      if (es.size() > 1)
        task.setOptionsAttr(optionsOf(es, task.getLoc()));
      if (auto dev = symbols.lookupNearestSymbolFrom<sched::DeviceOp>(
              task, task.getDeviceAttr())) {
        checkStatic(task, dev.getStaticPower().convertToDouble(), es.front(),
                    key.getValue());
        if (kindChecked.insert(dev.getOperation()).second)
          warnOnDeviceKind(dev.getLoc(), dev.getKind(), dbDevice);
      }
    });
    module.walk([&](ElementOp el) {
      auto key = el->getAttrOfType<StringAttr>(
          EnergyDialect::DbAttrHelper::getNameStr());
      if (!key)
        return;
      ++named;
      auto it = entries.find(key.getValue());
      if (it == entries.end()) {
        el.emitOpError("signature-DB key '")
            << key.getValue() << "' is not in " << db;
        bad = true;
        return;
      }
      el.setSigFromAttr(sigOf(it->second.front()));
      // The warm signature for the cache context of an element that
      // declares whose data it reuses (docs/CONTEXTS.md).
      auto w = warm.find(key.getValue());
      if (w != warm.end() &&
          el->hasAttr(EnergyDialect::ReusesAttrHelper::getNameStr()))
        el->setAttr(EnergyDialect::WarmAttrHelper::getNameStr(),
                    sigOf(w->second));
      if (auto dev = symbols.lookupNearestSymbolFrom<energy::DeviceOp>(
              el, el.getDeviceAttr())) {
        checkStatic(el, dev.getStaticPower().convertToDouble(),
                    it->second.front(), key.getValue());
        if (kindChecked.insert(dev.getOperation()).second)
          warnOnDeviceKind(dev.getLoc(), dev.getKind(), dbDevice);
      }
    });
    // A DB nothing names fills nothing (a serving workload's steps carry no
    // keys: a model file prices them).
    if (!named && !bad)
      emitWarning(moduleErrorLoc(module), "energy-fill-signatures: no task, "
                                          "element or pipeline names a key of ")
          << db << " (`db \"key\"`, `forward_db`): nothing was filled from it";
    return failure(bad);
  }
};

} // namespace
