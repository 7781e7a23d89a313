//===- Route.cpp - energy-prof route: compare routing policies ------------===//
//
// A thin caller: the fleet file's reader is runtime/formats/Fleet, the model,
// policies and Monte Carlo are calculus/Routing; this writes the report.
//
//===----------------------------------------------------------------------===//

#include "tools/energy-prof/Route.h"

#include "runtime/Progress.h"
#include "runtime/Version.h"
#include "runtime/formats/Fleet.h"
#include "runtime/formats/Svg.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
namespace rt = energy::calculus::routing;

namespace energy {

namespace {
json::Value num(double v) {
  if (std::isinf(v))
    return nullptr; // JSON has no infinity: null means "unbounded"
  return v;
}

json::Object stat(const rt::McStat &s) {
  double h = s.halfWidth95();
  return json::Object{{"mean", s.mean},
                      {"ci95", json::Array{s.mean - h, s.mean + h}},
                      {"sd", s.sd}};
}

json::Object fractions(const rt::Fleet &f, const std::vector<double> &p) {
  json::Object o;
  for (size_t i = 0; i < f.models.size(); ++i)
    o[f.models[i].name] = p[i];
  return o;
}

const char *kindName(rt::PolicyKind k) {
  switch (k) {
  case rt::PolicyKind::Static:
    return "static";
  case rt::PolicyKind::Myopic:
    return "myopic";
  case rt::PolicyKind::VarianceAware:
    return "variance-aware";
  }
  return "?";
}

/// Mean over the supply entries of a per-entry quantity (splits cycle with
/// the supply, so the long-run value is the plain average).
template <typename F>
double cycleMean(const std::vector<std::vector<double>> &splits, F &&f) {
  double s = 0;
  for (const auto &p : splits)
    s += f(p);
  return s / double(splits.size());
}
/// One policy's E[D_T] at each horizon: Monte Carlo mean and 95 % half
/// width, and the closed form.
struct HorizonCurve {
  std::string policy;
  std::vector<double> t, mean, half, predicted;
  double crossover = INFINITY; ///< T*, slots
};

/// The log-log plot of E[D_T] against the horizon (docs/ROUTING.md): per
/// policy the Monte Carlo means with their 95 % intervals (solid, with
/// points and bars) and the closed form (dashed); T* where it falls in the
/// range. Non-positive values have no place on a log axis and are left
/// out (an interval's lower end is clipped to the plot).
std::string horizonPlot(const std::vector<HorizonCurve> &curves,
                        uint64_t runs) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const HorizonCurve &c : curves)
    for (size_t k = 0; k < c.t.size(); ++k) {
      xlo = std::min(xlo, std::log10(c.t[k]));
      xhi = std::max(xhi, std::log10(c.t[k]));
      for (double v : {c.mean[k] - c.half[k], c.mean[k], c.mean[k] + c.half[k],
                       c.predicted[k]})
        if (v > 0) {
          ylo = std::min(ylo, std::log10(v));
          yhi = std::max(yhi, std::log10(v));
        }
    }
  if (!std::isfinite(ylo)) // nothing positive: an empty plot
    ylo = 0, yhi = 1;
  if (xhi - xlo < 1e-9)
    xlo -= 0.5, xhi += 0.5;
  if (yhi - ylo < 1e-9)
    ylo -= 0.5, yhi += 0.5;
  double padX = 0.05 * (xhi - xlo), padY = 0.08 * (yhi - ylo);
  const double W = 760, H = 460;
  svg::Axes ax{xlo - padX, xhi + padX, ylo - padY,   yhi + padY,
               88,         40,         W - 88 - 190, H - 40 - 62};
  ax.logX = ax.logY = true;
  static const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                  "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  std::string s =
      formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
              "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
              "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
              W, H)
          .str();
  s += "<style>.tick{fill:#444;font-size:11px}.label{fill:#222}</style>\n";
  s += formatv("<text x=\"{0}\" y=\"22\" class=\"title\" font-size=\"14\">"
               "E[D_T] against the horizon: Monte Carlo (95 % interval, {1} "
               "runs), closed form dashed</text>\n",
               ax.left, runs)
           .str();
  s += ax.frame("horizon T (slots)", "E[D_T] (J)");
  auto clipY = [&](double v) {
    return ax.Y(std::max(ax.y0, std::min(ax.y1, std::log10(v))));
  };
  for (size_t i = 0; i < curves.size(); ++i) {
    const HorizonCurve &c = curves[i];
    std::string colour = palette[i % std::size(palette)];
    std::string mc, cf;
    for (size_t k = 0; k < c.t.size(); ++k) {
      double x = ax.X(std::log10(c.t[k]));
      if (c.mean[k] > 0) {
        mc += formatv("{0},{1} ", x, ax.Y(std::log10(c.mean[k]))).str();
        double lo = c.mean[k] - c.half[k], hi = c.mean[k] + c.half[k];
        s += formatv("<line class=\"ci\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" "
                     "y2=\"{2}\" stroke=\"{3}\"/>\n",
                     x, lo > 0 ? clipY(lo) : ax.top + ax.h, clipY(hi), colour)
                 .str();
        s += formatv("<circle class=\"mc\" cx=\"{0}\" cy=\"{1}\" r=\"3\" "
                     "fill=\"{2}\"><title>{3}: T = {4} slots, E[D_T] = {5} "
                     "+- {6} J (closed form {7} J)</title></circle>\n",
                     x, ax.Y(std::log10(c.mean[k])), colour, svg::esc(c.policy),
                     uint64_t(c.t[k]), svg::num(c.mean[k]), svg::num(c.half[k]),
                     svg::num(c.predicted[k]))
                 .str();
      }
      if (c.predicted[k] > 0)
        cf += formatv("{0},{1} ", x, ax.Y(std::log10(c.predicted[k]))).str();
    }
    if (!mc.empty())
      s += formatv("<polyline class=\"mc\" points=\"{0}\" fill=\"none\" "
                   "stroke=\"{1}\" stroke-width=\"1.5\"/>\n",
                   mc, colour)
               .str();
    if (!cf.empty())
      s += formatv("<polyline class=\"closed-form\" points=\"{0}\" "
                   "fill=\"none\" stroke=\"{1}\" stroke-dasharray=\"5,4\"/>\n",
                   cf, colour)
               .str();
    if (std::isfinite(c.crossover) && c.crossover > 0 &&
        std::log10(c.crossover) > ax.x0 && std::log10(c.crossover) < ax.x1)
      s += formatv("<line class=\"crossover\" x1=\"{0}\" y1=\"{1}\" "
                   "x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" "
                   "stroke-dasharray=\"1,3\"><title>{4}: crossover T* = {5} "
                   "slots</title></line>\n",
                   ax.X(std::log10(c.crossover)), ax.top, ax.top + ax.h, colour,
                   svg::esc(c.policy), svg::num(c.crossover))
               .str();
    double ly = ax.top + 14 + 18 * double(i);
    s += formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                 "stroke=\"{3}\" stroke-width=\"1.5\"/><text x=\"{4}\" "
                 "y=\"{5}\" class=\"legend\">{6}</text>\n",
                 ax.left + ax.w + 14, ly, ax.left + ax.w + 38, colour,
                 ax.left + ax.w + 44, ly + 4, svg::esc(c.policy))
             .str();
  }
  s += "</svg>\n";
  return s;
}

} // namespace

