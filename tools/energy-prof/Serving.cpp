//===- Serving.cpp - energy-prof validate-serving and serve-plan ----------===//
//
// Thin callers: the measurements' reader is runtime/formats/MlEnergy, the
// fits, held-out validation and planner are calculus/models/
// ServingValidation; this converts and writes the reports.
//
//===----------------------------------------------------------------------===//

#include "tools/energy-prof/Serving.h"

#include "calculus/models/ServingValidation.h"
#include "runtime/formats/MlEnergy.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace llvm;
using namespace energy::calculus;

namespace energy {

namespace {
json::Array summaries(const std::vector<ErrorSummary> &s) {
  json::Array a;
  for (const ErrorSummary &e : s) {
    json::Object o{{"key", e.key},
                   {"n", int64_t(e.n)},
                   {"median_abs_rel_err", e.medianAbs},
                   {"max_abs_rel_err", e.maxAbs},
                   {"max_signed_rel_err", e.maxSigned},
                   {"with_interval", int64_t(e.withInterval)}};
    if (e.withInterval) {
      o["coverage95"] = double(e.covered) / double(e.withInterval);
      o["median_rel_halfwidth95"] = e.medianRelHalfWidth;
    }
    a.push_back(std::move(o));
  }
  return a;
}

std::string byArch(const HeldOut &h) {
  return h.obs->dataset + "/" + h.obs->gpu + "/" + h.obs->architecture;
}
std::string byModel(const HeldOut &h) {
  return h.obs->dataset + "/" + h.obs->gpu + "/" + h.obs->architecture + "/" +
         h.obs->model;
}

json::Object provider(const std::string &name, const ValidationRun &run) {
  return json::Object{
      {"name", name},
      {"note", run.note},
      {"groups", int64_t(run.groups)},
      {"groups_skipped", int64_t(run.groupsSkipped)},
      {"predictions", int64_t(run.predictions.size())},
      {"by_gpu_architecture", summaries(summarizeBy(run.predictions, byArch))},
      {"by_model", summaries(summarizeBy(run.predictions, byModel))}};
}
} // namespace

/// Whether every number in `v` is finite; `at` gets the first one's path.
static bool allFinite(const json::Value &v, const std::string &path,
                      std::string &at) {
  if (std::optional<double> d = v.getAsNumber(); d && !std::isfinite(*d)) {
    at = path;
    return false;
  }
  if (const json::Object *o = v.getAsObject()) {
    for (const auto &[k, x] : *o)
      if (!allFinite(x, path + "." + k.str(), at))
        return false;
  } else if (const json::Array *a = v.getAsArray()) {
    for (size_t i = 0; i < a->size(); ++i)
      if (!allFinite((*a)[i], path + "[" + std::to_string(i) + "]", at))
        return false;
  }
  return true;
}

bool validateServingCommand(const std::vector<std::string> &paths,
                            const std::string &generator, double joulesPerFlop,
                            double joulesPerByte, std::string &report,
                            std::string &err) {
  std::vector<ServingObservation> obs;
  if (!formats::readObservations(paths, obs, err))
    return false;
  json::Array providers;
  providers.push_back(provider("token-law", tokenLawHoldout(obs)));
  providers.push_back(
      provider("flop-byte-uncalibrated",
               flopByteUncalibrated(obs, joulesPerFlop, joulesPerByte)));
  providers.push_back(
      provider("flop-byte-calibrated", flopByteCalibrated(obs)));
  // The same law with every weight counted as read (q_w = M_w / B_eff),
  // the mixture-of-experts models' routing ignored: what the expected read
  // (weightBytesRead) is measured against.
  std::vector<ServingObservation> everyWeight = obs;
  for (ServingObservation &o : everyWeight)
    o.expertBytes = 0;
  ValidationRun every = tokenLawHoldout(everyWeight);
  every.note = "Token-Energy Law as token-law, but with every weight "
               "counted as read at every iteration (q_w = M_w / (1e9 "
               "B_eff)), a mixture of experts' routing ignored";
  providers.push_back(provider("token-law-every-weight", every));
  // Mixtures of experts whose routing is not known count every weight as
  // read in token-law too: named.
  std::set<std::string> unknownRouting;
  for (const ServingObservation &o : obs)
    if (o.routingUnknown())
      unknownRouting.insert(o.model);
  json::Array unknownList;
  for (const std::string &m : unknownRouting) {
    llvm::errs() << "energy-prof: warning: validate-serving: "
                 << unknownRoutingNote(m) << "\n";
    unknownList.push_back(m);
  }
  // ML.ENERGY v2 gives a model's total parameters only: a mixture of
  // experts not known by name (runtime/formats/MlEnergy.cpp) is read as
  // dense, said once with the count.
  std::set<std::string> v2Dense;
  for (const ServingObservation &o : obs)
    if (o.dataset == "v2" && o.architecture == "dense")
      v2Dense.insert(o.model);
  json::Array v2DenseList;
  for (const std::string &m : v2Dense)
    v2DenseList.push_back(m);
  if (!v2Dense.empty())
    llvm::errs() << "energy-prof: warning: validate-serving: ML.ENERGY v2 "
                    "does not give a model's architecture: its "
                 << v2Dense.size()
                 << " model(s) not known by name as mixtures of experts are "
                    "taken as dense (listed in v2_taken_as_dense; a mixture "
                    "of experts among them would count every weight as "
                    "read without being said)\n";

  std::vector<PlannerCase> cases = plannerHoldout(obs);
  // The planner's choices with every weight counted as read, against its
  // own: in how many cases the expected read changes the cap chosen.
  std::vector<PlannerCase> everyCases = plannerHoldout(everyWeight);
  int64_t moeCases = 0, moeChanged = 0;
  for (size_t i = 0; i < cases.size() && i < everyCases.size(); ++i)
    if (cases[i].architecture == "moe") {
      ++moeCases;
      moeChanged += cases[i].chosenCap != everyCases[i].chosenCap;
    }
  std::map<std::string, std::vector<const PlannerCase *>> byGpu;
  for (const PlannerCase &c : cases)
    byGpu[c.dataset + "/" + c.gpu + "/" + c.architecture].push_back(&c);
  json::Array plannerRows;
  for (auto &kv : byGpu) {
    size_t within = 0, violations = 0, none = 0;
    std::vector<double> regrets;
    // The cases outside the target, each with what was chosen and what was
    // best, so that a miss can be looked at rather than only counted.
    json::Array misses;
    for (const PlannerCase *c : kv.second) {
      std::string why = c->missReason();
      bool ok = why.empty();
      if (!ok) {
        json::Object m{{"group", c->group},
                       {"slo_p90_itl_ms", c->sloS * 1e3},
                       {"why", why},
                       {"best_cap", c->bestCap},
                       {"best_J_per_token", c->bestE},
                       {"predicted_p90_itl_ms_at_best", c->bestPredP90 * 1e3},
                       {"predicted_J_per_token_at_best", c->bestPredE}};
        if (c->chosenCap >= 0) {
          m["chosen_cap"] = c->chosenCap;
          m["chosen_J_per_token"] = c->chosenE;
          m["chosen_meets_slo"] = c->chosenMeetsSlo;
          m["predicted_J_per_token_at_chosen"] = c->chosenPredE;
          m["regret"] = c->regret();
        }
        misses.push_back(std::move(m));
      }
      if (c->chosenCap < 0) {
        ++none;
        continue;
      }
      regrets.push_back(c->regret());
      within += ok;
      violations += !c->chosenMeetsSlo;
    }
    std::sort(regrets.begin(), regrets.end());
    json::Object o{{"key", kv.first},
                   {"cases", int64_t(kv.second.size())},
                   {"within_5pct_and_meets_slo", int64_t(within)},
                   {"slo_violations", int64_t(violations)},
                   {"no_recommendation", int64_t(none)}};
    if (!regrets.empty()) {
      o["median_regret"] = calculus::median(regrets);
      o["max_regret"] = regrets.back();
    }
    o["misses"] = std::move(misses);
    plannerRows.push_back(std::move(o));
  }
  // The record is valid JSON (JsonQuote.h); were it not, null, not a crash.
  json::Value generated = nullptr;
  if (Expected<json::Value> g = json::parse(generator))
    generated = std::move(*g);
  else
    consumeError(g.takeError());
  json::Object doc{{"version", 1},
                   {"generator", std::move(generated)},
                   {"measurements", int64_t(obs.size())},
                   {"flop_byte_coefficients",
                    json::Object{{"joules_per_flop", joulesPerFlop},
                                 {"joules_per_weight_byte", joulesPerByte}}},
                   {"providers", std::move(providers)},
                   {"moe_routing_unknown", std::move(unknownList)},
                   {"v2_taken_as_dense", std::move(v2DenseList)},
                   {"planner", std::move(plannerRows)},
                   {"planner_every_weight",
                    json::Object{{"moe_cases", moeCases},
                                 {"moe_chosen_cap_differs", moeChanged}}}};
  json::Value value(std::move(doc));
  // JSON has no inf or nan: a figure that is not finite is refused whole
  // rather than written as a file no JSON reader takes.
  std::string at;
  if (!allFinite(value, "$", at)) {
    err = "validate-serving: the figure at " + at +
          " is not finite (the measurements make a fit degenerate)";
    return false;
  }
  report = formatv("{0:2}\n", value).str();
  return true;
}

bool servePlanCommand(const std::vector<std::string> &paths,
                      const std::string &model, const std::string &gpu, int tp,
                      int gpus, double sloMs,
                      const std::optional<std::string> &clockModel,
                      std::string &text, std::string &err) {
  std::vector<ServingObservation> obs;
  ServingRecommendation rec;
  SimGpu sim;
  if (clockModel && !simGpuForDevice(*clockModel, sim, err)) {
    err = "--clock-model: " + err;
    return false;
  }
  if (!formats::readObservations(paths, obs, err) ||
      !recommendServingCap(obs, model, gpu, tp, gpus, sloMs / 1e3, rec, err,
                           clockModel ? &sim : nullptr))
    return false;
  json::Object o{{"model", model},
                 {"gpu", gpu},
                 {"tp", tp},
                 {"slo_p90_itl_ms", sloMs},
                 {"batch_cap", rec.cap},
                 {"cap_measured", rec.capMeasured},
                 {"predicted_J_per_token", rec.predicted},
                 {"predicted_p90_itl_ms", rec.predictedP90 * 1e3},
                 {"cell", rec.cell},
                 {"measurements", int64_t(rec.measurements)}};
  // A mixture of experts' routing, as its weights read were counted (null:
  // not known, every weight counted as read).
  if (rec.architecture == "moe")
    o["moe_routing"] = rec.expertsPerToken > 0
                           ? json::Value(json::Object{
                                 {"routed_experts", rec.routedExperts},
                                 {"routing_from", rec.routingOf},
                                 {"experts_per_token", rec.expertsPerToken}})
                           : json::Value(nullptr);
  if (rec.halfWidth95 >= 0) {
    calculus::Interval ci = rec.interval95();
    o["ci95_J_per_token"] = json::Array{ci.lo, ci.hi};
    if (ci.clipped())
      o["ci95_unclipped_lo_J_per_token"] = ci.unclippedLo;
  }
  // An unmeasured cap's p90 from the interpolation's own errors.
  auto p90Interval = [&](double p90) {
    return json::Array{p90 * std::exp(rec.p90LogErrLo) * 1e3,
                       p90 * std::exp(rec.p90LogErrHi) * 1e3};
  };
  if (!rec.capMeasured && rec.hasP90Interval())
    o["ci95_p90_itl_ms"] = p90Interval(rec.predictedP90);
  if (rec.clock.mhz) {
    // SIMULATED: the measurements scaled by the simulated GPU's model.
    const ServingRecommendation::ClockChoice &k = rec.clock;
    json::Object clock{
        {"simulated_gpu", k.model},
        {"batch_cap", k.cap},
        {"sm_clock_mhz", k.mhz},
        {"predicted_J_per_token", k.predicted},
        {"predicted_J_per_token_low", k.predictedLow},
        {"predicted_p90_itl_ms", k.predictedP90 * 1e3},
        {"energy_vs_highest_clock", k.energyRatio},
        {"energy_vs_highest_clock_low", k.energyRatioLow},
        {"time_vs_highest_clock", k.timeRatio},
        {"saving_vs_batch_cap_alone", 1 - k.predicted / rec.predicted},
        {"saving_vs_batch_cap_alone_high", 1 - k.predictedLow / rec.predicted},
        // Measured less modelled, per GPU, at the cap and the highest clock
        // (null where the cap's mean power is not known).
        {"power_model_misses_per_gpu_W", k.meanPowerKnown()
                                             ? json::Value(k.missingPowerW)
                                             : json::Value(nullptr)},
        {"basis", kServingClockBasis},
        // Where clocks cannot be locked: the limit at the clock's mean
        // power, where the GPU can be set to it.
        {"mean_power_per_gpu_W", k.meanPowerW},
        {"power_limit_range_W",
         json::Array{k.minPowerLimitW, k.maxPowerLimitW}}};
    if (k.powerLimitW > 0) {
      clock["power_limit_W"] = k.powerLimitW;
      clock["power_limit_basis"] = kServingPowerLimitBasis;
    } else {
      clock["power_limit_W"] = nullptr;
      clock["power_limit_basis"] =
          k.mhz == k.highestMhz
              ? "the clock is the highest: the default power limit holds it"
              : "the mean power at the clock lies outside the simulated "
                "GPU's settable power limits: only a clock lock reaches it";
    }
    o["sm_clock"] = std::move(clock);
  }
  json::Array candidates;
  for (const auto &c : rec.candidates) {
    json::Object row{{"batch_cap", c.cap},
                     {"measured", c.measured},
                     {"p90_itl_ms", c.p90 * 1e3},
                     {"J_per_token", c.e}};
    if (!c.measured && rec.hasP90Interval())
      row["ci95_p90_itl_ms"] = p90Interval(c.p90);
    row["considered"] = c.excluded.empty();
    if (!c.excluded.empty())
      row["excluded"] = c.excluded;
    candidates.push_back(std::move(row));
  }
  o["candidates"] = std::move(candidates);
  if (!rec.notes.empty()) {
    json::Array notes;
    for (const std::string &n : rec.notes) {
      llvm::errs() << "energy-prof: warning: serve-plan: " << n << "\n";
      notes.push_back(n);
    }
    o["notes"] = std::move(notes);
  }
  text = formatv("{0:2}\n", json::Value(std::move(o))).str();
  return true;
}

} // namespace energy
