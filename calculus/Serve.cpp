//===- Serve.cpp - Inference serving schedules ----------------------------===//

#include "calculus/Serve.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace energy {
namespace calculus {

namespace {
struct Active {
  uint32_t id;
  uint64_t history;   ///< attended records for its next output
  uint64_t remaining; ///< outputs still to produce
};

double decodeTime(const ServeModel &m, double historySum) {
  return m.iterationOverhead +
         (m.weightBytes + m.kvBytesPerToken * historySum) / m.hbmBandwidth;
}
double prefillTime(const ServeModel &m, uint64_t tokens) {
  return m.iterationOverhead + double(tokens) / m.prefillTokensPerS;
}
} // namespace

bool simulateServing(const ServeModel &m, std::vector<Request> reqs,
                     uint32_t maxBatch, BatchPolicy policy,
                     std::vector<ServeStep> &steps, std::string &err) {
  if (maxBatch == 0) {
    err = "max_batch must be positive";
    return false;
  }
  if (!(m.hbmBandwidth > 0) || !(m.prefillTokensPerS > 0) ||
      !(m.iterationOverhead >= 0) || !(m.weightBytes >= 0) ||
      !(m.kvBytesPerToken >= 0)) {
    err = "the time model needs positive hbm_bandwidth and "
          "prefill_tokens_per_s and non-negative byte counts and overhead";
    return false;
  }
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].output == 0 || !(reqs[i].arrival >= 0) ||
        !std::isfinite(reqs[i].arrival)) {
      err = "request " + std::to_string(i) +
            ": needs a finite non-negative arrival and at least one output";
      return false;
    }
    if (reqs[i].prompt > kMaxPromptTokens) {
      err = "request " + std::to_string(i) + ": a prompt of " +
            std::to_string(reqs[i].prompt) + " tokens is above 2^40";
      return false;
    }
  }
  std::vector<uint32_t> order(reqs.size());
  for (uint32_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return reqs[a].arrival < reqs[b].arrival ||
           (reqs[a].arrival == reqs[b].arrival && a < b);
  });
  steps.clear();
  double now = 0;
  size_t next = 0; // into `order`
  std::vector<Active> active;
  bool over = false; // one more step would pass kMaxServeSteps
  auto room = [&] {
    over = over || steps.size() >= kMaxServeSteps;
    return !over;
  };
  auto prefill = [&](std::vector<uint32_t> ids) {
    if (!room())
      return;
    uint64_t tokens = 0;
    double squares = 0;
    for (uint32_t id : ids) {
      tokens += reqs[id].prompt;
      squares += double(reqs[id].prompt) * double(reqs[id].prompt);
      active.push_back({id, reqs[id].prompt, reqs[id].output});
    }
    ServeStep s{ServeStep::Prefill,   now,    prefillTime(m, tokens),
                uint32_t(ids.size()), tokens, 0,
                std::move(ids),       squares};
    now += s.duration;
    steps.push_back(std::move(s));
  };
  auto decode = [&]() {
    if (!room())
      return;
    double hist = 0;
    for (const Active &a : active)
      hist += double(a.history);
    ServeStep s{ServeStep::Decode,
                now,
                decodeTime(m, hist),
                uint32_t(active.size()),
                active.size(),
                hist,
                {},
                0};
    now += s.duration;
    steps.push_back(std::move(s));
    for (Active &a : active) {
      ++a.history;
      --a.remaining;
    }
    active.erase(std::remove_if(active.begin(), active.end(),
                                [](const Active &a) { return !a.remaining; }),
                 active.end());
  };
  // The prefills and decodes stop at the limit (at most kMaxServeSteps
  // are made), and so does the loop.
  while (!over && (next < order.size() || !active.empty())) {
    if (active.empty() && next < order.size())
      now = std::max(now, reqs[order[next]].arrival);
    if (policy == BatchPolicy::Static) {
      // A group: up to maxBatch in arrival order; wait for its last member.
      std::vector<uint32_t> group;
      while (next < order.size() && group.size() < maxBatch)
        group.push_back(order[next++]);
      now = std::max(now, reqs[group.back()].arrival);
      prefill(std::move(group));
      while (!active.empty() && !over)
        decode();
      continue;
    }
    // Continuous: admit everything that has arrived while slots are free.
    std::vector<uint32_t> admit;
    while (next < order.size() && active.size() + admit.size() < maxBatch &&
           reqs[order[next]].arrival <= now)
      admit.push_back(order[next++]);
    if (!admit.empty())
      prefill(std::move(admit));
    decode();
  }
  if (over) {
    err = "the workload runs more than 2^21 steps (prefills and decode "
          "iterations; docs/SCHED.md): fewer requests or output tokens, or "
          "a larger max_batch";
    steps.clear();
    return false;
  }
  return true;
}

std::vector<Request> generateRequests(uint32_t count, double rate,
                                      uint64_t promptLo, uint64_t promptHi,
                                      uint64_t outputLo, uint64_t outputHi,
                                      uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::exponential_distribution<double> gap(rate > 0 ? rate : 1);
  std::uniform_int_distribution<uint64_t> prompt(promptLo, promptHi),
      output(outputLo, outputHi);
  std::vector<Request> out;
  double t = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (rate > 0)
      t += gap(gen);
    out.push_back({t, prompt(gen), output(gen)});
  }
  return out;
}

} // namespace calculus
} // namespace energy
