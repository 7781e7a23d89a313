//===- Serve.h - Inference serving schedules --------------------*- C++ -*-===//
//
// Expands an inference workload (a model, a set of requests, a batching
// policy) into prefill tasks and decode iterations on one device, with the
// Token-Energy Law coordinates of every decode iteration (token-energy-law
// paper, section 4): realized batch B_eff (useful outputs of the iteration)
// and the attended history of each output (its prompt plus the outputs
// before it). Durations come from a documented roofline time model (below);
// energies are left to signature providers.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_SERVE_H
#define CALCULUS_SERVE_H

#include <cstdint>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct Request {
  double arrival = 0;  ///< s
  uint64_t prompt = 0; ///< tokens
  uint64_t output = 0; ///< useful output tokens (>= 1)
};

struct ServeModel {
  double weightBytes = 0;     ///< M_w, dense weights read per iteration
  double kvBytesPerToken = 0; ///< K_KV, one KV record over all layers
  /// Roofline time model (an input, not a measurement):
  ///   decode iteration: overhead + (M_w + K_KV * sum of histories) / hbmBw
  ///   prefill of n prompt tokens: overhead + n / prefillTokensPerS
  double hbmBandwidth = 0; ///< B/s
  double prefillTokensPerS = 0;
  double iterationOverhead = 0; ///< s
};

enum class BatchPolicy { Static, Continuous };

struct ServeStep {
  enum Kind : uint8_t { Prefill, Decode } kind;
  double start, duration;
  uint32_t batch;    ///< Decode: useful outputs (B_eff); Prefill: requests
  uint64_t tokens;   ///< Prefill: prompt tokens; Decode: = batch
  double historySum; ///< Decode: sum over outputs of attended history
  std::vector<uint32_t> requests; ///< Prefill: the requests admitted
  double tokenSquares = 0;        ///< Prefill: sum of squared prompt lengths
};

/// The most steps (prefills and decode iterations) one serving workload
/// may simulate (docs/SCHED.md): 2^21 (expanded, a step is a task of
/// ~2.5 KB: 2^21 of them take ~5 GB and about a minute; 2^20 measured
/// 2.5 GB in 35 s). Each
/// decode iteration makes at least one output token, so a workload of N
/// output tokens at a batch cap of B needs at least ceil(N / B) of them.
constexpr uint64_t kMaxServeSteps = uint64_t(1) << 21;
/// The longest prompt a request may have (2^40 tokens): beyond it the time
/// and history sums lose whole tokens in double precision.
constexpr uint64_t kMaxPromptTokens = uint64_t(1) << 40;
/// Arrivals lie within 1e9 s (31 years) of the workload's start: beyond,
/// step durations (milliseconds) vanish in the arrival's rounding.
constexpr double kMaxArrivalS = 1e9;

/// Simulates the serving loop. Static: groups of up to maxBatch requests in
/// arrival order; a group starts when its last member has arrived and the
/// previous group is done, prefills together, decodes until its longest
/// request is done (members leave as they finish, none join). Continuous:
/// at every iteration boundary arrived requests join while slots are free
/// (their prefill runs first), finished requests leave. Returns false with
/// `err` on invalid input and once the loop passes kMaxServeSteps.
bool simulateServing(const ServeModel &model, std::vector<Request> requests,
                     uint32_t maxBatch, BatchPolicy policy,
                     std::vector<ServeStep> &steps, std::string &err);

/// Deterministic request generator: Poisson arrivals at `rate` per second,
/// prompt and output lengths uniform in [lo, hi] (inclusive), seeded.
std::vector<Request> generateRequests(uint32_t count, double rate,
                                      uint64_t promptLo, uint64_t promptHi,
                                      uint64_t outputLo, uint64_t outputHi,
                                      uint64_t seed);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_SERVE_H
