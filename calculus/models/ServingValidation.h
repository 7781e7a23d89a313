//===- ServingValidation.h - inference models against measurements -*- C++
//-*-===//
//
// Held-out validation of the inference energy providers on measured serving
// configurations (docs/VALIDATION.md), and a serving planner that picks the
// batch cap of least energy per token within a latency SLO.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MODELS_SERVINGVALIDATION_H
#define CALCULUS_MODELS_SERVINGVALIDATION_H

#include "calculus/Signature.h"
#include "calculus/models/SimGpu.h"

#include <map>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

/// One measured steady-state serving configuration.
struct ServingObservation {
  std::string model, gpu, architecture, dataset, task;
  std::string gpuModel; ///< as the file names it ("NVIDIA H100 80GB HBM3")
  int tp = 1, ep = 1, dp = 1, gpus = 1;
  double cap = 0;      ///< batch cap (max_num_seqs)
  double batch = 0;    ///< realized mean batch B_eff
  double tau = 0;      ///< s per output token (1 / throughput)
  double e = 0;        ///< J per output token, all GPUs
  double p90ItlS = -1; ///< -1 when not measured
  /// M_w: the parameters' bytes (each at its precision's bytes per
  /// parameter; a mixture of experts' routed experts and the rest apart)
  double weightBytes = 0;
  double flopsPerToken = 0; ///< 2 x active parameters
  /// An FP8 checkpoint (weights and, as vLLM serves one on Hopper, its
  /// activations: W8A8): its GEMMs run at the FP8 tensor-core peak where
  /// the GPU has one (SimGpu::fp8Speedup).
  bool fp8 = false;
  /// A mixture-of-experts model's routing (its routed experts per layer E
  /// and experts per token k; 0: dense, or not known), and from it the
  /// routed experts' bytes (part of M_w) and the share of them each token
  /// goes to (k / E); 0: every weight counts as read.
  int routedExperts = 0, expertsPerToken = 0;
  std::string routingOf; ///< where the routing is from, in words
  double expertBytes = 0, expertShare = 0;
  /// A mixture of experts whose routing is not known: every weight counted
  /// as read (said wherever it is used: unknownRoutingNote).
  bool routingUnknown() const {
    return architecture == "moe" && expertsPerToken <= 0;
  }
};

/// A mixture of experts' routed expert parameters X from its total and
/// active ones (any unit) and its routing, E routed experts per layer of
/// which each token goes to k: total = S + X and active = S + X k / E (S:
/// what every token reads), so X = (total - active) / (1 - k / E). 0
/// where k is not below E or not positive.
double routedExpertParams(double total, double active, int experts,
                          int perToken);

/// What an answer resting on `model`, a mixture of experts of unknown
/// routing, says of it.
std::string unknownRoutingNote(const std::string &model);

/// The weight bytes one decode iteration of `batch` tokens reads: all of
/// M_w for a dense model; for a mixture of experts, what every token reads
/// and each routed expert that at least one of the tokens goes to. With
/// each token choosing k of the E experts of a layer uniformly and
/// independently, an expert is left out by a token with probability
/// 1 - k / E and by all of them with (1 - k / E)^batch, so the expected
/// read is M_w - X (1 - k / E)^batch (X: the routed experts' bytes).
double weightBytesRead(const ServingObservation &o, double batch);

/// "dataset/task/model/gpu/tpT-epE-dpD-gG": the cell (one deployment)
/// within which only the batch cap varies.
std::string servingGroup(const ServingObservation &o);

struct HeldOut {
  const ServingObservation *obs = nullptr;
  double predicted = 0;
  double halfWidth95 = -1; ///< -1: no interval (no residual dof)
  double relErr() const { return (predicted - obs->e) / obs->e; }
};

struct ValidationRun {
  std::vector<HeldOut> predictions;
  size_t groups = 0, groupsSkipped = 0; ///< groups too small to hold out
  std::string note;                     ///< what was fitted, in words
};

/// Token-Energy Law within each group (fixed model, GPU, TP and workload):
/// M_w is fixed, and the attended history is not in the data, so the KV
/// term is constant and folds into the intercept; the fit is
///   e = alpha q_w + P_tau tau + c,  q_w = M_w(B_eff) / (1e9 B_eff)
/// (M_w(B): weightBytesRead, the weights an iteration reads)
/// on every other batch setting (sorted by cap), predicting the others,
/// then the reverse. Groups with fewer than 4 settings per half are skipped.
/// The 95 % intervals use the relative residual variance pooled over the
/// training fits of every cell with the same dataset, GPU and architecture
/// (multiplicative errors) and each point's leverage.
ValidationRun tokenLawHoldout(const std::vector<ServingObservation> &obs);

