//===- SignatureDb.cpp - reading, pooling and writing signature DBs -------===//

#include "runtime/db/SignatureDb.h"
#include "runtime/formats/Input.h"

#include "runtime/AtomicFile.h"

#include "runtime/formats/Json.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace energy {
namespace rt {

bool readSignatureDb(const std::string &path, SignatureDb &out,
                     std::string &err) {
  // "-": standard input (energy-prof merge -, a pipe's end).
  std::unique_ptr<llvm::MemoryBuffer> buf = formats::readInput(path, err);
  if (!buf) {
    err = "'" + path + "': " + err;
    return false;
  }
  llvm::Expected<llvm::json::Value> doc =
      energy::formats::parseJson(buf->getBuffer());
  if (!doc) {
    err = formats::jsonParseError(path, doc.takeError());
    return false;
  }
  // At the JSON path's value where the file has it, else at the closest
  // enclosing value.
  auto failAt = [&](std::vector<formats::JsonStep> at, const std::string &why) {
    err = formats::jsonAt(path, buf->getBuffer(), at) + ": " + why;
    return false;
  };
  auto *obj = doc->getAsObject();
  if (!obj)
    return failAt({}, "the top level must be an object");
  // Another of the project's files given as a DB: say which.
  if (obj->get("model") && !obj->get("entries"))
    return failAt({"model"}, "a model file (its \"model\"), not a signature "
                             "DB: pass it as model=, not db=");
  if (obj->get("schedules") && !obj->get("entries"))
    return failAt({"schedules"},
                  "a plan (its \"schedules\"), not a signature DB: DBs come "
                  "from energy-prof characterize, profile, merge or er_flush");
  std::string unknown;
  if (std::string k = formats::jsonUnknownKey(
          *obj, {"version", "device", "generator", "entries"}, unknown);
      !k.empty())
    return failAt({k}, k + ": " + unknown);
  std::optional<int64_t> version = obj->getInteger("version");
  if (!version || *version != 1)
    return failAt({"version"}, "unsupported version (expected \"version\": 1)");
  auto *entries = obj->getArray("entries");
  if (!entries)
    return failAt({"entries"}, "no \"entries\" array");
  if (const llvm::json::Value *dev = obj->get("device")) {
    std::optional<llvm::StringRef> name = dev->getAsString();
    if (!name)
      return failAt({"device"},
                    "\"device\" must be a string (the backend's identity)");
    out.device = name->str();
  }
  // The processes whose runs the file holds: merge refuses one's runs
  // twice, so a malformed list is an error, not a list silently lost.
  if (const llvm::json::Object *gen = obj->getObject("generator"))
    if (const llvm::json::Value *sources = gen->get("sources")) {
      const llvm::json::Array *list = sources->getAsArray();
      if (!list)
        return failAt({"generator", "sources"},
                      "\"sources\" must be a list of process names");
      for (size_t i = 0; i < list->size(); ++i) {
        std::optional<llvm::StringRef> id = (*list)[i].getAsString();
        if (!id || id->empty())
          return failAt({"generator", "sources", i},
                        "a source must be a process's name (a string)");
        out.sources.push_back(id->str());
      }
    }
  // An entry written twice (every field equal): pooled with itself, its
  // runs would count twice and its sigma shrink, as with the same shard
  // given twice. Entries of one key and clock that differ are runs of one
  // signature measured apart, which merge pools.
  using Fields =
      std::tuple<std::string, int64_t, std::string, double, double, double,
                 double, double, double, double, int64_t, std::string>;
  std::map<Fields, size_t> seen;
  for (size_t i = 0; i < entries->size(); ++i) {
    auto *e = (*entries)[i].getAsObject();
    // At the field the message begins with where the entry has it ("T_s
    // must be ..."), else at the entry.
    auto bad = [&](const std::string &why) {
      std::string field = why.substr(0, why.find(' '));
      std::vector<formats::JsonStep> at = {"entries", i};
      if (e && e->get(field))
        at.push_back(field);
      err = formats::jsonAt(path, buf->getBuffer(), at) + ": entry #" +
            std::to_string(i) + ": " + why;
      return false;
    };
    if (!e)
      return bad("not an object");
    if (std::string k = formats::jsonUnknownKey(
            *e,
            {"key", "sm_mhz", "s_W", "T_s", "d_J", "sigma_T_s", "sigma_d_J",
             "runs", "method", "context"},
            unknown);
        !k.empty())
      return failAt({"entries", i, k},
                    "entry #" + std::to_string(i) + ": " + k + ": " + unknown);
    // Each required field named when it is missing or of the wrong type.
    const char *required[] = {"key", "sm_mhz",    "s_W",      "T_s",
                              "d_J", "sigma_T_s", "sigma_d_J"};
    for (const char *field : required)
      if (!e->get(field))
        return bad(std::string("lacks \"") + field +
                   "\" (needs key, sm_mhz, s_W, T_s, d_J, sigma_T_s and "
                   "sigma_d_J)");
    std::optional<llvm::StringRef> key = e->getString("key");
    if (!key || key->empty())
      return bad("key must be a non-empty string");
    std::optional<int64_t> mhz = e->getInteger("sm_mhz");
    // No GPU clocks its SMs at 100 GHz: a larger value is a unit mistake
    // (Hz, kHz) that would become the plan's "highest clock" baseline.
    if (!mhz || *mhz <= 0 || *mhz > 100000)
      return bad("sm_mhz must be a positive integer of MHz, at most 100000");
    double v[5];
    const char *numeric[] = {"s_W", "T_s", "d_J", "sigma_T_s", "sigma_d_J"};
    for (int k = 0; k < 5; ++k) {
      std::optional<double> x = e->getNumber(numeric[k]);
      // Above 1e15 (s, W, J) a value is a units mistake, and its square (a
      // variance when pooled) would leave the range a double holds exactly
      // enough to write back.
      if (!x || !(*x >= 0) || !std::isfinite(*x) || *x > 1e15)
        return bad(std::string(numeric[k]) +
                   " must be a finite, non-negative number of at most 1e15");
      v[k] = *x;
    }
    DbEntry entry{key->str(), *mhz, v[0], v[1], v[2], v[3],
                  v[4],       0,    "",   "",   {},   {}};
    if (const llvm::json::Value *r = e->get("runs")) {
      std::optional<int64_t> runs = r->getAsInteger();
      if (!runs || *runs <= 0 || *runs > (int64_t(1) << 53))
        return bad("runs must be a positive integer of at most 2^53");
      entry.runs = *runs;
    }
    if (const llvm::json::Value *m = e->get("method")) {
      std::optional<llvm::StringRef> method = m->getAsString();
      if (!method || (*method != "measured" && *method != "simulated" &&
                      *method != "analytical" && *method != "composed"))
        return bad("method must be \"measured\", \"simulated\", "
                   "\"analytical\" or \"composed\"");
      entry.method = method->str();
    }
    if (const llvm::json::Value *c = e->get("context")) {
      const llvm::json::Object *ctx = c->getAsObject();
      if (!ctx)
        return bad("context must be an object");
      if (std::string k = formats::jsonUnknownKey(*ctx,
                                                  {"l2", "entry_temperature_C",
                                                   "power_limit_W",
                                                   "default_power_limit_W"},
                                                  unknown);
          !k.empty())
        return failAt({"entries", i, "context", k},
                      "entry #" + std::to_string(i) + ": context." + k + ": " +
                          unknown);
      if (const llvm::json::Value *l2 = ctx->get("l2")) {
        std::optional<llvm::StringRef> state = l2->getAsString();
        if (!state ||
            (*state != "flushed" && *state != "warm" && *state != "unknown"))
          return bad("context.l2 must be \"flushed\", \"warm\" or "
                     "\"unknown\"");
        entry.l2 = state->str();
      }
      if (const llvm::json::Value *t = ctx->get("entry_temperature_C")) {
        std::optional<double> degC = t->getAsNumber();
        if (!degC || !std::isfinite(*degC) || *degC < -273.15)
          return bad("context.entry_temperature_C must be a temperature in "
                     "degC");
        entry.entryTemperature = *degC;
      }
      if (const llvm::json::Value *w = ctx->get("power_limit_W")) {
        std::optional<double> watts = w->getAsNumber();
        // A board's limit: watts to a few kW (1e300 W, or a denormal,
        // became a plan's power cap).
        if (!watts || !(*watts >= 1 && *watts <= 1e6))
          return bad(
              "context.power_limit_W must be a power limit from 1 W to 1e6 W");
        entry.powerLimit = *watts;
      }
      if (const llvm::json::Value *w = ctx->get("default_power_limit_W")) {
        std::optional<double> watts = w->getAsNumber();
        // A board's limit: watts to a few kW (1e300 W, or a denormal,
        // became a plan's power cap).
        if (!watts || !(*watts >= 1 && *watts <= 1e6))
          return bad("context.default_power_limit_W must be a power limit from "
                     "1 W to 1e6 W");
        entry.defaultPowerLimit = *watts;
      }
    }
    auto [first, fresh] = seen.try_emplace(
        Fields(entry.key, entry.smMhz, entry.l2, entry.powerLimit.value_or(-1),
               entry.entryTemperature.value_or(-300), entry.s, entry.T, entry.d,
               entry.sigmaT, entry.sigmaD, entry.runs, entry.method),
        i);
    if (!fresh)
      return bad("repeats entry #" + std::to_string(first->second) +
                 " exactly (key '" + entry.key + "' at " +
                 std::to_string(entry.smMhz) +
                 " MHz; written twice?): pooled, its runs would count twice");
    out.entries.push_back(std::move(entry));
  }
  return true;
}

bool poolSignatureDbs(const std::vector<SignatureDb> &shards,
                      const std::vector<std::string> &names, SignatureDb &out,
                      std::string &err, std::vector<std::string> *notes) {
  struct Group {
    std::vector<std::pair<const DbEntry *, size_t>> parts; // entry, shard
  };
  // One group per signature: key, clock and context (L2 state, power
  // limit; -1 when not recorded) -- runs in another context are another
  // signature, kept apart rather than pooled.
  using GroupKey = std::tuple<std::string, int64_t, std::string, double>;
  // Shards of different GPU models are different signatures, not more
  // runs of one; the same shard twice would double its runs and shrink its
  // sigma.
  // Each shard's text hashed once (comparing every pair's text made merge
  // quadratic in the shards: 400 took 143 s).
  std::vector<size_t> digest(shards.size());
  for (size_t k = 0; k < shards.size(); ++k)
    digest[k] = std::hash<std::string>()(writeSignatureDb(shards[k]));
  // One process's runs in two inputs: two flushes of it (the later holds
  // every run of the earlier) or a merged DB and a shard it already holds
  // (a merge run again over a glob that matches its own output).
  std::map<std::string, size_t> sourceOf;
  out.sources.clear();
  for (size_t k = 0; k < shards.size(); ++k)
    for (const std::string &id : shards[k].sources) {
      auto [it, fresh] = sourceOf.try_emplace(id, k);
      if (fresh) {
        out.sources.push_back(id);
        continue;
      }
      if (it->second == k)
        continue;
      size_t j = it->second;
      if (digest[j] == digest[k] &&
          writeSignatureDb(shards[j]) == writeSignatureDb(shards[k])) {
        err = names[k] + " holds exactly the measurements of " + names[j] +
              " (the same shard twice?): pooling would count its runs twice";
        return false;
      }
      bool bothFlushes =
          shards[j].sources.size() == 1 && shards[k].sources.size() == 1;
      err = bothFlushes
                ? names[j] + " and " + names[k] +
                      " are two flushes of one process's session (" + id +
                      "): the later holds every run of the earlier; pool "
                      "the last one only"
                : names[j] + " and " + names[k] +
                      " both hold the runs of one process (" + id +
                      "): one was merged from the other (a merge run again "
                      "over its own output?); pooling would count them twice";
      return false;
    }
  for (size_t k = 1; k < shards.size(); ++k)
    for (size_t j = 0; j < k; ++j) {
      std::string a = gpuModelOf(shards[j].device),
                  b = gpuModelOf(shards[k].device);
      if (!a.empty() && !b.empty() && a != b) {
        err = names[k] + " was measured on '" + shards[k].device + "' (" + b +
              "), " + names[j] + " on '" + shards[j].device + "' (" + a +
              "): measurements of different GPU models do not pool";
        return false;
      }
      // Shards that name their processes are told apart by them (the sources
      // are disjoint here): a simulated device measures alike in two ranks.
      bool named = !shards[j].sources.empty() && !shards[k].sources.empty();
      if (!named && digest[j] == digest[k] &&
          writeSignatureDb(shards[j]) == writeSignatureDb(shards[k])) {
        err = names[k] + " holds exactly the measurements of " + names[j] +
              " (the same shard twice?): pooling would count its runs twice";
        return false;
      }
    }
  std::map<GroupKey, Group> groups;
  std::vector<std::string> devices;
  for (size_t k = 0; k < shards.size(); ++k) {
    if (!shards[k].device.empty() &&
        std::find(devices.begin(), devices.end(), shards[k].device) ==
            devices.end())
      devices.push_back(shards[k].device);
    for (const DbEntry &e : shards[k].entries)
      groups[{e.key, e.smMhz, e.l2, e.powerLimit.value_or(-1)}].parts.push_back(
          {&e, k});
  }
  out.device.clear();
  for (size_t i = 0; i < devices.size(); ++i)
    out.device += (i ? ", " : "") + devices[i];
  out.entries.clear();
  for (auto &group : groups) {
    const std::string &key = std::get<0>(group.first);
    int64_t mhz = std::get<1>(group.first);
    Group &g = group.second;
    auto where = [&](size_t part) {
      return names[g.parts[part].second] + " (key '" + key + "' at " +
             std::to_string(mhz) + " MHz)";
    };
    double N = 0;
    for (size_t p = 0; p < g.parts.size(); ++p) {
      const DbEntry &e = *g.parts[p].first;
      if (e.runs <= 0) {
        err = where(p) + ": pooling needs the number of runs";
        return false;
      }
      if (e.method != g.parts[0].first->method) {
        err = where(p) + ": method '" + e.method + "' differs from '" +
              g.parts[0].first->method + "' in " + where(0);
        return false;
      }

      N += double(e.runs);
    }
    if (N > 9007199254740992.0) {
      err = names[g.parts[0].second] + " (key '" + key + "' at " +
            std::to_string(mhz) + " MHz): the pooled runs pass 2^53, more " +
            "than a signature DB holds";
      return false;
    }
    DbEntry m{key,
              mhz,
              0,
              0,
              0,
              0,
              0,
              int64_t(N),
              g.parts[0].first->method,
              g.parts[0].first->l2,
              {},
              g.parts[0].first->powerLimit,
              g.parts[0].first->defaultPowerLimit};
    bool allTemps = true;
    double temp = 0;
    for (auto &[e, shard] : g.parts) {
      allTemps &= e->entryTemperature.has_value();
      if (e->entryTemperature)
        temp += double(e->runs) / N * *e->entryTemperature;
    }
    if (allTemps)
      m.entryTemperature = temp; // run-weighted mean
    double sLo = g.parts[0].first->s, sHi = sLo;
    for (auto &[e, shard] : g.parts) {
      double w = double(e->runs) / N;
      m.s += w * e->s;
      m.T += w * e->T;
      sLo = std::min(sLo, e->s);
      sHi = std::max(sHi, e->s);
    }
    // Each shard's dynamic energy against the pooled static power (its
    // runs' energies unchanged), and its spread's bound.
    std::vector<double> dOf, sigmaDOf;
    for (auto &[e, shard] : g.parts) {
      double delta = e->s - m.s;
      dOf.push_back(e->d + delta * e->T);
      sigmaDOf.push_back(e->sigmaD + std::fabs(delta) * e->sigmaT);
      m.d += double(e->runs) / N * dOf.back();
    }
    // Restated, a shard's dynamic energy can come out below 0 (an idle
    // region, d = 0, at a static power below the pooled one), and so can
    // their mean where static power and time vary together across shards
    // (s T + d = mean E < s_mean T_mean): a DB holds no negative dynamic
    // energy, so the pool keeps 0 -- its energy then above the runs' mean
    // by that much, said where it is more than rounding.
    double dMean = m.d; // the spread is about the runs' own mean
    if (m.d < 0) {
      double meanE = m.s * m.T + m.d;
      if (notes && -m.d > 1e-9 * std::max(meanE, m.s * m.T)) {
        char line[256];
        std::snprintf(line, sizeof line,
                      " MHz: the runs' mean energy (%.6g J) is below the "
                      "pooled static power x time (%.6g J): the pooled "
                      "dynamic energy is kept at 0, %.3g J above the runs",
                      meanE, m.s * m.T, -m.d);
        notes->push_back("key '" + key + "' at " + std::to_string(mhz) + line);
      }
      m.d = 0;
    }
    if (notes && sHi > 1.1 * sLo) {
      char line[256];
      std::snprintf(line, sizeof line,
                    " MHz: the shards' static powers differ by more than 10 %% "
                    "(%.6g to %.6g W); pooled at their run-weighted mean "
                    "%.6g W, each run's energy kept -- runs of different "
                    "devices?",
                    sLo, sHi, m.s);
      notes->push_back("key '" + key + "' at " + std::to_string(mhz) + line);
    }
    // Shards whose mean times differ well beyond their runs' spread (one
    // region name on ranks doing different work: a pipeline's stages each
    // naming their step "iteration"): the pool is no one rank's pass.
    double tLo = g.parts[0].first->T, tHi = tLo, spread = 0;
    for (auto &[e, shard] : g.parts) {
      tLo = std::min(tLo, e->T);
      tHi = std::max(tHi, e->T);
      spread = std::max(spread, e->sigmaT);
    }
    if (notes && tHi > 1.1 * tLo && tHi - tLo > 3 * spread) {
      char line[320];
      std::snprintf(line, sizeof line,
                    " MHz: the shards' mean times differ by more than 10 %% "
                    "and beyond their runs' spread (%.6g to %.6g s): pooled "
                    "into one signature of no one shard's runs -- regions "
                    "that differ by rank are better named per rank",
                    tLo, tHi);
      notes->push_back("key '" + key + "' at " + std::to_string(mhz) + line);
    }
    // Exact pooled sample variance of the union of runs.
    double ssT = 0, ssD = 0;
    for (size_t p = 0; p < g.parts.size(); ++p) {
      const DbEntry *e = g.parts[p].first;
      double n = double(e->runs);
      ssT += (n - 1) * e->sigmaT * e->sigmaT + n * (e->T - m.T) * (e->T - m.T);
      ssD += (n - 1) * sigmaDOf[p] * sigmaDOf[p] +
             n * (dOf[p] - dMean) * (dOf[p] - dMean);
    }
    m.sigmaT = N > 1 ? std::sqrt(ssT / (N - 1)) : 0;
    m.sigmaD = N > 1 ? std::sqrt(ssD / (N - 1)) : 0;
    out.entries.push_back(std::move(m));
  }
  return true;
}

} // namespace rt
} // namespace energy
