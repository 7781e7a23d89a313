//===- FlopByteTest.cpp - FLOP/byte inference energy accounting -----------===//
//
// Checks against token-by-token accounting: every token costs 2 P FLOPs of
// matrix products, every causal (query, key) pair a FLOPs, every pass reads
// the weights once, every new token writes K_kv bytes and every decoded
// output reads its whole history.
//
//===----------------------------------------------------------------------===//

#include "calculus/models/FlopByte.h"

#include <gtest/gtest.h>

#include <vector>

using namespace energy::calculus;

namespace {

// A 7B-class model: d = 4096, 32 layers, fp16.
FlopByteModel model() {
  FlopByteModel m;
  m.parameters = 7e9;
  m.attentionFlopsPerPair = 4.0 * 4096 * 32; // QK^T and PV, 2 d each
  m.weightBytes = 14e9;
  m.kvBytesPerToken = 2.0 * 32 * 4096 * 2; // K and V, fp16
  m.joulesPerFlop = 0.5e-12;
  m.joulesPerByte = 8e-12;
  m.memoryFactor = 1;
  return m;
}

TEST(FlopByte, PrefillMatchesTokenByTokenCount) {
  FlopByteModel m = model();
  std::vector<int> prompts = {3, 4, 17};
  double flops = 0, bytesWritten = 0, tokens = 0, squares = 0;
  for (int n : prompts) {
    tokens += n;
    squares += double(n) * n;
    for (int q = 0; q < n; ++q) {
      flops += 2 * m.parameters;
      for (int k = 0; k <= q; ++k) // causal: keys 0..q
        flops += m.attentionFlopsPerPair;
      bytesWritten += m.kvBytesPerToken;
    }
  }
  FlopByteEnergy e = prefillEnergy(m, tokens, squares);
  EXPECT_DOUBLE_EQ(e.compute, flops * m.joulesPerFlop);
  EXPECT_DOUBLE_EQ(e.weights, m.weightBytes * m.joulesPerByte);
  EXPECT_DOUBLE_EQ(e.kvWrite, bytesWritten * m.joulesPerByte);
  EXPECT_EQ(e.attentionRead, 0.0);
  EXPECT_DOUBLE_EQ(e.total(), e.compute + e.weights + e.kvWrite);
}

TEST(FlopByte, DecodeMatchesPerOutputCount) {
  FlopByteModel m = model();
  std::vector<int> histories = {10, 20, 4096};
  double flops = 0, readBytes = 0, writeBytes = 0, sum = 0;
  for (int L : histories) {
    sum += L;
    flops += 2 * m.parameters + L * m.attentionFlopsPerPair;
    readBytes += L * m.kvBytesPerToken;
    writeBytes += m.kvBytesPerToken;
  }
  FlopByteEnergy e = decodeEnergy(m, double(histories.size()), sum);
  EXPECT_DOUBLE_EQ(e.compute, flops * m.joulesPerFlop);
  EXPECT_DOUBLE_EQ(e.weights, m.weightBytes * m.joulesPerByte);
  EXPECT_DOUBLE_EQ(e.kvWrite, writeBytes * m.joulesPerByte);
  EXPECT_DOUBLE_EQ(e.attentionRead, readBytes * m.joulesPerByte);
}

TEST(FlopByte, DecodeIsMemoryBoundAtSmallBatch) {
  // One output, short history: weight reads (14 GB * 8 pJ = 0.112 J) dwarf
  // the 14 GFLOP of products (7 mJ) -- the regime the token law captures.
  FlopByteModel m = model();
  FlopByteEnergy e = decodeEnergy(m, 1, 128);
  EXPECT_NEAR(e.weights, 0.112, 1e-12);
  EXPECT_NEAR(e.compute, (14e9 + 128 * 524288.0) * 0.5e-12, 1e-12);
  EXPECT_GT(e.weights, 10 * e.compute);
}

TEST(FlopByte, MemoryFactorScalesBytesOnly) {
  FlopByteModel m = model();
  FlopByteEnergy base = decodeEnergy(m, 4, 1000);
  m.memoryFactor = 1.5;
  FlopByteEnergy scaled = decodeEnergy(m, 4, 1000);
  EXPECT_DOUBLE_EQ(scaled.compute, base.compute);
  EXPECT_DOUBLE_EQ(scaled.weights, 1.5 * base.weights);
  EXPECT_DOUBLE_EQ(scaled.kvWrite, 1.5 * base.kvWrite);
  EXPECT_DOUBLE_EQ(scaled.attentionRead, 1.5 * base.attentionRead);
}

} // namespace
