//===- TokenLaw.cpp - The Token-Energy Law for dense decode ---------------===//

#include "calculus/models/TokenLaw.h"

#include <Eigen/Dense>

#include <cmath>

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
  Eigen::Index n = Eigen::Index(rows.size());
  if (n <= p) {
    err = "need more rows than the law's four coefficients";
    return false;
  }
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    X(i, 0) = rows[i].qw;
    X(i, 1) = rows[i].qkv;
    X(i, 2) = rows[i].tau;
    X(i, 3) = 1;
    y(i) = rows[i].e;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
  if (qr.rank() < p) {
    err = "the design is rank deficient: the rows do not vary q_w, q_kv and "
          "tau independently";
    return false;
  }
  Eigen::VectorXd beta = qr.solve(y);
  Eigen::MatrixXd XtXinv = (X.transpose() * X).inverse();
  Eigen::VectorXd resid = y - X * beta;
  // HC3: (X'X)^-1 X' diag(u_i^2 / (1 - h_ii)^2) X (X'X)^-1.
  Eigen::MatrixXd meat = Eigen::MatrixXd::Zero(p, p);
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::VectorXd xi = X.row(i).transpose();
    double h = xi.dot(XtXinv * xi);
    double w = resid(i) / (1 - h);
    meat += w * w * xi * xi.transpose();
  }
  Eigen::MatrixXd cov = XtXinv * meat * XtXinv;
  for (int i = 0; i < p; ++i) {
    out.coef[i] = beta(i);
    for (int j = 0; j < p; ++j)
      out.cov[i * p + j] = cov(i, j);
  }
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
