//===- DagGraph.cpp - The DAG of a schedule
//---------------------------------===//

#include "calculus/DagInternal.h"

#include <cstring>
#include <unordered_map>

namespace energy {
namespace calculus {
namespace dag {

size_t laneIndices(const Schedule &sched, std::vector<uint32_t> &laneOf) {
  std::unordered_map<uint64_t, uint32_t> index;
  laneOf.resize(sched.tasks.size());
  for (size_t t = 0; t < sched.tasks.size(); ++t) {
    const ScheduleTask &task = sched.tasks[t];
    uint64_t key =
        laneKey(task.devices.empty() ? 0 : task.devices[0], task.stream);
    laneOf[t] = index.emplace(key, uint32_t(index.size())).first->second;
  }
  return index.size();
}

bool Dag::build(const Schedule &s, std::string &err) {
  size_t n = s.tasks.size();
  release.resize(n);
  // A recorded start is a release (ScheduleTask::fixedStart), as in the
  // lowering's list scheduling.
  for (size_t t = 0; t < n; ++t)
    release[t] = std::max(s.tasks[t].release, s.tasks[t].fixedStart);
  std::vector<std::pair<uint32_t, Edge>> edges; // (from, edge)
  std::unordered_map<uint64_t, uint32_t> last;
  for (uint32_t t = 0; t < n; ++t) {
    for (const Dependency &d : s.tasks[t].deps)
      edges.push_back({d.pred, {t, d.startToStart, d.lag}});
    for (uint32_t dev : s.tasks[t].devices) {
      uint64_t key = laneKey(dev, s.tasks[t].stream);
      auto it = last.find(key);
      if (it != last.end() && it->second != t)
        edges.push_back({it->second, {t, false, 0}});
      last[key] = t;
    }
  }
  succStart.assign(n + 1, 0);
  predStart.assign(n + 1, 0);
  for (auto &[from, e] : edges) {
    ++succStart[from + 1];
    ++predStart[e.to + 1];
  }
  for (size_t i = 0; i < n; ++i) {
    succStart[i + 1] += succStart[i];
    predStart[i + 1] += predStart[i];
  }
  succ.resize(edges.size());
  pred.resize(edges.size());
  std::vector<uint32_t> fs(succStart.begin(), succStart.end() - 1),
      fp(predStart.begin(), predStart.end() - 1);
  for (auto &[from, e] : edges) {
    succ[fs[from]++] = e;
    pred[fp[e.to]++] = {from, e.startToStart, e.lag};
  }
  // Kahn.
  std::vector<uint32_t> indeg(n);
  for (size_t v = 0; v < n; ++v)
    indeg[v] = predStart[v + 1] - predStart[v];
  std::vector<uint32_t> ready;
  for (uint32_t v = 0; v < n; ++v)
    if (!indeg[v])
      ready.push_back(v);
  topo.clear();
  // First in, first out: a wavefront order, tasks near in time near in the
  // order (dagFrontier renumbers large schedules by it, for locality).
  for (size_t head = 0; head < ready.size(); ++head) {
    uint32_t u = ready[head];
    topo.push_back(u);
    for (uint32_t i = succStart[u]; i < succStart[u + 1]; ++i)
      if (--indeg[succ[i].to] == 0)
        ready.push_back(succ[i].to);
  }
  if (topo.size() != n) {
    err = "the schedule's dependencies and stream order form a cycle";
    return false;
  }
  // Makespans count from the schedule's start, as the lowering does: the
  // earliest release of a task without predecessors (any other task
  // starts after one of those), whatever the options.
  double origin = std::numeric_limits<double>::infinity();
  for (size_t v = 0; v < n; ++v)
    if (predStart[v] == predStart[v + 1])
      origin = std::min(origin, release[v]);
  for (double &r : release)
    r = std::max(0.0, r - origin);
  return true;
}

std::vector<uint32_t>
sharedOperatingSets(const std::vector<TaskOptions> &opts) {
  std::vector<uint32_t> rep(opts.size());
  // Candidates by a hash of the values' bits, confirmed by comparison.
  std::unordered_map<uint64_t, std::vector<uint32_t>> byHash;
  for (uint32_t t = 0; t < opts.size(); ++t) {
    const TaskOptions &o = opts[t];
    uint64_t h = 1469598103934665603ull ^ o.T.size();
    for (const std::vector<double> *v : {&o.T, &o.d})
      for (double x : *v) {
        uint64_t bits;
        std::memcpy(&bits, &x, sizeof bits);
        h = (h ^ bits) * 1099511628211ull;
      }
    std::vector<uint32_t> &candidates = byHash[h];
    rep[t] = t;
    for (uint32_t c : candidates)
      if (opts[c].T == o.T && opts[c].d == o.d) {
        rep[t] = c;
        break;
      }
    if (rep[t] == t)
      candidates.push_back(t);
  }
  return rep;
}

} // namespace dag
} // namespace calculus
} // namespace energy
