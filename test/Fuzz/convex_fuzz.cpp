//===- convex_fuzz.cpp - libFuzzer target for the convex frontier ---------===//
//
// Coverage-guided fuzzing of calculus/ConvexFrontier: the bytes become a
// schedule (up to 24 tasks, 1-8 options each with times and energies over
// many orders of magnitude, arcs of both kinds with lags, releases, a
// static power). The sweep must return, within its work budget, and what
// it returns must hold: flows increasing, path lengths non-increasing, the
// bound non-increasing in the deadline and never above two real
// configurations (every task at its fastest option at the fastest
// makespan; every task at its least-energy option at that makespan).
// test/Fuzz/libfuzzer.sh builds it with -fsanitize=fuzzer,address,undefined.
//
//===----------------------------------------------------------------------===//

#include "calculus/ConvexFrontier.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace energy::calculus;

namespace {

struct Bytes {
  const uint8_t *p;
  size_t n, at = 0;
  uint8_t next() { return at < n ? p[at++] : 0; }
  /// A positive number from 1e-6 to 1e6 (two bytes: mantissa, exponent).
  double number() {
    double m = 1 + next() / 64.0;
    int e = int(next() % 13) - 6;
    return m * std::pow(10.0, e);
  }
};

[[noreturn]] void finding(const char *what, double a, double b) {
  std::fprintf(stderr, "finding: %s (%.17g vs %.17g)\n", what, a, b);
  std::abort();
}

/// The longest path under durations T (arcs i < j only, so in index order).
double makespan(const ConvexProblem &pb, const std::vector<double> &T) {
  size_t n = pb.tasks.size();
  std::vector<double> start(n, 0);
  double end = 0;
  for (size_t i = 0; i < n; ++i) {
    start[i] = pb.release.empty() ? 0 : pb.release[i];
    for (const ConvexArc &a : pb.arcs)
      if (a.to == i)
        start[i] = std::max(start[i], start[a.from] + a.lag +
                                          (a.startToStart ? 0 : T[a.from]));
    end = std::max(end, start[i] + T[i]);
  }
  return end;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in{data, size};
  size_t n = 1 + in.next() % 24;
  ConvexProblem pb;
  for (size_t i = 0; i < n; ++i) {
    size_t k = 1 + in.next() % 8;
    std::vector<std::pair<double, double>> o;
    for (size_t j = 0; j < k; ++j)
      o.push_back({in.number(), in.number()});
    std::sort(o.begin(), o.end());
    std::vector<double> T, d;
    for (auto [t, e] : o)
      if (T.empty() || (t > T.back() && e < d.back())) {
        T.push_back(t);
        d.push_back(e);
      }
    pb.tasks.push_back(ConvexHull(T, d));
    pb.release.push_back(in.next() % 4 == 0 ? in.number() : 0);
  }
  for (size_t j = 1; j < n; ++j)
    for (size_t i = 0; i < j; ++i) {
      uint8_t b = in.next();
      if (b % 3 == 0)
        pb.arcs.push_back({uint32_t(i), uint32_t(j), b % 7 == 0,
                           b % 5 == 0 ? in.number() : 0});
    }
  double P = in.next() % 3 ? in.number() : 0;

  ConvexFrontier cf;
  std::string err;
  if (!convexFrontier(pb, {}, nullptr, uint64_t(1) << 24, cf, err))
    finding(("a well-formed problem refused: " + err).c_str(), 0, 0);
  const auto &bp = cf.breakpoints;
  if (bp.empty())
    finding("no breakpoints", 0, 0);
  for (size_t k = 1; k < bp.size(); ++k) {
    if (!(bp[k].F >= bp[k - 1].F))
      finding("flow values decrease", bp[k - 1].F, bp[k].F);
    if (!(bp[k].L <= bp[k - 1].L * (1 + 1e-9)))
      finding("path lengths increase", bp[k - 1].L, bp[k].L);
  }
  // Two real configurations: every task at its fastest option, and every
  // task at its least-energy option, each at its own makespan.
  std::vector<double> fast(n), slow(n);
  double dFast = 0, dSlow = 0;
  for (size_t i = 0; i < n; ++i) {
    fast[i] = pb.tasks[i].T.back();
    slow[i] = pb.tasks[i].T.front();
    dFast += pb.tasks[i].d.back();
    dSlow += pb.tasks[i].d.front();
  }
  double Mf = makespan(pb, fast), Ms = makespan(pb, slow);
  if (std::abs(Mf - cf.fastest) > 1e-9 * std::max(1.0, Mf))
    finding("fastest makespan", Mf, cf.fastest);
  double atFast = cf.lowerBound(Mf, P), atSlow = cf.lowerBound(Ms, P);
  double tol = 1e-9 * (P * Ms + dFast + dSlow) + 1e-12;
  if (atFast > P * Mf + dFast + tol)
    finding("bound above the fastest configuration", atFast, P * Mf + dFast);
  if (atSlow > P * Ms + dSlow + tol)
    finding("bound above the least-energy configuration", atSlow,
            P * Ms + dSlow);
  double prev = INFINITY;
  for (int k = 0; k <= 8; ++k) {
    double D = Mf + (Ms - Mf) * k / 8.0;
    double lb = cf.lowerBound(D, P);
    if (std::isnan(lb) || lb > prev + tol)
      finding("bound increases with the deadline", prev, lb);
    prev = lb;
  }
  return 0;
}
