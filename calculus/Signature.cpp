//===- Signature.cpp - Energy signatures and the three operators ----------===//

#include "calculus/Signature.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>

namespace energy {
namespace calculus {

//===----------------------------------------------------------------------===//
// DeviceSet
//===----------------------------------------------------------------------===//

void DeviceSet::insert(uint32_t id) {
  if (id < 64) {
    word0 |= uint64_t(1) << id;
    return;
  }
  size_t w = id / 64;
  if (extra.size() < w)
    extra.resize(w, 0);
  extra[w - 1] |= uint64_t(1) << (id % 64);
}

bool DeviceSet::contains(uint32_t id) const {
  if (id < 64)
    return (word0 >> id) & 1;
  size_t w = id / 64;
  return w <= extra.size() && ((extra[w - 1] >> (id % 64)) & 1);
}

bool DeviceSet::empty() const {
  return word0 == 0 &&
         std::all_of(extra.begin(), extra.end(), [](uint64_t w) { return !w; });
}

size_t DeviceSet::size() const {
  size_t n = __builtin_popcountll(word0);
  for (uint64_t w : extra)
    n += __builtin_popcountll(w);
  return n;
}

bool DeviceSet::operator==(const DeviceSet &o) const {
  if (word0 != o.word0)
    return false;
  size_t n = std::max(extra.size(), o.extra.size());
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = i < extra.size() ? extra[i] : 0;
    uint64_t b = i < o.extra.size() ? o.extra[i] : 0;
    if (a != b)
      return false;
  }
  return true;
}

bool DeviceSet::intersects(const DeviceSet &o) const {
  if (word0 & o.word0)
    return true;
  size_t n = std::min(extra.size(), o.extra.size());
  for (size_t i = 0; i < n; ++i)
    if (extra[i] & o.extra[i])
      return true;
  return false;
}

void DeviceSet::unite(const DeviceSet &o) {
  word0 |= o.word0;
  if (extra.size() < o.extra.size())
    extra.resize(o.extra.size(), 0);
  for (size_t i = 0; i < o.extra.size(); ++i)
    extra[i] |= o.extra[i];
}

std::vector<uint32_t> DeviceSet::ids() const {
  std::vector<uint32_t> out;
  for (uint32_t b = 0; b < 64; ++b)
    if ((word0 >> b) & 1)
      out.push_back(b);
  for (size_t i = 0; i < extra.size(); ++i)
    for (uint32_t b = 0; b < 64; ++b)
      if ((extra[i] >> b) & 1)
        out.push_back(uint32_t((i + 1) * 64 + b));
  return out;
}

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

Signature Signature::measured(double s, double T, double d, double varT,
                              double varD, DeviceSet devices) {
  Signature x;
  x.s = s;
  x.T = T;
  x.d = d;
  x.varT = varT;
  x.varD = varD;
  x.varE = s * s * varT + varD; // CALCULUS.md section 1
  x.clarkT = T;
  x.devices = std::move(devices);
  return x;
}

Signature Signature::idle(double s, double T, DeviceSet devices) {
  return measured(s, T, 0, 0, 0, std::move(devices));
}

double Signature::sigmaE() const { return std::sqrt(std::max(0.0, varE)); }

static bool badValue(double v) { return !(v >= 0) || !std::isfinite(v); }

CompositionError checkSignature(const Signature &a) {
  CompositionError e;
  const char *field = nullptr;
  double v = 0;
  if (badValue(a.s))
    field = "static power", v = a.s;
  else if (badValue(a.T))
    field = "time", v = a.T;
  else if (badValue(a.d))
    field = "dynamic energy", v = a.d;
  else if (badValue(a.varT))
    field = "variance of time", v = a.varT;
  else if (badValue(a.varD))
    field = "variance of dynamic energy", v = a.varD;
  if (field) {
    e.kind = CompositionError::Negative;
    std::ostringstream os;
    os << field << " must be finite and non-negative (Axiom P1); got " << v;
    e.message = os.str();
  }
  return e;
}

static std::string formatDevices(const DeviceSet &d) {
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (uint32_t id : d.ids()) {
    os << (first ? "" : ", ") << id;
    first = false;
  }
  os << "}";
  return os.str();
}

// Static powers are calibration constants; two operands "share" one when they
// agree to rounding.
static bool samePower(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// Section 2, sequential: T, d, var_T, var_E add; closure s' = (E - d') / T'.
Signature seq(const Signature &a, const Signature &b, CompositionError &err) {
  if (a.devices != b.devices) {
    err.kind = CompositionError::SeqDevices;
    err.message = "operands of seq must run on the same set of devices; got " +
                  formatDevices(a.devices) + " and " + formatDevices(b.devices);
  }
  Signature r;
  r.T = a.T + b.T;
  r.d = a.d + b.d;
  r.varT = a.varT + b.varT;
  r.varD = a.varD + b.varD;
  r.varE = a.varE + b.varE;
  r.clarkT = a.clarkT + b.clarkT;
  double e = a.E() + b.E();
  // Property 5.3 closure; equal static powers stay exact.
  if (a.s == b.s)
    r.s = a.s;
  else
    r.s = r.T > 0 ? (e - r.d) / r.T : std::max(a.s, b.s);
  // E[E_A + E_B] = E[E_A] + E[E_B]; Cov(E, T) = Cov(E_A, T_A) + Cov(E_B,
  // T_B) (independent operands), and Cov(E, T) = covUT + s var_T.
  r.excessE = a.excessE + b.excessE;
  r.covUT = a.covUT + a.s * a.varT + b.covUT + b.s * b.varT - r.s * r.varT;
  // Its devices stay at b's last operating point; a zero-time, zero-energy
  // b (an empty idle, which -canonicalize drops) leaves them at a's.
  r.exitOffset = (b.T > 0 || b.d > 0 ? b.exitPower() : a.exitPower()) - r.s;
  r.devices = a.devices;
  return r;
}

/// par and multi alike (CALCULUS.md section 3, "Mixed static powers"): with
/// U = E - b T for each operand, b the static power at which it waits for
/// the makespan (par: the shared s; multi: its exit power), E = U_A + U_B +
/// S max(T_A, T_B), S = b_A + b_B (multi) or s (par). Clark's moments of
/// the max and Cov(U_A, max) = Cov(U_A, T_A) Phi(a) give E[E] and Var(E);
/// for measured elements (U = d, covUT = 0, b = s) this is var_E = var_d_A
/// + var_d_B + S^2 Var(max) and E[E] = S E[max] + d.
static void composeMax(const Signature &a, double bA, const Signature &b,
                       double bB, double S, const MaxMoments &m, Signature &r) {
  // Cov(E, T) = covUT + s var_T; U = E - b T.
  auto covET = [](const Signature &x) { return x.covUT + x.s * x.varT; };
  auto varU = [&](const Signature &x, double bx) {
    return x.varE - 2 * bx * covET(x) + bx * bx * x.varT;
  };
  auto covUT = [&](const Signature &x, double bx) {
    return covET(x) - bx * x.varT;
  };
  double covUM = covUT(a, bA) * m.p1 + covUT(b, bB) * (1 - m.p1);
  r.varE =
      std::max(0.0, varU(a, bA) + varU(b, bB) + S * S * m.var + 2 * S * covUM);
  r.covUT = covUM + (S - r.s) * m.var;
  // E[U_X] - U_X(point) = excess_X - b_X (E[T_X] - T_X).
  r.excessE = a.excessE - bA * (a.clarkT - a.T) + b.excessE -
              bB * (b.clarkT - b.T) + S * (m.mean - r.T);
}

Signature repeatSeq(const Signature &a, uint64_t n) {
  Signature r = a;
  double k = double(n);
  r.T = k * a.T;
  r.d = k * a.d;
  r.varT = k * a.varT;
  r.varD = k * a.varD;
  r.varE = k * a.varE;
  r.clarkT = k * a.clarkT;
  r.excessE = k * a.excessE;
  r.covUT = k * a.covUT;
  return r;
}

// Section 2, same-device parallel: static power drawn once over the makespan;
// var_E = var_d_A + var_d_B + s^2 Var(max(T_A, T_B)).
Signature par(const Signature &a, const Signature &b, CompositionError &err) {
  if (a.devices != b.devices) {
    err.kind = CompositionError::ParDevices;
    err.message = "operands of par must share one device; got " +
                  formatDevices(a.devices) + " and " + formatDevices(b.devices);
  } else if (!samePower(a.s, b.s)) {
    err.kind = CompositionError::ParStaticPower;
    std::ostringstream os;
    os << "operands of par must share one static power; got " << a.s
       << " W and " << b.s << " W";
    err.message = os.str();
  }
  // Clark's method for a max of several: each operand's makespan is taken
  // as a Gaussian with Clark's running moments (clarkT, varT), so the
  // variance carried forward is that of the running max, not of a variable
  // centred on max(mu) (which made it depend on the operands' order).
  MaxMoments m = clarkMax(a.clarkT, a.varT, b.clarkT, b.varT);
  Signature r;
  r.s = a.s;
  r.T = std::max(a.T, b.T); // the paper's point prediction
  r.d = a.d + b.d;
  r.varT = m.var;
  r.varD = a.varD + b.varD;
  r.clarkT = m.mean;
  composeMax(a, r.s, b, r.s, r.s, m, r);
  // The device then stays at the later-ending operand's last point (on a
  // tie, to rounding, the higher of the two: par commutes).
  bool tie = std::fabs(a.T - b.T) <= 1e-9 * std::max(a.T, b.T);
  r.exitOffset = (tie         ? std::max(a.exitPower(), b.exitPower())
                  : b.T > a.T ? b.exitPower()
                              : a.exitPower()) -
                 r.s;
  r.devices = a.devices;
  return r;
}

// Section 2, cross-device parallel: each operand's devices wait for the
// makespan at their last element's static power (paper section 3.3, idle
// elements: an idle device stays at its element's operating point), so E =
// E_A + E_B + b_A (M - T_A) + b_B (M - T_B) with b the exit powers and M =
// max(T_A, T_B); for elements s' = s_A + s_B and var_E = var_d_A + var_d_B +
// (s_A + s_B)^2 Var(max(T_A, T_B)).
Signature multi(const Signature &a, const Signature &b, CompositionError &err) {
  if (a.devices.intersects(b.devices)) {
    err.kind = CompositionError::MultiOverlap;
    err.message = "operands of multi must run on disjoint device sets; got " +
                  formatDevices(a.devices) + " and " + formatDevices(b.devices);
  }
  MaxMoments m = clarkMax(a.clarkT, a.varT, b.clarkT, b.varT); // as in par
  Signature r;
  double bA = a.exitPower(), bB = b.exitPower(), S = bA + bB;
  r.T = std::max(a.T, b.T);
  r.d = a.d + b.d;
  double e = a.E() + b.E() + bA * (r.T - a.T) + bB * (r.T - b.T);
  // Property 5.3 closure; operands that wait at their own static power (every
  // element) give s_A + s_B exactly.
  if (a.exitOffset == 0 && b.exitOffset == 0)
    r.s = S;
  else
    r.s = r.T > 0 ? (e - r.d) / r.T : S;
  r.exitOffset = S - r.s;
  r.varT = m.var;
  r.varD = a.varD + b.varD;
  r.clarkT = m.mean;
  composeMax(a, bA, b, bB, S, m, r);
  r.devices = a.devices;
  r.devices.unite(b.devices);
  return r;
}

bool Composer::add(const Signature &x) {
  if (err)
    return false;
  dirty = true;
  if (op != Op::Seq) {
    // U = E - b T, b the power it waits at: par's shared s, multi's exit.
    double b = op == Op::Par ? x.s : x.exitPower();
    double covET = x.covUT + x.s * x.varT;
    mu.push_back(x.clarkT);
    var.push_back(x.varT);
    covUT.push_back(covET - b * x.varT);
    sumVarU += x.varE - 2 * b * covET + b * b * x.varT;
    sumShift += x.excessE - b * (x.clarkT - x.T);
    waitPower = op == Op::Par ? x.s : waitPower + b;
  }
  if (count++ == 0) {
    acc = x;
    return true;
  }
  switch (op) {
  case Op::Seq:
    acc = seq(acc, x, err);
    break;
  case Op::Par:
    acc = par(acc, x, err);
    break;
  case Op::Multi:
    acc = multi(acc, x, err);
    break;
  }
  return !err;
}

// CALCULUS.md section 3 for n operands: E = sum_i U_i + S M with M the max
// of the operands' times, so Var(E) = sum Var(U_i) + S^2 Var(M) + 2 S sum_i
// Cov(U_i, T_i) p_i, and E[E] - E() = sum_i (excess_i - b_i (E[T_i] - T_i))
// + S (E[M] - T): the binary rule (composeMax) with the n-ary max.
const Signature &Composer::result() const {
  if (!dirty)
    return finished;
  dirty = false;
  finished = acc;
  MaxMomentsN m;
  if (op == Op::Seq || count < 3 || err || !maxMomentsN(mu, var, m))
    return finished;
  double covUM = 0;
  for (size_t i = 0; i < m.p.size(); ++i)
    covUM += covUT[i] * m.p[i];
  double S = waitPower;
  finished.varT = m.var;
  finished.clarkT = m.mean;
  finished.varE = std::max(0.0, sumVarU + S * S * m.var + 2 * S * covUM);
  finished.covUT = covUM + (S - finished.s) * m.var;
  finished.excessE = sumShift + S * (m.mean - finished.T);
  return finished;
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

double normalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normalPdf(double x) {
  static const double invSqrt2Pi = 0.39894228040143267794;
  return invSqrt2Pi * std::exp(-0.5 * x * x);
}

// Clark (1961), "The greatest of a finite set of random variables", Eqs. for
// the first two moments of max of two independent Gaussians.
MaxMoments clarkMax(double mu1, double var1, double mu2, double var2) {
  double theta = std::sqrt(std::max(0.0, var1) + std::max(0.0, var2));
  // Deterministic, or so far apart that Phi(-a) < 1e-19 and phi(a) < 1e-18
  // are below double precision relative to the moments: the exact limit.
  if (theta == 0 || std::fabs(mu1 - mu2) > 9 * theta) {
    if (mu1 > mu2 || (mu1 == mu2 && var1 >= var2))
      return {mu1, theta == 0 ? 0 : var1, 1};
    return {mu2, theta == 0 ? 0 : var2, 0};
  }
  double a = (mu1 - mu2) / theta;
  double pa = normalCdf(a), pna = normalCdf(-a), fa = normalPdf(a);
  // The moments about mu2 (the means' difference is within 9 theta): the
  // raw E[M^2] - E[M]^2 cancels to nothing where theta is 1e-8 of the means
  // (two 1000 s operands of 10 us spread gave 0).
  double d1 = mu1 - mu2;
  double m1 = d1 * pa + theta * fa;
  double m2 = (d1 * d1 + var1) * pa + var2 * pna + d1 * theta * fa;
  return {mu2 + m1, std::max(0.0, m2 - m1 * m1), pa};
}

namespace {
/// The 16-point Gauss-Legendre rule on [-1, 1] (nodes by Newton's method
/// on P_16, once).
struct GaussLegendre16 {
  double x[16], w[16];
  GaussLegendre16() {
    const int n = 16;
    for (int i = 0; i < n; ++i) {
      double z = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 0;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1, p1 = 0;
        for (int k = 1; k <= n; ++k) {
          double p2 = p1;
          p1 = p0;
          p0 = ((2 * k - 1) * z * p1 - (k - 1) * p2) / k;
        }
        dp = n * (z * p0 - p1) / (z * z - 1);
        double dz = p0 / dp;
        z -= dz;
        if (std::fabs(dz) < 1e-16)
          break;
      }
      x[i] = z;
      w[i] = 2 / ((1 - z * z) * dp * dp);
    }
  }
};
} // namespace

bool maxMomentsN(const std::vector<double> &mu, const std::vector<double> &var,
                 MaxMomentsN &out) {
  size_t n = mu.size();
  out = MaxMomentsN();
  out.p.assign(n, 0);
  if (n == 0)
    return true;
  const double K = 8.5; // Phi(-8.5) ~ 1e-17: below double precision
  std::vector<double> sd(n);
  double L = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    sd[i] = std::sqrt(std::max(0.0, var[i]));
    L = std::max(L, mu[i] - K * sd[i]);
  }
  // The operands that can be the max, grouped where alike (a pipeline's
  // identical lanes: F = prod_g Phi_g^k_g), their means counted from L (so
  // that a microsecond spread on a 1000 s mean keeps its digits).
  std::vector<size_t> live;
  double U = L;
  for (size_t i = 0; i < n; ++i)
    if (mu[i] + K * sd[i] >= L) { // (>=: a spread below the mean's last
                                  // digit leaves mu + K sd == L)
      live.push_back(i);
      U = std::max(U, mu[i] + K * sd[i]);
    }
  std::sort(live.begin(), live.end(), [&](size_t a, size_t b) {
    return std::make_tuple(sd[a], mu[a], a) < std::make_tuple(sd[b], mu[b], b);
  });
  std::vector<double> m, s;
  std::vector<std::vector<size_t>> members;
  for (size_t i : live) {
    if (!members.empty() && sd[i] == s.back() && mu[i] - L == m.back()) {
      members.back().push_back(i);
      continue;
    }
    m.push_back(mu[i] - L);
    s.push_back(sd[i]);
    members.push_back({i});
  }
  size_t groups = m.size();
  if (groups > kMaxOperandsExact) {
    // Clark's pairwise fold in one order whatever the operands' (least
    // variance first, which errs least): the running max as a Gaussian,
    // each operand's chance of being the max the product of the fold's
    // Phi(a) after it.
    double rm = mu[live[0]], rv = var[live[0]];
    std::vector<double> keep(live.size(), 1); // Phi(a) of step k
    for (size_t k = 1; k < live.size(); ++k) {
      size_t i = live[k];
      MaxMoments c = clarkMax(rm, rv, mu[i], var[i]);
      keep[k] = c.p1;
      rm = c.mean;
      rv = c.var;
    }
    double after = 1; // the product of the later steps' Phi(a)
    for (size_t k = live.size(); k-- > 0;) {
      out.p[live[k]] = (k ? 1 - keep[k] : 1) * after;
      after *= keep[k];
    }
    out.mean = rm;
    out.var = rv;
    return true;
  }
  double width = U - L;
  if (!(width > 0)) { // every live operand a constant at L
    out.mean = L;
    out.p[live.front()] = 1;
    return true;
  }
  // Panels: broken at every constant (F jumps there) and around every
  // Gaussian group, then no wider than a 64th of the range.
  std::vector<double> cuts = {0, width};
  static const double ks[] = {-6, -4, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4, 6};
  for (size_t g = 0; g < groups; ++g) {
    if (s[g] == 0)
      cuts.push_back(m[g]);
    else
      for (double c : ks)
        cuts.push_back(m[g] + c * s[g]);
  }
  for (int i = 1; i < 64; ++i)
    cuts.push_back(width * i / 64);
  auto panels = [&](std::vector<double> c) {
    std::sort(c.begin(), c.end());
    std::vector<double> u;
    for (double x : c)
      if (x >= 0 && x <= width && (u.empty() || x > u.back()))
        u.push_back(x);
    return u;
  };
  static const GaussLegendre16 gl;
  // F and, per group, a member's density times the other operands' Phi.
  std::vector<double> Phi(groups), pg(groups, 0);
  auto at = [&](double y, bool wantP, double wy) {
    double logF = 0;
    size_t zeros = 0;
    for (size_t g = 0; g < groups; ++g) {
      double c = s[g] > 0 ? normalCdf((y - m[g]) / s[g]) : (y >= m[g] ? 1 : 0);
      Phi[g] = c;
      if (c > 0)
        logF += double(members[g].size()) * std::log(c);
      else
        zeros += members[g].size();
    }
    if (wantP)
      for (size_t g = 0; g < groups; ++g) {
        if (s[g] == 0)
          continue;
        double others =
            zeros - (Phi[g] == 0) > 0
                ? 0
                : std::exp(logF - (Phi[g] > 0 ? std::log(Phi[g]) : 0));
        pg[g] += wy * normalPdf((y - m[g]) / s[g]) / s[g] * others;
      }
    return zeros ? 0.0 : std::exp(logF);
  };
  // Sum of w f(y, w) over the Gauss-Legendre nodes of every panel.
  auto integrate = [&](const std::vector<double> &c, auto &&f) {
    double sum = 0;
    for (size_t j = 0; j + 1 < c.size(); ++j) {
      double a = c[j], h = (c[j + 1] - a) / 2;
      for (int q = 0; q < 16; ++q) {
        double w = h * gl.w[q];
        sum += w * f(a + h * (1 + gl.x[q]), w);
      }
    }
    return sum;
  };
  // Pass 1: E[M] - L = int_0^width (1 - F), and each p_i.
  double mean = integrate(
      panels(cuts), [&](double y, double w) { return 1 - at(y, true, w); });
  for (size_t g = 0; g < groups; ++g) {
    if (s[g] != 0) {
      for (size_t i : members[g])
        out.p[i] = pg[g];
      continue;
    }
    // A constant's chance of being the max: every other operand below it
    // (a tie among equal constants goes to the first).
    double p = 1;
    for (size_t h = 0; h < groups && p > 0; ++h)
      if (h != g)
        p *= s[h] > 0 ? std::pow(normalCdf((m[g] - m[h]) / s[h]),
                                 double(members[h].size()))
                      : (m[h] < m[g] ? 1 : 0);
    out.p[members[g].front()] = p;
  }
  // Pass 2: Var(M) = 2 int_{E[M]} (y - E[M]) (1 - F) + 2 int^{E[M]}
  // (E[M] - y) F, on panels also broken at E[M].
  cuts.push_back(mean);
  double v = integrate(panels(cuts), [&](double y, double) {
    double F = at(y, false, 0);
    return 2 * (y >= mean ? (y - mean) * (1 - F) : (mean - y) * F);
  });
  out.mean = L + mean;
  out.var = std::max(0.0, v);
  return true;
}

double normalQuantile(double p) {
  if (!(p > 0 && p < 1))
    return p == 0   ? -std::numeric_limits<double>::infinity()
           : p == 1 ? std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::quiet_NaN();
  // P. J. Acklam's rational approximation (relative error 1.15e-9) ...
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double dd[] = {7.784695709041462e-03, 3.224671290700398e-01,
                              2.445134137142996e+00, 3.754408661907416e+00};
  const double plow = 0.02425, phigh = 1 - plow;
  double x;
  if (p < plow) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((dd[0] * q + dd[1]) * q + dd[2]) * q + dd[3]) * q + 1);
  } else if (p <= phigh) {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
        q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((dd[0] * q + dd[1]) * q + dd[2]) * q + dd[3]) * q + 1);
  }
  // ... refined by Halley's method on the exact CDF.
  for (int i = 0; i < 2; ++i) {
    double e = normalCdf(x) - p;
    double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
    x = x - u / (1 + x * u / 2);
  }
  return x;
}

double twoSidedQuantile(double confidence) {
  return normalQuantile(0.5 + confidence / 2);
}

Interval predictionInterval(const Signature &sig, double confidence,
                            unsigned runs) {
  double c = twoSidedQuantile(confidence);
  double sigma = sig.sigmaE() / std::sqrt(double(runs ? runs : 1));
  // Around the expected energy: where parallel parts' times vary, a run's
  // energy is spread around s E[T] + d, not around the point prediction.
  double mean = sig.expectedE();
  Interval iv{mean - c * sigma, mean + c * sigma};
  if (iv.lo < 0) {
    iv.unclippedLo = iv.lo;
    iv.lo = 0;
  }
  return iv;
}

bool clearlyBetter(const Interval &a, const Interval &b) { return a.hi < b.lo; }

bool deviates(double ePred, double varPred, double eMeas, double varMeas,
              double confidence, double covariance) {
  double c = twoSidedQuantile(confidence);
  double var = std::max(0.0, varPred + varMeas - 2 * covariance);
  return std::fabs(ePred - eMeas) > c * std::sqrt(var);
}

} // namespace calculus
} // namespace energy
