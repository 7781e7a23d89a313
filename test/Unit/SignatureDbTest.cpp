//===- SignatureDbTest.cpp - per-rank shards pooled into one DB -----------===//

#include "runtime/db/SignatureDb.h"
#include "runtime/Characterize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

using namespace energy::rt;

namespace {

struct Stats {
  double mean, sd;
};
Stats stats(const std::vector<double> &x) {
  double m = 0, v = 0;
  for (double xi : x)
    m += xi / double(x.size());
  for (double xi : x)
    v += (xi - m) * (xi - m) / double(x.size() - 1);
  return {m, std::sqrt(v)};
}

TEST(SignatureDb, PoolingEqualsTheUnionOfRuns) {
  // Three ranks measured the same kernel with 5, 7 and 3 runs (different
  // GPUs: shifted means, static powers 60, 61, 62 W). Pooling their
  // summaries must give exactly the statistics of all 15 runs taken
  // together: their times, their energies s_k T + D, and so their dynamic
  // energies against the pooled static power s, D + (s_k - s) T, whose
  // spread the pool bounds (the runs' covariance of D and T is not in a
  // summary).
  std::mt19937_64 g(5);
  std::normal_distribution<double> n01(0, 1);
  std::vector<double> allT, allD, allS;
  std::vector<SignatureDb> shards;
  std::vector<std::string> names;
  int sizes[3] = {5, 7, 3};
  for (int k = 0; k < 3; ++k) {
    std::vector<double> T, D;
    for (int r = 0; r < sizes[k]; ++r) {
      T.push_back(0.01 * (1 + 0.05 * k) + 1e-4 * n01(g));
      D.push_back(2.0 * (1 + 0.03 * k) + 0.02 * n01(g));
    }
    allT.insert(allT.end(), T.begin(), T.end());
    allD.insert(allD.end(), D.begin(), D.end());
    allS.insert(allS.end(), T.size(), 60.0 + k);
    Stats st = stats(T), sd = stats(D);
    SignatureDb db;
    db.device = "cuda:" + std::to_string(k);
    db.entries.push_back({"gemm", 1410, 60.0 + k, st.mean, sd.mean, st.sd,
                          sd.sd, sizes[k], "measured"});
    shards.push_back(db);
    names.push_back("rank" + std::to_string(k) + ".json");
  }
  SignatureDb out;
  std::string err;
  ASSERT_TRUE(poolSignatureDbs(shards, names, out, err)) << err;
  ASSERT_EQ(out.entries.size(), 1u);
  const DbEntry &e = out.entries[0];
  double s = (60.0 * 5 + 61.0 * 7 + 62.0 * 3) / 15;
  std::vector<double> allE, restated;
  for (size_t r = 0; r < allT.size(); ++r) {
    allE.push_back(allS[r] * allT[r] + allD[r]);
    restated.push_back(allD[r] + (allS[r] - s) * allT[r]);
  }
  Stats T = stats(allT), D = stats(restated), E = stats(allE);
  EXPECT_NEAR(e.s, s, 1e-12);
  EXPECT_NEAR(e.T, T.mean, 1e-15);
  EXPECT_NEAR(e.s * e.T + e.d, E.mean, 1e-12);
  EXPECT_NEAR(e.d, D.mean, 1e-13);
  EXPECT_NEAR(e.sigmaT, T.sd, 1e-15);
  // A bound: at least the restated runs' spread, and no wider than the
  // worst case of each shard's term (|s_k - s| <= 1.2 W, sigma_T ~ 1e-4).
  EXPECT_GE(e.sigmaD, D.sd - 1e-13);
  EXPECT_LE(e.sigmaD, D.sd + 1.2 * 1e-3);
  EXPECT_EQ(e.runs, 15);
  EXPECT_EQ(e.method, "measured");
  EXPECT_EQ(out.device, "cuda:0, cuda:1, cuda:2");
}

/// Two shards of one entry each ("a" and "b"), pooled into `pooled`, with
/// the pool's notes.
::testing::AssertionResult poolPair(const DbEntry &x, const DbEntry &y,
                                    DbEntry &pooled,
                                    std::vector<std::string> &notes) {
  SignatureDb a, b, out;
  a.entries = {x};
  b.entries = {y};
  std::string err;
  notes.clear();
  if (!poolSignatureDbs({a, b}, {"a", "b"}, out, err, &notes))
    return ::testing::AssertionFailure() << err;
  if (out.entries.size() != 1)
    return ::testing::AssertionFailure() << out.entries.size() << " entries";
  pooled = out.entries[0];
  return ::testing::AssertionSuccess();
}

TEST(SignatureDb, PoolingKeepsTheEnergyWhereStaticPowersDiffer) {
  // 10 W x 1 s + 5 J and 500 W x 2 s + 5 J, 4 runs each: the runs average
  // (15 + 1005) / 2 = 510 J, which the pool must keep (it once pooled s,
  // T and d apart: 255 W x 1.5 s + 5 J = 387.5 J), and say why it looks
  // odd.
  DbEntry a{"k", 1000, 10, 1, 5, 0, 0, 4, "measured"};
  DbEntry b{"k", 1000, 500, 2, 5, 0, 0, 4, "measured"};
  DbEntry e;
  std::vector<std::string> notes;
  ASSERT_TRUE(poolPair(a, b, e, notes));
  EXPECT_DOUBLE_EQ(e.s, 255);
  EXPECT_DOUBLE_EQ(e.T, 1.5);
  EXPECT_DOUBLE_EQ(e.s * e.T + e.d, 510);
  // (Its times, 1 s and 2 s, differ too: the second note.)
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("static powers differ by more than 10 % (10 to "
                          "500 W)"),
            std::string::npos)
      << notes[0];
  // Within 10 %: no note of static power.
  b.s = 10.5;
  ASSERT_TRUE(poolPair(a, b, e, notes));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].find("static powers"), std::string::npos) << notes[0];
}

