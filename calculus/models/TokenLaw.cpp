//===- TokenLaw.cpp - The Token-Energy Law for dense decode ---------------===//

#include "calculus/models/TokenLaw.h"

#include "calculus/models/LinearFit.h"

#include <cmath>
#include <cstdio>

namespace energy {
namespace calculus {

double TokenLaw::predict(double qw, double qkv, double tau) const {
  return coef[0] * qw + coef[1] * qkv + coef[2] * tau + coef[3];
}

double TokenLaw::predictionVariance(double qw, double qkv, double tau) const {
  double x[4] = {qw, qkv, tau, 1};
  double v = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      v += x[i] * cov[i * 4 + j] * x[j];
  return std::max(0.0, v);
}

double TokenLaw::standardError(int i) const {
  return std::sqrt(std::max(0.0, cov[i * 4 + i]));
}

bool fitTokenLaw(const std::vector<TokenLawRow> &rows, TokenLaw &out,
                 std::string &err) {
  const int p = 4;
  if (rows.size() <= size_t(p)) {
    err = "need more rows than the law's four coefficients";
    return false;
  }
  std::vector<std::vector<double>> X;
  std::vector<double> y;
  for (const TokenLawRow &r : rows) {
    X.push_back({r.qw, r.qkv, r.tau, 1});
    y.push_back(r.e);
  }
  // A coordinate the same in every row moves with the intercept: named,
  // with why (a fixed workload's KV term is one number -- ML.ENERGY's
  // files identify no history length, docs/VALIDATION.md).
  const char *names[3] = {"q_w", "q_kv", "tau"};
  for (int j = 0; j < 3; ++j) {
    bool same = true;
    for (const std::vector<double> &x : X)
      same = same && x[j] == X.front()[j];
    if (same) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s is %g in every row", names[j],
                    X.front()[j]);
      err = std::string(buf) +
            ": its coefficient cannot be told apart from the intercept c "
            "(the law needs rows that vary q_w, q_kv and tau: several "
            "batches, history lengths and step times)";
      return false;
    }
  }
  LinearFit fit;
  if (!fitLinear(X, y, fit, err)) {
    if (err.find("rank deficient") != std::string::npos)
      err += " (the token law's q_w, q_kv and tau; a sweep whose tau is "
             "exactly the roofline of q_w and q_kv does not tell them apart)";
    return false;
  }
  for (int i = 0; i < p; ++i) {
    out.coef[i] = fit.coef[i];
    for (int j = 0; j < p; ++j)
      out.cov[i * p + j] = fit.cov[i * p + j];
  }
  out.residualVariance = fit.residualVariance;
  out.rows = rows.size();
  return true;
}

DecodeCoordinates decodeCoordinates(double weightBytes, double kvBytesPerToken,
                                    double batch, double meanHistory,
                                    double secondsPerOutput) {
  return {weightBytes / (1e9 * batch),
          kvBytesPerToken * (meanHistory + 1) / 1e9, secondsPerOutput};
}

} // namespace calculus
} // namespace energy
