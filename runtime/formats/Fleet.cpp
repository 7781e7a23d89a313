//===- Fleet.cpp - reading a fleet file -----------------------------------===//

#include "runtime/formats/Fleet.h"
#include "runtime/formats/Input.h"

#include "runtime/AtomicFile.h"

#include "runtime/formats/Json.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <map>
#include <set>

using namespace llvm;
namespace routing = energy::calculus::routing;

namespace energy {
namespace formats {

namespace {
struct Reader {
  const std::string &file;
  std::string &err;
  llvm::StringRef text; ///< the file's text where known, where errors point

  bool fail(const std::string &where, const std::string &what) {
    err = jsonLocated(file, text, where) + ": " + what;
    return false;
  }
  bool keys(const json::Object &o, const std::string &where,
            std::initializer_list<const char *> allowed) {
    std::string why, key = jsonUnknownKey(o, allowed, why);
    return key.empty() || fail(where + "." + key, why);
  }
  /// A finite number >= 0 (> 0 when positive); absent -> `def` if given.
  bool number(const json::Object &o, StringRef key, const std::string &where,
              double &out, bool positive = false, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v) {
      if (!required)
        return true;
      return fail(where + "." + key.str(), "missing");
    }
    std::optional<double> d = v->getAsNumber();
    if (!d || !std::isfinite(*d) || *d < 0 || (positive && *d == 0))
      return fail(where + "." + key.str(),
                  std::string("expected a ") +
                      (positive ? "positive" : "non-negative") +
                      " finite number");
    out = *d;
    return true;
  }
  bool choice(const json::Object &o, StringRef key, const std::string &where,
              std::initializer_list<const char *> options, std::string &out) {
    const json::Value *v = o.get(key);
    if (!v)
      return true;
    std::optional<StringRef> s = v->getAsString();
    std::string list;
    for (const char *k : options) {
      list += (list.empty() ? "" : ", ") + std::string(k);
      if (s && *s == k) {
        out = k;
        return true;
      }
    }
    return fail(where + "." + key.str(), "expected one of " + list);
  }

