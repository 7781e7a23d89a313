//===- Kernels.cpp - the kernels file -------------------------------------===//

#include "runtime/formats/Kernels.h"
#include "runtime/formats/Input.h"

#include "runtime/AtomicFile.h"

#include "runtime/formats/Json.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <optional>
#include <set>

using namespace llvm;

namespace energy {
namespace formats {

using rt::KernelSpec;

bool parseKernels(StringRef text, const std::string &kernelsFile,
                  std::vector<KernelSpec> &out,
                  std::vector<CompositeSpec> *composites, std::string &err) {
  Expected<json::Value> doc = energy::formats::parseJson(text);
  if (!doc) {
    err = formats::jsonParseError(kernelsFile, doc.takeError());
    return false;
  }
  auto *arr = doc->getAsArray();
  if (!arr) {
    err = kernelsFile + ": expected a list of kernels";
    return false;
  }
  std::set<std::string> keys;
  std::vector<CompositeSpec> comps;
  // Where each composite and each reusing kernel stands in the file (the
  // checks below run once every key is known).
  std::vector<size_t> compEntry, reuseEntry;
  for (size_t i = 0; i < arr->size(); ++i) {
    auto *o = (*arr)[i].getAsObject();
    std::string where = jsonAt(kernelsFile, text, {i}) + ": kernel #" +
                        std::to_string(i) + ": ";
    if (!o) {
      err = where + "not an object";
      return false;
    }
    // A misspelt field ("reuse") would be read as absent: refused.
    for (const auto &kv : *o) {
      StringRef f = kv.first;
      if (f != "key" && f != "flops" && f != "bytes" && f != "reuses" &&
          f != "sequence") {
        err = where + "unknown field \"" + f.str() +
              "\" (a kernel has key, flops, bytes and optionally reuses; a "
              "composite key and sequence)";
        return false;
      }
    }
    std::optional<StringRef> key = o->getString("key");
    if (key && !keys.insert(key->str()).second) {
      err = where + "duplicate key '" + key->str() + "'";
      return false;
    }
    if (const json::Value *sq = o->get("sequence")) {
      const json::Array *items = sq->getAsArray();
      if (!key || key->empty() || !items || items->empty() || o->get("flops") ||
          o->get("bytes") || o->get("reuses")) {
        err = where + "a composite needs \"key\" and a non-empty "
                      "\"sequence\" (and no \"flops\", \"bytes\" or "
                      "\"reuses\": it is not run)";
        return false;
      }
      CompositeSpec c{key->str(), {}};
      for (size_t j = 0; j < items->size(); ++j) {
        const json::Value &it = (*items)[j];
        std::optional<StringRef> part = it.getAsString();
        std::optional<int64_t> count = 1;
        if (const json::Array *pair = it.getAsArray();
            pair && pair->size() == 2) {
          part = (*pair)[0].getAsString();
          count = (*pair)[1].getAsInteger();
        }
        if (!part || part->empty() || !count || *count < 1 ||
            *count > kMaxCount) {
          err = where + "sequence item #" + std::to_string(j) +
                " must be a kernel key or [key, count] with 1 <= count <= " +
                std::to_string(kMaxCount);
          return false;
        }
        c.parts.push_back({part->str(), unsigned(*count)});
      }
      comps.push_back(std::move(c));
      compEntry.push_back(i);
      continue;
    }
    std::optional<double> flops = o->getNumber("flops"),
                          bytes = o->getNumber("bytes");
    // A field that is there but not a number ("bytes": "1e6") is said at
    // the field, as one that is negative is.
    for (const char *f : {"flops", "bytes"})
      if (const json::Value *v = o->get(f); v && !v->getAsNumber()) {
        err = jsonAt(kernelsFile, text, {i, f}) + ": kernel #" +
              std::to_string(i) + ": \"" + f + "\" must be a number";
        return false;
      }
    if (!key || key->empty() || !flops || !bytes) {
      err = where + "needs \"key\", \"flops\" and \"bytes\" (or, for a "
                    "composite, \"sequence\")";
      return false;
    }
    for (auto [f, v] :
         {std::pair<const char *, double>{"flops", *flops}, {"bytes", *bytes}})
      if (!std::isfinite(v) || v < 0) {
        err = jsonAt(kernelsFile, text, {i, f}) + ": kernel #" +
              std::to_string(i) + ": \"" + f +
              "\" must be finite and non-negative";
        return false;
      }
    if (*flops == 0 && *bytes == 0) {
      err = where + "flops and bytes must be finite and non-negative, not "
                    "both zero";
      return false;
    }
    if (*flops > kMaxFlops || *bytes > kMaxBytes) {
      err = where + formatv("flops {0:e} and bytes {1:e} must be at most "
                            "{2:e} and {3:e} (one kernel launch)",
                            *flops, *bytes, kMaxFlops, kMaxBytes)
                        .str();
      return false;
    }
    KernelSpec k{key->str(), *flops, *bytes};
    if (const json::Value *r = o->get("reuses")) {
      std::optional<StringRef> reuses = r->getAsString();
      if (!reuses || reuses->empty()) {
        err = where + "\"reuses\" must name a kernel";
        return false;
      }
      k.reuses = reuses->str();
    }
    out.push_back(std::move(k));
    reuseEntry.push_back(i);
  }
  // A composite's parts are kernels of the same file (one level: a
  // composite of composites is the composite of their kernels), and only
  // kernels run, so only kernels can be reused.
  auto isKernel = [&](const std::string &k) {
    return llvm::any_of(out, [&](const KernelSpec &x) { return x.key == k; });
  };
  auto isComposite = [&](const std::string &k) {
    return llvm::any_of(comps,
                        [&](const CompositeSpec &x) { return x.key == k; });
  };
  for (size_t ci = 0; ci < comps.size(); ++ci)
    for (size_t j = 0; j < comps[ci].parts.size(); ++j)
      if (const CompositeSpec &c = comps[ci]; !isKernel(c.parts[j].first)) {
        const auto &pc = c.parts[j];
        err = jsonAt(kernelsFile, text, {compEntry[ci], "sequence", j}) +
              ": composite '" + c.key + "' names '" + pc.first +
              (isComposite(pc.first)
                   ? "', a composite; a composite's parts must be kernels"
                   : "', which is not a kernel of this file");
        return false;
      }
  for (size_t ki = 0; ki < out.size(); ++ki)
    if (const KernelSpec &k = out[ki];
        !k.reuses.empty() && !isKernel(k.reuses)) {
      err = jsonAt(kernelsFile, text, {reuseEntry[ki], "reuses"}) +
            ": kernel '" + k.key + "' reuses '" + k.reuses +
            (isComposite(k.reuses) ? "', a composite; only kernels run"
                                   : "', which this file does not define");
      return false;
    }
  if (composites)
    *composites = std::move(comps);
  return true;
}

bool readKernels(const std::string &path, std::vector<KernelSpec> &out,
                 std::vector<CompositeSpec> *composites, std::string &err) {
  std::unique_ptr<MemoryBuffer> buf = readInput(path, err);
  if (!buf) {
    err = path + ": " + err;
    return false;
  }
  return parseKernels(buf->getBuffer(), path, out, composites, err);
}

} // namespace formats
} // namespace energy