/// FLOP/byte accounting with fixed coefficients (J per FLOP, J per weight
/// byte): e = J_flop 2 P_active + J_byte M_w / B_eff, no static power.
ValidationRun flopByteUncalibrated(const std::vector<ServingObservation> &obs,
                                   double joulesPerFlop, double joulesPerByte);

/// FLOP/byte accounting calibrated per (dataset, task, GPU) on one model
/// (the one with most settings; ties by name) and applied to the others:
///   e = s (G tau) + J_byte M_w / B_eff + J_flop 2 P_active
/// (s static power per GPU, G GPUs).
ValidationRun flopByteCalibrated(const std::vector<ServingObservation> &obs);

struct ErrorSummary {
  std::string key;
  size_t n = 0;
  double medianAbs = 0, maxAbs = 0;
  double maxSigned = 0; ///< largest signed relative error (< 0: all under)
  size_t withInterval = 0, covered = 0; ///< 95 % interval coverage
  double medianRelHalfWidth = 0;        ///< of the 95 % intervals, / measured
};
/// Median and maximum |relative error| and coverage, grouped by `keyOf`
/// (sorted by key).
std::vector<ErrorSummary> summarizeBy(const std::vector<HeldOut> &preds,
                                      std::string (*keyOf)(const HeldOut &));

/// The median (the mean of the two middle values of an even count; NaN for
/// none).
double median(std::vector<double> v);

/// One candidate cap as recommendCap ranks it: its p90 ITL (s), energy per
/// token (J), realized batch and s per output token (measured, or
/// interpolated as the law's).
struct CapPrediction {
  double p90 = 0, e = 0, batch = 0, tau = 0;
};

/// The planner: within one group, fit the law on `train`, interpolate the
/// realized batch and tau against log cap and the p90 ITL linearly in the
/// cap (continued past the trained caps along the end segments in log-log),
/// and return the cap of
/// least energy per token whose p90 ITL meets `sloS` among `candidates`
/// (-1 when none does): at a cap `train` measured, its measurements (mean
/// energy, largest p90 of its runs); between them, the law's prediction at
/// the interpolated batch and tau plus its misses at the measured caps
/// interpolated against log cap (held beyond the end caps), and the
/// interpolated p90 -- a cap predicted at no positive energy is not
/// considered. `predicted` and
/// `halfWidth` get the chosen cap's energy and the law's 95 % half-width
/// there (at a cap measured in several runs, their mean and the 95 %
/// prediction half-width of one more run from them); `byCap` (optional) every
/// candidate's prediction; `notes` (optional) what the user
/// should know: the law missing its own measurements by over 10 %, caps left
/// out for a non-positive prediction; `excluded` (optional) why each candidate
/// not considered was left out.
double recommendCap(const std::vector<const ServingObservation *> &train,
                    const std::vector<double> &candidates, double sloS,
                    double &predicted, double &halfWidth, std::string &err,
                    std::map<double, CapPrediction> *byCap = nullptr,
                    std::vector<std::string> *notes = nullptr,
                    std::map<double, std::string> *excluded = nullptr);

