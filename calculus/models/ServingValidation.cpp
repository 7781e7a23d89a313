//===- ServingValidation.cpp - inference models against measurements ------===//

#include "calculus/models/ServingValidation.h"

#include "calculus/models/LinearFit.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace energy {
namespace calculus {

double routedExpertParams(double total, double active, int experts,
                          int perToken) {
  if (perToken <= 0 || experts <= perToken)
    return 0;
  return (total - active) / (1 - double(perToken) / experts);
}

std::string unknownRoutingNote(const std::string &model) {
  return "'" + model +
         "' is a mixture of experts whose routing (experts per layer, "
         "experts per token) is not known: every weight is counted as read "
         "at every iteration, which overstates the weights read at small "
         "batches (give its rows routed_experts and experts_per_token)";
}

double weightBytesRead(const ServingObservation &o, double batch) {
  if (o.expertBytes <= 0)
    return o.weightBytes;
  return o.weightBytes - o.expertBytes * std::pow(1 - o.expertShare, batch);
}

std::string servingGroup(const ServingObservation &o) {
  return o.dataset + "/" + o.task + "/" + o.model + "/" + o.gpu + "/tp" +
         std::to_string(o.tp) + "-ep" + std::to_string(o.ep) + "-dp" +
         std::to_string(o.dp) + "-g" + std::to_string(o.gpus);
}

namespace {
using Group = std::vector<const ServingObservation *>;

std::map<std::string, Group>
byGroup(const std::vector<ServingObservation> &obs) {
  std::map<std::string, Group> g;
  for (const ServingObservation &o : obs)
    g[servingGroup(o)].push_back(&o);
  for (auto &kv : g)
    // By cap, ties in input order (the pointers point into one vector).
    std::sort(kv.second.begin(), kv.second.end(), [](auto *a, auto *b) {
      return a->cap != b->cap ? a->cap < b->cap : a < b;
    });
  return g;
}

std::vector<double> lawColumns(const ServingObservation &o) {
  return {weightBytesRead(o, o.batch) / (1e9 * o.batch), o.tau, 1};
}

bool fitLaw(const Group &train, LinearFit &fit, std::string &err) {
  std::vector<std::vector<double>> X;
  std::vector<double> y;
  for (const ServingObservation *o : train) {
    X.push_back(lawColumns(*o));
    y.push_back(o->e);
  }
  return fitLinear(X, y, fit, err);
}

/// Linear interpolation of y against log x over sorted (x, y), continued
/// past either end along the end segment (a single point: constant).
double interpolate(const std::vector<std::pair<double, double>> &pts,
                   double x) {
  if (pts.size() == 1)
    return pts.front().second;
  size_t i = 1;
  while (i + 1 < pts.size() && x > pts[i].first)
    ++i;
  double a = std::log(pts[i - 1].first), b = std::log(pts[i].first);
  double t = (std::log(x) - a) / (b - a);
  return pts[i - 1].second + t * (pts[i].second - pts[i - 1].second);
}

/// The p90 latency at `cap` from the measured caps' (cap, log p90):
/// between two measured caps linear in the cap -- decode latency grows
/// about linearly with the batch (each iteration reads the weights once and
/// every sequence's KV cache; over the v3 cells' interior caps a linear
/// interpolation misses the measured p90 by 2.9 % (median), a power law
/// between them by 5.3 %, too high in 185 of 240); beyond the measured
/// caps continued along the end segment in log-log, which stays positive.
double latencyAt(const std::vector<std::pair<double, double>> &logP90,
                 double cap) {
  if (logP90.size() == 1 || cap <= logP90.front().first ||
      cap >= logP90.back().first)
    return std::exp(interpolate(logP90, cap));
  size_t i = 1;
  while (i + 1 < logP90.size() && cap > logP90[i].first)
    ++i;
  double a = logP90[i - 1].first, b = logP90[i].first;
  double t = (cap - a) / (b - a);
  double la = std::exp(logP90[i - 1].second), lb = std::exp(logP90[i].second);
  return la + t * (lb - la);
}

} // namespace

double median(std::vector<double> v) {
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ValidationRun tokenLawHoldout(const std::vector<ServingObservation> &obs) {
  ValidationRun run;
  run.note = "Token-Energy Law per (model, GPU, TP, workload): e = alpha q_w "
             "+ P_tau tau + c on every other batch setting, then the reverse, "
             "q_w the weights an iteration reads per token (a mixture of "
             "experts': the expected routed experts its tokens reach under "
             "uniform routing, where its routing is known); intervals from "
             "the relative residual variance pooled over the training halves "
             "of every cell of the same dataset, GPU and architecture";
  struct Fit {
    LinearFit fit;
    Group test;
    std::string pool;
  };
  std::vector<Fit> fits;
  std::map<std::string, std::pair<double, size_t>> pooled; // rss, dof
  for (auto &kv : byGroup(obs)) {
    const Group &g = kv.second;
    ++run.groups;
    Group half[2];
    for (size_t i = 0; i < g.size(); ++i)
      half[i % 2].push_back(g[i]);
    bool used = false;
    for (int h = 0; h < 2; ++h) {
      if (half[h].size() < 4 || half[1 - h].empty())
        continue;
      Fit f;
      std::string err;
      if (!fitLaw(half[h], f.fit, err))
        continue;
      used = true;
      f.test = half[1 - h];
      f.pool = g.front()->dataset + "/" + g.front()->gpu + "/" +
               g.front()->architecture;
      auto &[rss, dof] = pooled[f.pool];
      rss += f.fit.relativeRss;
      dof += f.fit.rows - f.fit.coef.size();
      fits.push_back(std::move(f));
    }
    if (!used)
      ++run.groupsSkipped;
  }
  // A held-out point's 95 % interval: e_hat +- t(dof) e_hat sigma_rel
  // sqrt(1 + h), h its leverage in its cell's fit (the classical OLS
  // prediction interval, with multiplicative errors whose variance is
  // pooled: 4-7 rows per cell leave 1-4 residual degrees of freedom, far too
  // few for a per-cell variance).
  for (const Fit &f : fits) {
    auto [rss, dof] = pooled[f.pool];
    double sigmaRel = dof ? std::sqrt(rss / double(dof)) : 0;
    for (const ServingObservation *o : f.test) {
      std::vector<double> x = lawColumns(*o);
      double pred = f.fit.predict(x);
      double hw = dof ? studentT975(dof) * std::fabs(pred) * sigmaRel *
                            std::sqrt(1 + f.fit.leverage(x))
                      : -1;
      run.predictions.push_back({o, pred, hw});
    }
  }
  return run;
}

ValidationRun flopByteUncalibrated(const std::vector<ServingObservation> &obs,
                                   double joulesPerFlop, double joulesPerByte) {
  ValidationRun run;
  run.note = "FLOP/byte accounting, fixed coefficients, no static power";
  std::map<std::string, bool> groups;
  for (const ServingObservation &o : obs) {
    groups[servingGroup(o)] = true;
    run.predictions.push_back({&o,
                               joulesPerFlop * o.flopsPerToken +
                                   joulesPerByte * o.weightBytes / o.batch,
                               -1});
  }
  run.groups = groups.size();
  return run;
}

ValidationRun flopByteCalibrated(const std::vector<ServingObservation> &obs) {
  ValidationRun run;
  run.note = "FLOP/byte accounting calibrated on one model per (dataset, "
             "task, GPU): e = s G tau + J_byte M_w / B + J_flop 2 P_active";
  std::map<std::string, std::map<std::string, Group>> cells;
  for (const ServingObservation &o : obs)
    cells[o.dataset + "/" + o.task + "/" + o.gpu][o.model].push_back(&o);
  auto cols = [](const ServingObservation &o) {
    return std::vector<double>{o.gpus * o.tau, o.weightBytes / o.batch,
                               o.flopsPerToken};
  };
  for (auto &cell : cells) {
    run.groups += cell.second.size();
    const Group *calib = nullptr;
    for (auto &m : cell.second)
      if (!calib || m.second.size() > calib->size())
        calib = &m.second;
    std::vector<std::vector<double>> X;
    std::vector<double> y;
    for (const ServingObservation *o : *calib) {
      X.push_back(cols(*o));
      y.push_back(o->e);
    }
    LinearFit fit;
    std::string err;
    if (cell.second.size() < 2 || !fitLinear(X, y, fit, err)) {
      run.groupsSkipped += cell.second.size();
      continue;
    }
    for (auto &m : cell.second) {
      if (&m.second == calib)
        continue;
      for (const ServingObservation *o : m.second) {
        std::vector<double> x = cols(*o);
        run.predictions.push_back(
            {o, fit.predict(x), fit.predictionHalfWidth95(x)});
      }
    }
  }
  return run;
}

std::vector<ErrorSummary> summarizeBy(const std::vector<HeldOut> &preds,
                                      std::string (*keyOf)(const HeldOut &)) {
  std::map<std::string, std::vector<const HeldOut *>> by;
  for (const HeldOut &h : preds)
    by[keyOf(h)].push_back(&h);
  std::vector<ErrorSummary> out;
  for (auto &kv : by) {
    ErrorSummary s;
    s.key = kv.first;
    std::vector<double> abs, widths;
    s.maxSigned = -INFINITY;
    for (const HeldOut *h : kv.second) {
      abs.push_back(std::abs(h->relErr()));
      s.maxSigned = std::max(s.maxSigned, h->relErr());
      if (h->halfWidth95 >= 0) {
        widths.push_back(h->halfWidth95 / h->obs->e);
        ++s.withInterval;
        s.covered += std::abs(h->predicted - h->obs->e) <= h->halfWidth95;
      }
    }
    s.n = abs.size();
    s.medianAbs = median(abs);
    s.maxAbs = *std::max_element(abs.begin(), abs.end());
    if (!widths.empty())
      s.medianRelHalfWidth = median(widths);
    out.push_back(s);
  }
  return out;
}

double recommendCap(const std::vector<const ServingObservation *> &train,
                    const std::vector<double> &candidates, double sloS,
                    double &predicted, double &halfWidth, std::string &err,
                    std::map<double, CapPrediction> *byCap,
                    std::vector<std::string> *notes,
                    std::map<double, std::string> *excluded) {
  LinearFit fit;
  if (!fitLaw(train, fit, err))
    return -1;
  // The interpolation tables, by cap whatever the rows' order; settings
  // measured more than once at one cap are averaged (in log space, as
  // they are interpolated) but for the latency: the largest p90 of the
  // cap's runs (one run over the SLO is a miss the mean would hide), at a
  // measured cap and, interpolated, between them. At a measured cap the
  // mean measured energy per token ranks it.
  struct AtCap {
    std::array<double, 3> logs{}; // sums of log batch, log tau; count
    double sumE = 0, worstP90 = 0;
    double m2 = 0; ///< Welford's sum of squared deviations of e from its mean
  };
  std::map<double, AtCap> at;
  for (const ServingObservation *o : train) {
    if (o->p90ItlS < 0) {
      err = "the planner needs the p90 inter-token latency of every "
            "setting (ML.ENERGY v2 does not record it; v3 does)";
      return -1;
    }
    AtCap &a = at[o->cap];
    a.logs[0] += std::log(o->batch);
    a.logs[1] += std::log(o->tau);
    // Welford: the mean before this row and after it.
    double meanBefore = a.logs[2] > 0 ? a.sumE / a.logs[2] : 0;
    a.logs[2] += 1;
    a.sumE += o->e;
    a.m2 += (o->e - meanBefore) * (o->e - a.sumE / a.logs[2]);
    a.worstP90 = std::max(a.worstP90, o->p90ItlS);
  }
  std::vector<std::pair<double, double>> batch, tau, p90;
  for (const auto &[cap, a] : at) {
    batch.push_back({cap, a.logs[0] / a.logs[2]});
    tau.push_back({cap, a.logs[1] / a.logs[2]});
    p90.push_back({cap, std::log(a.worstP90)});
  }
  const ServingObservation &ref = *train.front();
  auto columnsAt = [&](double cap) {
    ServingObservation o = ref;
    o.cap = cap;
    o.batch = std::exp(interpolate(batch, cap));
    o.tau = std::exp(interpolate(tau, cap));
    return lawColumns(o);
  };
  // The law's misses at the measured caps: between two measured caps a
  // prediction is corrected by their residuals interpolated against log cap
  // (held at the end caps' beyond them), so that the predictor passes
  // through the measurements and ranks a cap between them consistently
  // with them.
  std::vector<std::pair<double, double>> residual;
  // The worst miss relative to the measurement, and the cap whose rows the
  // fit misses most when they are left out (the deleted residual, e / (1 -
  // k h) for k rows of leverage h each): a far-off row (a unit slip, a
  // corrupted measurement) bends the whole fit, so the relative worst may
  // sit at a cap of small energy far from it.
  double worst = 0, worstCap = 0, largest = -1, largestCap = 0, largestE = 0,
         largestLaw = 0;
  for (const auto &[cap, a] : at) {
    double e = a.sumE / a.logs[2];
    double law = fit.predict(columnsAt(cap));
    residual.push_back({cap, e - law});
    if (std::abs(law - e) / e > worst) {
      worst = std::abs(law - e) / e;
      worstCap = cap;
    }
    // A far-off row pulls the fit toward itself, hiding much of its own
    // miss: the deleted residual undoes that.
    double h = std::min(a.logs[2] * fit.leverage(columnsAt(cap)), 1 - 1e-9);
    if (std::abs(law - e) / (1 - h) > largest) {
      largest = std::abs(law - e) / (1 - h);
      largestCap = cap;
      largestE = e;
      largestLaw = law;
    }
  }
  auto correction = [&](double cap) {
    if (cap <= residual.front().first)
      return residual.front().second;
    if (cap >= residual.back().first)
      return residual.back().second;
    return interpolate(residual, cap);
  };
  if (notes) {
    if (worst > 0.1) {
      char buf[512];
      int n = std::snprintf(buf, sizeof buf,
                            "the law fitted on this cell misses its own "
                            "measurements by up to %.0f %% (at cap %g)",
                            100 * worst, worstCap);
      // Named only where that cap's own miss is large too (a planted row
      // is missed by more than the note's 10 %; a high-energy cap that
      // the fit passes within a percent is no such row).
      if (largestCap != worstCap &&
          std::abs(largestLaw - largestE) > 0.1 * largestE)
        n += std::snprintf(buf + n, sizeof buf - n,
                           "; the cap it misses most when left out is %g "
                           "(%.4g J/token measured, %.4g fitted: a row that "
                           "far off bends the whole fit)",
                           largestCap, largestE, largestLaw);
      std::snprintf(buf + n, sizeof buf - n,
                    ": between measured caps its predictions, corrected by "
                    "those misses, are no more certain");
      notes->push_back(buf);
    }
  }
  double best = -1, bestE = INFINITY;
  std::vector<double> nonPositive;
  std::string outside;
  auto meanAt = [](const AtCap &a) { return a.sumE / a.logs[2]; };
  // A measured cap's p90 is its measurement itself (through exp(log p) it
  // may come back an ulp above: an SLO set at that p90 then refused it).
  auto p90At = [&](double cap) {
    auto measured = at.find(cap);
    return measured != at.end() ? measured->second.worstP90
                                : latencyAt(p90, cap);
  };
  for (double cap : candidates) {
    std::vector<double> x = columnsAt(cap);
    auto measured = at.find(cap);
    double latency = p90At(cap);
    double e = measured != at.end() ? meanAt(measured->second)
                                    : fit.predict(x) + correction(cap);
    if (byCap)
      (*byCap)[cap] = {latency, e, std::exp(interpolate(batch, cap)),
                       std::exp(interpolate(tau, cap))};
    if (latency > sloS) {
      if (excluded)
        (*excluded)[cap] = "over the SLO";
      continue;
    }
    if (!(e > 0)) {
      // The fitted law extrapolates to no energy at all: not a prediction.
      nonPositive.push_back(cap);
      if (excluded)
        (*excluded)[cap] = "no positive predicted energy";
      continue;
    }
    // Between two measured caps the measurements bound what the law may
    // claim: a prediction outside them is the law's curvature on few
    // points (four settings leave one residual degree of freedom), not a
    // measurement, and is not considered.
    if (measured == at.end()) {
      auto hi = at.upper_bound(cap);
      if (hi != at.end() && hi != at.begin()) {
        auto lo = std::prev(hi);
        double eLo = meanAt(lo->second), eHi = meanAt(hi->second);
        if (e < std::min(eLo, eHi) || e > std::max(eLo, eHi)) {
          char buf[160];
          std::snprintf(buf, sizeof buf,
                        "%scap %g: %.4g J/token outside its measured "
                        "neighbours' (cap %g: %.4g, cap %g: %.4g)",
                        outside.empty() ? "" : "; ", cap, e, lo->first, eLo,
                        hi->first, eHi);
          outside += buf;
          if (excluded)
            (*excluded)[cap] = "predicted energy outside its measured "
                               "neighbours'";
          continue;
        }
      }
    }
    if (e < bestE) {
      bestE = e;
      best = cap;
      predicted = e;
      halfWidth = fit.predictionHalfWidth95(x);
      // A cap measured in several runs: the 95 % prediction interval of one
      // more run from those runs alone (Student's t, n - 1 degrees of
      // freedom: mean +- t s sqrt(1 + 1/n)), not the law's, whose center
      // this is not.
      if (measured != at.end() && measured->second.logs[2] >= 2) {
        const AtCap &a = measured->second;
        double n = a.logs[2];
        halfWidth = studentT975(size_t(n) - 1) *
                    std::sqrt(a.m2 / (n - 1) * (1 + 1 / n));
      }
    }
  }
  // An unmeasured cap's latency is interpolated between its measured
  // neighbours': a guess the SLO's user should check (a cap chosen at
  // 23.6 ms under a 24 ms SLO measured 24.9 ms in a trial).
  if (notes && best >= 0 && !at.count(best)) {
    auto hi = at.upper_bound(best);
    if (hi != at.end() && hi != at.begin()) {
      auto lo = std::prev(hi);
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "cap %g was not measured: its p90 inter-token latency "
                    "(%.3g ms) and energy are interpolated between caps %g "
                    "(%.3g ms) and %g (%.3g ms); measure it before relying "
                    "on the SLO",
                    best, latencyAt(p90, best) * 1e3, lo->first,
                    lo->second.worstP90 * 1e3, hi->first,
                    hi->second.worstP90 * 1e3);
      notes->push_back(buf);
    }
  }
  if (notes && !outside.empty())
    notes->push_back("the law's predictions at unmeasured caps that lie "
                     "outside their measured neighbours are not considered: " +
                     outside);
  if (notes && !nonPositive.empty()) {
    std::string caps;
    for (double c : nonPositive) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s%g", caps.empty() ? "" : ", ", c);
      caps += buf;
    }
    notes->push_back("the law fitted on this cell, corrected by its misses "
                     "at the measured caps, predicts no positive energy per "
                     "token at cap " +
                     caps + ", which is not considered");
  }
  if (best < 0) {
    // What the SLO would need: the lowest latency predicted at any cap.
    double lowest = INFINITY, lowestAt = 0;
    for (double cap : candidates) {
      double latency = p90At(cap);
      if (latency < lowest) {
        lowest = latency;
        lowestAt = cap;
      }
    }
    char buf[192];
    if (lowest <= sloS)
      std::snprintf(buf, sizeof buf,
                    "no batch cap that meets the SLO has a positive predicted "
                    "energy per token (the law fitted on this cell does not "
                    "hold there)");
    else
      std::snprintf(buf, sizeof buf,
                    "no batch cap is predicted to meet the SLO: the lowest "
                    "p90 inter-token latency is %.6g ms (at cap %g)",
                    lowest * 1e3, lowestAt);
    err = buf;
  }
  return best;
}