bool routeCommand(const RouteOptions &opts, const std::string &generator,
                  RouteOutput &out, std::string &err) {
  formats::FleetFile ff;
  if (!formats::readFleet(opts.fleetFile, ff, err))
    return false;
  const rt::Fleet &fleet = ff.fleet;
  rt::McSettings st = ff.simulation;
  if (opts.horizon)
    st.horizon = *opts.horizon;
  if (opts.runs)
    st.runs = unsigned(*opts.runs);
  if (opts.seed)
    st.seed = *opts.seed;
  st.perTask = st.perTask || opts.perTask;
  std::vector<uint64_t> horizons = opts.horizons;
  std::sort(horizons.begin(), horizons.end());
  horizons.erase(std::unique(horizons.begin(), horizons.end()), horizons.end());
  if (!horizons.empty()) {
    if (horizons.front() < 1) {
      err = "--horizons must be positive";
      return false;
    }
    if (!opts.horizon)
      st.horizon = horizons.back();
    else if (horizons.back() > st.horizon) {
      err = "--horizons go past --horizon " + std::to_string(st.horizon);
      return false;
    }
  }
  st.checkpoints = horizons;
  double T = double(st.horizon);

  size_t n = ff.policies.size();
  std::vector<std::vector<std::vector<double>>> splits;
  if (!rt::resolvePolicies(fleet, ff.policies, ff.matchQualityOf, T, splits,
                           err)) {
    err = opts.fleetFile + ": " + err;
    return false;
  }

  std::vector<rt::McResult> mc(n);
  progress::Line line("route " + opts.fleetFile);
  for (size_t i = 0; i < n; ++i) {
    line.phase("policy '" + ff.policies[i].name + "' (" +
               std::to_string(i + 1) + "/" + std::to_string(n) + ")");
    if (progress::enabled())
      st.progress = [&](double f) { line.update(std::min(1.0, f), ""); };
    if (!rt::simulate(fleet, splits[i], st, mc[i], err))
      return false;
  }
  line.done();

  rt::Moments supply = rt::supplyMoments(fleet);
  json::Array policies;
  std::vector<HorizonCurve> curves;
  std::string csv, table;
  if (!horizons.empty())
    csv = "policy,horizon_slots,aux_mean_J,aux_ci95_J,aux_controlled_mean_J,"
          "aux_controlled_ci95_J,predicted_aux_J\n";
  table = formatv("{0,-20} {1,8} {2,12} {3,12} {4,22} {5,22}\n", "policy",
                  "quality", "mean C J", "C - B J", "aux D_T J (95% CI)",
                  "spill W_T J (95% CI)")
              .str();
  for (size_t i = 0; i < n; ++i) {
    const rt::Policy &p = ff.policies[i];
    const auto &s = splits[i];
    auto avg = [&](auto f) { return cycleMean(s, f); };
    double quality = rt::splitsMeanQuality(fleet, s);
    double meanC = avg([&](const std::vector<double> &x) {
      return rt::slotMoments(fleet, x).mean;
    });
    double varC = avg([&](const std::vector<double> &x) {
      return rt::slotMoments(fleet, x).var;
    });
    // The prediction averages the per-entry splits' moments; exact for one
    // split, the long-run approximation for a supply trace.
    rt::Prediction pr = rt::predictSplits(fleet, s, T);
    // drift: net supply per slot (the calculus' sign); the report gives the
    // net demand, mean C - mean B (positive: under-supply), as ROUTING.md.
    double drift = pr.drift, sigma = pr.sigma;
    // Regime over this horizon: fluctuation-dominated while T < T*.
    std::string regime =
        sigma == 0 && drift == 0
            ? "balanced (nothing fluctuates: supply meets demand exactly)"
        : T < pr.crossoverSlots
            ? "critical (fluctuation-dominated over the horizon)"
        : drift < 0 ? "under-supply (auxiliary energy grows linearly)"
        : std::isinf(fleet.reserveMaxJ)
            ? "over-supply (the unbounded reserve grows linearly)"
            : "over-supply (the reserve fills; baseline waste grows linearly)";
    json::Object o{
        {"name", p.name},
        {"kind", kindName(p.kind)},
        {"quality", quality},
        {"consumption_J",
         json::Object{{"mean", meanC}, {"sd", std::sqrt(varC)}}},
        {"critical_supply_J", meanC},
        {"net_demand_J_per_slot", drift == 0 ? 0.0 : -drift},
        {"crossover_slots", num(pr.crossoverSlots)},
        {"regime", regime},
        {"predicted", json::Object{{"aux_J", pr.auxJ}, {"spill_J", pr.spillJ}}},
        {"monte_carlo", json::Object{{"aux_J", stat(mc[i].aux)},
                                     {"spill_J", stat(mc[i].spill)}}}};
    if (p.kind == rt::PolicyKind::Myopic)
      o["prediction_error"] = p.predictionError;
    if (p.kind == rt::PolicyKind::VarianceAware) {
      o["lambda"] = p.lambda;
      if (ff.matchQualityOf[i] >= 0)
        o["quality_matches"] = ff.policies[ff.matchQualityOf[i]].name;
    }
    if (s.size() == 1)
      o["fractions"] = fractions(fleet, s.front());
    else {
      json::Array per;
      for (const auto &x : s)
        per.push_back(fractions(fleet, x));
      o["fractions_per_supply_slot"] = std::move(per);
    }
    if (i > 0) {
      // Paired: every policy saw the same random numbers.
      std::vector<double> d(st.runs);
      double mean = 0, ss = 0;
      for (unsigned r = 0; r < st.runs; ++r)
        mean += d[r] = mc[i].auxRuns[r] - mc[0].auxRuns[r];
      mean /= st.runs;
      for (double x : d)
        ss += (x - mean) * (x - mean);
      double h = 1.96 * std::sqrt(ss / (st.runs - 1) / st.runs);
      o["aux_minus_first_policy_J"] =
          json::Object{{"policy", ff.policies[0].name},
                       {"mean", mean},
                       {"ci95", json::Array{mean - h, mean + h}}};
    }
    if (!horizons.empty()) {
      json::Array at;
      std::vector<double> lx, ly, hx, hy;
      HorizonCurve &curve = curves.emplace_back();
      curve.policy = p.name;
      curve.crossover = pr.crossoverSlots;
      for (size_t c = 0; c < horizons.size(); ++c) {
        double t = double(horizons[c]);
        double predicted = rt::predictSplits(fleet, s, t).auxJ;
        // The net demand is a useful control variate where it drifts up
        // (under-supply) and the drift dominates (past the crossover); near
        // balance -- a drift of rounding size is critical supply -- or in
        // over-supply it only adds variance. Both estimates are unbiased:
        // there the narrower is reported, elsewhere the plain mean.
        const rt::McStat &a = mc[i].auxAt[c];
        const rt::McStat &cv =
            drift < 0 && t >= pr.crossoverSlots &&
                    mc[i].auxAtControlled[c].halfWidth95() < a.halfWidth95()
                ? mc[i].auxAtControlled[c]
                : a;
        csv += formatv("{0},{1},{2},{3},{4},{5},{6}\n", p.name, horizons[c],
                       a.mean, a.halfWidth95(), cv.mean, cv.halfWidth95(),
                       predicted)
                   .str();
        curve.t.push_back(t);
        curve.mean.push_back(cv.mean);
        curve.half.push_back(cv.halfWidth95());
        curve.predicted.push_back(predicted);
        at.push_back(json::Object{{"horizon_slots", int64_t(horizons[c])},
                                  {"aux_J", stat(a)},
                                  {"aux_controlled_J", stat(cv)},
                                  {"predicted_aux_J", predicted}});
        // Slopes a decade or more on either side of the crossover.
        if (t * 10 <= pr.crossoverSlots && a.mean > 0) {
          lx.push_back(t);
          ly.push_back(a.mean);
        } else if (t >= 10 * pr.crossoverSlots && cv.mean > 0) {
          hx.push_back(t);
          hy.push_back(cv.mean);
        }
      }
      o["horizons"] = std::move(at);
      if (lx.size() >= 2)
        o["log_log_slope_below_crossover"] = rt::logLogSlope(lx, ly);
      if (hx.size() >= 2)
        o["log_log_slope_above_crossover"] = rt::logLogSlope(hx, hy);
    }
    policies.push_back(std::move(o));
    auto ci = [](const rt::McStat &x) {
      return formatv("{0:F1} +- {1:F1}", x.mean, x.halfWidth95()).str();
    };
    table += formatv("{0,-20} {1,8:F4} {2,12:F2} {3,12:F4} {4,22} {5,22}\n",
                     p.name, quality, meanC, drift == 0 ? 0.0 : -drift,
                     ci(mc[i].aux), ci(mc[i].spill))
                 .str();
  }
  // The record is valid JSON (JsonQuote.h); were it not, null, not a crash.
  json::Value generated = nullptr;
  if (Expected<json::Value> g = json::parse(generator))
    generated = std::move(*g);
  else
    consumeError(g.takeError());
  json::Object doc{{"version", 1},
                   {"generator", std::move(generated)},
                   {"horizon_slots", int64_t(st.horizon)},
                   {"runs", int64_t(st.runs)},
                   {"seed", int64_t(st.seed)},
                   {"simulation", st.perTask ? "per-task" : "aggregate"},
                   {"supply_J", json::Object{{"mean", supply.mean},
                                             {"sd", std::sqrt(supply.var)}}},
                   {"reserve_capacity_J", num(fleet.reserveMaxJ)},
                   {"policies", std::move(policies)}};
  out.reportJson = formatv("{0:2}\n", json::Value(std::move(doc))).str();
  out.horizonsCsv = std::move(csv);
  if (!horizons.empty())
    out.horizonsSvg = horizonPlot(curves, st.runs);
  out.summary =
      formatv("{0} slots x {1} runs ({2}), mean supply {3:F2} J "
              "per slot\n",
              st.horizon, st.runs,
              st.perTask ? "every task drawn" : "aggregate draws", supply.mean)
          .str() +
      table;
  if (!horizons.empty() && !opts.horizon && st.horizon != ff.simulation.horizon)
    out.summary += formatv("note: the horizon is the largest of --horizons, "
                           "{0} slots, not the file's {1} (--horizon sets "
                           "it)\n",
                           st.horizon, ff.simulation.horizon)
                       .str();
  if (fleet.supplyJ.size() > 1)
    out.summary += "note: a supply trace: the closed forms treat it by its "
                   "mean (its cycle adds a bounded oscillation they ignore); "
                   "the variance-aware policy keeps one split and does not "
                   "follow the trace, the myopic one does\n";
  return true;
}

} // namespace energy