/// The planner on one cell of measurements: the (model, GPU, TP) rows of
/// `obs` -- of the deployment with `gpus` GPUs when several have that TP
/// (0: there must be one) -- candidates the measured caps and the powers of
/// two between them.
struct ServingRecommendation {
  double cap = -1, predicted = 0, halfWidth95 = -1;
  size_t measurements = 0;
  /// What the recommendation rests on: the measurements' cell (dataset,
  /// task, model, GPU, TP/EP/DP, GPU count: servingGroup), the p90
  /// inter-token latency predicted at the cap (s), and whether the cap was
  /// measured or lies between measured ones.
  std::string cell;
  double predictedP90 = 0;
  bool capMeasured = false;
  /// The measured model's weights, bytes (total over its GPUs), and the
  /// cell's tensor-parallel degree: what a workload planned with this cap
  /// should match.
  double weightBytes = 0;
  int tp = 1;
  int gpus = 1; ///< the cell's deployment's GPU count
  /// The cell's model: its architecture and, for a mixture of experts, its
  /// routing (0, 0: not known; every weight then counts as read).
  std::string architecture;
  int routedExperts = 0, expertsPerToken = 0;
  std::string routingOf; ///< where the routing is from, in words
  /// recommendCap's notes (warnings for the user).
  std::vector<std::string> notes;
  /// Every candidate cap: whether measured, its p90 ITL (s) and energy per
  /// token (J) as ranked.
  struct Candidate {
    double cap;
    bool measured;
    double p90, e;
    std::string excluded; ///< why it was not considered (empty: it was)
    double batch, tau;    ///< realized batch, s per output token (measured or
                          ///< interpolated)
  };
  std::vector<Candidate> candidates;
  /// With a clock model (recommendServingCap's `clockModel`): the batch cap
  /// and SM clock of least predicted energy per token whose predicted p90
  /// meets the SLO, each considered candidate's measured or predicted
  /// values scaled by the simulated GPU's model of one decode iteration at
  /// that clock against its highest (chooseServingClock). SIMULATED: the
  /// measurements were all taken at the GPU's default clocks.
  struct ClockChoice {
    int mhz = 0; ///< 0: no clock model
    /// `predicted` and `energyRatio` (the energy at mhz over the energy at
    /// fmax) take the power the model misses at the default clocks
    /// (`missingPowerW` per GPU: measured less modelled) by the account
    /// that saves less: scaling as
    /// the model's power, or held at every clock (a negative one, the
    /// model drawing more, at most the model's static power);
    /// `predictedLow` and `energyRatioLow` by the other.
    double cap = -1, predicted = 0, predictedLow = 0, predictedP90 = 0;
    double timeRatio = 1, energyRatio = 1, energyRatioLow = 1;
    double missingPowerW = 0;
    std::string model; ///< the simulated GPU's name
    /// The power limit that holds the GPU near that clock, where clocks
    /// cannot be locked: the cap's mean power per GPU (energy per token
    /// over time per token, over the GPUs; measured or predicted) scaled
    /// by `energyRatio` over `timeRatio` -- the mean power predicted at the
    /// clock by the account that saves less (the higher power: under the
    /// other the limit lets the GPU run faster, never slower). A limit acts on
    /// power, not on the clock: at that mean the GPU settles about the clock,
    /// each phase of the iteration at the clock the limit allows it. 0 at the
    /// highest clock (the default limit) and where it lies outside the model's
    /// settable range [minPowerLimitW, maxPowerLimitW].
    double powerLimitW = 0, meanPowerW = 0;
    /// Whether the cap's mean power was known (a time per token): where it
    /// is not, `meanPowerW` and `missingPowerW` are 0 for want of it.
    bool meanPowerKnown() const { return meanPowerW > 0; }
    double minPowerLimitW = 0, maxPowerLimitW = 0;
    int highestMhz = 0; ///< the model's highest SM clock
  } clock;
  /// The empirical 2.5 % and 97.5 % quantiles of the files' p90
  /// interpolation errors (p90InterpolationLogErrors; `p90ErrorSamples` of
  /// them, pooled over every cell): an unmeasured cap's p90 lies within
  /// [p90 e^lo, p90 e^hi] about as often as the interpolation's at the
  /// measured caps did (VALIDATION.md: 92.9 % of held-out caps). None (0
  /// samples) below 20 of them.
  double p90LogErrLo = 0, p90LogErrHi = 0;
  size_t p90ErrorSamples = 0;
  bool hasP90Interval() const { return p90ErrorSamples > 0; }
  /// The 95 % interval of the predicted energy per token, clipped at 0
  /// (energy is never negative; `unclippedLo` then says where the normal
  /// approximation's own bound was, as calculus::predictionInterval does).
  Interval interval95() const {
    Interval i{predicted - halfWidth95, predicted + halfWidth95};
    if (i.lo < 0) {
      i.unclippedLo = i.lo;
      i.lo = 0;
    }
    return i;
  }
};
/// The p90 ITL interpolation's errors, log(measured / predicted): in every
/// group of `obs` with p90 measured, each interior cap's worst p90 predicted
/// from the others (latencyAt on the table without it). A gap twice as wide
/// as the one an unmeasured cap between measured ones sits in.
std::vector<double>
p90InterpolationLogErrors(const std::vector<ServingObservation> &obs);