std::vector<double>
p90InterpolationLogErrors(const std::vector<ServingObservation> &obs) {
  std::vector<double> out;
  for (auto &kv : byGroup(obs)) {
    // The worst p90 of each cap's runs, as the planner tables them.
    std::map<double, double> worst;
    for (const ServingObservation *o : kv.second)
      if (o->p90ItlS > 0)
        worst[o->cap] = std::max(worst[o->cap], o->p90ItlS);
    if (worst.size() < 3)
      continue;
    std::vector<std::pair<double, double>> table;
    for (auto [cap, p90] : worst)
      table.push_back({cap, std::log(p90)});
    for (size_t k = 1; k + 1 < table.size(); ++k) {
      std::vector<std::pair<double, double>> rest = table;
      rest.erase(rest.begin() + std::ptrdiff_t(k));
      out.push_back(table[k].second -
                    std::log(latencyAt(rest, table[k].first)));
    }
  }
  return out;
}

/// The empirical q-quantile of sorted `v` (linear between order
/// statistics).
static double quantile(const std::vector<double> &v, double q) {
  double at = q * double(v.size() - 1);
  size_t i = size_t(at);
  return i + 1 < v.size() ? v[i] + (at - double(i)) * (v[i + 1] - v[i]) : v[i];
}

/// "1 GPU", "4 GPUs".
static std::string gpuCount(int n) {
  return std::to_string(n) + (n == 1 ? " GPU" : " GPUs");
}

