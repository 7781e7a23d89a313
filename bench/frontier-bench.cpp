//===- frontier-bench.cpp - schedule frontier on a stage profile ----------===//
//
//   frontier-bench PROFILE.csv MICROBATCHES BLOCKING_W [QUANTUM_S [STEP_S
//                  [OUT.csv [CLASS_BUDGETS [CRASH_BUDGET]]]]]
//
// Builds the 1F1B pipeline of the profile's stages, computes the whole
// iteration time-energy frontier (calculus/DagFrontier.h), and prints the
// wall time, the number of points and sampled (time, energy) rows.
//
//===----------------------------------------------------------------------===//

#include "calculus/DagFrontier.h"
#include "calculus/Pipeline.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace energy::calculus;

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s PROFILE.csv MICROBATCHES BLOCKING_W "
                 "[QUANTUM_S [STEP_S [OUT.csv [CLASS_BUDGETS [CRASH_BUDGET]]]]]\n",
                 argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  // Numbers are read with the std::sto* family; what was being read is
  // named in the error instead of an uncaught exception.
  std::string where = "MICROBATCHES";
  uint32_t M = 0;
  double blocking = 0;
  DagFrontierSettings settings;
  settings.keepChoices = false;
  std::map<int, std::vector<Option>> fwd, bwd;
  try {
    M = std::stoul(argv[2]);
    where = "BLOCKING_W";
    blocking = std::stod(argv[3]);
    where = "QUANTUM_S";
    if (argc > 4)
      settings.quantum = std::stod(argv[4]);
    where = "STEP_S";
    if (argc > 5)
      settings.step = std::stod(argv[5]);
    where = "CLASS_BUDGETS";
    if (argc > 7) // the class sweep's budgets (large pipelines)
      settings.classBudgets = std::stoi(argv[7]);
    where = "CRASH_BUDGET";
    if (argc > 8) // the crash sweep's work budget (task visits)
      settings.crashWorkBudget = std::stoull(argv[8]);
    std::string line;
    std::getline(in, line);
    for (int row = 2; std::getline(in, line); ++row) {
      where = std::string(argv[1]) + " line " + std::to_string(row);
      std::stringstream ss(line);
      std::string c[5];
      for (auto &x : c)
        std::getline(ss, x, ',');
      double t = std::stod(c[3]), e = std::stod(c[4]);
      (c[1] == "forward" ? fwd : bwd)[std::stoi(c[0])].push_back(
          {t, e - blocking * t, blocking});
    }
  } catch (const std::exception &) {
    std::fprintf(stderr, "%s: expected a number\n", where.c_str());
    return 2;
  }
  PipelineSpec spec;
  spec.kind = PipelineKind::OneFOneB;
  spec.stages = fwd.size();
  spec.microbatches = M;
  spec.staticPowerPerGpu = blocking;
  for (uint32_t s = 0; s < spec.stages; ++s) {
    spec.forward.push_back({fwd[s][0].T, fwd[s][0].d});
    spec.backward.push_back({bwd[s][0].T, bwd[s][0].d});
  }
  Schedule sched;
  std::vector<PipelineTaskInfo> info;
  std::string err;
  if (!buildPipeline(spec, sched, info, err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::vector<std::vector<Option>> opts;
  for (const PipelineTaskInfo &i : info)
    opts.push_back(i.kind == PipelineTaskInfo::F ? fwd[i.vstage]
                                                 : bwd[i.vstage]);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<DagPoint> front;
  DagFrontierResult result;
  if (!dagFrontier(sched, opts, settings, front, err, &result)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf("tasks %zu, options per task %zu, frontier points %zu, %.3f s, "
              "certified worst gap %.2f %% (at %.4f s)\n",
              sched.tasks.size(), opts[0].size(), front.size(), secs,
              100 * result.worstGap, result.worstGapAt);
  size_t stride = front.size() > 10 ? front.size() / 10 : 1;
  auto show = [&](const DagPoint &p, const char *tail) {
    std::printf("  T = %.4f s  E = %.1f J", p.T, p.E);
    if (!std::isnan(p.lowerBound) && p.lowerBound > 0)
      std::printf("  (bound %.1f J, gap %.2f %%)", p.lowerBound,
                  100 * (p.E - p.lowerBound) / p.lowerBound);
    std::printf("%s\n", tail);
  };
  for (size_t i = 0; i < front.size(); i += stride)
    show(front[i], "");
  show(front.back(), " (last)");
  if (argc > 6) {
    std::ofstream out(argv[6]);
    out << "time_s,energy_J,lower_bound_J\n";
    char buf[128];
    for (const DagPoint &p : front) {
      std::snprintf(buf, sizeof(buf), "%.17g,%.17g,", p.T, p.E);
      out << buf;
      if (!std::isnan(p.lowerBound)) {
        std::snprintf(buf, sizeof(buf), "%.17g", p.lowerBound);
        out << buf;
      }
      out << "\n";
    }
  }
  return 0;
}
