//===- EnergyLens.cpp - EnergyLens closed-form inference energy -----------===//

#include "calculus/models/EnergyLens.h"

#include <Eigen/Dense>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include <cmath>
#include <limits>

namespace energy {
namespace calculus {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int P = EnergyLens::kParams;
enum { Ap, Bp, Ep, G1p, G2p, Ad, Bd, Ed, G1d, G2d, D1, D2 };
} // namespace

const char *const EnergyLens::kNames[P] = {
    "alpha_p", "beta_p", "eps_p",    "gamma1_p", "gamma2_p", "alpha_d",
    "beta_d",  "eps_d",  "gamma1_d", "gamma2_d", "delta_1",  "delta_2"};
// Exponents of B in [0, 2] (sublinear to quadratic amortization), of TP/PP
// in [-2, 2]; scales and offsets non-negative (energies).
const double EnergyLens::kLower[P] = {0, 0, 0, -2, -2, 0, 0, 0, -2, -2, 0, 0};
const double EnergyLens::kUpper[P] = {kInf, 2,    kInf, 2, 2,    kInf,
                                      2,    kInf, 2,    2, kInf, kInf};

double energyLens(const double *f, const EnergyLensRow &r) {
  double pre = f[Ap] * r.inputTokens / (std::pow(r.batch, f[Bp]) + f[Ep]) *
               std::pow(r.tp, f[G1p]) * std::pow(r.pp, f[G2p]);
  double dec = f[Ad] * r.maxTokens / (std::pow(r.batch, f[Bd]) + f[Ed]) *
               std::pow(r.tp, f[G1d]) * std::pow(r.pp, f[G2d]);
  return pre + dec + f[D1] * r.tp + f[D2] * r.pp;
}

double EnergyLens::predict(const EnergyLensRow &r) const {
  return energyLens(phi.data(), r);
}

namespace {
/// Gradient of Eq. 4 in the parameters, by central differences.
Eigen::VectorXd parameterGradient(const double *phi, const EnergyLensRow &r) {
  Eigen::VectorXd g(P);
  double f[P];
  std::copy(phi, phi + P, f);
  for (int i = 0; i < P; ++i) {
    double h = 1e-6 * std::max(std::fabs(phi[i]), 1e-3);
    f[i] = phi[i] + h;
    double up = energyLens(f, r);
    f[i] = phi[i] - h;
    double down = energyLens(f, r);
    f[i] = phi[i];
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

// MINUIT's change of variables: an unbounded u maps into [lo, hi].
double toBounded(int i, double u) {
  double lo = EnergyLens::kLower[i], hi = EnergyLens::kUpper[i];
  if (std::isinf(hi))
    return lo - 1 + std::sqrt(u * u + 1);
  return lo + (hi - lo) * (std::sin(u) + 1) / 2;
}
double toFree(int i, double x) {
  double lo = EnergyLens::kLower[i], hi = EnergyLens::kUpper[i];
  if (std::isinf(hi)) {
    double a = x - lo + 1;
    return std::sqrt(std::max(a * a - 1, 0.0));
  }
  double s = std::clamp(2 * (x - lo) / (hi - lo) - 1, -1.0, 1.0);
  return std::asin(s);
}

struct Residuals {
  using Scalar = double;
  enum {
    InputsAtCompileTime = Eigen::Dynamic,
    ValuesAtCompileTime = Eigen::Dynamic
  };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  const std::vector<EnergyLensRow> *rows;
  int inputs() const { return P; }
  int values() const { return int(rows->size()); }
  int operator()(const Eigen::VectorXd &u, Eigen::VectorXd &res) const {
    double f[P];
    for (int i = 0; i < P; ++i)
      f[i] = toBounded(i, u[i]);
    for (size_t k = 0; k < rows->size(); ++k) {
      const EnergyLensRow &r = (*rows)[k];
      res[Eigen::Index(k)] = (energyLens(f, r) - r.e) / r.e;
    }
    return 0;
  }
};

double rss(const std::vector<EnergyLensRow> &rows, const double *f) {
  double s = 0;
  for (const EnergyLensRow &r : rows) {
    double q = (energyLens(f, r) - r.e) / r.e;
    s += q * q;
  }
  return s;
}

/// With the exponents and offsets fixed, Eq. 4 is linear in (a_p, a_d,
/// delta_1, delta_2): a relative-residual least-squares start for them.
void linearStart(const std::vector<EnergyLensRow> &rows, double *f) {
  Eigen::MatrixXd X(Eigen::Index(rows.size()), 4);
  Eigen::VectorXd y = Eigen::VectorXd::Ones(Eigen::Index(rows.size()));
  for (size_t k = 0; k < rows.size(); ++k) {
    const EnergyLensRow &r = rows[k];
    double g[P];
    std::copy(f, f + P, g);
    g[D1] = g[D2] = 0;
    g[Ap] = 1, g[Ad] = 0;
    double xp = energyLens(g, r);
    g[Ap] = 0, g[Ad] = 1;
    double xd = energyLens(g, r);
    X.row(Eigen::Index(k)) << xp / r.e, xd / r.e, r.tp / r.e, r.pp / r.e;
  }
  Eigen::VectorXd c = X.colPivHouseholderQr().solve(y);
  f[Ap] = std::max(c[0], 1e-9);
  f[Ad] = std::max(c[1], 1e-9);
  f[D1] = std::max(c[2], 0.0);
  f[D2] = std::max(c[3], 0.0);
}
} // namespace

double EnergyLens::predictionVariance(const EnergyLensRow &r) const {
  Eigen::VectorXd g = parameterGradient(phi.data(), r);
  Eigen::Map<const Eigen::Matrix<double, P, P, Eigen::RowMajor>> C(cov.data());
  return g.dot(C * g);
}

std::array<double, EnergyLens::kParams>
EnergyLens::gradient(const EnergyLensRow &r) const {
  Eigen::VectorXd g = parameterGradient(phi.data(), r);
  std::array<double, kParams> out;
  for (int i = 0; i < P; ++i)
    out[size_t(i)] = g[i];
  return out;
}

double EnergyLens::standardError(int i) const {
  if (!identified(i))
    return kInf;
  return std::sqrt(std::max(cov[size_t(i * P + i)], 0.0));
}

bool EnergyLens::identified(int i) const {
  double part = 0;
  for (const auto &v : nullSpace)
    part += v[size_t(i)] * v[size_t(i)];
  return part < 1e-6;
}

int EnergyLens::unidentifiedAt(const EnergyLensRow &r) const {
  std::array<double, kParams> g = gradient(r);
  double norm = 0;
  for (double x : g)
    norm += x * x;
  norm = std::sqrt(norm);
  for (const auto &v : nullSpace) {
    double along = 0;
    for (int i = 0; i < P; ++i)
      along += v[size_t(i)] * g[size_t(i)];
    if (std::fabs(along) > 1e-6 * norm) {
      // The parameter that moves the prediction most along it.
      int worst = 0;
      for (int i = 1; i < P; ++i)
        if (std::fabs(v[size_t(i)] * g[size_t(i)]) >
            std::fabs(v[size_t(worst)] * g[size_t(worst)]))
          worst = i;
      return worst;
    }
  }
  return -1;
}

bool fitEnergyLens(const std::vector<EnergyLensRow> &rows, EnergyLens &out,
                   std::string &err) {
  if (rows.size() <= size_t(P)) {
    err = "energylens fit needs more than 12 rows, got " +
          std::to_string(rows.size());
    return false;
  }
  for (const EnergyLensRow &r : rows)
    if (!(r.e > 0) || !(r.batch >= 1) || !(r.tp >= 1) || !(r.pp >= 1) ||
        !(r.inputTokens >= 0) || !(r.maxTokens >= 0)) {
      err = "energylens rows need e > 0, batch, tp, pp >= 1 and token "
            "counts >= 0 (cell '" +
            r.cell + "')";
      return false;
    }
  double best = kInf;
  double bestPhi[P] = {};
  // Starts over the batch exponents and parallel scaling; each refines the
  // linear parameters first.
  for (double b : {0.3, 1.0})
    for (double bd : {0.3, 1.0})
      for (double g : {0.0, -0.5}) {
        double f[P] = {1, b, 1, g, 0, 1, bd, 1, g, 0, 0, 0};
        linearStart(rows, f);
        Eigen::VectorXd u(P);
        for (int i = 0; i < P; ++i)
          u[i] = toFree(i, f[i]);
        Residuals fun{&rows};
        Eigen::NumericalDiff<Residuals> nd(fun);
        Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> lm(nd);
        lm.parameters.maxfev = 4000;
        lm.parameters.xtol = 1e-12;
        lm.parameters.ftol = 1e-14;
        lm.minimize(u);
        for (int i = 0; i < P; ++i)
          f[i] = toBounded(i, u[i]);
        double s = rss(rows, f);
        if (std::isfinite(s) && s < best) {
          best = s;
          std::copy(f, f + P, bestPhi);
        }
      }
  if (!std::isfinite(best)) {
    err = "energylens fit did not converge from any start";
    return false;
  }
  std::copy(bestPhi, bestPhi + P, out.phi.begin());
  out.rows = rows.size();
  out.rmsRelative = std::sqrt(best / double(rows.size()));
  // Weighted least squares (weights 1/e^2): Cov = s^2 (J'J)^+, J the
  // Jacobian of the relative residuals. Directions the rows do not move at
  // all (J's null space: a TP exponent where every row has tp = 1) get no
  // variance from a pseudo-inverse, which would read as known exactly: a
  // parameter with a part in that null space is marked not identified
  // (infinite standard error), the pseudo-inverse still giving the
  // variance of every prediction the rows do determine.
  Eigen::MatrixXd J(Eigen::Index(rows.size()), P);
  for (size_t k = 0; k < rows.size(); ++k)
    J.row(Eigen::Index(k)) =
        parameterGradient(bestPhi, rows[k]).transpose() / rows[k].e;
  // The null space up to the Jacobian's own noise (central differences,
  // relative error ~1e-6 where a parameter sits at a bound of 0): its
  // columns scaled to unit length, so that the cut-off measures
  // collinearity (two overheads that only ever add up) rather than units;
  // a column of zeros (a TP exponent at tp = 1 everywhere) is a null
  // direction by itself. Directions back in parameter units, then made
  // orthonormal.
  Eigen::MatrixXd Js = J;
  Eigen::VectorXd scale = Eigen::VectorXd::Ones(P);
  std::vector<Eigen::VectorXd> null;
  for (int i = 0; i < P; ++i) {
    double norm = J.col(i).norm();
    if (norm > 0 && std::isfinite(norm)) {
      scale[i] = norm;
      Js.col(i) /= norm;
    } else {
      Js.col(i).setZero();
    }
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Js, Eigen::ComputeThinV);
  const Eigen::VectorXd &sv = svd.singularValues();
  double top = sv.size() ? sv[0] : 0;
  for (Eigen::Index k = 0; k < sv.size(); ++k)
    if (!(sv[k] > 1e-5 * top))
      null.push_back(svd.matrixV().col(k).cwiseQuotient(scale));
  out.nullSpace.clear();
  for (Eigen::VectorXd v : null) { // Gram-Schmidt
    for (const auto &u : out.nullSpace)
      v -= Eigen::Map<const Eigen::VectorXd>(u.data(), P).dot(v) *
           Eigen::Map<const Eigen::VectorXd>(u.data(), P);
    double n = v.norm();
    if (!(n > 1e-12))
      continue;
    std::array<double, P> d;
    for (int i = 0; i < P; ++i)
      d[size_t(i)] = v[i] / n;
    out.nullSpace.push_back(d);
  }
  double s2 = best / double(rows.size() - P);
  out.relativeResidualSd = std::sqrt(s2);
  Eigen::MatrixXd JtJ = J.transpose() * J;
  Eigen::MatrixXd C =
      s2 * JtJ.completeOrthogonalDecomposition().pseudoInverse();
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j)
      out.cov[size_t(i * P + j)] = C(i, j);
  return true;
}

} // namespace calculus
} // namespace energy