namespace {
bool recommendAtDefaultClocks(const std::vector<ServingObservation> &obs,
                              const std::string &model, const std::string &gpu,
                              int tp, int gpus, double sloS,
                              ServingRecommendation &out,
                              const ServingObservation *&row,
                              std::string &err) {
  if (tp < 1 || gpus < 0) {
    err = "the tensor parallel degree must be at least 1 and the GPU count "
          "0 (any) or more";
    return false;
  }
  // GPU names as the data writes them, whatever their case ("h100").
  auto sameGpu = [](const std::string &a, const std::string &b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower((unsigned char)x) ==
                    std::tolower((unsigned char)y);
           });
  };
  std::set<std::string> models, pairs, deployments;
  std::set<int> otherTps; // the same GPU (and count), another TP
  std::map<std::string, std::vector<const ServingObservation *>> cells;
  for (const ServingObservation &o : obs) {
    models.insert(o.model);
    if (o.model != model)
      continue;
    if (sameGpu(o.gpu, gpu) && o.tp != tp && (gpus <= 0 || o.gpus == gpus))
      otherTps.insert(o.tp);
    // With a GPU count asked for, the counts each (GPU, TP) was measured on
    // are what the user needs to choose from.
    pairs.insert(o.gpu + " with TP " + std::to_string(o.tp) +
                 (gpus > 0 ? " on " + gpuCount(o.gpus) : ""));
    if (!sameGpu(o.gpu, gpu) || o.tp != tp || (gpus > 0 && o.gpus != gpus))
      continue;
    std::string d = o.task + ": " + gpuCount(o.gpus) + " (EP " +
                    std::to_string(o.ep) + ", DP " + std::to_string(o.dp) + ")";
    deployments.insert(d);
    cells[servingGroup(o)].push_back(&o);
  }
  auto join = [](const std::set<std::string> &s) {
    std::string r;
    for (const std::string &x : s)
      r += (r.empty() ? "" : ", ") + x;
    return r;
  };
  if (!models.count(model)) {
    err = "no measurements of '" + model + "' (models: " + join(models) + ")";
    return false;
  }
  if (cells.empty()) {
    err = "no measurements of '" + model + "' on " + gpu + " with TP " +
          std::to_string(tp) + (gpus > 0 ? " on " + gpuCount(gpus) : "") +
          " (it was measured on " + join(pairs) + ")";
    return false;
  }
  if (cells.size() > 1) {
    // The GPU count tells the deployments apart only where they differ in
    // it; otherwise (one model measured on several tasks) only a file does.
    std::set<int64_t> counts;
    std::set<std::string> tasks;
    for (const auto &[group, rows] : cells) {
      counts.insert(rows.front()->gpus);
      tasks.insert(rows.front()->dataset + "/" + rows.front()->task);
    }
    bool byCount = counts.size() == cells.size(), byTask = tasks.size() > 1;
    err = "'" + model + "' on " + gpu + " with TP " + std::to_string(tp) +
          " was measured in several deployments (" + join(deployments) + "): " +
          (byCount && byTask ? "choose one by its GPU count (--gpus), or pass "
                               "one task's file"
           : byCount         ? "choose one by its GPU count (--gpus)"
                             : "pass one task's file");
    return false;
  }
  if (!(sloS > 0) || !std::isfinite(sloS)) {
    err = "the p90 inter-token latency SLO must be a positive number";
    return false;
  }
  const std::vector<const ServingObservation *> &group = cells.begin()->second;
  row = group.front();
  std::vector<double> caps;
  for (const ServingObservation *o : group)
    caps.push_back(o->cap);
  std::sort(caps.begin(), caps.end());
  const double lowest = caps.front(), highest = caps.back();
  for (double c = 1; c <= highest; c *= 2)
    if (c >= lowest)
      caps.push_back(c);
  std::sort(caps.begin(), caps.end());
  caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
  out = ServingRecommendation();
  out.measurements = group.size();
  out.cell = servingGroup(*group.front());
  out.architecture = group.front()->architecture;
  out.routedExperts = group.front()->routedExperts;
  out.expertsPerToken = group.front()->expertsPerToken;
  out.routingOf = group.front()->routingOf;
  out.gpus = group.front()->gpus;
  if (group.front()->routingUnknown())
    out.notes.push_back(unknownRoutingNote(model));
  // `--tp` defaults to 1: another TP's deployment is another answer.
  for (int other : otherTps)
    out.notes.push_back("'" + model + "' on " + gpu +
                        " was also measured with TP " + std::to_string(other) +
                        " (--tp " + std::to_string(other) +
                        "); this answer is for TP " + std::to_string(tp));
  if (group.size() < 4) {
    // Too few settings for the law (3 coefficients and its interval): the
    // measured caps alone, each ranked by its mean energy per token and the
    // largest p90 of its runs, as the law's path ranks a measured cap.
    // sum e, count, worst p90, sum batch, sum tau
    std::map<double, std::array<double, 5>> at;
    for (const ServingObservation *o : group) {
      if (o->p90ItlS < 0) {
        err = out.cell +
              ": the planner needs the p90 inter-token latency of every "
              "setting (ML.ENERGY v2 does not record it; v3 does)";
        return false;
      }
      std::array<double, 5> &a = at[o->cap];
      a[0] += o->e;
      a[1] += 1;
      a[2] = std::max(a[2], o->p90ItlS);
      a[3] += o->batch;
      a[4] += o->tau;
    }
    double lowestP90 = INFINITY, lowestAt = 0;
    for (const auto &[cap, a] : at) {
      double e = a[0] / a[1];
      bool meets = a[2] <= sloS;
      out.candidates.push_back({cap, true, a[2], e, meets ? "" : "over the SLO",
                                a[3] / a[1], a[4] / a[1]});
      if (meets && (out.cap < 0 || e < out.predicted)) {
        out.cap = cap;
        out.predicted = e;
        out.predictedP90 = a[2];
      }
      if (a[2] < lowestP90) {
        lowestP90 = a[2];
        lowestAt = cap;
      }
    }
    if (out.cap < 0) {
      char buf[192];
      std::snprintf(buf, sizeof buf,
                    "no measured batch cap meets the SLO: the lowest p90 "
                    "inter-token latency is %.6g ms (at cap %g)",
                    lowestP90 * 1e3, lowestAt);
      err = out.cell + ": " + buf;
      return false;
    }
    out.capMeasured = true;
    out.weightBytes = group.front()->weightBytes;
    out.tp = group.front()->tp;
    out.notes.push_back(
        std::to_string(group.size()) +
        " measured setting(s): too few to fit the law (3 coefficients and "
        "its interval need at least 4), so only the measured caps were "
        "ranked, by their measurements, and the answer has no interval");
    return true;
  }
  std::map<double, CapPrediction> predictions;
  std::map<double, std::string> excluded;
  out.cap = recommendCap(group, caps, sloS, out.predicted, out.halfWidth95, err,
                         &predictions, &out.notes, &excluded);
  if (out.cap < 0) {
    err = out.cell + ": " + err;
    return false;
  }
  out.predictedP90 = predictions[out.cap].p90;
  auto measuredCap = [&](double cap) {
    return std::any_of(group.begin(), group.end(),
                       [&](auto *o) { return o->cap == cap; });
  };
  out.capMeasured = measuredCap(out.cap);
  for (const auto &[cap, pe] : predictions)
    out.candidates.push_back(
        {cap, measuredCap(cap), pe.p90, pe.e,
         excluded.count(cap) ? excluded[cap] : std::string(), pe.batch,
         pe.tau});
  // How far the interpolated p90 may be off, from the interpolation's own
  // errors at the measured caps of every cell of these files.
  std::vector<double> errs = p90InterpolationLogErrors(obs);
  if (errs.size() >= 20) {
    std::sort(errs.begin(), errs.end());
    out.p90LogErrLo = quantile(errs, 0.025);
    out.p90LogErrHi = quantile(errs, 0.975);
    out.p90ErrorSamples = errs.size();
    if (!out.capMeasured) {
      char buf[320];
      std::snprintf(
          buf, sizeof buf,
          "cap %g's p90 inter-token latency has the 95 %% interval [%.3g, "
          "%.3g] ms (the interpolation's errors at the %zu interior measured "
          "caps of these files, pooled); the SLO (%.3g ms) is %s",
          out.cap, out.predictedP90 * std::exp(out.p90LogErrLo) * 1e3,
          out.predictedP90 * std::exp(out.p90LogErrHi) * 1e3,
          out.p90ErrorSamples, sloS * 1e3,
          sloS >= out.predictedP90 * std::exp(out.p90LogErrHi)
              ? "above it"
              : "inside it: the cap may miss it");
      out.notes.push_back(buf);
    }
  } else if (!out.capMeasured) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "cap %g was not measured and its p90 inter-token latency "
                  "has no interval: the files hold %zu interior measured "
                  "caps to measure the interpolation's errors at, and an "
                  "interval needs 20 (pass more cells' measurements, e.g. "
                  "the release's task file)",
                  out.cap, errs.size());
    out.notes.push_back(buf);
  }
  out.weightBytes = group.front()->weightBytes;
  out.tp = group.front()->tp;
  if (out.cap == highest && out.predictedP90 < sloS) {
    // The data, not the SLO, bounds the answer: a larger cap may meet the
    // SLO at less energy per token, but none was measured.
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "cap %g is the largest measured in this cell and its p90 "
                  "(%.3g ms) is below the SLO (%.3g ms): the data, not the "
                  "SLO, limits the cap; a larger one was not measured",
                  out.cap, out.predictedP90 * 1e3, sloS * 1e3);
    out.notes.push_back(buf);
  }
  return true;
}
} // namespace

