//===- FillSignatures.cpp - --energy-fill-signatures ----------------------===//

#include "calculus/SharedParameters.h"
#include "calculus/models/EnergyLens.h"
#include "calculus/models/FlopByte.h"
#include "calculus/models/TokenLaw.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "passes/Passes.h"
#include "runtime/formats/ModelFile.h"
#include "runtime/db/SignatureDb.h"

#include "llvm/ADT/StringSet.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
  task->removeAttr(EnergyDialect::MethodAttrHelper::getNameStr());
  task.removeOptionsAttr();
}


/// A number in a task's theta (float or integer), if present.
std::optional<double> thetaNumber(sched::TaskOp task, StringRef key) {
  DictionaryAttr theta = task.getThetaAttr();
  if (!theta)
    return std::nullopt;
  if (auto f = theta.getAs<FloatAttr>(key))
    return f.getValueAsDouble();
  if (auto i = theta.getAs<IntegerAttr>(key))
    return double(i.getInt());
  return std::nullopt;
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
        << kind << "' is a " << want << ", but the signature DB was measured on '"
        << dbDevice << "' (" << have << ")";
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
    auto buf = llvm::MemoryBuffer::getFile(model);
    if (!buf)
      return emitError(loc, "energy-fill-signatures: cannot read '")
             << model << "': " << buf.getError().message();
    std::string err;
    if (!formats::parseModelFile((*buf)->getBuffer(), model, mf, err))
      return emitError(loc, "energy-fill-signatures: ") << err;
    return success();
  }

  /// Fills the tasks for which `wanted` holds from the model file.
  LogicalResult fillFromModel(ModuleOp module,
                              llvm::function_ref<bool(sched::TaskOp)> wanted) {
    ModelFile mf;
    if (failed(readModel(moduleErrorLoc(module), mf)))
      return failure();
    const calculus::TokenLaw &law = mf.law;
    const calculus::FlopByteModel &fb = mf.fb;
    double relSigma = mf.relSigma;
    const std::string &kind = mf.kind;
    MLIRContext *ctx = &getContext();
    // Elements priced by this file share its parameters: each gets its
    // gradient d(d)/d(theta) in `energy.grad`, and the module records the
    // covariance in `energy.shared_params`, so that compositions add the
    // correlation (calculus/SharedParameters.h).
    // The set is named after the model kind and file name (a different
    // covariance under the same name gets a suffix); an all-zero covariance
    // shares nothing.
    bool shared = llvm::any_of(mf.sharedCov, [](double c) { return c != 0; });
    std::string setId =
        kind + ":" + llvm::sys::path::filename(model).str();
    if (shared) {
      NamedAttrList sets;
      if (auto old = module->getAttrOfType<DictionaryAttr>(
              EnergyDialect::SharedParamsAttrHelper::getNameStr()))
        sets.append(old.getValue());
      auto cov = DenseF64ArrayAttr::get(ctx, mf.sharedCov);
      for (int k = 2; sets.get(setId) && sets.get(setId) != cov; ++k)
        setId = kind + ":" + llvm::sys::path::filename(model).str() + "#" +
                std::to_string(k);
      sets.set(setId, cov);
      module->setAttr(EnergyDialect::SharedParamsAttrHelper::getNameStr(),
                      sets.getDictionary(ctx));
    }
    auto markShared = [&](sched::TaskOp task, ArrayRef<double> g) {
      if (!shared)
        return;
      NamedAttribute entry(StringAttr::get(ctx, setId),
                           DenseF64ArrayAttr::get(ctx, g));
      task->setAttr(EnergyDialect::GradAttrHelper::getNameStr(),
                    DictionaryAttr::get(ctx, {entry}));
    };
    auto sharedVariance = [&](ArrayRef<double> g) {
      return shared ? calculus::quadraticForm(
                          std::vector<double>(g.begin(), g.end()), mf.sharedCov)
                    : 0.0;
    };
    SymbolTableCollection symbols;
    bool bad = false;
    if (kind == "energylens") {
      // EnergyLens Eq. 4 prices a whole inference run: tasks of kind
      // "inference" with theta input_tokens, max_tokens, batch, tp, pp.
      module.walk([&](sched::TaskOp task) {
        if (task.getKind() != "inference" || !wanted(task))
          return;
        auto num = [&](StringRef key) { return thetaNumber(task, key); };
        auto nin = num("input_tokens"), nout = num("max_tokens"),
             B = num("batch"), tp = num("tp"), pp = num("pp");
        double T = taskDuration(task);
        if (!nin || !nout || !B || !tp || !pp || T < 0 || *B < 1 || *tp < 1 ||
            *pp < 1) {
          task.emitOpError("inference task needs theta input_tokens, "
                           "max_tokens, batch, tp, pp (>= 1) and a duration "
                           "for the energylens model");
          bad = true;
          return;
        }
        calculus::EnergyLensRow row{*nin, *nout, *B, *tp, *pp, 0, ""};
        double E = mf.lens.predict(row);
        double s = 0;
        if (auto dev = symbols.lookupNearestSymbolFrom<sched::DeviceOp>(
                task, task.getDeviceAttr()))
          s = dev.getStaticPower().convertToDouble();
        double d = E - s * T;
        if (d < 0) {
          task.emitOpError("energylens predicts ")
              << formatQuantity(E, Dimension::Energy, 4)
              << ", less than static power x time ("
              << formatQuantity(s * T, Dimension::Energy, 4) << ")";
          bad = true;
          return;
        }
        forgetDerived(task);
        task.setSigAttr(SignatureAttr::get(
            ctx, T, d, 0, std::sqrt(mf.lens.predictionVariance(row)),
            std::nullopt, std::nullopt));
        task->setAttr(EnergyDialect::MethodAttrHelper::getNameStr(),
                      StringAttr::get(ctx, "analytical: energylens"));
        markShared(task, mf.lens.gradient(row));
      });
      return failure(bad);
    }
    if (kind == "flop-byte") {
      module.walk([&](sched::TaskOp task) {
        bool decode = task.getKind() == "decode",
             prefill = task.getKind() == "prefill";
        if ((!decode && !prefill) || !wanted(task))
          return;
        auto num = [&](StringRef key) { return thetaNumber(task, key); };
        double T = taskDuration(task);
        std::optional<double> a = num(decode ? "batch" : "tokens"),
                              b2 = num(decode ? "history" : "token_squares");
        if (!a || !b2 || T < 0) {
          task.emitOpError(decode ? "decode task needs theta batch and "
                                    "history and a duration"
                                  : "prefill task needs theta tokens and "
                                    "token_squares and a duration");
          bad = true;
          return;
        }
        calculus::FlopByteEnergy e = decode
                                         ? calculus::decodeEnergy(fb, *a, *b2)
                                         : calculus::prefillEnergy(fb, *a, *b2);
        double d = e.total();
        std::array<double, 2> g = e.gradient();
        // Independent residual plus the shared coefficients' part.
        double sigma = std::sqrt(relSigma * d * relSigma * d +
                                 sharedVariance(g));
        forgetDerived(task);
        task.setSigAttr(SignatureAttr::get(ctx, T, d, 0, sigma, std::nullopt,
                                           std::nullopt));
        task->setAttr(EnergyDialect::MethodAttrHelper::getNameStr(),
                      StringAttr::get(ctx, "analytical: flop-byte"));
        markShared(task, g);
        if (mf.clocks) {
          // An operating set per task: the planner can slow memory-bound
          // phases (calculus/models/FlopByte.h).
          SmallVector<Attribute> opts;
          for (double mhz : mf.clocks->smMhz) {
            calculus::FlopByteOption o =
                calculus::atClock(fb, *mf.clocks, e, T, mhz);
            opts.push_back(OptionAttr::get(
                ctx,
                OpPointAttr::get(ctx, int64_t(mhz), std::nullopt,
                                 std::nullopt, std::nullopt),
                SignatureAttr::get(ctx, o.T, o.d, 0, relSigma * o.d,
                                   std::nullopt, std::nullopt)));
          }
          task.setOptionsAttr(ArrayAttr::get(ctx, opts));
        }
      });
      return failure(bad);
    }
    module.walk([&](sched::TaskOp task) {
      if (task.getKind() != "decode" || !wanted(task))
        return;
      auto num = [&](StringRef key) { return thetaNumber(task, key); };
      auto B = num("batch"), L = num("mean_history"), Mw = num("weight_bytes"),
           K = num("kv_bytes_per_token");
      double T = taskDuration(task);
      if (!B || !L || !Mw || !K || T < 0 || *B <= 0) {
        task.emitOpError("decode task needs theta batch, mean_history, "
                         "weight_bytes, kv_bytes_per_token and a duration for "
                         "the token-law model");
        bad = true;
        return;
      }
      calculus::DecodeCoordinates x =
          calculus::decodeCoordinates(*Mw, *K, *B, *L, T / *B);
      double e = law.predict(x.qw, x.qkv, x.tau);
      double varE = law.predictionVariance(x.qw, x.qkv, x.tau);
      double s = 0;
      if (auto dev = symbols.lookupNearestSymbolFrom<sched::DeviceOp>(
              task, task.getDeviceAttr()))
        s = dev.getStaticPower().convertToDouble();
      double d = *B * e - s * T;
      if (d < 0) {
        task.emitOpError("the token law predicts ")
            << formatQuantity(*B * e, Dimension::Energy, 4)
            << ", less than static power x time ("
            << formatQuantity(s * T, Dimension::Energy, 4) << ")";
        bad = true;
        return;
      }
      forgetDerived(task);
      task.setSigAttr(SignatureAttr::get(ctx, T, d, 0, *B * std::sqrt(varE),
                                         std::nullopt, std::nullopt));
      task->setAttr(EnergyDialect::MethodAttrHelper::getNameStr(),
                    StringAttr::get(ctx, "analytical: token-law"));
      // d = B e - s T: d(d)/d(coef) = B (qw, qkv, tau, 1).
      std::array<double, 4> g =
          calculus::TokenLaw::gradient(x.qw, x.qkv, x.tau);
      for (double &gi : g)
        gi *= *B;
      markShared(task, g);
    });
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
    ModuleOp module = getOperation();
    if (db.empty() && model.empty()) {
      emitError(moduleErrorLoc(module), "energy-fill-signatures: needs db=PATH, "
                                 "model=PATH or both");
      return signalPassFailure();
    }
    if (!fallback.empty() && fallback != "model") {
      emitError(moduleErrorLoc(module), "energy-fill-signatures: fallback='")
          << fallback << "' is not a fallback; expected fallback=model";
      return signalPassFailure();
    }
    if (fallback == "model" && (db.empty() || model.empty())) {
      emitError(moduleErrorLoc(module), "energy-fill-signatures: fallback=model "
                                 "needs both db=PATH and model=PATH");
      return signalPassFailure();
    }
    // Tasks whose DB key is missing and that fall back to the model.
    llvm::DenseSet<Operation *> fallbackTasks;
    if (!db.empty() && failed(fillFromDb(module, fallbackTasks)))
      return signalPassFailure();
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
      return SignatureAttr::get(ctx, e.T, e.d, e.sigmaT, e.sigmaD,
                                std::nullopt, std::nullopt);
    };
    auto checkStatic = [&](Operation *user, double declared, const DbEntry &e,
                           StringRef key) {
      if (std::fabs(declared - e.s) > 0.01 * std::max(declared, e.s))
        user->emitWarning("device static power ")
            << formatQuantity(declared, Dimension::Power, 5)
            << " differs from the DB's " << formatQuantity(e.s, Dimension::Power, 5)
            << " for '" << key << "'; d = E - s T was measured against the DB's";
    };
    // One option per entry. Power limits are part of the operating point
    // only where the DB swept them (more than one limit for this key).
    auto optionsOf = [&](const std::vector<DbEntry> &es) {
      bool capped = llvm::any_of(es, [&](const DbEntry &e) {
        return e.powerLimit != es.front().powerLimit;
      });
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
    module.walk([&](sched::PipelineOp p) {
      if (!p.getForwardDbAttr() && !p.getBackwardDbAttr())
        return;
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
                << formatQuantity(top.s, Dimension::Power, 5) << " for '"
                << key << "'; d = E - s T was measured against the DB's";
          sets.push_back(optionsOf(it->second));
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
    module.walk([&](sched::TaskOp task) {
      StringAttr key = task.getDbAttr();
      if (!key)
        return;
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
      const std::vector<DbEntry> &es = it->second;
      forgetDerived(task);
      task.setSigAttr(sigOf(es.front())); // the highest clock
      if (es.size() > 1)
        task.setOptionsAttr(optionsOf(es));
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
              el, el.getDeviceAttr()))
        checkStatic(el, dev.getStaticPower().convertToDouble(),
                    it->second.front(), key.getValue());
    });
    return failure(bad);
  }
};

} // namespace
