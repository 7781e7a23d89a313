//===- Signature.h - Energy signatures and the three operators --*- C++ -*-===//
//
// The algebra of the energy calculus (arXiv 2607.11087, CALCULUS.md sections
// 1-3) as plain C++17: no MLIR, no I/O. Units are SI throughout: watts,
// seconds, joules.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_SIGNATURE_H
#define CALCULUS_SIGNATURE_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

/// A set of device indices. Devices 0..63 live in one inline word, so the
/// common case never allocates; larger ids spill into `extra`.
class DeviceSet {
public:
  DeviceSet() = default;
  static DeviceSet single(uint32_t id) {
    DeviceSet s;
    s.insert(id);
    return s;
  }
  void insert(uint32_t id);
  bool contains(uint32_t id) const;
  bool empty() const;
  size_t size() const;
  bool operator==(const DeviceSet &o) const;
  bool operator!=(const DeviceSet &o) const { return !(*this == o); }
  bool intersects(const DeviceSet &o) const;
  void unite(const DeviceSet &o);
  /// Sorted list of member ids.
  std::vector<uint32_t> ids() const;

private:
  uint64_t word0 = 0;
  std::vector<uint64_t> extra; // words 1..n
};

/// The signature of an energy element (CALCULUS.md section 1): static power s,
/// time T, dynamic energy d = E - s T, their variances, and the devices.
///
/// `varE` is carried explicitly: for a directly measured element it is
/// s^2 var_T + var_d; for a composite it is what the operator's propagation
/// rule gives (section 2), which for sequential composition of elements at
/// different static powers is not expressible from the summary s' alone.
///
/// `clarkT` is the distributional refinement of the makespan (Clark's E[max]
/// through every par/multi); it is never mixed into T, the point prediction.
///
/// `excessE` and `covUT` keep the expectation and the variance exact (under
/// the independent-Gaussian model of section 3) through composites whose
/// time varies in parts drawn at static powers other than their summary s
/// (CALCULUS.md section 3, "Mixed static powers"): both are zero for a
/// measured element, so a signature built by hand needs neither.
struct Signature {
  double s = 0;      ///< static power, W
  double T = 0;      ///< time, s
  double d = 0;      ///< dynamic energy, J
  double varT = 0;   ///< variance of T, s^2
  double varD = 0;   ///< variance of d, J^2
  double varE = 0;   ///< variance of E, J^2
  double clarkT = 0; ///< E[makespan] under Clark's refinement, s
  /// E[E] - E(): what the parallel parts' jitter adds to the point energy,
  /// each part's extra time at its own static power, J.
  double excessE = 0;
  /// Cov(E - s T, T), J s: zero for an element (E = s T + d, d independent
  /// of T); for a composite, how much of its time's variance is drawn at
  /// static powers other than s (a varying part at 60 W inside a sequence
  /// whose summary s is 130 W).
  double covUT = 0;
  /// The static power its devices draw while they wait after it ends, less
  /// s: an idle device stays at its last element's operating point (paper
  /// section 3.3, idle elements), so a multi pads a shorter operand at that
  /// power, not at the operand's summary s (a 200 W element then a 60 W one
  /// waits at 60 W). Zero for an element.
  double exitOffset = 0;
  DeviceSet devices;

  /// A directly measured element (Axiom P1, var_E = s^2 var_T + var_d).
  static Signature measured(double s, double T, double d, double varT,
                            double varD, DeviceSet devices);
  /// An idle element: zero dynamic energy, static power of its device.
  static Signature idle(double s, double T, DeviceSet devices);

  double E() const { return s * T + d; }
  /// The static power drawn while waiting after it (see exitOffset).
  double exitPower() const { return s + exitOffset; }
  /// The expected energy when times vary: E() plus each parallel part's
  /// expected extra time at its static power (s E[T] + d where one static
  /// power is drawn throughout; equal to E() when nothing varies).
  double expectedE() const { return E() + excessE; }
  double staticEnergy() const { return s * T; }
  double sigmaE() const;
};

/// Why a composition was refused: the side conditions of section 2.
struct CompositionError {
  enum Kind {
    None,
    ParDevices,
    ParStaticPower,
    MultiOverlap,
    SeqDevices,
    Negative
  };
  Kind kind = None;
  std::string message;
  explicit operator bool() const { return kind != None; }
};

/// Checks Axiom P1 (s, T, d and the variances non-negative and finite).
CompositionError checkSignature(const Signature &a);

/// Binary operators. On a side-condition violation `err` is set and the
/// returned signature is unspecified.
Signature seq(const Signature &a, const Signature &b, CompositionError &err);
Signature par(const Signature &a, const Signature &b, CompositionError &err);
Signature multi(const Signature &a, const Signature &b, CompositionError &err);
/// `a` run n times in a row, the runs independent: seq folded n times, in
/// closed form (T, d, their variances and var_E scale by n; s unchanged), so
/// that a million repetitions cost one step and carry no rounding drift.
Signature repeatSeq(const Signature &a, uint64_t n);

enum class Op { Seq, Par, Multi };