/// What a clock choice rests on, for the answers that carry it.
inline constexpr const char *kServingClockBasis =
    "SIMULATED: the batch cap's measured or predicted p90 and energy per "
    "token, scaled by the simulated GPU's model of one decode iteration at "
    "the clock against its highest (calculus/models/SimGpu.h; what its "
    "roofline leaves of the measured iteration taken as bound by the SM "
    "clock); the power the model misses at the default clocks either scales "
    "as the model's or holds at every clock, and the energy is the higher "
    "of the two (the lower in predicted_J_per_token_low); the measurements "
    "were all taken at the default clocks";

/// What the power limit beside a clock choice rests on.
inline constexpr const char *kServingPowerLimitBasis =
    "SIMULATED: the mean power per GPU at the chosen cap (measured or "
    "predicted) scaled by the energy ratio (the account that saves less) "
    "and time ratio at the clock; "
    "a limit there holds the GPU about the clock where clocks cannot be "
    "locked (it acts on power: each phase of the iteration runs at the "
    "clock the limit allows it)";

/// `clockModel` (optional): also choose the SM clock with that simulated
/// GPU's physical model, which must be the measurements' GPU.
bool recommendServingCap(const std::vector<ServingObservation> &obs,
                         const std::string &model, const std::string &gpu,
                         int tp, int gpus, double sloS,
                         ServingRecommendation &out, std::string &err,
                         const SimGpu *clockModel = nullptr);

/// The SM clock for serving a cell `row` describes (its model, weights and
/// deployment), SIMULATED: one decode iteration of realized batch B on each
/// of the deployment's G GPUs is a kernel of 2 P_active B / G FLOPs reading
/// dp M_w(B / dp) / G bytes (weightBytesRead: a mixture of experts reads
/// the experts its tokens reach; the KV cache's reads are left out, the
/// files do not give the attended history), with time K(f) and dynamic
/// energy d(f) by the model (SimGpu.h). The measured iteration, B tau,
/// takes longer than K(fmax): the rest, R = B tau - K(fmax) (attention,
/// small kernels, launches, the host), is taken as bound by the SM clock,
/// R fmax / f, at full switching activity, Ceff V(f)^2 cycles -- an
/// assumption that overstates the slowdown where part of it is the host's
/// and so errs on the SLO's side. T(f) = K(f) + R fmax / f, E(f) =
/// staticRef T(f) + d(f) + Ceff V(f)^2 R fmax; a candidate's measured or
/// predicted p90 ITL is scaled by T(f) / T(fmax) and its energy per token
/// by E(f) / E(fmax) -- or, the power the model misses at fmax (the
/// measured mean power per GPU less E(fmax) / T(fmax), Delta) held at every
/// clock (Delta at least -staticRef: a model drawing more than measured
/// has at most its static power to give back), by (E(f) + Delta T(f)) /
/// (E(fmax) + Delta T(fmax)): by the higher
/// of the two, the other kept as the range's low end. Among every
/// considered candidate at every clock, the one of least scaled energy
/// whose scaled p90 meets `sloS`: never worse by either account than the
/// cap at the highest clock. False (with `err`) when the simulated GPU is
/// not `row`'s.
bool chooseServingClock(ServingRecommendation &rec,
                        const ServingObservation &row, const SimGpu &gpu,
                        double sloS, std::string &err);

struct PlannerCase {
  std::string group;
  std::string dataset, gpu, architecture;
  double sloS = 0;
  double chosenCap = -1, bestCap = -1;
  double chosenE = 0, bestE = 0; ///< measured at the caps
  bool chosenMeetsSlo = false;
  /// The planner's predictions (p90 ITL s, J per token) at both caps.
  double chosenPredP90 = 0, chosenPredE = 0, bestPredP90 = 0, bestPredE = 0;
  double regret() const { return chosenE / bestE - 1; }
  /// Why a case misses the target (within 5 % and meeting the SLO), from
  /// the predictions: no cap predicted to meet the SLO; latency predicted
  /// too low at the chosen cap (it misses the SLO); latency predicted too
  /// high at the best cap (ruled out); or the energies ranked the chosen
  /// cap below the best. Empty when the case meets the target.
  std::string missReason() const;
};
/// For each group with p90 ITL measured and >= 8 settings: train on every
/// other setting, recommend among all the group's caps for SLOs between the
/// measured p90 ITLs at the 25th, 50th and 75th percentile and above the
/// largest, and score against the measurements.
std::vector<PlannerCase>
plannerHoldout(const std::vector<ServingObservation> &obs);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MODELS_SERVINGVALIDATION_H
