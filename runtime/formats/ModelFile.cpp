//===- ModelFile.cpp - fitted model files ---------------------------------===//

#include "runtime/formats/ModelFile.h"
#include "runtime/formats/Json.h"

#include <algorithm>
#include <cmath>

namespace energy {
namespace formats {

bool parseModelFile(llvm::StringRef text, const std::string &path,
                    ModelFile &mf, std::string &err) {
  mf = ModelFile();
  calculus::TokenLaw &law = mf.law;
  calculus::FlopByteModel &fb = mf.fb;
  double &relSigma = mf.relSigma;
  auto doc = energy::formats::parseJson(text);
  if (!doc) {
    err = formats::jsonParseError(path, doc.takeError());
    return false;
  }
  auto *o = doc->getAsObject();
  // At the value `at` names where the file has it (else the closest value
  // around it); the message names the key.
  auto badAt = [&](std::vector<JsonStep> at, const std::string &why) {
    err = jsonAt(path, text, at) + ": " + why;
    return false;
  };
  if (!o || o->getInteger("version") != 1)
    return badAt({"version"},
                 "unsupported model file (expected \"version\": 1)");
  std::optional<llvm::StringRef> name = o->getString("model");
  std::string unknown;
  auto keys = [&](const llvm::json::Object &obj, std::vector<JsonStep> at,
                  std::initializer_list<const char *> allowed) {
    std::string k = jsonUnknownKey(obj, allowed, unknown);
    if (k.empty())
      return true;
    at.push_back(k);
    return badAt(at, "'" + k + "': " + unknown);
  };
  if (name == "flop-byte") {
    mf.kind = "flop-byte";
    if (!keys(*o, {},
              {"version", "model", "parameters", "attention_flops_per_pair",
               "weight_bytes", "kv_bytes_per_token", "joules_per_flop",
               "joules_per_byte", "memory_factor", "relative_sigma", "clocks",
               "coefficient_covariance"}))
      return false;
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
        return badAt({f.key},
                     std::string("flop-byte needs '") + f.key + "' (a number)");
      if (!(*v >= 0))
        return badAt({f.key},
                     std::string("'") + f.key + "' must be non-negative");
      *f.slot = *v;
    }
    if (const llvm::json::Value *cv = o->get("clocks")) {
      const llvm::json::Object *c = cv->getAsObject();
      if (!c)
        return badAt({"clocks"}, "'clocks' must be an object");
      if (!keys(
              *c, {"clocks"},
              {"fmax_mhz", "fmin_mhz", "vmin", "vmax", "peak_flops", "sm_mhz"}))
        return false;
      calculus::FlopByteClocks k;
      struct {
        const char *key;
        double *slot;
      } cf[] = {{"fmax_mhz", &k.fmaxMhz},
                {"fmin_mhz", &k.fminMhz},
                {"vmin", &k.vmin},
                {"vmax", &k.vmax},
                {"peak_flops", &k.peakFlops}};
      for (auto &f : cf) {
        std::optional<double> v = c->getNumber(f.key);
        if (!v || !std::isfinite(*v) || *v <= 0)
          return badAt({"clocks", f.key},
                       std::string("'clocks' needs a positive '") + f.key +
                           "'");
        *f.slot = *v;
      }
      if (!(k.fmaxMhz > k.fminMhz) || !(k.vmax >= k.vmin))
        return badAt({"clocks"},
                     "'clocks' needs fmax_mhz > fmin_mhz and vmax >= vmin");
      const llvm::json::Array *list = c->getArray("sm_mhz");
      if (!list || list->empty())
        return badAt({"clocks", "sm_mhz"},
                     "'clocks' needs a non-empty 'sm_mhz' list");
      for (size_t i = 0; i < list->size(); ++i) {
        std::optional<double> f = (*list)[i].getAsNumber();
        if (!f || *f < k.fminMhz || *f > k.fmaxMhz || *f != std::floor(*f))
          return badAt({"clocks", "sm_mhz", i},
                       "'clocks' sm_mhz entries must be whole MHz within "
                       "[fmin_mhz, fmax_mhz]");
        if (llvm::is_contained(k.smMhz, *f))
          return badAt({"clocks", "sm_mhz", i},
                       "'clocks' sm_mhz lists " + std::to_string(int64_t(*f)) +
                           " MHz twice (one option per clock)");
        k.smMhz.push_back(*f);
      }
      mf.clocks = k;
    }
    if (const llvm::json::Value *cc = o->get("coefficient_covariance")) {
      const llvm::json::Array *a = cc->getAsArray();
      if (!a || a->size() != 4)
        return badAt({"coefficient_covariance"},
                     "'coefficient_covariance' must be the 4 entries of the "
                     "(joules_per_flop, joules_per_byte) covariance");
      for (size_t i = 0; i < a->size(); ++i) {
        std::optional<double> x = (*a)[i].getAsNumber();
        if (!x || !std::isfinite(*x))
          return badAt({"coefficient_covariance", i},
                       "'coefficient_covariance' entries must be numbers");
        mf.sharedCov.push_back(*x);
      }
      if (mf.sharedCov[0] < 0 || mf.sharedCov[3] < 0 ||
          mf.sharedCov[1] != mf.sharedCov[2] ||
          mf.sharedCov[1] * mf.sharedCov[1] >
              mf.sharedCov[0] * mf.sharedCov[3] * (1 + 1e-12))
        return badAt({"coefficient_covariance"},
                     "'coefficient_covariance' must be symmetric positive "
                     "semi-definite");
    }
    return true;
  }
  if (name == "energylens") {
    mf.kind = "energylens";
    if (!keys(*o, {},
              {"version", "model", "coefficients", "covariance", "rows",
               "unidentified", "null_space", "relative_residual_sd"}))
      return false;
    if (const llvm::json::Value *r = o->get("relative_residual_sd")) {
      std::optional<double> x = r->getAsNumber();
      if (!x || !(*x >= 0) || !std::isfinite(*x))
        return badAt({"relative_residual_sd"},
                     "'relative_residual_sd' must be a finite, "
                     "non-negative number");
      mf.lens.relativeResidualSd = *x;
      mf.residualKnown = true;
    }
    auto *coef = o->getObject("coefficients");
    auto *cov = o->getArray("covariance");
    constexpr int P = calculus::EnergyLens::kParams;
    // The directions the fit's rows did not determine (fitEnergyLens);
    // "unidentified" names their parameters for people and is rederived.
    if (const llvm::json::Value *u = o->get("null_space")) {
      const llvm::json::Array *list = u->getAsArray();
      if (!list || list->size() > size_t(P))
        return badAt({"null_space"},
                     "'null_space' must be a list of at most 12 directions");
      for (size_t k = 0; k < list->size(); ++k) {
        const llvm::json::Array *v = (*list)[k].getAsArray();
        if (!v || v->size() != size_t(P))
          return badAt({"null_space", k},
                       "a direction is a list of 12 numbers");
        std::array<double, P> d;
        for (size_t i = 0; i < size_t(P); ++i) {
          std::optional<double> x = (*v)[i].getAsNumber();
          if (!x || !std::isfinite(*x))
            return badAt({"null_space", k, i}, "expected a number");
          d[i] = *x;
        }
        mf.lens.nullSpace.push_back(d);
      }
    }
    if (const llvm::json::Value *u = o->get("unidentified");
        u && !u->getAsArray())
      return badAt({"unidentified"},
                   "'unidentified' must be a list of coefficient names");
    if (!coef || !cov || cov->size() != size_t(P * P))
      return badAt({coef ? "covariance" : "coefficients"},
                   "energylens needs 12 coefficients and a 144-entry "
                   "covariance");
    for (int i = 0; i < P; ++i) {
      auto v = coef->getNumber(calculus::EnergyLens::kNames[i]);
      if (!v)
        return badAt({"coefficients", calculus::EnergyLens::kNames[i]},
                     std::string("missing coefficient ") +
                         calculus::EnergyLens::kNames[i]);
      mf.lens.phi[size_t(i)] = *v;
    }
    if (coef->size() != size_t(P)) {
      for (const auto &kv : *coef)
        if (!llvm::is_contained(calculus::EnergyLens::kNames, kv.first.str()))
          return badAt({"coefficients", kv.first.str()},
                       "'" + kv.first.str() +
                           "': not an energylens coefficient");
    }
    for (size_t i = 0; i < size_t(P * P); ++i) {
      auto v = (*cov)[i].getAsNumber();
      if (!v)
        return badAt({"covariance", i}, "covariance entries must be numbers");
      mf.lens.cov[i] = *v;
    }
    mf.sharedCov.assign(mf.lens.cov.begin(), mf.lens.cov.end());
    return true;
  }
  if (name != "token-law")
    return badAt({"model"},
                 "unknown model (expected \"token-law\", \"flop-byte\" or "
                 "\"energylens\")");
  mf.kind = "token-law";
  if (!keys(*o, {},
            {"version", "model", "coefficients", "covariance", "rows",
             "residual_variance"}))
    return false;
  if (const llvm::json::Value *r = o->get("residual_variance")) {
    std::optional<double> x = r->getAsNumber();
    if (!x || !(*x >= 0) || !std::isfinite(*x))
      return badAt({"residual_variance"},
                   "'residual_variance' must be a finite, non-negative "
                   "number ((J/token)^2)");
    law.residualVariance = *x;
    mf.residualKnown = true;
  }
  auto *coef = o->getObject("coefficients");
  auto *cov = o->getArray("covariance");
  if (!coef || !cov || cov->size() != 16)
    return badAt({coef ? "covariance" : "coefficients"},
                 "needs coefficients {alpha, beta, P_tau, c} and a 16-entry "
                 "covariance");
  if (!keys(*coef, {"coefficients"}, {"alpha", "beta", "P_tau", "c"}))
    return false;
  const char *names[4] = {"alpha", "beta", "P_tau", "c"};
  for (int i = 0; i < 4; ++i) {
    auto v = coef->getNumber(names[i]);
    if (!v)
      return badAt({"coefficients", names[i]},
                   std::string("missing coefficient ") + names[i]);
    law.coef[i] = *v;
  }
  for (size_t i = 0; i < 16; ++i) {
    auto v = (*cov)[i].getAsNumber();
    if (!v)
      return badAt({"covariance", i}, "covariance entries must be numbers");
    law.cov[i] = *v;
  }
  mf.sharedCov.assign(law.cov.begin(), law.cov.end());
  // A run's deviation from the law is one for all its decode iterations
  // (the fit's rows are whole runs): shared, as c's uncertainty is.
  mf.sharedCov[15] += law.residualVariance;
  return true;
}

llvm::json::Object tokenLawModelJson(const calculus::TokenLaw &law) {
  llvm::json::Array cov;
  for (double v : law.cov)
    cov.push_back(v);
  return llvm::json::Object{
      {"version", 1},
      {"model", "token-law"},
      {"coefficients", llvm::json::Object{{"alpha", law.coef[0]},
                                          {"beta", law.coef[1]},
                                          {"P_tau", law.coef[2]},
                                          {"c", law.coef[3]}}},
      {"covariance", std::move(cov)},
      {"residual_variance", law.residualVariance},
      {"rows", int64_t(law.rows)}};
}

llvm::json::Object energyLensModelJson(const calculus::EnergyLens &m) {
  llvm::json::Object coef;
  for (int i = 0; i < calculus::EnergyLens::kParams; ++i)
    coef[calculus::EnergyLens::kNames[i]] = m.phi[size_t(i)];
  llvm::json::Array cov;
  for (double v : m.cov)
    cov.push_back(v);
  llvm::json::Object o{{"version", 1},
                       {"model", "energylens"},
                       {"coefficients", std::move(coef)},
                       {"covariance", std::move(cov)},
                       {"relative_residual_sd", m.relativeResidualSd},
                       {"rows", int64_t(m.rows)}};
  // The directions the fit's rows did not determine, and (for people) the
  // parameters they involve.
  llvm::json::Array unidentified, nullSpace;
  for (int i = 0; i < calculus::EnergyLens::kParams; ++i)
    if (!m.identified(i))
      unidentified.push_back(calculus::EnergyLens::kNames[i]);
  for (const auto &v : m.nullSpace) {
    llvm::json::Array direction;
    for (double x : v)
      direction.push_back(x);
    nullSpace.push_back(std::move(direction));
  }
  if (!nullSpace.empty()) {
    o["unidentified"] = std::move(unidentified);
    o["null_space"] = std::move(nullSpace);
  }
  return o;
}

llvm::json::Object flopByteFitModelJson(llvm::json::Object base,
                                        const calculus::FlopByteFit &fit) {
  base["joules_per_flop"] = fit.joulesPerFlop;
  base["joules_per_byte"] = fit.joulesPerByte;
  base["relative_sigma"] = fit.relSigma;
  base["coefficient_covariance"] =
      llvm::json::Array{fit.cov[0], fit.cov[1], fit.cov[2], fit.cov[3]};
  return base;
}

} // namespace formats
} // namespace energy
