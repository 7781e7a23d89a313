//===- Routing.cpp - The reserve-and-supply model and its policies --------===//
//
// Formulas and their sources are in Routing.h; derivations in
// docs/ROUTING.md.
//
//===----------------------------------------------------------------------===//

#include "calculus/Routing.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

namespace energy {
namespace calculus {
namespace routing {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

double phi(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * kPi); }
double Phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
/// log Phi(z) without underflow in the far left tail (Mills ratio).
double logPhi(double z) {
  if (z > -30)
    return std::log(Phi(z));
  return -0.5 * z * z - std::log(-z) - 0.5 * std::log(2 * kPi);
}

/// As short as it reads, but never equal to a different number (a sum of
/// 1.0000001 is not "1").
std::string num(double v) {
  std::ostringstream os;
  for (int digits = 6; digits <= 17; ++digits) {
    os.str("");
    os.precision(digits);
    os << v;
    if (!std::isfinite(v) || std::stod(os.str()) == v)
      break;
  }
  return os.str();
}

bool finiteNonNeg(double v) { return std::isfinite(v) && v >= 0; }
} // namespace

bool validateFleet(const Fleet &fleet, std::string &err) {
  if (fleet.models.empty()) {
    err = "$.models: the fleet has no models";
    return false;
  }
  for (size_t i = 0; i < fleet.models.size(); ++i) {
    const Endpoint &m = fleet.models[i];
    std::string w = "$.models[" + std::to_string(i) + "] ('" + m.name + "'): ";
    if (!finiteNonNeg(m.meanJ) || !finiteNonNeg(m.sdJ) ||
        !finiteNonNeg(m.sharedSdJ)) {
      err = w + "energies must be finite and non-negative";
      return false;
    }
    // 1e12 J (278 MWh) per task is a units mistake, not a task; beyond it
    // the slot variances overflow.
    if (m.meanJ > 1e12 || m.sdJ > 1e12 || m.sharedSdJ > 1e12) {
      err = w + "energies above 1e12 J per task";
      return false;
    }
    if (!(m.quality >= 0 && m.quality <= 1)) {
      err = w + "quality " + num(m.quality) + " is outside [0, 1]";
      return false;
    }
    if (m.serviceSlots < 1 || m.serviceSlots > 100000) {
      err = w + "service slots must be between 1 and 100000";
      return false;
    }
    if (fleet.family == Family::Gamma && m.sdJ > 0 && m.meanJ <= 0) {
      err = w + "a gamma energy needs a positive mean";
      return false;
    }
  }
  if (!(fleet.tasksPerSlot > 0) || !std::isfinite(fleet.tasksPerSlot) ||
      fleet.tasksPerSlot > 1e9) {
    err = "$.tasks_per_slot: tasks per slot must be positive and at most 1e9";
    return false;
  }
  if (fleet.supplyJ.empty()) {
    err = "$.supply_J: the supply is empty";
    return false;
  }
  for (size_t i = 0; i < fleet.supplyJ.size(); ++i)
    if (double b = fleet.supplyJ[i]; !finiteNonNeg(b) || b > 1e21) {
      err = "$.supply_J[" + std::to_string(i) + "]: supply " + num(b) +
            " J per slot: must be finite, "
            "non-negative and at most 1e21";
      return false;
    }
  if (!(fleet.reserveMaxJ > 0) ||
      (std::isfinite(fleet.reserveMaxJ) && fleet.reserveMaxJ > 1e24)) {
    err = "$.reserve.capacity_J: the reserve's capacity must be positive and "
          "at most 1e24 J (or "
          "unbounded)";
    return false;
  }
  if (!finiteNonNeg(fleet.reserveInitialJ) ||
      fleet.reserveInitialJ > fleet.reserveMaxJ) {
    err = "$.reserve.initial_J: the reserve's initial level must lie in [0, "
          "capacity]";
    return false;
  }
  return true;
}

Moments slotMoments(const Fleet &fleet, const std::vector<double> &p) {
  double n = fleet.tasksPerSlot, mean = 0, second = 0, idio = 0, shared = 0;
  for (size_t i = 0; i < fleet.models.size(); ++i) {
    const Endpoint &m = fleet.models[i];
    mean += p[i] * m.meanJ;
    second += p[i] * m.meanJ * m.meanJ;
    idio += p[i] * m.sdJ * m.sdJ;
    shared += p[i] * m.sharedSdJ;
  }
  double routing = 0;
  if (fleet.poissonArrivals)
    routing = n * second; // compound Poisson: Var(sum) = lambda E[e^2]
  else if (fleet.assignment == Assignment::Random)
    routing = n * std::max(0.0, second - mean * mean);
  return {n * mean, n * idio + n * n * shared * shared + routing};
}

Moments supplyMoments(const Fleet &fleet) {
  double mean = 0, var = 0, k = double(fleet.supplyJ.size());
  for (double b : fleet.supplyJ)
    mean += b;
  mean /= k;
  for (double b : fleet.supplyJ)
    var += (b - mean) * (b - mean);
  return {mean, var / k};
}

double splitQuality(const Fleet &fleet, const std::vector<double> &p) {
  double q = 0;
  for (size_t i = 0; i < fleet.models.size(); ++i)
    q += p[i] * fleet.models[i].quality;
  return q;
}

TaskEnergy tokenLinearEnergy(double promptJ, double outputJ,
                             const std::vector<std::pair<double, double>> &pl) {
  // Two passes (means, then centred sums) keep the variance accurate when
  // the lengths are large and nearly equal.
  double n = double(pl.size()), mp = 0, ml = 0;
  for (const auto &[p, l] : pl) {
    mp += p;
    ml += l;
  }
  mp /= n;
  ml /= n;
  double vp = 0, vl = 0, cpl = 0;
  for (const auto &[p, l] : pl) {
    vp += (p - mp) * (p - mp);
    vl += (l - ml) * (l - ml);
    cpl += (p - mp) * (l - ml);
  }
  double var = (promptJ * promptJ * vp + outputJ * outputJ * vl +
                2 * promptJ * outputJ * cpl) /
               n;
  return {promptJ * mp + outputJ * ml, std::sqrt(std::max(0.0, var))};
}

bool qualityFromLaw(const QualityLaw &law, double trainFlops,
                    double inferenceFlops, double &q, std::string &err) {
  if (!(trainFlops > 0) || !(inferenceFlops > 0) ||
      !std::isfinite(trainFlops) || !std::isfinite(inferenceFlops)) {
    err = "the quality law needs positive training and inference FLOPs";
    return false;
  }
  if (!finiteNonNeg(law.a) || !finiteNonNeg(law.b) ||
      !finiteNonNeg(law.alpha) || !finiteNonNeg(law.beta) ||
      !std::isfinite(law.qMax)) {
    err = "the quality law's coefficients must be finite and non-negative";
    return false;
  }
  q = law.qMax - law.a * std::pow(trainFlops, -law.alpha) -
      law.b * std::pow(inferenceFlops, -law.beta);
  if (!(q >= 0 && q <= 1)) {
    err = "the quality law gives " + num(q) + ", outside [0, 1]";
    return false;
  }
  return true;
}

double expectedRunningMax(double drift, double sigma, double t) {
  if (t <= 0)
    return 0;
  if (sigma <= 0)
    return std::max(0.0, drift * t);
  double st = sigma * std::sqrt(t);
  double a = drift * std::sqrt(t) / sigma;
  // sigma^2/(2 drift) * erf(a / sqrt 2): at drift -> 0 this tends to
  // sigma sqrt(t) phi(0) (erf(x) ~ 2x/sqrt(pi)); use the series there.
  double third = std::abs(a) < 1e-6 ? st / std::sqrt(2 * kPi) * (1 - a * a / 6)
                                    : sigma * sigma / (2 * drift) *
                                          std::erf(a / std::sqrt(2.0));
  return st * phi(a) + drift * t * Phi(a) + third;
}

double expectedExcessMax(double drift, double sigma, double t, double level) {
  if (level <= 0)
    return expectedRunningMax(drift, sigma, t);
  if (t <= 0)
    return 0;
  if (sigma <= 0)
    return std::max(0.0, drift * t - level);
  double st = sigma * std::sqrt(t), theta = 2 * drift / (sigma * sigma);
  auto tail = [&](double x) {
    double first = Phi((drift * t - x) / st);
    double second = std::exp(theta * x + logPhi((-x - drift * t) / st));
    return std::min(1.0, first + second);
  };
  // Past the upper limit the tail is below ~1e-30 (12 sd beyond the mean
  // path; for negative drift the exponential factor only shrinks it).
  double hi = std::max(level, drift * t) + 12 * st;
  if (drift < 0)
    hi = level + 12 * st + 40 * sigma * sigma / -drift;
  if (tail(level) < 1e-300)
    return 0;
  // Adaptive Simpson: the tail falls on the scale of sigma sqrt(t) or of
  // sigma^2 / (2 |drift|), which may be far shorter than [level, hi].
  std::function<double(double, double, double, double, double, double, int)>
      simpson = [&](double a, double b, double fa, double fm, double fb,
                    double whole, int depth) {
        double m = (a + b) / 2, lm = (a + m) / 2, rm = (m + b) / 2;
        double flm = tail(lm), frm = tail(rm);
        double left = (m - a) / 6 * (fa + 4 * flm + fm),
               right = (b - m) / 6 * (fm + 4 * frm + fb);
        double tol = 1e-12 * std::max(1.0, st);
        if (depth <= 0 || std::abs(left + right - whole) <= 15 * tol)
          return left + right + (left + right - whole) / 15;
        return simpson(a, m, fa, flm, fm, left, depth - 1) +
               simpson(m, b, fm, frm, fb, right, depth - 1);
      };
  // Split at geometric distances so that the start is resolved finely.
  double total = 0, a = level,
         scale = std::min(st, drift < 0 ? sigma * sigma / -drift : st);
  for (double w = scale / 64; a < hi; w *= 2) {
    double b = std::min(hi, a + w), fa = tail(a), fb = tail(b),
           fm = tail((a + b) / 2);
    total += simpson(a, b, fa, fm, fb, (b - a) / 6 * (fa + 4 * fm + fb), 40);
    a = b;
  }
  return total;
}

Rates reflectedRates(double mu, double var, double b) {
  if (!std::isfinite(b))
    return {std::max(0.0, -mu), 0}; // one barrier: the long-run aux rate only
  if (var <= 0)
    return {std::max(0.0, -mu), std::max(0.0, mu)};
  double x = 2 * mu * b / var;
  if (std::abs(x) < 1e-8)
    return {var / (2 * b) - mu / 2, var / (2 * b) + mu / 2};
  if (x > 700)
    return {0, mu};
  if (x < -700)
    return {-mu, 0};
  double e = std::expm1(x); // exp(theta b) - 1
  return {mu / e, mu * (e + 1) / e};
}

Prediction predict(const Fleet &fleet, const std::vector<double> &p,
                   double horizon, bool oneBarrierBounds) {
  return predictSplits(fleet, {p}, horizon, oneBarrierBounds);
}

Prediction predictSplits(const Fleet &fleet,
                         const std::vector<std::vector<double>> &splits,
                         double horizon, bool oneBarrierBounds) {
  // The splits cycle with the supply: over each cycle the consumption's
  // mean and variance per slot are the splits' averages.
  Moments c{0, 0}, b = supplyMoments(fleet);
  for (const std::vector<double> &p : splits) {
    Moments m = slotMoments(fleet, p);
    c.mean += m.mean / double(splits.size());
    c.var += m.var / double(splits.size());
  }
  Prediction out;
  out.drift = b.mean - c.mean;
  // A cycled supply trace is deterministic: its deviations from the mean sum
  // to zero over each cycle, so they add a bounded oscillation to the walk,
  // not variance that accumulates; the walk's variance is the consumption's.
  out.sigma = std::sqrt(c.var);
  out.crossoverSlots =
      out.drift == 0 ? kInf : out.sigma * out.sigma / (out.drift * out.drift);
  if (!std::isfinite(fleet.reserveMaxJ)) {
    // D_T is the running maximum of the demand-minus-supply walk beyond
    // what the initial reserve absorbs (Skorokhod reflection at 0).
    out.auxJ = expectedExcessMax(-out.drift, out.sigma, horizon,
                                 fleet.reserveInitialJ);
    out.spillJ = 0;
  } else {
    // A random walk overshoots each barrier by about rho sigma, rho =
    // -zeta(1/2)/sqrt(2 pi) = 0.5826 (Siegmund's corrected diffusion
    // approximation, 1979): the reserve acts as one rho sigma wider at each
    // end.
    double rho = 0.5826 * out.sigma;
    double width = fleet.reserveMaxJ + 2 * rho;
    Rates r = reflectedRates(out.drift, out.sigma * out.sigma, width);
    Transient tr = reflectedTransient(out.drift, out.sigma * out.sigma, width,
                                      fleet.reserveInitialJ + rho);
    double settled = horizon > 0 ? -std::expm1(-tr.relaxRate * horizon) : 0;
    double aux = r.aux * horizon + tr.auxOffset * settled;
    double spill = r.spill * horizon + tr.spillOffset * settled;
    // Bounds the two-barrier form can cross where one mode is not enough
    // (a reserve far larger than sigma, a start far from the barrier the
    // drift runs to): a capped reserve never holds more than an uncapped
    // one, so it draws at least the one-barrier walk's E[(M_T - R_0)^+]
    // (exact), and spills at least the supply walk's excess over the
    // headroom b - R_0; and no slot draws more than E[(C - B)^+] or
    // spills more than E[(B - C)^+] (a reserve of 0), which for a slot of
    // net supply N(mu, sigma^2) is sigma phi(z) -+ mu Phi(-+z), z = mu /
    // sigma.
    // The one-barrier bounds (two numerical integrals) are evaluated only
    // before the walk has long crossed the reserve (16 times its diffusive
    // and its drift crossing times): past that the two-barrier form is
    // settled and the bounds fall below it.
    double mu = out.drift, s = out.sigma;
    double lowAux = 0, lowSpill = 0;
    if (oneBarrierBounds && horizon < 16 * std::max(width * width / (s * s),
                                                    width / std::fabs(mu))) {
      lowAux = expectedExcessMax(-mu, s, horizon, fleet.reserveInitialJ);
      lowSpill = expectedExcessMax(mu, s, horizon,
                                   fleet.reserveMaxJ - fleet.reserveInitialJ);
    }
    double perSlotAux = std::max(0.0, -mu), perSlotSpill = std::max(0.0, mu);
    if (s > 0) {
      double z = mu / s;
      perSlotAux = s * phi(z) - mu * Phi(-z);
      perSlotSpill = s * phi(z) + mu * Phi(z);
    }
    out.auxJ = std::min(perSlotAux * horizon, std::max({0.0, lowAux, aux}));
    out.spillJ =
        std::min(perSlotSpill * horizon, std::max({0.0, lowSpill, spill}));
  }
  return out;
}

Transient reflectedTransient(double mu, double var, double b, double x) {
  // With generator L = (var/2) d^2/dx^2 + mu d/dx on [0, b], reflected, let
  // g solve L g = -aux (aux the lower regulator's long-run rate) with
  // g'(0) = 1, g'(b) = 0. Ito's formula for g(X_t) gives, for every T,
  //   E_x[L_T] = aux T + E_x[g(X_T)] - g(x),
  // and E_x[g(X_T)] -> E_pi[g] (the stationary mean). The upper regulator
  // follows from X_T = x + mu T + sigma W_T + L_T - U_T:
  //   E_x[U_T] = E_x[L_T] + mu T + x - E_x[X_T].
  // g' = C e^{-k y} - aux/mu with k = 2 mu / var, C = 1 + aux/mu; the
  // stationary density is k e^{k y} / (e^{k b} - 1).
  Transient t;
  if (!(b > 0) || !std::isfinite(b))
    return t; // no barriers to relax between
  x = std::min(std::max(x, 0.0), b);
  double k = 2 * mu / var, kb = k * b;
  if (!(var > 0) || !std::isfinite(kb)) {
    // No variance (or a drift that dwarfs it): the reserve moves straight
    // to the barrier the drift points at; the limits k -> +-inf.
    t.auxOffset = mu < 0 ? -x : 0;
    t.spillOffset = mu > 0 ? x - b : 0;
    t.relaxRate = kInf;
    return t;
  }
  double eg, gx, ex;
  if (std::fabs(kb) < 1e-2) {
    // Near mu = 0 the closed forms cancel: their series in s = k b to
    // second order (error about 1.5e-9 b at |s| = 1e-2; at s = 0, g = y -
    // y^2 / (2 b) and the stationary density is uniform).
    double s = kb, u = x / b;
    eg = b * (1.0 / 3 - s * s / 90);
    ex = b * (0.5 + s / 12);
    gx = b * (u - u * u / 2 + s * (u * u * u / 6 - u * u / 4) +
              s * s * (-u * u * u * u / 24 + u * u * u / 12 - u * u / 24));
  } else {
    // No exponent below is positive: large |k b| stays finite.
    double auxOverMu, c, kbOverEm1, meanX;
    if (kb > 0) {
      double q = std::exp(-kb), om = -std::expm1(-kb);
      auxOverMu = q / om;
      c = 1 / om;
      kbOverEm1 = kb * q / om;
      meanX = (kb - 1 + q) / (k * om);
      gx = c / k * -std::expm1(-k * x) - auxOverMu * x;
    } else {
      double e = std::exp(kb), em1 = std::expm1(kb);
      auxOverMu = 1 / em1;
      c = e / em1;
      kbOverEm1 = kb / em1;
      meanX = (e * (kb - 1) + 1) / (k * em1);
      // c (1 - e^{-k x}) / k = (e^{k b} - e^{k (b - x)}) / (k (e^{k b} - 1)).
      gx = (e - std::exp(k * (b - x))) / (k * em1) - auxOverMu * x;
    }
    // E_pi[e^{-k y}] = k b / (e^{k b} - 1).
    eg = c / k * (1 - kbOverEm1) - auxOverMu * meanX;
    ex = meanX;
  }
  t.auxOffset = eg - gx;
  t.spillOffset = t.auxOffset + x - ex;
  // The slowest mode of the reflected walk decays at the spectral gap
  // mu^2 / (2 var) + var pi^2 / (2 b^2).
  t.relaxRate = mu * mu / (2 * var) + var * kPi * kPi / (2 * b * b);
  return t;
}

namespace {
/// Myopic: maximize quality subject to predicted mean consumption = supply
/// (an LP over the simplex with one equality; its optimum has at most two
/// models, so enumerating vertices and pairs is exact). Out of range: the
/// closest the fleet can get, all on the lowest or highest-energy model.
std::vector<double> myopicSplit(const Fleet &fleet, double supply,
                                double predictionError) {
  size_t k = fleet.models.size();
  double target = supply / fleet.tasksPerSlot;
  std::vector<double> mhat(k);
  for (size_t i = 0; i < k; ++i)
    mhat[i] = (1 + predictionError) * fleet.models[i].meanJ;
  // Ties (equal quality at the same predicted mean) are spread evenly: a
  // means-only router cannot tell the tied splits apart, and their average
  // is optimal too (the LP's optimal set is convex).
  std::vector<double> best;
  double bestQ = -kInf, ties = 0;
  auto consider = [&](std::vector<double> p) {
    double q = splitQuality(fleet, p);
    if (q > bestQ + 1e-12) {
      bestQ = q;
      best = std::move(p);
      ties = 1;
    } else if (q >= bestQ - 1e-12) {
      ties += 1;
      for (size_t i = 0; i < best.size(); ++i)
        best[i] += (p[i] - best[i]) / ties;
    }
  };
  double tol = 1e-12 * std::max(1.0, std::abs(target));
  for (size_t i = 0; i < k; ++i) {
    if (std::abs(mhat[i] - target) <= tol) {
      std::vector<double> p(k, 0.0);
      p[i] = 1;
      consider(std::move(p));
    }
    for (size_t j = 0; j < k; ++j)
      if (mhat[i] < target - tol && mhat[j] > target + tol) {
        std::vector<double> p(k, 0.0);
        p[i] = (mhat[j] - target) / (mhat[j] - mhat[i]);
        p[j] = 1 - p[i];
        consider(std::move(p));
      }
  }
  if (!best.empty())
    return best;
  size_t lo = std::min_element(mhat.begin(), mhat.end()) - mhat.begin();
  size_t hi = std::max_element(mhat.begin(), mhat.end()) - mhat.begin();
  std::vector<double> p(k, 0.0);
  p[target < mhat[lo] ? lo : hi] = 1;
  return p;
}

/// Enumerates the simplex grid {p : p_i = c_i / n, sum c_i = n}.
template <typename F> void forEachGridPoint(size_t k, unsigned n, F &&f) {
  std::vector<unsigned> c(k, 0);
  std::vector<double> p(k);
  std::function<void(size_t, unsigned)> rec = [&](size_t i, unsigned left) {
    if (i + 1 == k) {
      c[i] = left;
      for (size_t j = 0; j < k; ++j)
        p[j] = double(c[j]) / n;
      f(p);
      return;
    }
    for (unsigned v = 0; v <= left; ++v) {
      c[i] = v;
      rec(i + 1, left - v);
    }
  };
  rec(0, n);
}

/// Number of grid points, C(n + k - 1, k - 1), saturating.
double gridSize(size_t k, unsigned n) {
  double s = 1;
  for (size_t j = 1; j < k; ++j)
    s = s * double(n + j) / double(j);
  return s;
}
} // namespace

bool validatePolicy(const Fleet &fleet, const Policy &policy,
                    std::string &field, std::string &err) {
  size_t k = fleet.models.size();
  switch (policy.kind) {
  case PolicyKind::Static: {
    field = "fractions";
    if (policy.fractions.size() != k) {
      err = std::to_string(policy.fractions.size()) + " fractions for " +
            std::to_string(k) + " models";
      return false;
    }
    double sum = 0;
    for (double f : policy.fractions) {
      if (!finiteNonNeg(f)) {
        err = "fractions must be non-negative";
        return false;
      }
      sum += f;
    }
    if (std::abs(sum - 1) > 1e-9) {
      err = "fractions sum to " + num(sum) + ", not 1";
      return false;
    }
    return true;
  }
  case PolicyKind::Myopic:
    field = "prediction_error";
    if (!(policy.predictionError > -1) ||
        !std::isfinite(policy.predictionError)) {
      err = "the prediction error must be a finite relative error above -1";
      return false;
    }
    return true;
  case PolicyKind::VarianceAware: {
    double bestQuality = 0;
    for (const Endpoint &m : fleet.models)
      bestQuality = std::max(bestQuality, m.quality);
    field = "quality_target";
    if (policy.qualityTarget > bestQuality + 1e-12) {
      err = "quality target " + num(policy.qualityTarget) +
            " is above what any split reaches (" + num(bestQuality) +
            ", the best model alone)";
      return false;
    }
    field = "lambda";
    if (!finiteNonNeg(policy.lambda)) {
      err = "lambda must be finite and non-negative";
      return false;
    }
    return true;
  }
  }
  return true;
}

bool resolvePolicy(const Fleet &fleet, const Policy &policy, double horizon,
                   const std::vector<std::vector<double>> &candidates,
                   std::vector<std::vector<double>> &splits, std::string &err) {
  size_t k = fleet.models.size();
  splits.clear();
  std::string field;
  if (!validatePolicy(fleet, policy, field, err)) {
    err = "policy '" + policy.name + "': " + err;
    return false;
  }
  switch (policy.kind) {
  case PolicyKind::Static:
    splits.push_back(policy.fractions);
    return true;
  case PolicyKind::Myopic:
    for (double b : fleet.supplyJ)
      splits.push_back(myopicSplit(fleet, b, policy.predictionError));
    return true;
  case PolicyKind::VarianceAware: {
    auto objective = [&](const std::vector<double> &p) {
      if (splitQuality(fleet, p) < policy.qualityTarget - 1e-12)
        return kInf;
      Prediction pr = predict(fleet, p, horizon, /*oneBarrierBounds=*/false);
      return pr.auxJ + policy.lambda * pr.spillJ;
    };
    std::vector<double> best;
    double bestJ = kInf;
    auto consider = [&](const std::vector<double> &p) {
      double j = objective(p);
      if (j < bestJ) {
        bestJ = j;
        best = p;
      }
    };
    // A grid over the simplex (at most ~40,000 points), then pairwise mass
    // transfers with a shrinking step from the best point.
    unsigned n = 1;
    while (n < 4000 && gridSize(k, n * 2) <= 40000)
      n *= 2;
    if (k <= 12)
      forEachGridPoint(k, n, consider);
    for (size_t i = 0; i < k; ++i) {
      std::vector<double> v(k, 0.0);
      v[i] = 1;
      consider(v);
    }
    for (const auto &c : candidates)
      if (c.size() == k)
        consider(c);
    if (best.empty()) {
      // Only a mix meets the target: start from the quality-maximizing
      // model and let the transfers below trade quality for energy.
      size_t top = 0;
      for (size_t i = 1; i < k; ++i)
        if (fleet.models[i].quality > fleet.models[top].quality)
          top = i;
      best.assign(k, 0.0);
      best[top] = 1;
      bestJ = objective(best);
    }
    for (double step = 1.0 / n; step > 1e-7; step /= 2) {
      bool moved = true;
      for (int guard = 0; moved && guard < 1000; ++guard) {
        moved = false;
        for (size_t i = 0; i < k; ++i)
          for (size_t j = 0; j < k; ++j) {
            if (i == j || best[i] <= 0)
              continue;
            std::vector<double> p = best;
            double d = std::min(step, p[i]);
            p[i] -= d;
            p[j] += d;
            double jv = objective(p);
            if (jv < bestJ * (1 - 1e-12)) {
              bestJ = jv;
              best = std::move(p);
              moved = true;
            }
          }
      }
    }
    splits.push_back(best);
    return true;
  }
  }
  err = "unknown policy kind";
  return false;
}

double splitsMeanQuality(const Fleet &fleet,
                         const std::vector<std::vector<double>> &splits) {
  double q = 0;
  for (const auto &p : splits)
    q += splitQuality(fleet, p);
  return splits.empty() ? 0 : q / double(splits.size());
}

bool resolvePolicies(const Fleet &fleet, const std::vector<Policy> &policies,
                     const std::vector<int> &matchQualityOf, double horizon,
                     std::vector<std::vector<std::vector<double>>> &splits,
                     std::string &err) {
  size_t n = policies.size();
  splits.assign(n, {});
  std::vector<std::vector<double>> candidates;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < n; ++i) {
      Policy p = policies[i];
      bool va = p.kind == PolicyKind::VarianceAware;
      if (va != (pass == 1))
        continue;
      int match = i < matchQualityOf.size() ? matchQualityOf[i] : -1;
      if (va && match >= 0)
        p.qualityTarget = splitsMeanQuality(fleet, splits[size_t(match)]);
      if (!resolvePolicy(fleet, p, horizon, candidates, splits[i], err)) {
        // Where in the fleet (the file's or the IR's JSON) the policy is.
        err = "$.policies[" + std::to_string(i) + "]: " + err;
        return false;
      }
      if (!va)
        for (const auto &s : splits[i])
          candidates.push_back(s);
    }
  return true;
}

double logLogSlope(const std::vector<double> &x, const std::vector<double> &y) {
  double n = double(x.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

} // namespace routing
} // namespace calculus
} // namespace energy