bool recommendServingCap(const std::vector<ServingObservation> &obs,
                         const std::string &model, const std::string &gpu,
                         int tp, int gpus, double sloS,
                         ServingRecommendation &out, std::string &err,
                         const SimGpu *clockModel) {
  const ServingObservation *row = nullptr;
  if (!recommendAtDefaultClocks(obs, model, gpu, tp, gpus, sloS, out, row, err))
    return false;
  return !clockModel || chooseServingClock(out, *row, *clockModel, sloS, err);
}

bool chooseServingClock(ServingRecommendation &rec,
                        const ServingObservation &row, const SimGpu &gpu,
                        double sloS, std::string &err) {
  // The simulated GPU must be the measured one: "H100-SXM5" models the
  // data's "H100" (its family, a whole word), not its "B200", and an SXM
  // board not a PCIe or NVL one (other power, bandwidth and clocks).
  auto lower = [](std::string s) {
    for (char &ch : s)
      ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  std::string base = lower(gpu.name.substr(0, gpu.name.find('-')));
  std::string measured = lower(row.gpuModel.empty() ? row.gpu : row.gpuModel);
  bool sxm = lower(gpu.name).find("sxm") != std::string::npos;
  if (lower(row.gpu) != base ||
      (sxm && (measured.find("pcie") != std::string::npos ||
               measured.find("nvl") != std::string::npos))) {
    err = "the simulated GPU " + gpu.name + " is not the measurements' GPU '" +
          (row.gpuModel.empty() ? row.gpu : row.gpuModel) +
          "': its clocks would scale another GPU's measurements";
    return false;
  }
  const std::vector<int> clocks = gpu.clocks();
  const double G = std::max(row.gpus, 1), dp = std::max(row.dp, 1);
  ServingRecommendation::ClockChoice &best = rec.clock;
  best = ServingRecommendation::ClockChoice();
  best.model = gpu.name;
  for (const ServingRecommendation::Candidate &c : rec.candidates) {
    if (!c.excluded.empty())
      continue;
    if (!(c.batch > 0) || !(c.tau >= 0)) {
      err = rec.cell + ": cap " + std::to_string(int64_t(c.cap)) +
            " has no realized batch and time per token to model an "
            "iteration with";
      return false;
    }
    // Per GPU: the weights every token reads (all of a dense model's),
    // split over a replica's tp GPUs; a mixture of experts' routed experts
    // over the ep GPUs that hold them -- read by the tokens of every
    // replica they serve (ep beyond tp spans dp replicas), or of one.
    // An FP8 model's GEMMs at the FP8 peak: as many FLOPs of BF16 work in
    // 1 / fp8Speedup of the time.
    double flops =
        row.flopsPerToken * c.batch / G / (row.fp8 ? gpu.fp8Speedup : 1);
    double shared = row.weightBytes - row.expertBytes;
    double tp = std::max(row.tp, 1), ep = std::max(row.ep, 1);
    double tokens = ep > tp ? c.batch : c.batch / dp;
    double bytes = shared / tp + (weightBytesRead(row, tokens) - shared) / ep;
    // What the roofline kernel leaves of the measured iteration, in SM
    // cycles at the highest clock.
    double rest = std::max(0.0, c.batch * c.tau -
                                    gpu.kernelTime(flops, bytes, gpu.fmaxMhz));
    double cycles = rest * gpu.fmaxMhz * 1e6;
    auto at = [&](int mhz) {
      double V = gpu.voltage(mhz);
      double T = gpu.kernelTime(flops, bytes, mhz) + cycles / (mhz * 1e6);
      return std::pair<double, double>{
          T, gpu.staticRef * T + gpu.kernelDynamicEnergy(flops, bytes, mhz) +
                 gpu.ceff * V * V * cycles};
    };
    auto [T0, E0] = at(gpu.fmaxMhz);
    // The power the model misses: the measured mean power per GPU (energy
    // per token over time per token) less the model's at the highest
    // clock. Where it goes as the clock falls the measurements do not say,
    // so both accounts are kept: it scales as the model's own power does
    // (the energy ratio E / E0), or it holds at every clock, drawn over the
    // longer iteration (static-like: the board, memory refresh, links). The
    // choice is ranked by the higher of the two, the saving that holds
    // under either; the lower is the other end of the range. Where the
    // model draws more than measured, the held account takes the excess
    // off its static power, which it cannot take below zero: at most
    // staticRef (beyond it a fixed excess would cut the energy at a lower
    // clock without bound, to 0).
    double measuredW = c.tau > 0 ? c.e / (c.tau * G) : 0;
    double missingW = measuredW > 0 ? measuredW - E0 / T0 : 0;
    double heldW = std::max(missingW, -gpu.staticRef);
    for (int mhz : clocks) {
      auto [T, E] = at(mhz);
      double scaled = E / E0;
      double held = (E + heldW * T) / (E0 + heldW * T0);
      double hi = std::max(scaled, held), lo = std::min(scaled, held);
      double p90 = c.p90 * T / T0, e = c.e * hi;
      if (p90 > sloS || (best.mhz && e >= best.predicted))
        continue;
      best.mhz = mhz;
      best.cap = c.cap;
      best.predicted = e;
      best.predictedLow = c.e * lo;
      best.predictedP90 = p90;
      best.timeRatio = T / T0;
      best.energyRatio = hi;
      best.energyRatioLow = lo;
      best.missingPowerW = missingW;
      // Mean power per GPU: the predicted energy per token over the
      // predicted time per token (the cap's tau scaled as its p90 is).
      best.meanPowerW = measuredW * hi * T0 / T;
    }
  }
  if (!best.mhz) {
    err = rec.cell + ": no batch cap was considered at the default clocks";
    return false;
  }
  best.minPowerLimitW = gpu.minPowerLimit;
  best.maxPowerLimitW = gpu.tdp;
  best.highestMhz = gpu.fmaxMhz;
  // At the highest clock the default limit holds it: a limit at the mean
  // power would throttle the phases above it below the clock.
  if (best.mhz < gpu.fmaxMhz && best.meanPowerW >= gpu.minPowerLimit &&
      best.meanPowerW <= gpu.tdp)
    best.powerLimitW = best.meanPowerW;
  return true;
}

std::string PlannerCase::missReason() const {
  if (chosenCap < 0)
    return "no cap predicted to meet the SLO at a positive energy";
  if (!chosenMeetsSlo)
    return "latency predicted too low at the chosen cap";
  if (regret() <= 0.05)
    return "";
  if (bestPredP90 > sloS)
    return "latency predicted too high at the best cap";
  return "energy predicted lower at the chosen cap";
}

std::vector<PlannerCase>
plannerHoldout(const std::vector<ServingObservation> &obs) {
  std::vector<PlannerCase> out;
  for (auto &kv : byGroup(obs)) {
    const Group &g = kv.second;
    if (g.size() < 8 || g.front()->p90ItlS < 0)
      continue;
    Group train;
    std::vector<double> caps, p90s;
    for (size_t i = 0; i < g.size(); ++i) {
      if (i % 2 == 0)
        train.push_back(g[i]);
      caps.push_back(g[i]->cap);
      p90s.push_back(g[i]->p90ItlS);
    }
    std::vector<double> sorted = p90s;
    std::sort(sorted.begin(), sorted.end());
    // SLOs between measured latencies (the geometric midpoint of the two
    // sorted p90 values around the 25th, 50th and 75th percentile, and
    // 10 % above the largest): an SLO exactly at a measured value would
    // score the planner on the rounding of its latency prediction.
    auto between = [&](double q) {
      size_t i = std::min(sorted.size() - 2,
                          size_t(std::floor(q * double(sorted.size() - 1))));
      return std::sqrt(sorted[i] * sorted[i + 1]);
    };
    for (double slo :
         {between(0.25), between(0.5), between(0.75), 1.1 * sorted.back()}) {
      PlannerCase c;
      c.group = kv.first;
      c.dataset = g.front()->dataset;
      c.gpu = g.front()->gpu;
      c.architecture = g.front()->architecture;
      c.sloS = slo;
      for (const ServingObservation *o : g)
        if (o->p90ItlS <= slo && (c.bestCap < 0 || o->e < c.bestE)) {
          c.bestCap = o->cap;
          c.bestE = o->e;
        }
      double pred = 0, hw = 0;
      std::string err;
      std::map<double, CapPrediction> byCap;
      c.chosenCap = recommendCap(train, caps, slo, pred, hw, err, &byCap);
      c.bestPredP90 = byCap[c.bestCap].p90;
      c.bestPredE = byCap[c.bestCap].e;
      if (c.chosenCap >= 0) {
        c.chosenPredP90 = byCap[c.chosenCap].p90;
        c.chosenPredE = byCap[c.chosenCap].e;
      }
      for (const ServingObservation *o : g)
        if (o->cap == c.chosenCap) {
          c.chosenE = o->e;
          c.chosenMeetsSlo = o->p90ItlS <= slo;
        }
      out.push_back(c);
    }
  }
  return out;
}

} // namespace calculus
} // namespace energy
