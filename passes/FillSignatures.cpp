//===- FillSignatures.cpp - --energy-fill-signatures ----------------------===//

#include "calculus/models/EnergyLens.h"
#include "calculus/models/FlopByte.h"
#include "calculus/models/TokenLaw.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "passes/Passes.h"
#include "runtime/db/SignatureDb.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>

namespace energy {
#define GEN_PASS_DEF_ENERGYFILLSIGNATURES
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;

namespace {

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
  return task.getDurationAttr() ? task.getDurationAttr().getValueAsDouble()
         : task.getSigAttr()    ? task.getSigAttr().time()
                                : -1;
}

/// A model file's contents (docs/MODELS.md).
struct ModelFile {
  std::string kind;
  calculus::TokenLaw law;
  calculus::FlopByteModel fb;
  calculus::EnergyLens lens;
  double relSigma = 0;
};

using rt::DbEntry;

/// Reads and validates a version-1 DB (runtime/db), grouped by key with
/// the fastest clock first; errors name the file and entry.
LogicalResult readDb(Location loc, StringRef path,
                     llvm::StringMap<std::vector<DbEntry>> &out) {
  rt::SignatureDb db;
  std::string err;
  if (!rt::readSignatureDb(path.str(), db, err))
    return emitError(loc, "energy-fill-signatures: ") << err;
  for (DbEntry &e : db.entries)
    out[e.key].push_back(std::move(e));
  for (auto &kv : out)
    std::sort(kv.second.begin(), kv.second.end(),
              [](const DbEntry &a, const DbEntry &b) {
                return a.smMhz > b.smMhz;
              });
  return success();
}

struct EnergyFillSignaturesPass
    : public energy::impl::EnergyFillSignaturesBase<EnergyFillSignaturesPass> {
  using EnergyFillSignaturesBase::EnergyFillSignaturesBase;

  /// Reads a model file: a token-law fit (`energy-prof fit`) or FLOP/byte
  /// coefficients (docs/MODELS.md).
  LogicalResult readModel(Location loc, ModelFile &mf) {
    calculus::TokenLaw &law = mf.law;
    calculus::FlopByteModel &fb = mf.fb;
    double &relSigma = mf.relSigma;
    auto buf = llvm::MemoryBuffer::getFile(model);
    if (!buf)
      return emitError(loc, "energy-fill-signatures: cannot read '")
             << model << "': " << buf.getError().message();
    auto doc = llvm::json::parse((*buf)->getBuffer());
    if (!doc)
      return emitError(loc, "energy-fill-signatures: ")
             << model << ": malformed JSON: " << llvm::toString(doc.takeError());
    auto *o = doc->getAsObject();
    auto bad = [&](StringRef why) {
      return emitError(loc, "energy-fill-signatures: ") << model << ": " << why;
    };
    if (!o || o->getInteger("version") != 1)
      return bad("unsupported model file (expected \"version\": 1)");
    std::optional<StringRef> name = o->getString("model");
    if (name == "flop-byte") {
      mf.kind = "flop-byte";
      struct {
        const char *key;
        double *slot;
      } fields[] = {{"parameters", &fb.parameters},
                    {"attention_flops_per_pair", &fb.attentionFlopsPerPair},
                    {"weight_bytes", &fb.weightBytes},
                    {"kv_bytes_per_token", &fb.kvBytesPerToken},
                    {"joules_per_flop", &fb.joulesPerFlop},
                    {"joules_per_byte", &fb.joulesPerByte},
                    {"memory_factor", &fb.memoryFactor},
                    {"relative_sigma", &relSigma}};
      for (auto &f : fields) {
        auto v = o->getNumber(f.key);
        if (!v)
          return bad(std::string("flop-byte needs '") + f.key + "'");
        if (!(*v >= 0))
          return bad(std::string("'") + f.key + "' must be non-negative");
        *f.slot = *v;
      }
      return success();
    }
    if (name == "energylens") {
      mf.kind = "energylens";
      auto *coef = o->getObject("coefficients");
      auto *cov = o->getArray("covariance");
      constexpr int P = calculus::EnergyLens::kParams;
      if (!coef || !cov || cov->size() != size_t(P * P))
        return bad("energylens needs 12 coefficients and a 144-entry "
                   "covariance");
      for (int i = 0; i < P; ++i) {
        auto v = coef->getNumber(calculus::EnergyLens::kNames[i]);
        if (!v)
          return bad(std::string("missing coefficient ") +
                     calculus::EnergyLens::kNames[i]);
        mf.lens.phi[size_t(i)] = *v;
      }
      for (int i = 0; i < P * P; ++i) {
        auto v = (*cov)[size_t(i)].getAsNumber();
        if (!v)
          return bad("covariance entries must be numbers");
        mf.lens.cov[size_t(i)] = *v;
      }
      return success();
    }
    if (name != "token-law")
      return bad("unknown model (expected \"token-law\", \"flop-byte\" or "
                 "\"energylens\")");
    mf.kind = "token-law";
    auto *coef = o->getObject("coefficients");
    auto *cov = o->getArray("covariance");
    if (!coef || !cov || cov->size() != 16)
      return bad("needs coefficients {alpha, beta, P_tau, c} and a 16-entry "
                 "covariance");
    const char *names[4] = {"alpha", "beta", "P_tau", "c"};
    for (int i = 0; i < 4; ++i) {
      auto v = coef->getNumber(names[i]);
      if (!v)
        return bad(std::string("missing coefficient ") + names[i]);
      law.coef[i] = *v;
    }
    for (int i = 0; i < 16; ++i) {
      auto v = (*cov)[i].getAsNumber();
      if (!v)
        return bad("covariance entries must be numbers");
      law.cov[i] = *v;
    }
    return success();
  }

  void fillFromModel(ModuleOp module) {
    ModelFile mf;
    if (failed(readModel(module.getLoc(), mf)))
      return signalPassFailure();
    const calculus::TokenLaw &law = mf.law;
    const calculus::FlopByteModel &fb = mf.fb;
    double relSigma = mf.relSigma;
    const std::string &kind = mf.kind;
    MLIRContext *ctx = &getContext();
    SymbolTableCollection symbols;
    bool bad = false;
    if (kind == "energylens") {
      // EnergyLens Eq. 4 prices a whole inference run: tasks of kind
      // "inference" with theta input_tokens, max_tokens, batch, tp, pp.
      module.walk([&](sched::TaskOp task) {
        if (task.getKind() != "inference")
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
        task.setSigAttr(SignatureAttr::get(
            ctx, T, d, 0, std::sqrt(mf.lens.predictionVariance(row)),
            std::nullopt, std::nullopt));
        task->setAttr("energy.method",
                      StringAttr::get(ctx, "analytical: energylens"));
      });
      if (bad)
        signalPassFailure();
      return;
    }
    if (kind == "flop-byte") {
      module.walk([&](sched::TaskOp task) {
        bool decode = task.getKind() == "decode",
             prefill = task.getKind() == "prefill";
        if (!decode && !prefill)
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
        task.setSigAttr(SignatureAttr::get(ctx, T, d, 0, relSigma * d,
                                           std::nullopt, std::nullopt));
        task->setAttr("energy.method",
                      StringAttr::get(ctx, "analytical: flop-byte"));
      });
      if (bad)
        signalPassFailure();
      return;
    }
    module.walk([&](sched::TaskOp task) {
      if (task.getKind() != "decode")
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
      task.setSigAttr(SignatureAttr::get(ctx, T, d, 0, *B * std::sqrt(varE),
                                         std::nullopt, std::nullopt));
      task->setAttr("energy.method",
                    StringAttr::get(ctx, "analytical: token-law"));
    });
    if (bad)
      signalPassFailure();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (db.empty() == model.empty()) {
      emitError(module.getLoc(),
                "energy-fill-signatures: needs exactly one of db=PATH and "
                "model=PATH");
      return signalPassFailure();
    }
    if (!model.empty())
      return fillFromModel(module);
    llvm::StringMap<std::vector<DbEntry>> entries;
    if (failed(readDb(module.getLoc(), db, entries)))
      return signalPassFailure();
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
    bool bad = false;
    SymbolTableCollection symbols; // one hash table per symbol table
    module.walk([&](sched::TaskOp task) {
      StringAttr key = task.getDbAttr();
      if (!key)
        return;
      auto it = entries.find(key.getValue());
      if (it == entries.end()) {
        task.emitOpError("signature-DB key '")
            << key.getValue() << "' is not in " << db;
        bad = true;
        return;
      }
      const std::vector<DbEntry> &es = it->second;
      task.setSigAttr(sigOf(es.front())); // the highest clock
      if (es.size() > 1) {
        SmallVector<Attribute> opts;
        for (const DbEntry &e : es)
          opts.push_back(OptionAttr::get(
              ctx,
              OpPointAttr::get(ctx, e.smMhz, std::nullopt, std::nullopt,
                               std::nullopt),
              sigOf(e)));
        task.setOptionsAttr(b.getArrayAttr(opts));
      }
      if (auto dev = symbols.lookupNearestSymbolFrom<sched::DeviceOp>(
              task, task.getDeviceAttr()))
        checkStatic(task, dev.getStaticPower().convertToDouble(), es.front(),
                    key.getValue());
    });
    module.walk([&](ElementOp el) {
      auto key = el->getAttrOfType<StringAttr>("energy.db");
      if (!key)
        return;
      auto it = entries.find(key.getValue());
      if (it == entries.end()) {
        el.emitOpError("signature-DB key '")
            << key.getValue() << "' is not in " << db;
        bad = true;
        return;
      }
      el.setSigAttr(sigOf(it->second.front()));
      if (auto dev = symbols.lookupNearestSymbolFrom<energy::DeviceOp>(
              el, el.getDeviceAttr()))
        checkStatic(el, dev.getStaticPower().convertToDouble(),
                    it->second.front(), key.getValue());
    });
    if (bad)
      signalPassFailure();
  }
};

} // namespace
