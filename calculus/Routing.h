//===- Routing.h - Energy-aware dispatch to several models -----*- C++ -*-===//
//
// The reserve-and-supply model of "Energy-Aware Routing to Large Reasoning
// Models" (Ellis-Mohr, Hartman, Varshney, arXiv 2601.00823): tasks arrive in
// slots and are routed to one of K models whose per-task energy is random; a
// baseline supply B_t feeds a reserve R_t in [0, R_max]; auxiliary energy G_t
// is injected exactly when the reserve would go negative, supply that does
// not fit under R_max is spilled:
//
//   R_{t+1} = min(R_max, R_t + B_t - C_t + G_t),
//   G_t = max(0, C_t - B_t - R_t),   W_t = max(0, R_t + B_t - C_t + G_t -
//   R_max)
//
// D_T = sum G_t (auxiliary energy), W_T = sum W_t (baseline waste). The
// reserve is a random walk reflected at 0 (and at R_max); the closed forms
// below are the Brownian limits of that walk (Donsker's invariance
// principle) with their sources. docs/ROUTING.md derives every formula.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_ROUTING_H
#define CALCULUS_ROUTING_H

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace energy {
namespace calculus {
namespace routing {

/// One model endpoint. A task's energy is meanJ plus an idiosyncratic part
/// (sd sdJ, independent across tasks) plus sharedSdJ * Z_t, where Z_t is one
/// standard normal per slot common to every task of that slot (the slot's
/// work is hard or easy for every model alike): the covariance between
/// models that routing cannot diversify away.
struct Endpoint {
  std::string name;
  double meanJ = 0;
  double sdJ = 0;
  double sharedSdJ = 0;
  double quality = 0;        ///< expected quality (e.g. accuracy) of a task
  unsigned serviceSlots = 1; ///< a task's energy is spread over this many slots
};

/// Distribution of a task's idiosyncratic energy (per-task simulation) or of
/// a slot's aggregate (aggregate simulation): normal, or the gamma with the
/// same mean and variance (right-skewed, like reasoning lengths).
enum class Family { Normal, Gamma };

/// Random: every task goes to model i with probability p_i independently
/// (the counts per slot are multinomial, which adds the mixture variance).
/// Proportional: deterministic weighted round robin, model i serves n p_i
/// tasks per slot on average with bounded discrepancy (no mixture variance).
enum class Assignment { Random, Proportional };

struct Fleet {
  std::vector<Endpoint> models;
  double tasksPerSlot = 0; ///< n (fixed) or the Poisson mean
  bool poissonArrivals = false;
  std::vector<double> supplyJ; ///< B_t per slot, cycled; at least one entry
  double reserveMaxJ = std::numeric_limits<double>::infinity();
  double reserveInitialJ = 0;
  Family family = Family::Normal;
  Assignment assignment = Assignment::Random;
};

/// Checks a fleet (finite non-negative energies and supply, qualities in
/// [0, 1], at least one model, a reserve start within [0, R_max]); `err`
/// starts with the offending field's JSON path and ": ".
bool validateFleet(const Fleet &fleet, std::string &err);

/// Mean and variance of one slot's consumption C_t under split p (exact):
///   mean = n sum p_i m_i
///   var  = n sum p_i s_i^2 + (n sum p_i c_i)^2 + routing
/// with s_i the idiosyncratic sd and c_i the shared sd; routing is the
/// mixture term n (sum p_i m_i^2 - (sum p_i m_i)^2) for Random assignment
/// with fixed arrivals, n sum p_i m_i^2 for Poisson arrivals (compound
/// Poisson: the count's variance), 0 for Proportional with fixed arrivals.
struct Moments {
  double mean = 0, var = 0;
};
Moments slotMoments(const Fleet &fleet, const std::vector<double> &p);

/// Mean and variance of the supply trace per slot (0 for a constant supply).
Moments supplyMoments(const Fleet &fleet);

/// Expected quality per task, sum p_i q_i.
double splitQuality(const Fleet &fleet, const std::vector<double> &p);

/// A quality law in training and inference compute, in the saturating
/// power-law form of compute scaling laws (Kaplan et al. 2020, Hoffmann et
/// al. 2022, the routing paper's refs [24, 25]):
///   q = qMax - a C_train^-alpha - b C_inf^-beta
/// Parameters are inputs; fails unless the result lies in [0, 1].
struct QualityLaw {
  double qMax = 1, a = 0, alpha = 0, b = 0, beta = 0;
};
bool qualityFromLaw(const QualityLaw &law, double trainFlops,
                    double inferenceFlops, double &q, std::string &err);

/// A task's energy from per-token figures (linear attribution): a task with
/// P prompt and L output tokens costs promptJ P + outputJ L (prefill energy
/// per prompt token, decode energy per output token). Over a stream of
/// (P, L) pairs, by linearity of the mean and the variance of a linear
/// combination: mean promptJ E[P] + outputJ E[L], variance promptJ^2 Var P +
/// outputJ^2 Var L + 2 promptJ outputJ Cov(P, L) (the stream's population
/// moments). The stream must not be empty.
struct TaskEnergy {
  double meanJ = 0, sdJ = 0;
};
TaskEnergy tokenLinearEnergy(double promptJ, double outputJ,
                             const std::vector<std::pair<double, double>> &pl);

//===----------------------------------------------------------------------===//
// Closed forms (Brownian limits)
//===----------------------------------------------------------------------===//

/// E[max_{0<=s<=t} X_s] for X_s = drift s + sigma W_s (Borodin & Salminen,
/// Handbook of Brownian Motion, 2002, formula 1.1.1.4 integrated):
///   sigma sqrt(t) phi(a) + drift t Phi(a) + sigma^2/(2 drift) (2 Phi(a) - 1),
///   a = drift sqrt(t) / sigma; sigma sqrt(2t/pi) at drift 0.
double expectedRunningMax(double drift, double sigma, double t);

/// E[(max_{0<=s<=t} X_s - level)^+] for level >= 0, by integrating the
/// running maximum's tail P(M_t > x) = Phi((drift t - x)/(sigma sqrt t)) +
/// exp(2 drift x / sigma^2) Phi((-x - drift t)/(sigma sqrt t)) (same source).
/// With level 0 it equals expectedRunningMax (tested).
double expectedExcessMax(double drift, double sigma, double t, double level);

/// Long-run rates of a Brownian motion with drift mu (supply minus demand per
/// slot) and variance v per slot, reflected at 0 and at b (Harrison, Brownian
/// Motion and Stochastic Flow Systems, 1985, ch. 5): the stationary density
/// is proportional to exp(theta x), theta = 2 mu / v, and the regulators'
/// rates are v/2 times the density at each barrier:
///   aux = mu / (exp(theta b) - 1),  spill = mu exp(theta b)/(exp(theta b) - 1)
/// (both v / (2 b) at mu = 0: volatility-limited, linear in the variance).
struct Rates {
  double aux = 0, spill = 0;
};
Rates reflectedRates(double mu, double var, double b);

/// What a start at x adds to the regulators over a horizon, for the same
/// reflected Brownian motion: E_x[L_T] - aux T -> auxOffset and E_x[U_T] -
/// spill T -> spillOffset as T grows (exact limits, by Ito's formula on
/// the solution of the Poisson equation L g = -aux, g'(0) = 1, g'(b) = 0:
/// E_x[L_T] = aux T + E_x[g(X_T)] - g(x)). relaxRate is the slowest mode's
/// decay rate (the spectral gap mu^2/(2 var) + var pi^2/(2 b^2)): the
/// prediction takes the offset's share 1 - exp(-relaxRate T), which is 0
/// at T = 0 and exact as T grows. For 0 < b < inf (otherwise no offsets);
/// x is clamped to [0, b]; var = 0 gives the limits (-x, 0) under-supplied
/// and (0, x - b) over-supplied.
struct Transient {
  double auxOffset = 0, spillOffset = 0, relaxRate = 0;
};
Transient reflectedTransient(double mu, double var, double b, double x);

/// The model's prediction of E[D_T] and E[W_T] over `horizon` slots under a
/// constant split: unbounded reserve -> E[(M_T - R_0)^+] of the demand-minus-
/// supply walk (W = 0); bounded -> the long-run rates times T plus the
/// start's offsets (reflectedTransient, from R_0), the reserve widened by
/// 0.5826 sigma at each end (a discrete walk's overshoot, Siegmund 1979). The
/// walk's variance is the consumption's: a cycled supply trace only adds a
/// bounded oscillation, which this ignores.
struct Prediction {
  double auxJ = 0, spillJ = 0;
  double drift = 0;          ///< mean supply - mean consumption per slot
  double sigma = 0;          ///< sd of the consumption per slot
  double crossoverSlots = 0; ///< sigma^2 / drift^2 (infinite at drift 0)
};
/// `oneBarrierBounds` false leaves out the bounded reserve's one-barrier
/// lower bounds (two numerical integrals; the rest is closed form): the
/// variance-aware search, which evaluates up to 40,000 splits, does.
Prediction predict(const Fleet &fleet, const std::vector<double> &p,
                   double horizon, bool oneBarrierBounds = true);
/// The same under per-supply-slot splits, which cycle with the supply (a
/// myopic policy on a supply trace): the consumption's mean and variance
/// per slot averaged over the cycle -- exact for one split, the long-run
/// approximation for a trace.
Prediction predictSplits(const Fleet &fleet,
                         const std::vector<std::vector<double>> &splits,
                         double horizon, bool oneBarrierBounds = true);

//===----------------------------------------------------------------------===//
// Policies
//===----------------------------------------------------------------------===//

enum class PolicyKind { Static, Myopic, VarianceAware };

struct Policy {
  PolicyKind kind = PolicyKind::Static;
  std::string name;
  std::vector<double> fractions; ///< Static
  /// Myopic: the router predicts each model's mean energy as
  /// (1 + predictionError) m_i (a common relative bias; negative =
  /// under-prediction, which drives consumption above supply).
  double predictionError = 0;
  /// VarianceAware: minimize E[D_T] + lambda E[W_T] subject to quality >=
  /// qualityTarget.
  double lambda = 0;
  double qualityTarget = -std::numeric_limits<double>::infinity();
};

/// Checks a policy's parameters against its fleet (a static policy's
/// fractions: one per model, non-negative, summing to 1; a myopic policy's
/// prediction error: finite, above -1; a variance-aware policy's lambda:
/// finite and non-negative, its quality target within reach of the best
/// model). On failure `field` names the offending parameter as the fleet
/// file spells it ("fractions", "prediction_error", "lambda",
/// "quality_target") and `err` says what is wrong.
bool validatePolicy(const Fleet &fleet, const Policy &policy,
                    std::string &field, std::string &err);

/// The splits a policy uses: one per supply entry (cycled like the supply).
/// VarianceAware also considers `candidates` (e.g. the other policies'
/// splits), so it is never worse than them on its own objective. Fails with
/// `err` when no split meets the quality target.
bool resolvePolicy(const Fleet &fleet, const Policy &policy, double horizon,
                   const std::vector<std::vector<double>> &candidates,
                   std::vector<std::vector<double>> &splits, std::string &err);

/// Resolves every policy of a fleet: static and myopic first, then the
/// variance-aware ones with the others' splits as candidates and, where
/// `matchQualityOf[i] >= 0`, the quality of that policy as their target.
/// `err` names the failing policy.
bool resolvePolicies(const Fleet &fleet, const std::vector<Policy> &policies,
                     const std::vector<int> &matchQualityOf, double horizon,
                     std::vector<std::vector<std::vector<double>>> &splits,
                     std::string &err);

/// The long-run mean of a per-supply-entry quantity of a policy's splits
/// (splits cycle with the supply: the plain average).
double splitsMeanQuality(const Fleet &fleet,
                         const std::vector<std::vector<double>> &splits);

//===----------------------------------------------------------------------===//
// Monte Carlo
//===----------------------------------------------------------------------===//

struct McSettings {
  uint64_t horizon = 0; ///< T slots
  unsigned runs = 0;
  uint64_t seed = 0;
  /// false: one draw per slot for the aggregate with the exact moments of
  /// slotMoments (normal or moment-matched gamma); true: every task drawn,
  /// routed and spread over its service slots (the reference).
  bool perTask = false;
  unsigned threads = 0;              ///< 0: hardware concurrency
  std::vector<uint64_t> checkpoints; ///< also record D_t at these t <= T
  /// Called from one worker as its runs finish (the share of them done),
  /// for progress on a terminal; may be empty.
  std::function<void(double fraction)> progress;
};

struct McStat {
  double mean = 0, sd = 0;
  double halfWidth95() const; ///< 1.96 sd / sqrt(runs)
  unsigned runs = 0;
};

struct McResult {
  McStat aux, spill;
  std::vector<McStat> auxAt; ///< at each checkpoint
  /// The same expectation with the net demand as control variate (aggregate
  /// mode; equal to auxAt per task): far tighter once drift dominates.
  std::vector<McStat> auxAtControlled;
  std::vector<double> auxRuns; ///< D_T of each run (for paired comparisons)
};

/// Simulates `runs` independent paths of T slots (run r uses a stream seeded
/// from (seed, r) only, so results do not depend on the thread count and
/// every policy sees the same random numbers: paired comparisons).
bool simulate(const Fleet &fleet,
              const std::vector<std::vector<double>> &splits,
              const McSettings &settings, McResult &out, std::string &err);

/// `n` draws of the Monte Carlo's standard normal generator (for tests).
std::vector<double> standardNormals(uint64_t seed, size_t n);

/// Least-squares slope of log y on log x.
double logLogSlope(const std::vector<double> &x, const std::vector<double> &y);

} // namespace routing
} // namespace calculus
} // namespace energy

#endif // CALCULUS_ROUTING_H
