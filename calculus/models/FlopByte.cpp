//===- FlopByte.cpp - FLOP and byte accounting for LLM inference ----------===//

#include "calculus/models/FlopByte.h"
#include "calculus/models/LinearFit.h"

#include <algorithm>
#include <cmath>

namespace energy {
namespace calculus {

FlopByteEnergy prefillEnergy(const FlopByteModel &m, double tokens,
                             double tokenSquares) {
  FlopByteEnergy e;
  // Causal attention: prompt i has n_i (n_i + 1) / 2 (query, key) pairs.
  double pairs = 0.5 * (tokenSquares + tokens);
  double flops = 2 * m.parameters * tokens + m.attentionFlopsPerPair * pairs;
  e.compute = m.joulesPerFlop * flops;
  e.weights = m.joulesPerByte * m.memoryFactor * m.weightBytes;
  e.kvWrite = m.joulesPerByte * m.memoryFactor * m.kvBytesPerToken * tokens;
  e.attentionRead = 0; // prefill attends within the prompt (on chip)
  e.flops = flops;
  e.bytes = m.memoryFactor * (m.weightBytes + m.kvBytesPerToken * tokens);
  return e;
}

FlopByteEnergy decodeEnergy(const FlopByteModel &m, double batch,
                            double historySum) {
  FlopByteEnergy e;
  // Each output attends to its L_j records: L_j (query, key) pairs.
  double flops =
      2 * m.parameters * batch + m.attentionFlopsPerPair * historySum;
  e.compute = m.joulesPerFlop * flops;
  e.weights = m.joulesPerByte * m.memoryFactor * m.weightBytes;
  e.kvWrite = m.joulesPerByte * m.memoryFactor * m.kvBytesPerToken * batch;
  e.attentionRead =
      m.joulesPerByte * m.memoryFactor * m.kvBytesPerToken * historySum;
  e.flops = flops;
  e.bytes = m.memoryFactor *
            (m.weightBytes + m.kvBytesPerToken * (batch + historySum));
  return e;
}

FlopByteOption atClock(const FlopByteModel &m, const FlopByteClocks &c,
                       const FlopByteEnergy &e, double T0, double mhz) {
  auto volt = [&](double f) {
    return c.vmin +
           (c.vmax - c.vmin) * (f - c.fminMhz) / (c.fmaxMhz - c.fminMhz);
  };
  double scale = volt(mhz) / volt(c.fmaxMhz);
  FlopByteOption o;
  o.T = std::max(T0, e.flops / (c.peakFlops * mhz / c.fmaxMhz));
  o.flopScale = scale * scale;
  o.d = m.joulesPerFlop * scale * scale * e.flops + m.joulesPerByte * e.bytes;
  return o;
}

bool fitFlopByte(const FlopByteModel &structure,
                 const std::vector<FlopByteRow> &rows, FlopByteFit &out,
                 std::string &err) {
  std::vector<std::vector<double>> X;
  std::vector<double> y;
  for (const FlopByteRow &r : rows) {
    FlopByteEnergy e = r.decode ? decodeEnergy(structure, r.a, r.b)
                                : prefillEnergy(structure, r.a, r.b);
    X.push_back({e.flops, e.bytes});
    y.push_back(r.d);
  }
  LinearFit fit;
  if (!fitLinear(X, y, fit, err)) {
    err = "flop-byte fit: " + err;
    return false;
  }
  out = FlopByteFit();
  out.joulesPerFlop = fit.coef[0];
  out.joulesPerByte = fit.coef[1];
  for (size_t i = 0; i < 4; ++i)
    out.cov[i] = fit.cov[i];
  // Symmetric exactly (the sandwich's products round apart in the last
  // digit; a model file's covariance must be symmetric).
  out.cov[1] = out.cov[2] = 0.5 * (fit.cov[1] + fit.cov[2]);
  out.rows = fit.rows;
  out.relSigma =
      fit.rows > 2 ? std::sqrt(fit.relativeRss / double(fit.rows - 2)) : 0.0;
  return true;
}

} // namespace calculus
} // namespace energy
