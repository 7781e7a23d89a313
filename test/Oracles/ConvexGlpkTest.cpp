//===- ConvexGlpkTest.cpp - the convex frontier against GLPK --------------===//
//
// The relaxation's exact frontier (calculus/ConvexFrontier.h) against an
// independent solver: each random problem is written as the primal linear
// program (hull epigraphs, start times, precedences, M <= D) in CPLEX LP
// format and solved by GLPK's glpsol (Debian's glpk-utils), a test oracle
// only. Run by convex-glpk.test, which finds glpsol and passes it in GLPSOL.

#include "calculus/ConvexFrontier.h"
#include "calculus/DagFrontier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace energy::calculus;

namespace {

struct Random {
  ConvexProblem pb;
  double P;
};

/// n tasks with 1-7 options each (Pareto, then hulled), random
/// finish-to-start and start-to-start arcs with lags, releases, and a
/// static power.
Random randomProblem(std::mt19937_64 &g, int n) {
  Random r;
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < n; ++i) {
    int k = 1 + int(g() % 7);
    std::vector<std::pair<double, double>> o;
    for (int j = 0; j < k; ++j)
      o.push_back({0.1 + 2 * u(g), 10 * u(g)});
    std::sort(o.begin(), o.end());
    std::vector<double> T, d;
    for (auto [t, e] : o)
      if (d.empty() || (e < d.back() && t > T.back())) {
        T.push_back(t);
        d.push_back(e);
      }
    r.pb.tasks.push_back(ConvexHull(T, d));
    r.pb.release.push_back(g() % 5 == 0 ? u(g) : 0);
    for (int j = 0; j < i; ++j)
      if (g() % 5 == 0) {
        bool ss = g() % 4 == 0;
        double lag = g() % 3 == 0 ? 0.3 * u(g) : 0;
        r.pb.arcs.push_back({uint32_t(j), uint32_t(i), ss, lag});
      }
  }
  r.P = g() % 3 == 0 ? 0 : 5 * u(g);
  return r;
}

/// The primal LP at deadline D solved by glpsol; NaN on failure.
double glpk(const char *glpsol, const Random &r, double D,
            const std::string &dir, int id) {
  const ConvexProblem &pb = r.pb;
  size_t n = pb.tasks.size();
  std::string lp = dir + "/p" + std::to_string(id) + ".lp",
              out = dir + "/p" + std::to_string(id) + ".out";
  std::ofstream f(lp);
  f.precision(17);
  f << "Minimize\n obj: " << r.P << " M";
  for (size_t i = 0; i < n; ++i)
    f << " + z" << i;
  f << "\nSubject To\n";
  for (size_t i = 0; i < n; ++i) {
    const ConvexHull &h = pb.tasks[i];
    f << " lo" << i << ": z" << i << " >= " << h.d[0] << "\n";
    // z >= the line through vertices k-1 and k: z + s t >= d_{k-1} + s T_{k-1}.
    for (size_t k = 1; k < h.T.size(); ++k) {
      double s = (h.d[k] - h.d[k - 1]) / (h.T[k - 1] - h.T[k]);
      f << " h" << i << "_" << k << ": z" << i << " + " << s << " t" << i
        << " >= " << h.d[k - 1] + s * h.T[k - 1] << "\n";
    }
    f << " end" << i << ": S" << i << " + t" << i << " - M <= 0\n";
  }
  for (size_t a = 0; a < pb.arcs.size(); ++a) {
    const ConvexArc &c = pb.arcs[a];
    f << " a" << a << ": S" << c.to << " - S" << c.from
      << (c.startToStart ? "" : " - t" + std::to_string(c.from))
      << " >= " << c.lag << "\n";
  }
  f << "Bounds\n M <= " << D << "\n";
  for (size_t i = 0; i < n; ++i) {
    const ConvexHull &h = pb.tasks[i];
    f << " " << h.T.back() << " <= t" << i << " <= " << h.T.front() << "\n";
    f << " S" << i << " >= " << pb.release[i] << "\n";
  }
  f << "End\n";
  f.close();
  std::string cmd =
      std::string(glpsol) + " --lp " + lp + " -o " + out + " > /dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0)
    return NAN;
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    // "Objective:  obj = 123.456 (MINimum)"
    auto at = line.find("obj = ");
    if (line.rfind("Objective:", 0) == 0 && at != std::string::npos)
      return std::strtod(line.c_str() + at + 6, nullptr);
  }
  return NAN;
}

TEST(ConvexFrontier, EqualsGlpkOnRandomDags) {
  const char *glpsol = std::getenv("GLPSOL");
  if (!glpsol || !*glpsol)
    GTEST_SKIP() << "run through convex-glpk.test (needs glpsol)";
  const char *tmp = std::getenv("ORACLE_DIR");
  std::string dir = tmp && *tmp ? tmp : ".";
  std::mt19937_64 g(20261201);
  int compared = 0;
  for (int c = 0; c < 40; ++c) {
    Random r = randomProblem(g, 4 + int(g() % 37));
    ConvexFrontier cf;
    std::string err;
    ASSERT_TRUE(convexFrontier(r.pb, {}, nullptr, 0, cf, err)) << err;
    ASSERT_TRUE(cf.complete);
    double slowest = cf.breakpoints.front().L;
    for (double w : {0.0, 0.1, 0.25, 0.5, 0.8, 1.0, 1.2}) {
      double D = cf.fastest + w * (slowest - cf.fastest);
      double ref = glpk(glpsol, r, D, dir, c);
      ASSERT_FALSE(std::isnan(ref)) << "glpsol failed on case " << c;
      double ours = cf.lowerBound(D, r.P);
      // glpsol prints the objective to 10 significant digits.
      EXPECT_NEAR(ours, ref, 1e-8 * std::abs(ref) + 1e-9)
          << "case " << c << " (" << r.pb.tasks.size()
          << " tasks) at D = " << D;
      ++compared;
    }
  }
  std::printf("compared %d deadlines with glpsol\n", compared);
}

} // namespace