  bool model(const json::Object &o, const std::string &w,
             routing::Endpoint &m) {
    if (!keys(o, w,
              {"name", "energy_J", "energy_per_token_J", "output_tokens",
               "prefill_J", "shared_sd_J", "quality", "service_slots"}))
      return false;
    std::optional<StringRef> name = o.getString("name");
    if (!name || name->empty())
      return fail(w + ".name", "expected the model's name");
    m.name = name->str();
    const json::Object *e = o.getObject("energy_J");
    bool perToken = o.get("energy_per_token_J") != nullptr;
    if ((e != nullptr) == perToken)
      return fail(w, "give either \"energy_J\": {\"mean\", \"sd\"} or "
                     "\"energy_per_token_J\" with \"output_tokens\"");
    if (e) {
      if (!keys(*e, w + ".energy_J", {"mean", "sd"}) ||
          !number(*e, "mean", w + ".energy_J", m.meanJ) ||
          !number(*e, "sd", w + ".energy_J", m.sdJ))
        return false;
      if (o.get("output_tokens") || o.get("prefill_J"))
        return fail(w, "\"output_tokens\" and \"prefill_J\" go with "
                       "\"energy_per_token_J\", not \"energy_J\"");
    } else {
      // Energy = prefill + e L with L the output length (reasoning tokens):
      // mean prefill + e mean_L, sd e sd_L (e and the prefill constant).
      double perTok = 0, prefill = 0, mean = 0, sd = 0;
      const json::Object *tok = o.getObject("output_tokens");
      if (!tok)
        return fail(w + ".output_tokens", "expected {\"mean\", \"sd\"}");
      if (!number(o, "energy_per_token_J", w, perTok) ||
          !number(o, "prefill_J", w, prefill, false, false) ||
          !keys(*tok, w + ".output_tokens", {"mean", "sd"}) ||
          !number(*tok, "mean", w + ".output_tokens", mean) ||
          !number(*tok, "sd", w + ".output_tokens", sd))
        return false;
      m.meanJ = prefill + perTok * mean;
      m.sdJ = perTok * sd;
    }
    if (!number(o, "shared_sd_J", w, m.sharedSdJ, false, false))
      return false;
    double slots = 1;
    if (!number(o, "service_slots", w, slots, true, false))
      return false;
    if (slots != std::floor(slots) || slots > 100000)
      return fail(w + ".service_slots", "expected a whole number of slots "
                                        "from 1 to 100000");
    m.serviceSlots = unsigned(slots);
    const json::Value *q = o.get("quality");
    if (!q)
      return fail(w + ".quality", "missing (a number in [0, 1] or a law)");
    if (std::optional<double> v = q->getAsNumber()) {
      if (!(*v >= 0 && *v <= 1))
        return fail(w + ".quality", "expected a number in [0, 1]");
      m.quality = *v;
      return true;
    }
    const json::Object *law = q->getAsObject();
    if (!law)
      return fail(w + ".quality", "expected a number in [0, 1] or "
                                  "{\"law\": ..., \"train_flops\", "
                                  "\"inference_flops\"}");
    std::string lw = w + ".quality";
    const json::Object *coef = law->getObject("law");
    double train = 0, inf = 0;
    routing::QualityLaw ql;
    if (!keys(*law, lw, {"law", "train_flops", "inference_flops"}))
      return false;
    if (!coef)
      return fail(lw + ".law", "expected {\"q_max\", \"a\", \"alpha\", "
                               "\"b\", \"beta\"}");
    if (!keys(*coef, lw + ".law", {"q_max", "a", "alpha", "b", "beta"}) ||
        !number(*coef, "q_max", lw + ".law", ql.qMax) ||
        !number(*coef, "a", lw + ".law", ql.a) ||
        !number(*coef, "alpha", lw + ".law", ql.alpha) ||
        !number(*coef, "b", lw + ".law", ql.b) ||
        !number(*coef, "beta", lw + ".law", ql.beta) ||
        !number(*law, "train_flops", lw, train, true) ||
        !number(*law, "inference_flops", lw, inf, true))
      return false;
    std::string why;
    if (!routing::qualityFromLaw(ql, train, inf, m.quality, why))
      return fail(lw, why);
    return true;
  }
};
} // namespace

bool parseFleet(const std::string &text, const std::string &file,
                FleetFile &out, std::string &err) {
  Expected<json::Value> doc = energy::formats::parseJson(text);
  if (!doc) {
    err = formats::jsonParseError(file, doc.takeError());
    return false;
  }
  return parseFleet(*doc, file, out, err, text);
}

bool parseFleet(const json::Value &doc, const std::string &file, FleetFile &out,
                std::string &err, llvm::StringRef text) {
  Reader r{file, err, text};
  const json::Object *root = doc.getAsObject();
  if (!root)
    return r.fail("$", "expected an object");
  if (!r.keys(*root, "$",
              {"version", "models", "tasks_per_slot", "arrivals", "assignment",
               "distribution", "supply_J", "reserve", "policies",
               "simulation"}))
    return false;
  std::optional<int64_t> version = root->getInteger("version");
  if (!version)
    return r.fail("$.version", "missing");
  if (*version != 1)
    return r.fail("$.version", "unsupported version " +
                                   std::to_string(*version) + " (expected 1)");
  out = FleetFile();
  routing::Fleet &f = out.fleet;
  const json::Array *models = root->getArray("models");
  if (!models || models->empty())
    return r.fail("$.models", "expected a non-empty list of models");
  if (models->size() > 64)
    return r.fail("$.models", "at most 64 models");
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < models->size(); ++i) {
    std::string w = "$.models[" + std::to_string(i) + "]";
    const json::Object *o = (*models)[i].getAsObject();
    if (!o)
      return r.fail(w, "expected an object");
    routing::Endpoint m;
    if (!r.model(*o, w, m))
      return false;
    if (!index.emplace(m.name, i).second)
      return r.fail(w + ".name", "duplicate model '" + m.name + "'");
    f.models.push_back(m);
  }
  if (!r.number(*root, "tasks_per_slot", "$", f.tasksPerSlot, true))
    return false;
  std::string arrivals = "fixed", assignment = "random", dist = "normal";
  if (!r.choice(*root, "arrivals", "$", {"fixed", "poisson"}, arrivals) ||
      !r.choice(*root, "assignment", "$", {"random", "proportional"},
                assignment) ||
      !r.choice(*root, "distribution", "$", {"normal", "gamma"}, dist))
    return false;
  f.poissonArrivals = arrivals == "poisson";
  // Fixed arrivals: that many tasks every slot (a Poisson rate may be
  // fractional).
  if (!f.poissonArrivals &&
      std::abs(f.tasksPerSlot - std::round(f.tasksPerSlot)) > 1e-9)
    return r.fail("$.tasks_per_slot",
                  "fixed arrivals need a whole number of tasks per slot "
                  "(\"arrivals\": \"poisson\" takes a mean rate)");
  f.assignment = assignment == "random" ? routing::Assignment::Random
                                        : routing::Assignment::Proportional;
  f.family =
      dist == "normal" ? routing::Family::Normal : routing::Family::Gamma;
  const json::Value *supply = root->get("supply_J");
  if (!supply)
    return r.fail("$.supply_J", "missing (J per slot, or a list per slot)");
  if (const json::Array *trace = supply->getAsArray()) {
    if (trace->empty() || trace->size() > 10000000)
      return r.fail("$.supply_J", "expected 1 to 1e7 entries");
    for (size_t i = 0; i < trace->size(); ++i) {
      std::optional<double> b = (*trace)[i].getAsNumber();
      if (!b || !std::isfinite(*b) || *b < 0)
        return r.fail("$.supply_J[" + std::to_string(i) + "]",
                      "expected a non-negative finite number (J per slot)");
      f.supplyJ.push_back(*b);
    }
  } else {
    std::optional<double> b = supply->getAsNumber();
    if (!b || !std::isfinite(*b) || *b < 0)
      return r.fail("$.supply_J", "expected a non-negative finite number "
                                  "(J per slot) or a list of them");
    f.supplyJ = {*b};
  }
  if (const json::Value *res = root->get("reserve")) {
    const json::Object *o = res->getAsObject();
    if (!o)
      return r.fail("$.reserve", "expected {\"capacity_J\", \"initial_J\"}");
    if (!r.keys(*o, "$.reserve", {"capacity_J", "initial_J"}))
      return false;
    const json::Value *cap = o->get("capacity_J");
    if (cap && cap->kind() != json::Value::Null &&
        !r.number(*o, "capacity_J", "$.reserve", f.reserveMaxJ, true))
      return false;
    if (!r.number(*o, "initial_J", "$.reserve", f.reserveInitialJ, false,
                  false))
      return false;
    if (f.reserveInitialJ > f.reserveMaxJ)
      return r.fail("$.reserve.initial_J", "above the capacity");
  }
  std::string why;
  if (!routing::validateFleet(f, why)) {
    // The message starts with its JSON path ("$.models[2] ('big'): ...").
    size_t colon = why.find(": ");
    return r.fail(why.substr(0, colon), why.substr(colon + 2));
  }

