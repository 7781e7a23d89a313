//===- FlopByte.h - FLOP and byte accounting for LLM inference --*- C++ -*-===//
//
// "From Tokens to Watt-hours" style estimator: energy = compute + parameter
// access + KV-cache writes + attention reads, each a count times an energy
// coefficient, with prompt prefill and autoregressive decode separated.
// The coefficients are inputs with their sources (docs/MODELS.md); the
// result is dynamic energy (the device's static power is added by the
// composition, not here).
//
//   prefill of prompts n_i (N = sum n_i):
//     FLOPs = 2 P N + a sum_i n_i (n_i + 1) / 2   (causal pairs),   bytes = M_w
//     + K_kv N (writes)
//   decode iteration of B outputs with attended histories L_j:
//     FLOPs = 2 P B + a sum_j L_j,   bytes = M_w + K_kv sum_j L_j + K_kv B
//
// P parameters, a attention FLOPs per (query, key) pair over all layers
// (4 d_model n_layers for QK^T and PV), M_w weight bytes, K_kv KV bytes per
// token; memoryFactor calibrates logical to physical HBM traffic.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MODELS_FLOPBYTE_H
#define CALCULUS_MODELS_FLOPBYTE_H

#include <array>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct FlopByteModel {
  double parameters = 0;            ///< P
  double attentionFlopsPerPair = 0; ///< a
  double weightBytes = 0;           ///< M_w
  double kvBytesPerToken = 0;       ///< K_kv
  double joulesPerFlop = 0;         ///< tensor-core energy per FLOP
  double joulesPerByte = 0;         ///< HBM energy per byte
  double memoryFactor = 1;          ///< physical / logical bytes
};

struct FlopByteEnergy {
  double compute = 0, weights = 0, kvWrite = 0, attentionRead = 0; ///< J
  double flops = 0, bytes = 0; ///< the counts (bytes: physical)
  double total() const { return compute + weights + kvWrite + attentionRead; }
  /// d total / d (joulesPerFlop, joulesPerByte): the accounting is linear
  /// in its two coefficients.
  std::array<double, 2> gradient() const { return {flops, bytes}; }
};

/// Operating points for FLOP/byte-priced tasks (documented model, inputs
/// not measurements): a linear V-f curve from (fminMhz, vmin) to (fmaxMhz,
/// vmax); the compute energy per FLOP scales as V(f)^2 (C V^2 per cycle),
/// the energy per byte does not; the task's time at fmax, T0 (its
/// roofline duration), holds until its compute alone takes longer:
/// T(f) = max(T0, FLOPs / (peakFlops f / fmax)).
struct FlopByteClocks {
  std::vector<double> smMhz; ///< the options, MHz
  double fmaxMhz = 0, fminMhz = 0, vmin = 0, vmax = 0;
  double peakFlops = 0; ///< FLOP/s at fmax
};

struct FlopByteOption {
  double T = 0, d = 0;
  /// (V(f) / V(fmax))^2: d = joules_per_flop x flopScale x FLOPs +
  /// joules_per_byte x bytes.
  double flopScale = 1;
};

/// The task at SM clock `mhz`, from its energies and time at fmax.
FlopByteOption atClock(const FlopByteModel &m, const FlopByteClocks &c,
                       const FlopByteEnergy &e, double T0, double mhz);

/// Prefill of `tokens` prompt tokens whose squares sum to `tokenSquares`.
FlopByteEnergy prefillEnergy(const FlopByteModel &m, double tokens,
                             double tokenSquares);
/// One decode iteration: `batch` outputs with `historySum` attended records.
FlopByteEnergy decodeEnergy(const FlopByteModel &m, double batch,
                            double historySum);

/// A measured step for calibrating the accounting: a prefill (`a` prompt
/// tokens whose squares sum to `b`) or a decode iteration (`a` outputs
/// attending `b` records in all), and its dynamic energy `d` (J).
struct FlopByteRow {
  bool decode = false;
  double a = 0, b = 0, d = 0;
  std::string cell; ///< configuration cell (hold-out)
};

/// The two coefficients fitted to measured steps.
struct FlopByteFit {
  double joulesPerFlop = 0, joulesPerByte = 0;
  /// HC3 covariance of (joules_per_flop, joules_per_byte), row-major.
  std::array<double, 4> cov{};
  /// sqrt(sum of squared relative residuals / (n - 2)): a step's own
  /// relative deviation (the model file's relative_sigma).
  double relSigma = 0;
  size_t rows = 0;
};

/// d = joules_per_flop x FLOPs + joules_per_byte x bytes is linear in the
/// two coefficients with no intercept: OLS through the origin on each
/// step's counts under `structure` (its P, a, M_w, K_kv and memory factor;
/// its coefficients are not read), with HC3 covariance (calculus/models/
/// LinearFit.h). Fails with `err` on fewer than three rows or a design
/// that cannot tell the two apart (every step the same FLOP-to-byte
/// ratio).
bool fitFlopByte(const FlopByteModel &structure,
                 const std::vector<FlopByteRow> &rows, FlopByteFit &out,
                 std::string &err);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MODELS_FLOPBYTE_H
