//===- PipelineTest.cpp - pipeline schedules against known formulas -------===//
//
// Makespans of uniform pipelines have closed forms in the literature:
//  GPipe and 1F1B: (M + S - 1)(F + B);
//  interleaved 1F1B with v chunks of F/v, B/v: M(F + B) + (S - 1)(F + B)/v
//    (Narayanan et al., SC'21: the bubble shrinks by v);
//  ZB-H1: M(F + B + W) + (S - 1)(F + B - W) (Qi et al., ICLR'24, when
//    F = B = W the bubble is a third of 1F1B's).
// With a point-to-point latency delta on each hop, GPipe's fill and drain
// each cross S - 1 links: (M + S - 1)(F + B) + 2 (S - 1) delta (derived in
// MakespansWithP2pLatency).
//
//===----------------------------------------------------------------------===//

#include "calculus/Pipeline.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

using namespace energy::calculus;

namespace {

double makespan(PipelineKind kind, uint32_t S, uint32_t M, uint32_t v, double F,
                double B, double W = 0, uint32_t dp = 1, double p2p = 0) {
  PipelineSpec spec;
  spec.p2pLatency = p2p;
  spec.kind = kind;
  spec.stages = S;
  spec.microbatches = M;
  spec.chunks = v;
  spec.dataParallel = dp;
  spec.staticPowerPerGpu = 50;
  spec.forward.assign(S * v, {F, 1});
  spec.backward.assign(S * v, {B, 2});
  if (kind == PipelineKind::ZBH1)
    spec.weight.assign(S * v, {W, 1});
  spec.allreduce = {0.5, 3};
  Schedule sched;
  std::vector<PipelineTaskInfo> info;
  std::string err;
  EXPECT_TRUE(buildPipeline(spec, sched, info, err)) << err;
  std::vector<double> start;
  std::vector<uint32_t> cycle;
  EXPECT_TRUE(computeStartTimes(sched, start, cycle)) << "deadlock";
  double end = 0;
  for (size_t t = 0; t < sched.tasks.size(); ++t)
    end = std::max(end, start[t] + sched.tasks[t].duration);
  // Every (type, vstage, microbatch, replica) exactly once.
  std::set<std::tuple<int, uint32_t, uint32_t, uint32_t>> seen;
  for (const PipelineTaskInfo &i : info)
    EXPECT_TRUE(
        seen.insert({i.kind, i.vstage, i.microbatch, i.replica}).second);
  size_t expect =
      size_t(dp) * S * v * M * (kind == PipelineKind::ZBH1 ? 3 : 2) +
      (dp > 1 ? S : 0);
  EXPECT_EQ(info.size(), expect);
  return end;
}

TEST(Pipeline, OneFOneBOrder) {
  std::vector<std::vector<PipeInstr>> order;
  std::string err;
  ASSERT_TRUE(pipelineOrder(PipelineKind::OneFOneB, 4, 6, 1, order, err));
  // Stage 0: warm-up 3 forwards, then F3 B0 F4 B1 F5 B2, then B3 B4 B5.
  std::string s0;
  for (const PipeInstr &i : order[0])
    s0 += (i.type == PipeInstr::F ? "F" : "B") + std::to_string(i.microbatch) +
          " ";
  EXPECT_EQ(s0, "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5 ");
  std::string s3;
  for (const PipeInstr &i : order[3])
    s3 += (i.type == PipeInstr::F ? "F" : "B") + std::to_string(i.microbatch) +
          " ";
  EXPECT_EQ(s3, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 ");
}

TEST(Pipeline, InterleavedFollowsMegatron) {
  std::vector<std::vector<PipeInstr>> order;
  std::string err;
  ASSERT_TRUE(pipelineOrder(PipelineKind::Interleaved, 2, 4, 2, order, err));
  // Rank 0 warm-up: (S - 0 - 1) * 2 + (v - 1) * S = 4 forwards: chunk 0 on
  // microbatches 0, 1, then chunk 1 (virtual stage 2) on 0, 1.
  std::vector<std::pair<uint32_t, uint32_t>> warm;
  for (int i = 0; i < 4; ++i)
    warm.push_back({order[0][i].vstage, order[0][i].microbatch});
  EXPECT_EQ(warm, (std::vector<std::pair<uint32_t, uint32_t>>{
                      {0, 0}, {0, 1}, {2, 0}, {2, 1}}));
  // First backward on rank 0 is the last chunk (virtual stage 2), mb 0.
  EXPECT_EQ(order[0][5].type, PipeInstr::B);
  EXPECT_EQ(order[0][5].vstage, 2u);
  EXPECT_EQ(order[0][5].microbatch, 0u);
  EXPECT_FALSE(pipelineOrder(PipelineKind::Interleaved, 3, 4, 2, order, err));
  EXPECT_NE(err.find("multiple of stages"), std::string::npos);
}

TEST(Pipeline, MakespansMatchClosedForms) {
  for (uint32_t S : {1u, 2u, 4u, 8u})
    for (uint32_t M : {1u, 3u, 8u, 16u}) {
      EXPECT_DOUBLE_EQ(makespan(PipelineKind::GPipe, S, M, 1, 1, 2),
                       (M + S - 1) * 3.0);
      EXPECT_DOUBLE_EQ(makespan(PipelineKind::OneFOneB, S, M, 1, 1, 2),
                       (M + S - 1) * 3.0);
      if (M >= S)
        EXPECT_DOUBLE_EQ(makespan(PipelineKind::ZBH1, S, M, 1, 1, 1, 1),
                         M * 3.0 + (S - 1) * 1.0)
            << "S=" << S << " M=" << M;
    }
  for (uint32_t S : {2u, 4u})
    for (uint32_t v : {2u, 3u})
      for (uint32_t M : {S, 2 * S, 4 * S})
        EXPECT_NEAR(
            makespan(PipelineKind::Interleaved, S, M, v, 1.0 / v, 2.0 / v),
            M * 3.0 + (S - 1) * 3.0 / v, 1e-9)
            << "S=" << S << " v=" << v << " M=" << M;
}

// GPipe with latency delta per hop: forward F_{s,m} starts at
// s (F + delta) + m F (the previous stage's pass plus the hop, or this
// stage's previous microbatch), so the last stage's forwards end at
// (S - 1)(F + delta) + M F; its backwards start there (no hop) and stage
// s's last backward ends (S - 1 - s)(B + delta) + M B later. Stage 0:
// (M + S - 1)(F + B) + 2 (S - 1) delta. One stage has no link: no delay.
TEST(Pipeline, MakespansWithP2pLatency) {
  for (uint32_t S : {1u, 2u, 4u})
    for (uint32_t M : {1u, 4u, 8u})
      for (double delta : {0.0, 0.1, 0.25})
        EXPECT_NEAR(makespan(PipelineKind::GPipe, S, M, 1, 1, 2, 0, 1, delta),
                    (M + S - 1) * 3.0 + 2 * (S - 1) * delta, 1e-12)
            << "S=" << S << " M=" << M << " delta=" << delta;
  // 1F1B with one microbatch is GPipe's; more microbatches never shorten it.
  for (uint32_t S : {2u, 4u})
    for (double delta : {0.1, 0.5}) {
      EXPECT_NEAR(makespan(PipelineKind::OneFOneB, S, 1, 1, 1, 2, 0, 1, delta),
                  S * 3.0 + 2 * (S - 1) * delta, 1e-12);
      EXPECT_GE(makespan(PipelineKind::OneFOneB, S, 8, 1, 1, 2, 0, 1, delta),
                makespan(PipelineKind::OneFOneB, S, 8, 1, 1, 2) +
                    2 * (S - 1) * delta - 1e-12);
    }
}

TEST(Pipeline, DataParallelAllReduceOverlapsLastBackward) {
  // Paper example: 2 stages, 2 microbatches, F = 1, B = 2, AR = 0.5 with a
  // lag of half the last backward: stage 0's B2 starts at 7, its AR at 8.
  double end = makespan(PipelineKind::OneFOneB, 2, 2, 1, 1, 2, 0, 2);
  EXPECT_DOUBLE_EQ(end, 9.0); // B2 on stage 0 ends at 9; AR ends at 8.5
}

} // namespace