TEST(SignatureDb, PoolingSaysWhenShardsTimesDiffer) {
  // One region name on two ranks doing different work (a pipeline's
  // "iteration" on its two stages): 250 ms and 142 ms, each +- 2 ms over
  // its runs, pool to 196 ms, no one rank's pass: said. Times within 10 %,
  // or apart by less than three of their runs' spread, are not.
  DbEntry a{"iteration", 1410, 60, 0.250, 5, 0.002, 0.1, 2, "simulated"};
  DbEntry b{"iteration", 1410, 60, 0.142, 3, 0.002, 0.1, 2, "simulated"};
  DbEntry e;
  std::vector<std::string> notes;
  ASSERT_TRUE(poolPair(a, b, e, notes));
  EXPECT_DOUBLE_EQ(e.T, 0.196);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("key 'iteration' at 1410 MHz: the shards' mean "
                          "times differ by more than 10 % and beyond their "
                          "runs' spread (0.142 to 0.25 s)"),
            std::string::npos)
      << notes[0];
  b.T = 0.240; // within 10 %
  ASSERT_TRUE(poolPair(a, b, e, notes));
  EXPECT_TRUE(notes.empty());
  b.T = 0.142; // apart, but so are the runs
  a.sigmaT = b.sigmaT = 0.05;
  ASSERT_TRUE(poolPair(a, b, e, notes));
  EXPECT_TRUE(notes.empty());
}

TEST(SignatureDb, PooledDynamicEnergyIsNeverNegative) {
  // Idle waits (d = 0) at 60 W x 1.1 s and 64 W x 1.0 s, 5 runs each: the
  // runs average (66 + 64) / 2 = 65 J, below the pooled 62 W x 1.05 s =
  // 65.1 J. Restated, d would be -0.1 J, which no DB holds (the merged
  // file was refused when read back): kept at 0 and said; a difference
  // of rounding alone (equal powers) is not.
  DbEntry a{"wait", 1980, 60, 1.1, 0, 0, 0, 5, "measured"};
  DbEntry b{"wait", 1980, 64, 1.0, 0, 0, 0, 5, "measured"};
  DbEntry e;
  std::vector<std::string> notes;
  ASSERT_TRUE(poolPair(a, b, e, notes));
  EXPECT_EQ(e.d, 0);
  EXPECT_DOUBLE_EQ(e.s * e.T, 65.1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("kept at 0, 0.1 J above the runs"), std::string::npos)
      << notes[0];
  b.s = 60;
  b.T = 1.1;
  b.runs = 4; // (the same shard twice is refused)
  ASSERT_TRUE(poolPair(a, b, e, notes));
  EXPECT_GE(e.d, 0);
  EXPECT_TRUE(notes.empty());
}

TEST(SignatureDb, PooledRunsStayWithinWhatADbHolds) {
  SignatureDb a, b;
  a.entries.push_back(
      {"k", 1000, 10, 1, 5, 0, 0, int64_t(1) << 52, "measured"});
  b.entries.push_back(
      {"k", 1000, 10, 1, 5, 0, 0, (int64_t(1) << 52) + 4, "measured"});
  SignatureDb out;
  std::string err;
  EXPECT_FALSE(poolSignatureDbs({a, b}, {"a.json", "b.json"}, out, err));
  EXPECT_NE(err.find("the pooled runs pass 2^53"), std::string::npos) << err;
}

TEST(SignatureDb, DistinctClocksStaySeparate) {
  SignatureDb a, b;
  a.entries.push_back({"k", 1410, 60, 1, 10, 0, 0, 3, "simulated"});
  b.entries.push_back({"k", 1005, 55, 1.4, 7, 0, 0, 3, "simulated"});
  SignatureDb out;
  std::string err;
  ASSERT_TRUE(poolSignatureDbs({a, b}, {"a", "b"}, out, err)) << err;
  ASSERT_EQ(out.entries.size(), 2u);
  EXPECT_EQ(out.entries[0].d + out.entries[1].d, 17);
}

