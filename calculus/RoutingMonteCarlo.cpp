//===- RoutingMonteCarlo.cpp - Simulating the reserve-and-supply walk -----===//
//
// Paths of the routing model (Routing.h): per slot either one draw for the
// slot's aggregate consumption with the exact moments of slotMoments, or
// every task drawn, routed and spread over its service slots. Run r draws
// from its own xoshiro256** stream seeded from (seed, r) by splitmix64, so
// results depend neither on the thread count nor on the policy (paired
// comparisons share their random numbers).
//
//===----------------------------------------------------------------------===//

#include "calculus/Random.h"
#include "calculus/Routing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

namespace energy {
namespace calculus {
namespace routing {

namespace {
using calculus::Rng;

/// A slot aggregate (or a task) with mean m and variance v drawn from the
/// family: normal, or the gamma with shape m^2/v and scale v/m.
struct Draw {
  double mean = 0, sd = 0;
  bool gamma = false;
  std::gamma_distribution<double> g;
  Draw() = default;
  Draw(double m, double v, Family f) : mean(m), sd(std::sqrt(v)) {
    gamma = f == Family::Gamma && v > 0 && m > 0;
    if (gamma)
      g = std::gamma_distribution<double>(m * m / v, v / m);
  }
  double operator()(Rng &rng) {
    if (gamma)
      return g(rng);
    return sd > 0 ? mean + sd * rng.normal() : mean;
  }
};

struct SlotPlan {
  Draw aggregate;      ///< aggregate mode: the non-shared part
  double sharedSd = 0; ///< n sum p_i c_i (normal, common to the slot)
  std::vector<double> cumulative; ///< per-task mode: routing
  std::vector<double> p;
};

struct RunOut {
  double aux = 0, spill = 0;
  std::vector<double> auxAt;
  std::vector<double> netAt; ///< sum of C_t - B_t up to each checkpoint
};

void runPath(const Fleet &fleet, std::vector<SlotPlan> &plans,
             const McSettings &st, uint64_t run, RunOut &out) {
  Rng rng(st.seed, run);
  size_t k = fleet.models.size(), nsup = fleet.supplyJ.size();
  std::vector<Draw> task(k);
  unsigned ring = 1;
  for (size_t i = 0; i < k; ++i) {
    const Endpoint &m = fleet.models[i];
    task[i] = Draw(m.meanJ, m.sdJ * m.sdJ, fleet.family);
    ring = std::max(ring, m.serviceSlots);
  }
  std::vector<double> pending(ring, 0.0); // energy due in slot t + j
  std::vector<double> credit(k, 0.0);     // proportional assignment
  std::poisson_distribution<long> arrivals(fleet.tasksPerSlot);
  long fixedCount = long(std::llround(fleet.tasksPerSlot));
  double r = fleet.reserveInitialJ, rmax = fleet.reserveMaxJ, d = 0, w = 0,
         net = 0;
  size_t nextCheckpoint = 0;
  out.auxAt.assign(st.checkpoints.size(), 0.0);
  out.netAt.assign(st.checkpoints.size(), 0.0);
  for (uint64_t t = 0; t < st.horizon; ++t) {
    size_t s = nsup == 1 ? 0 : t % nsup;
    SlotPlan &plan = plans[plans.size() == 1 ? 0 : s];
    double c;
    if (!st.perTask) {
      c = plan.aggregate(rng);
      if (plan.sharedSd > 0)
        c += plan.sharedSd * rng.normal();
    } else {
      double z = rng.normal(); // the slot's common factor
      long count = fleet.poissonArrivals ? arrivals(rng) : fixedCount;
      for (long j = 0; j < count; ++j) {
        size_t i = 0;
        if (fleet.assignment == Assignment::Random) {
          double u = rng.uniform();
          while (i + 1 < k && u >= plan.cumulative[i])
            ++i;
        } else {
          for (size_t q = 0; q < k; ++q)
            credit[q] += plan.p[q];
          i = std::max_element(credit.begin(), credit.end()) - credit.begin();
          credit[i] -= 1;
        }
        const Endpoint &m = fleet.models[i];
        double e = task[i](rng) + m.sharedSdJ * z;
        double share = e / m.serviceSlots;
        for (unsigned q = 0; q < m.serviceSlots; ++q)
          pending[(t + q) % ring] += share;
      }
      c = pending[t % ring];
      pending[t % ring] = 0;
    }
    net += c - fleet.supplyJ[s];
    double x = r + fleet.supplyJ[s] - c;
    if (x < 0) {
      d -= x;
      x = 0;
    } else if (x > rmax) {
      w += x - rmax;
      x = rmax;
    }
    r = x;
    while (nextCheckpoint < st.checkpoints.size() &&
           st.checkpoints[nextCheckpoint] == t + 1) {
      out.netAt[nextCheckpoint] = net;
      out.auxAt[nextCheckpoint++] = d;
    }
  }
  out.aux = d;
  out.spill = w;
}

McStat stat(const std::vector<double> &v) {
  McStat s;
  s.runs = unsigned(v.size());
  for (double x : v)
    s.mean += x;
  s.mean /= double(v.size());
  double ss = 0;
  for (double x : v)
    ss += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0;
  return s;
}
} // namespace

std::vector<double> standardNormals(uint64_t seed, size_t n) {
  Rng rng(seed, 0);
  std::vector<double> out(n);
  for (double &x : out)
    x = rng.normal();
  return out;
}

double McStat::halfWidth95() const {
  return runs ? 1.96 * sd / std::sqrt(double(runs)) : 0;
}

bool simulate(const Fleet &fleet,
              const std::vector<std::vector<double>> &splits,
              const McSettings &st, McResult &out, std::string &err) {
  if (!validateFleet(fleet, err))
    return false;
  if (st.runs < 2 || st.runs > 10000000) {
    err = "the number of runs must be between 2 and 1e7";
    return false;
  }
  if (st.horizon < 1 || st.horizon > (uint64_t(1) << 40)) {
    err = "the horizon must be between 1 and 2^40 slots";
    return false;
  }
  // About 4e6 slots a second on two cores (bench/RESULTS.md, session 20):
  // 1e10 is some 40 minutes.
  if (double(st.horizon) * st.runs > 1e10) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "horizon x runs = %.3g slots, above 1e10 (some 40 minutes "
                  "of simulation at 4e6 slots a second): lower --runs or "
                  "--horizon",
                  double(st.horizon) * st.runs);
    err = buf;
    return false;
  }
  if (!std::is_sorted(st.checkpoints.begin(), st.checkpoints.end()) ||
      (!st.checkpoints.empty() &&
       (st.checkpoints.front() < 1 || st.checkpoints.back() > st.horizon))) {
    err = "checkpoints must be increasing and within [1, horizon]";
    return false;
  }
  size_t k = fleet.models.size();
  if (splits.empty() ||
      (splits.size() != 1 && splits.size() != fleet.supplyJ.size())) {
    err = "one split, or one per supply entry, is needed";
    return false;
  }
  if (st.perTask && !fleet.poissonArrivals &&
      std::abs(fleet.tasksPerSlot - std::round(fleet.tasksPerSlot)) > 1e-9) {
    err = "per-task simulation with fixed arrivals needs a whole number of "
          "tasks per slot";
    return false;
  }
  if (st.perTask && fleet.tasksPerSlot > 1e5) {
    err = "per-task simulation is limited to 1e5 tasks per slot";
    return false;
  }
  std::vector<SlotPlan> plans(splits.size());
  for (size_t s = 0; s < splits.size(); ++s) {
    const std::vector<double> &p = splits[s];
    if (p.size() != k) {
      err = "a split has " + std::to_string(p.size()) + " fractions for " +
            std::to_string(k) + " models";
      return false;
    }
    Moments mo = slotMoments(fleet, p);
    double shared = 0;
    for (size_t i = 0; i < k; ++i)
      shared += p[i] * fleet.models[i].sharedSdJ;
    shared *= fleet.tasksPerSlot;
    // Normal: the shared factor and the rest sum to one normal draw (exact);
    // gamma: the shared factor stays a separate normal.
    bool normal = fleet.family == Family::Normal;
    plans[s].sharedSd = normal ? 0 : shared;
    plans[s].aggregate =
        Draw(mo.mean, normal ? mo.var : std::max(0.0, mo.var - shared * shared),
             fleet.family);
    plans[s].p = p;
    double cum = 0;
    for (double f : p)
      plans[s].cumulative.push_back(cum += f);
  }
  unsigned threads =
      st.threads ? st.threads : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min(threads, st.runs));
  std::vector<RunOut> runs(st.runs);
  auto worker = [&](unsigned tid) {
    std::vector<SlotPlan> mine = plans; // gamma_distribution holds state
    for (uint64_t r = tid; r < st.runs; r += threads) {
      runPath(fleet, mine, st, r, runs[r]);
      if (tid == 0 && st.progress)
        st.progress(double(r + threads) / double(st.runs));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i)
    pool.emplace_back(worker, i);
  worker(0);
  for (std::thread &t : pool)
    t.join();
  std::vector<double> aux, spill;
  for (const RunOut &r : runs) {
    aux.push_back(r.aux);
    spill.push_back(r.spill);
  }
  out = McResult();
  out.aux = stat(aux);
  out.spill = stat(spill);
  // Control variate: the net demand N_t = sum (C - B) has a known mean
  // (aggregate draws have exactly the plan's mean), so D_t - N_t + E[N_t]
  // is unbiased for E[D_t]; once drift dominates, D_t - N_t is the reserve's
  // stationary distance below its running extreme and its variance no
  // longer grows with t.
  std::vector<double> expectedNet(st.checkpoints.size(), 0.0);
  {
    double sum = 0;
    size_t c = 0, nsup = fleet.supplyJ.size();
    for (uint64_t t = 0; c < st.checkpoints.size() && t < st.horizon; ++t) {
      size_t s = nsup == 1 ? 0 : t % nsup;
      sum += plans[plans.size() == 1 ? 0 : s].aggregate.mean - fleet.supplyJ[s];
      while (c < st.checkpoints.size() && st.checkpoints[c] == t + 1)
        expectedNet[c++] = sum;
    }
  }
  for (size_t c = 0; c < st.checkpoints.size(); ++c) {
    std::vector<double> v, cv;
    for (const RunOut &r : runs) {
      v.push_back(r.auxAt[c]);
      cv.push_back(r.auxAt[c] - r.netAt[c] + expectedNet[c]);
    }
    out.auxAt.push_back(stat(v));
    out.auxAtControlled.push_back(st.perTask ? stat(v) : stat(cv));
  }
  out.auxRuns = std::move(aux);
  return true;
}

} // namespace routing
} // namespace calculus
} // namespace energy
