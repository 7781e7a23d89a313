//===- Composites.cpp - measured composites -------------------------------===//

#include "runtime/formats/Composites.h"
#include "runtime/formats/Json.h"

#include <algorithm>
#include <cmath>

namespace energy {
namespace formats {

/// No run of a composite draws a petajoule: beyond, a value is no
/// measurement (and its square, the variance, would overflow).
static constexpr double kMaxJ = 1e15;

bool parseCompositeMeasurements(
    llvm::StringRef text, const std::string &path,
    std::map<std::string, CompositeMeasurement> &out, std::string &err) {
  llvm::Expected<llvm::json::Value> doc = energy::formats::parseJson(text);
  if (!doc) {
    err = formats::jsonParseError(path, doc.takeError());
    return false;
  }
  auto *obj = doc->getAsObject();
  if (!obj) {
    err = jsonAt(path, text, {}) +
          ": the top level must be an object of name -> measurement";
    return false;
  }
  for (auto &entry : *obj) {
    std::string key = entry.first.str();
    auto *m = entry.second.getAsObject();
    // At the field the message begins with where the entry has it ("E_J
    // must be ..."), else at the entry.
    auto bad = [&](const std::string &why) {
      std::string field = why.substr(0, why.find(' '));
      std::vector<JsonStep> at = {key};
      if (m && m->get(field))
        at.push_back(field);
      err = jsonAt(path, text, at) + ": '" + key + "': " + why;
      return false;
    };
    if (!m)
      return bad("expected an object");
    CompositeMeasurement meas;
    // (runs and device: what energy-prof measure-composite records.)
    std::string why,
        unknown = jsonUnknownKey(
            *m, {"E_J", "sigma_E_J", "runs_J", "runs", "device"}, why);
    if (!unknown.empty()) {
      err = jsonAt(path, text, {key, unknown}) + ": '" + key + "': " + unknown +
            ": " + why;
      return false;
    }
    if (m->get("runs_J") && (m->get("E_J") || m->get("sigma_E_J")))
      return bad("give E_J and sigma_E_J, or runs_J, not both");
    for (const char *field : {"E_J", "sigma_E_J"})
      if (m->get(field) && !m->getNumber(field))
        return bad(std::string(field) + " must be a number (J)");
    if (m->get("runs_J") && !m->getArray("runs_J"))
      return bad("runs_J must be a list of energies (J)");
    if (auto *runs = m->getArray("runs_J")) {
      if (runs->size() < 2)
        return bad("runs_J needs at least two runs");
      double sum = 0, sq = 0;
      for (const llvm::json::Value &r : *runs) {
        std::optional<double> x = r.getAsNumber();
        if (!x || !std::isfinite(*x) || *x < 0 || *x > kMaxJ)
          return bad("runs_J must hold non-negative energies up to 1e15 J "
                     "(a petajoule)");
        sum += *x;
        sq += *x * *x;
      }
      double n = runs->size(), mean = sum / n;
      double sampleVar = std::max(0.0, (sq - n * mean * mean) / (n - 1));
      meas = {mean, sampleVar / n}; // variance of the mean
    } else {
      std::optional<double> e = m->getNumber("E_J"),
                            s = m->getNumber("sigma_E_J");
      if (!e || !s)
        return bad("needs E_J and sigma_E_J, or runs_J");
      if (!std::isfinite(*e) || *e < 0 || *e > kMaxJ)
        return bad("E_J must be a non-negative energy up to 1e15 J (a "
                   "petajoule)");
      if (!std::isfinite(*s) || *s < 0 || *s > kMaxJ)
        return bad("sigma_E_J must be non-negative and up to 1e15 J (a "
                   "petajoule)");
      meas = {*e, *s * *s};
    }
    if (const llvm::json::Value *n = m->get("runs")) {
      std::optional<int64_t> runs = n->getAsInteger();
      if (!runs || *runs < 1)
        return bad("runs must be a whole number of runs, at least 1");
      if (auto *list = m->getArray("runs_J");
          list && size_t(*runs) != list->size())
        return bad("runs (" + std::to_string(*runs) + ") differs from the " +
                   std::to_string(list->size()) + " energies of runs_J");
    }
    if (const llvm::json::Value *d = m->get("device")) {
      std::optional<llvm::StringRef> dev = d->getAsString();
      if (!dev)
        return bad("device must be a string (the device measured on)");
      meas.device = dev->str();
    }
    out[key] = meas;
  }
  return true;
}

llvm::json::Object compositeMeasurementJson(const std::string &name, double E,
                                            double sigmaMean, int64_t runs,
                                            const std::string &device) {
  return llvm::json::Object{{name, llvm::json::Object{{"E_J", E},
                                                      {"sigma_E_J", sigmaMean},
                                                      {"runs", runs},
                                                      {"device", device}}}};
}

} // namespace formats
} // namespace energy