  const json::Array *policies = root->getArray("policies");
  if (!policies || policies->empty())
    return r.fail("$.policies", "expected a non-empty list of policies");
  std::map<std::string, int> names;
  std::vector<std::string> pendingMatch;
  for (size_t i = 0; i < policies->size(); ++i) {
    std::string w = "$.policies[" + std::to_string(i) + "]";
    const json::Object *o = (*policies)[i].getAsObject();
    if (!o)
      return r.fail(w, "expected an object");
    if (!r.keys(*o, w,
                {"name", "kind", "fractions", "prediction_error", "lambda",
                 "quality_target"}))
      return false;
    routing::Policy p;
    std::optional<StringRef> name = o->getString("name");
    if (!name || name->empty())
      return r.fail(w + ".name", "expected the policy's name");
    p.name = name->str();
    if (!names.emplace(p.name, int(i)).second)
      return r.fail(w + ".name", "duplicate policy '" + p.name + "'");
    std::string kind;
    if (!o->get("kind"))
      return r.fail(w + ".kind", "missing");
    if (!r.choice(*o, "kind", w, {"static", "myopic", "variance-aware"}, kind))
      return false;
    p.kind = kind == "static"   ? routing::PolicyKind::Static
             : kind == "myopic" ? routing::PolicyKind::Myopic
                                : routing::PolicyKind::VarianceAware;
    auto only = [&](const char *key, bool allowed) {
      return allowed || !o->get(key) ||
             r.fail(w + "." + key, "not a parameter of a " + kind + " policy");
    };
    if (!only("fractions", p.kind == routing::PolicyKind::Static) ||
        !only("prediction_error", p.kind == routing::PolicyKind::Myopic) ||
        !only("lambda", p.kind == routing::PolicyKind::VarianceAware) ||
        !only("quality_target", p.kind == routing::PolicyKind::VarianceAware))
      return false;
    std::string match;
    if (p.kind == routing::PolicyKind::Static) {
      const json::Object *fr = o->getObject("fractions");
      if (!fr)
        return r.fail(w + ".fractions", "expected {model: fraction}");
      p.fractions.assign(f.models.size(), 0.0);
      for (const auto &kv : *fr) {
        auto it = index.find(kv.first.str());
        if (it == index.end())
          return r.fail(w + ".fractions." + kv.first.str(), "no such model");
        std::optional<double> v = kv.second.getAsNumber();
        if (!v || !(*v >= 0 && *v <= 1))
          return r.fail(w + ".fractions." + kv.first.str(),
                        "expected a fraction in [0, 1]");
        p.fractions[it->second] = *v;
      }
    } else if (p.kind == routing::PolicyKind::Myopic) {
      if (const json::Value *e = o->get("prediction_error")) {
        std::optional<double> v = e->getAsNumber();
        if (!v || !std::isfinite(*v) || *v <= -1 || *v > 10)
          return r.fail(w + ".prediction_error",
                        "expected a relative error in (-1, 10]");
        p.predictionError = *v;
      }
    } else {
      if (!r.number(*o, "lambda", w, p.lambda, false, false))
        return false;
      if (const json::Value *q = o->get("quality_target")) {
        if (const json::Object *m = q->getAsObject()) {
          std::optional<StringRef> of = m->getString("match");
          if (!of || m->size() != 1)
            return r.fail(w + ".quality_target",
                          "expected a number or {\"match\": policy}");
          match = of->str();
        } else {
          std::optional<double> v = q->getAsNumber();
          if (!v || !(*v >= 0 && *v <= 1))
            return r.fail(w + ".quality_target",
                          "expected a number in [0, 1] or {\"match\": policy}");
          p.qualityTarget = *v;
        }
      } else {
        // A target of 0 would send everything to the cheapest model.
        return r.fail(w + ".quality_target",
                      "missing: the mean quality the split must keep, a "
                      "number in [0, 1] or {\"match\": policy}");
      }
    }
    std::string field, problem;
    if (!routing::validatePolicy(f, p, field, problem))
      return r.fail(w + "." + field, problem);
    out.policies.push_back(p);
    pendingMatch.push_back(match);
  }
  for (size_t i = 0; i < pendingMatch.size(); ++i) {
    int m = -1;
    if (!pendingMatch[i].empty()) {
      auto it = names.find(pendingMatch[i]);
      std::string w = "$.policies[" + std::to_string(i) + "].quality_target";
      if (it == names.end())
        return r.fail(w, "no policy '" + pendingMatch[i] + "'");
      if (out.policies[it->second].kind == routing::PolicyKind::VarianceAware)
        return r.fail(w, "must match a static or myopic policy");
      m = it->second;
    }
    out.matchQualityOf.push_back(m);
  }

