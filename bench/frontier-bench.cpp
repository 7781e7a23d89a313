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
#include <tuple>

using namespace energy::calculus;

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(
        stderr,
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
    if (!(blocking >= 0) || !std::isfinite(blocking) ||
        !(settings.quantum >= 0) || !(settings.step >= 0)) {
      std::fprintf(stderr, "BLOCKING_W, QUANTUM_S and STEP_S must be finite "
                           "and non-negative\n");
      return 2;
    }
    // Perseus's stage-profile CSV, checked as --import-stage-profile checks
    // it (a bench tool, but no input should run into undefined behaviour
    // or a frontier of impossible values).
    std::string line;
    std::getline(in, line);
    std::map<std::tuple<int, std::string, std::string>, int> seen;
    for (int row = 2; std::getline(in, line); ++row) {
      where = std::string(argv[1]) + " line " + std::to_string(row);
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      if (line.empty())
        continue;
      std::stringstream ss(line);
      std::string c[5];
      for (auto &x : c)
        std::getline(ss, x, ',');
      int stage = std::stoi(c[0]);
      double t = std::stod(c[3]), e = std::stod(c[4]);
      auto bad = [&](const char *why) {
        std::fprintf(stderr, "%s: %s\n", where.c_str(), why);
        return 2;
      };
      if (c[1] != "forward" && c[1] != "backward")
        return bad("instruction must be forward or backward");
      if (stage < 0 || stage > 4096)
        return bad("stage must be in [0, 4096]");
      if (!(t > 0) || !std::isfinite(t) || !std::isfinite(e) ||
          e < blocking * t)
        return bad("needs a positive time and an energy of at least "
                   "BLOCKING_W x time");
      if (!seen.emplace(std::make_tuple(stage, c[1], c[2]), row).second)
        return bad("this stage, instruction and frequency again");
      (c[1] == "forward" ? fwd : bwd)[stage].push_back(
          {t, e - blocking * t, blocking});
    }
  } catch (const std::exception &) {
    std::fprintf(stderr, "%s: expected a number\n", where.c_str());
    return 2;
  }
  for (int s = 0; s < int(std::max(fwd.size(), bwd.size())); ++s)
    if (fwd[s].empty() || bwd[s].empty()) {
      std::fprintf(stderr,
                   "%s: stage %d has no %s rows (stages must be 0, 1, ...; "
                   "each with forward and backward rows)\n",
                   argv[1], s, fwd[s].empty() ? "forward" : "backward");
      return 2;
    }
  if (fwd.empty()) {
    std::fprintf(stderr, "%s: no rows\n", argv[1]);
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
