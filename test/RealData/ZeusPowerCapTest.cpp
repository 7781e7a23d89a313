//===- ZeusPowerCapTest.cpp - power limits against Zeus's own choices -----===//
//
// The Perseus artifact's Zeus table (../shared/data/zeus/README.md gives
// source and licence), read in place from the shared data folder. Run by
// test/RealData/zeus-power-cap.test, UNSUPPORTED where the folder is absent.
//
//===----------------------------------------------------------------------===//

#include "calculus/PowerCap.h"
#include "test/RealData/SharedData.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

using namespace energy::calculus;

namespace {

struct Job {
  std::vector<CapPoint> table;
  double zeusChoice = 0;
};

/// The Perseus artifact's Zeus table: per model, time and energy at each
/// global power limit (4 pipeline stages, one A100 each) and the limit Zeus
/// chose.
std::map<std::string, Job> readZeus() {
  std::ifstream in(energy::testing::sharedData("zeus/zeus_global_A100.csv"));
  EXPECT_TRUE(in.good());
  std::map<std::string, Job> jobs;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    // The partition column is quoted and holds commas: split it off first.
    std::string model = line.substr(0, line.find(','));
    std::string rest = line.substr(line.rfind('"') + 2);
    std::vector<std::string> cells;
    std::stringstream ss(rest);
    std::string c;
    while (std::getline(ss, c, ','))
      cells.push_back(c);
    // batch,dp,tp,pp,microbatch,num_microbatches,pl0..pl3,time,energy,opt
    EXPECT_EQ(cells.size(), 13u) << line;
    if (cells.size() != 13)
      continue;
    Job &job = jobs[model];
    job.table.push_back(
        {std::stod(cells[6]), std::stod(cells[10]), std::stod(cells[11])});
    job.zeusChoice = std::stod(cells[12]);
  }
  return jobs;
}

TEST(ZeusPowerCap, ReproducesZeusChoices) {
  auto jobs = readZeus();
  ASSERT_EQ(jobs.size(), 5u);
  for (auto &[model, job] : jobs) {
    CapObjective obj;
    obj.kind = CapObjective::ZeusCost;
    obj.eta = 0.5;
    obj.maxPower = 4 * 300; // four A100s at their 300 W maximum limit
    size_t i;
    std::string err;
    ASSERT_TRUE(choosePowerCap(job.table, obj, i, err)) << err;
    EXPECT_EQ(job.table[i].cap, job.zeusChoice) << model;
  }
}

} // namespace