  routing::McSettings &st = out.simulation;
  st.horizon = 10000;
  st.runs = 1000;
  st.seed = 1;
  if (const json::Value *sim = root->get("simulation")) {
    const json::Object *o = sim->getAsObject();
    if (!o)
      return r.fail("$.simulation", "expected an object");
    if (!r.keys(*o, "$.simulation",
                {"horizon_slots", "runs", "seed", "per_task"}))
      return false;
    auto integer = [&](StringRef key, uint64_t lo, uint64_t hi, uint64_t &v) {
      const json::Value *x = o->get(key);
      if (!x)
        return true;
      std::optional<int64_t> n = x->getAsInteger();
      if (!n || *n < int64_t(lo) || uint64_t(*n) > hi)
        return r.fail("$.simulation." + key.str(),
                      "expected a whole number from " + std::to_string(lo) +
                          " to " + std::to_string(hi));
      v = uint64_t(*n);
      return true;
    };
    uint64_t runs = st.runs;
    if (!integer("horizon_slots", 1, uint64_t(1) << 40, st.horizon) ||
        !integer("runs", 2, 10000000, runs) ||
        !integer("seed", 0, uint64_t(INT64_MAX), st.seed))
      return false;
    st.runs = unsigned(runs);
    if (const json::Value *pt = o->get("per_task")) {
      std::optional<bool> b = pt->getAsBoolean();
      if (!b)
        return r.fail("$.simulation.per_task", "expected true or false");
      st.perTask = *b;
    }
  }
  return true;
}

bool readFleet(const std::string &path, FleetFile &out, std::string &err) {
  std::unique_ptr<MemoryBuffer> buf = readInput(path, err);
  if (!buf) {
    err = path + ": " + err;
    return false;
  }
  return parseFleet(buf->getBuffer().str(), path, out, err);
}

} // namespace formats
} // namespace energy
