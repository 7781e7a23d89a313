//===- FleetSource.cpp - a routing pass's fleet: a file or the IR ---------===//

#include "passes/FleetSource.h"

#include "dialect/Energy/Energy.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

namespace energy {

namespace {
/// A dense array (`array<f64: ...>`) as a JSON array; false if `a` is not
/// one of type `Dense`.
template <typename Dense>
bool denseToJson(Attribute a, llvm::json::Value &out) {
  auto d = dyn_cast<Dense>(a);
  if (!d)
    return false;
  out = llvm::json::Array(d.asArrayRef());
  return true;
}

/// The JSON value of an attribute of `energy.fleet`: dictionaries, arrays
/// (also dense arrays, for long supply traces), numbers, strings and
/// booleans. `where` is the JSON path, for errors.
bool toJson(Attribute a, const std::string &where, llvm::json::Value &out,
            std::string &err) {
  if (auto d = dyn_cast<DictionaryAttr>(a)) {
    llvm::json::Object o;
    for (NamedAttribute kv : d) {
      llvm::json::Value v = nullptr;
      if (!toJson(kv.getValue(), where + "." + kv.getName().str(), v, err))
        return false;
      o[kv.getName().str()] = std::move(v);
    }
    out = std::move(o);
    return true;
  }
  if (auto arr = dyn_cast<ArrayAttr>(a)) {
    llvm::json::Array list;
    for (size_t i = 0; i < arr.size(); ++i) {
      llvm::json::Value v = nullptr;
      if (!toJson(arr[i], where + "[" + std::to_string(i) + "]", v, err))
        return false;
      list.push_back(std::move(v));
    }
    out = std::move(list);
    return true;
  }
  if (auto b = dyn_cast<BoolAttr>(a)) {
    out = b.getValue();
    return true;
  }
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    // As the type reads it (ui8 200 is 200), and only where JSON's int64
    // holds it.
    const APInt &v = i.getValue();
    bool isUnsigned = i.getType().isUnsignedInteger();
    if (isUnsigned ? v.getActiveBits() > 63 : v.getSignificantBits() > 64) {
      err = where + ": an integer out of range";
      return false;
    }
    out = isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue();
    return true;
  }
  if (auto f = dyn_cast<FloatAttr>(a)) {
    out = f.getValueAsDouble();
    return true;
  }
  if (auto s = dyn_cast<StringAttr>(a)) {
    out = s.str();
    return true;
  }
  if (denseToJson<DenseF64ArrayAttr>(a, out) ||
      denseToJson<DenseI64ArrayAttr>(a, out) ||
      denseToJson<DenseF32ArrayAttr>(a, out) ||
      denseToJson<DenseI32ArrayAttr>(a, out))
    return true;
  if (isa<UnitAttr>(a)) {
    err = where + ": a key without a value: give it one (leave it out where "
                  "the fleet file's JSON would say null)";
    return false;
  }
  err = where + ": expected a dictionary, an array, a number, a string or a "
                "boolean";
  return false;
}
} // namespace

LogicalResult FleetSource::get(sched::ScheduleOp sched, formats::FleetFile &out,
                               std::string &source) {
  auto fail = [&](const llvm::Twine &msg) {
    mlir::emitError(sched.getLoc(), pass + ": ") << msg;
    return failure();
  };
  Attribute inIr = sched->getAttr(EnergyDialect::FleetAttrHelper::getNameStr());
  if (inIr && !file.empty())
    return fail("the schedule has energy.fleet and fleet= names " + file +
                ": give one");
  if (!inIr && file.empty())
    return fail("needs fleet=FILE or an energy.fleet dictionary on the "
                "schedule (docs/ROUTING.md)");
  std::string err;
  if (!inIr) {
    if (!fromFile) {
      formats::FleetFile ff;
      if (!formats::readFleet(file, ff, err))
        return fail(err);
      fromFile = std::move(ff);
    }
    out = *fromFile;
    source = file;
    return success();
  }
  source = EnergyDialect::FleetAttrHelper::getNameStr().str();
  llvm::json::Value doc = nullptr;
  if (!toJson(inIr, "$", doc, err))
    return fail(source + ": " + err);
  if (!formats::parseFleet(doc, source, out, err))
    return fail(err);
  return success();
}

LogicalResult forEachRequestStream(
    ModuleOp module, llvm::StringRef pass, llvm::StringRef hint,
    llvm::function_ref<LogicalResult(sched::ScheduleOp, ArrayAttr)> fn) {
  bool any = false;
  for (sched::ScheduleOp sched : module.getOps<sched::ScheduleOp>()) {
    auto requests = sched->getAttrOfType<ArrayAttr>(
        EnergyDialect::RequestsAttrHelper::getNameStr());
    if (!requests)
      continue;
    any = true;
    // The stream as the serving endpoints will read it, checked here where
    // it is written (dealt out, a bad request was reported at whichever
    // sched.serve it landed on, numbered in that endpoint's share).
    if (requests.empty())
      return sched.emitError(pass) << ": energy.requests is empty";
    for (auto [i, r] : llvm::enumerate(requests)) {
      std::string why;
      if (!sched::readRequest(r, why))
        return sched.emitError(pass)
               << ": energy.requests[" << i << "] = " << r
               << ": expected [arrival_s >= 0, prompt tokens (0 to 2^40), "
                  "output tokens >= 1]";
    }
    if (failed(fn(sched, requests)))
      return failure();
  }
  if (!any)
    return mlir::emitError(moduleErrorLoc(module), pass)
           << ": no sched.schedule has energy.requests (" << hint << ")";
  return success();
}

} // namespace energy
