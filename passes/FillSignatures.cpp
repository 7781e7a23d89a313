//===- FillSignatures.cpp - --energy-fill-signatures ----------------------===//

#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "passes/Passes.h"

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

struct DbEntry {
  int64_t smMhz;
  double s, T, d, sigmaT, sigmaD;
};

/// Reads and validates a version-1 DB; errors name the file and entry.
LogicalResult readDb(Location loc, StringRef path,
                     llvm::StringMap<std::vector<DbEntry>> &out) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return emitError(loc, "energy-fill-signatures: cannot read '")
           << path << "': " << buf.getError().message();
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse((*buf)->getBuffer());
  if (!doc)
    return emitError(loc, "energy-fill-signatures: ")
           << path << ": malformed JSON: " << llvm::toString(doc.takeError());
  auto *obj = doc->getAsObject();
  if (!obj)
    return emitError(loc, "energy-fill-signatures: ")
           << path << ": the top level must be an object";
  std::optional<int64_t> version = obj->getInteger("version");
  if (!version || *version != 1)
    return emitError(loc, "energy-fill-signatures: ")
           << path << ": unsupported version (expected \"version\": 1)";
  auto *entries = obj->getArray("entries");
  if (!entries)
    return emitError(loc, "energy-fill-signatures: ")
           << path << ": no \"entries\" array";
  for (size_t i = 0; i < entries->size(); ++i) {
    auto *e = (*entries)[i].getAsObject();
    auto bad = [&](StringRef why) {
      return emitError(loc, "energy-fill-signatures: ")
             << path << ": entry #" << i << ": " << why;
    };
    if (!e)
      return bad("not an object");
    std::optional<StringRef> key = e->getString("key");
    std::optional<int64_t> mhz = e->getInteger("sm_mhz");
    std::optional<double> s = e->getNumber("s_W"), T = e->getNumber("T_s"),
                          d = e->getNumber("d_J"),
                          sT = e->getNumber("sigma_T_s"),
                          sd = e->getNumber("sigma_d_J");
    if (!key || !mhz || !s || !T || !d || !sT || !sd)
      return bad("needs key, sm_mhz, s_W, T_s, d_J, sigma_T_s and sigma_d_J");
    for (double v : {*s, *T, *d, *sT, *sd})
      if (!(v >= 0) || !std::isfinite(v))
        return bad("values must be finite and non-negative");
    if (*mhz <= 0)
      return bad("sm_mhz must be positive");
    out[*key].push_back({*mhz, *s, *T, *d, *sT, *sd});
  }
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

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (db.empty()) {
      emitError(module.getLoc(), "energy-fill-signatures: needs db=PATH");
      return signalPassFailure();
    }
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