TEST(SignatureDb, RefusesWhatCannotBePooled) {
  SignatureDb a, b;
  a.entries.push_back({"k", 1410, 60, 1, 10, 0, 0, 3, "measured"});
  b.entries.push_back({"k", 1410, 60, 1, 10, 0, 0, 3, "simulated"});
  SignatureDb out;
  std::string err;
  EXPECT_FALSE(poolSignatureDbs({a, b}, {"a.json", "b.json"}, out, err));
  EXPECT_NE(err.find("b.json (key 'k' at 1410 MHz): method 'simulated'"),
            std::string::npos)
      << err;
  b.entries[0].method = "measured";
  b.entries[0].runs = 0;
  EXPECT_FALSE(poolSignatureDbs({a, b}, {"a.json", "b.json"}, out, err));
  EXPECT_NE(err.find("needs the number of runs"), std::string::npos) << err;
}

TEST(SignatureDb, WriteReadRoundTrip) {
  SignatureDb db;
  db.device = "sim:A100 \"quoted\"";
  db.entries.push_back({"attn \"row\"", 1200, 58.5, 3.25e-4, 0.0625, 1e-7, 2e-4,
                        10, "simulated"});
  std::string path = testing::TempDir() + "/roundtrip.json";
  std::ofstream(path) << writeSignatureDb(db);
  SignatureDb back;
  std::string err;
  ASSERT_TRUE(readSignatureDb(path, back, err)) << err;
  EXPECT_EQ(back.device, db.device);
  ASSERT_EQ(back.entries.size(), 1u);
  const DbEntry &e = back.entries[0];
  EXPECT_EQ(e.key, "attn \"row\"");
  EXPECT_EQ(e.smMhz, 1200);
  EXPECT_EQ(e.s, 58.5);
  EXPECT_EQ(e.T, 3.25e-4);
  EXPECT_EQ(e.d, 0.0625);
  EXPECT_EQ(e.sigmaT, 1e-7);
  EXPECT_EQ(e.sigmaD, 2e-4);
  EXPECT_EQ(e.runs, 10);
  EXPECT_EQ(e.method, "simulated");
  std::remove(path.c_str());
}

TEST(SignatureDb, RuntimeWriterEscapesUserNames) {
  // The C API's region names are user strings: the LLVM-free writer must
  // produce JSON that the shared reader parses back to the same names.
  Measurement m;
  m.key = "layer \"3\" \\ attn\t";
  m.smMhz = 1410;
  m.s = 60;
  m.T = 1e-3;
  m.d = 0.2;
  m.runs = 4;
  std::string path = testing::TempDir() + "/escaped.json";
  std::ofstream(path) << signatureDbJson("cuda:0 \"H100\"", {m}, "measured");
  SignatureDb back;
  std::string err;
  ASSERT_TRUE(readSignatureDb(path, back, err)) << err;
  EXPECT_EQ(back.device, "cuda:0 \"H100\"");
  ASSERT_EQ(back.entries.size(), 1u);
  EXPECT_EQ(back.entries[0].key, m.key);
  EXPECT_EQ(back.entries[0].runs, 4);
  std::remove(path.c_str());
}

} // namespace

namespace {

// Shards of different GPU models, or the same shard twice, do not pool
// (an A100 and an H100 shard used to become one entry; a shard given twice
// doubled its runs and shrank its sigma).
TEST(SignatureDb, RefusesOtherModelsAndTheSameShardTwice) {
  SignatureDb a, b;
  a.device = "nvml:NVIDIA A100-SXM4-80GB";
  b.device = "nvml:NVIDIA H100 80GB HBM3";
  a.entries.push_back({"k", 1410, 60, 1, 10, 0, 0, 3, "measured"});
  b.entries.push_back({"k", 1410, 60, 1.2, 11, 0, 0, 3, "measured"});
  SignatureDb out;
  std::string err;
  EXPECT_FALSE(poolSignatureDbs({a, b}, {"a.json", "b.json"}, out, err));
  EXPECT_NE(err.find("(H100), a.json on 'nvml:NVIDIA A100-SXM4-80GB' (A100): "
                     "measurements of different GPU models do not pool"),
            std::string::npos)
      << err;
  EXPECT_FALSE(poolSignatureDbs({a, a}, {"a.json", "a2.json"}, out, err));
  EXPECT_NE(err.find("a2.json holds exactly the measurements of a.json"),
            std::string::npos)
      << err;
  // Ranks of one model pool.
  b.device = "nvml:NVIDIA A100-SXM4-80GB";
  EXPECT_TRUE(poolSignatureDbs({a, b}, {"a.json", "b.json"}, out, err)) << err;
}

TEST(SignatureDb, GpuModels) {
  EXPECT_EQ(gpuModelOf("sim:A100-SXM4 (simulated)"), "A100");
  EXPECT_EQ(gpuModelOf("nvml:NVIDIA H200"), "H200");
  EXPECT_EQ(gpuModelOf("2xH200"), "H200");
  EXPECT_EQ(gpuModelOf("A40"), "A40");
  EXPECT_EQ(gpuModelOf("cuda:0"), "");
  EXPECT_EQ(gpuModelOf("Tesla V100-SXM2-16GB"), "V100");
}

} // namespace