/// n-ary composition as the left fold of the binary operator (all three are
/// associative in their point values, section 2). A par or multi of three
/// or more operands takes its makespan's moments from the max of all of
/// them at once (maxMomentsN): the fold's running max is no Gaussian, so
/// folding pairwise (Clark's method) made the variances depend on the
/// operands' order -- by up to -96 % where a deterministic operand came
/// last. Keeps three numbers per such operand.
class Composer {
public:
  explicit Composer(Op kind) : op(kind) {}
  /// Adds the next operand; returns false (and fills error()) on a violated
  /// side condition. Operand index is counted from 0.
  bool add(const Signature &x);
  bool empty() const { return count == 0; }
  size_t size() const { return count; }
  const Signature &result() const;
  const CompositionError &error() const { return err; }

private:
  Op op;
  size_t count = 0;
  Signature acc;
  CompositionError err;
  /// par/multi: each operand's makespan mean (Clark's) and variance, and
  /// Cov(U, T) with U = E - b T (b: the power it waits at); the sums of
  /// Var(U) and of each operand's expected-energy shift, and S (the power
  /// the whole waits at).
  std::vector<double> mu, var, covUT;
  double sumVarU = 0, sumShift = 0, waitPower = 0;
  mutable Signature finished;
  mutable bool dirty = false;
};

/// Moments of the max of independent Gaussians N(mu_i, var_i) (var_i = 0:
/// a constant), by quadrature of its distribution function F = prod_i
/// Phi_i: E[M] = L + int_L (1 - F), Var(M) = int (x - E[M])^2 dF written
/// as integrals of F and 1 - F about E[M] (no cancellation), and each
/// operand's probability of being the max, p_i = int phi_i prod_{j != i}
/// Phi_j, which gives Cov(M, Y) = Cov(X_i, Y) p_i for any Y jointly
/// Gaussian with X_i and independent of the others (Stein's lemma:
/// E[(X_i - mu_i) g(X)] = var_i E[dg/dx_i]). Exact up to the quadrature
/// (composite 16-point Gauss-Legendre, panels broken at every operand's
/// mean and +-0.5..6 sigma and at every constant: ~1e-10). Operands below
/// the largest mean - 8.5 sigma never matter (p_i < 1e-17) and are left
/// out; alike ones (equal mean and variance) are counted once, as a power
/// of their Phi. Past kMaxOperandsExact kinds that matter (the quadrature
/// costs kinds^2 x ~400 normal CDFs), Clark's pairwise fold in one order
/// (least variance first): order-independent, approximate (the fold's
/// error: Monte Carlo's sd of the max of 3 to 32 like operands is 1-11 %
/// above it), and not continuous across the threshold. Always true (false
/// is kept for callers).
constexpr size_t kMaxOperandsExact = 128;
struct MaxMomentsN {
  double mean = 0, var = 0;
  std::vector<double> p;
};
bool maxMomentsN(const std::vector<double> &mu, const std::vector<double> &var,
                 MaxMomentsN &out);

/// Moments of max(X1, X2) for independent Gaussians (Clark 1961).
struct MaxMoments {
  double mean;
  double var;
  /// Phi(a), a = (mu1 - mu2) / theta: Cov(max, Y) = Cov(X1, Y) p1 +
  /// Cov(X2, Y) (1 - p1) for any Y jointly Gaussian with X1, X2 (Clark
  /// 1961, eq. 6).
  double p1;
};
MaxMoments clarkMax(double mu1, double var1, double mu2, double var2);

/// Standard normal CDF and density.
double normalCdf(double x);
double normalPdf(double x);
/// Inverse standard normal CDF (Acklam's rational approximation refined by
/// one Halley step: ~1e-15 relative).
double normalQuantile(double p);
/// Two-sided Gaussian quantile c_alpha for a confidence level, e.g. 0.95 ->
/// 1.95996.
double twoSidedQuantile(double confidence);

struct Interval {
  double lo, hi;
  /// Energy is never negative: where E - c_alpha sigma_E is, `lo` is 0 and
  /// this holds the normal approximation's own lower bound (NaN otherwise).
  double unclippedLo = std::numeric_limits<double>::quiet_NaN();
  bool clipped() const { return !std::isnan(unclippedLo); }
};
/// Prediction interval E[E] +- c_alpha sigma_E (section 3) around the
/// expected energy s E[T] + d (Signature::expectedE), clipped at zero
/// (energy is non-negative; the clipping is said, see Interval); with runs
/// > 1 the interval for the mean of that many runs (sigma / sqrt(n)).
Interval predictionInterval(const Signature &sig, double confidence,
                            unsigned runs = 1);
/// A beats B only when A's upper bound is below B's lower bound.
bool clearlyBetter(const Interval &a, const Interval &b);

/// Eq. 23 deviation test: composition failed when
/// |E_pred - E_meas| > c_alpha sqrt(var_pred + var_meas - 2 Cov(pred, meas))
/// (Appendix F; the default assumes independent errors, Cov = 0).
bool deviates(double ePred, double varPred, double eMeas, double varMeas,
              double confidence, double covariance = 0);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_SIGNATURE_H
