//===- ServeTest.cpp - serving expansion against the paper's coordinates --===//

#include "calculus/Serve.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace energy::calculus;

namespace {

ServeModel model() {
  ServeModel m;
  m.weightBytes = 15e9;
  m.kvBytesPerToken = 131072;
  m.hbmBandwidth = 3e12;
  m.prefillTokensPerS = 20000;
  m.iterationOverhead = 1e-3;
  return m;
}

// Token-energy-law paper, section 4.1: B synchronized requests, each
// attending I records at the first step and producing O outputs, give
// T = B O outputs, B_eff = B and L_token = I + (O - 1) / 2.
TEST(Serve, SynchronizedBatchMatchesPaperCoordinates) {
  const uint32_t B = 8;
  const uint64_t I = 1000, O = 64;
  std::vector<Request> reqs(B, Request{0, I, O});
  for (BatchPolicy p : {BatchPolicy::Static, BatchPolicy::Continuous}) {
    std::vector<ServeStep> steps;
    std::string err;
    ASSERT_TRUE(simulateServing(model(), reqs, B, p, steps, err)) << err;
    double outputs = 0, historySum = 0, iterations = 0;
    for (const ServeStep &s : steps)
      if (s.kind == ServeStep::Decode) {
        outputs += s.batch;
        historySum += s.historySum;
        ++iterations;
        EXPECT_EQ(s.batch, B);
      }
    EXPECT_EQ(outputs, double(B * O));
    EXPECT_EQ(outputs / iterations, double(B)); // B_eff
    EXPECT_DOUBLE_EQ(historySum / outputs, I + (O - 1) / 2.0);
    EXPECT_EQ(steps.front().kind, ServeStep::Prefill);
    EXPECT_EQ(steps.front().tokens, B * I);
  }
}

TEST(Serve, DeparturesShrinkTheBatch) {
  // Two requests, outputs 2 and 4: iterations see batch 2, 2, 1, 1.
  std::vector<Request> reqs{{0, 10, 2}, {0, 20, 4}};
  std::vector<ServeStep> steps;
  std::string err;
  ASSERT_TRUE(
      simulateServing(model(), reqs, 4, BatchPolicy::Static, steps, err));
  std::vector<uint32_t> batches;
  std::vector<double> hist;
  for (const ServeStep &s : steps)
    if (s.kind == ServeStep::Decode) {
      batches.push_back(s.batch);
      hist.push_back(s.historySum);
    }
  EXPECT_EQ(batches, (std::vector<uint32_t>{2, 2, 1, 1}));
  // Histories: (10 + 20), (11 + 21), 22, 23.
  EXPECT_EQ(hist, (std::vector<double>{30, 32, 22, 23}));
}

TEST(Serve, ContinuousBatchingAdmitsLateArrivals) {
  // The second request arrives while the first decodes; continuous batching
  // admits it at the next iteration boundary, static batching with a group
  // size of 1 serves it after the first finishes.
  std::vector<Request> reqs{{0, 100, 50}, {0.01, 100, 50}};
  std::vector<ServeStep> cont, stat;
  std::string err;
  ASSERT_TRUE(
      simulateServing(model(), reqs, 4, BatchPolicy::Continuous, cont, err));
  ASSERT_TRUE(
      simulateServing(model(), reqs, 1, BatchPolicy::Static, stat, err));
  int prefills = 0;
  uint32_t maxBatch = 0;
  for (const ServeStep &s : cont) {
    prefills += s.kind == ServeStep::Prefill;
    if (s.kind == ServeStep::Decode)
      maxBatch = std::max(maxBatch, s.batch);
  }
  EXPECT_EQ(prefills, 2);
  EXPECT_EQ(maxBatch, 2u);
  double endCont = cont.back().start + cont.back().duration;
  double endStat = stat.back().start + stat.back().duration;
  EXPECT_LT(endCont, endStat);
  // Steps never overlap and start no earlier than their requests arrive.
  for (size_t i = 1; i < cont.size(); ++i)
    EXPECT_GE(cont[i].start, cont[i - 1].start + cont[i - 1].duration - 1e-15);
}

TEST(Serve, RejectsBadInput) {
  std::vector<ServeStep> steps;
  std::string err;
  EXPECT_FALSE(simulateServing(model(), {{0, 10, 0}}, 4, BatchPolicy::Static,
                               steps, err));
  EXPECT_NE(err.find("at least one output"), std::string::npos);
  EXPECT_FALSE(simulateServing(model(), {{0, 10, 1}}, 0, BatchPolicy::Static,
                               steps, err));
  ServeModel bad = model();
  bad.hbmBandwidth = 0;
  EXPECT_FALSE(
      simulateServing(bad, {{0, 10, 1}}, 1, BatchPolicy::Static, steps, err));
}

TEST(Serve, GeneratorIsSeededAndInRange) {
  auto a = generateRequests(100, 5, 10, 20, 1, 8, 42);
  auto b = generateRequests(100, 5, 10, 20, 1, 8, 42);
  ASSERT_EQ(a.size(), 100u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival, b[i].arrival);
    EXPECT_GE(a[i].prompt, 10u);
    EXPECT_LE(a[i].prompt, 20u);
    EXPECT_GE(a[i].output, 1u);
    EXPECT_LE(a[i].output, 8u);
    if (i)
      EXPECT_GE(a[i].arrival, a[i - 1].arrival);
  }
}

} // namespace
