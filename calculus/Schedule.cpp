//===- Schedule.cpp - Scheduled DAGs, timing and lowering -----------------===//

#include "calculus/Schedule.h"

#include "calculus/Random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

namespace energy {
namespace calculus {

namespace {
/// Predecessors of every task: explicit dependencies plus the previous task
/// on the same stream of each of its devices (program order).
struct Graph {
  std::vector<uint32_t> streamPredStart; // CSR offsets into streamPreds
  std::vector<uint32_t> streamPreds;

  explicit Graph(const Schedule &s) {
    size_t n = s.tasks.size();
    streamPredStart.assign(n + 1, 0);
    // Last task seen on each (device, stream).
    std::unordered_map<uint64_t, uint32_t> last;
    last.reserve(s.devices.size() * 4 + 16);
    std::vector<uint32_t> tmp;
    for (uint32_t t = 0; t < n; ++t) {
      streamPredStart[t] = streamPreds.size();
      for (uint32_t dev : s.tasks[t].devices) {
        uint64_t key = (uint64_t(dev) << 32) | s.tasks[t].stream;
        auto it = last.find(key);
        if (it != last.end()) {
          if (std::find(streamPreds.begin() + streamPredStart[t],
                        streamPreds.end(), it->second) == streamPreds.end())
            streamPreds.push_back(it->second);
          it->second = t;
        } else {
          last.emplace(key, t);
        }
      }
    }
    streamPredStart[n] = streamPreds.size();
  }
};

/// Iterative DFS over predecessor edges; returns a cycle if one exists.
std::vector<uint32_t> findCycle(const Schedule &s, const Graph *g) {
  size_t n = s.tasks.size();
  std::vector<uint8_t> color(n, 0); // 0 white, 1 on stack, 2 done
  std::vector<uint32_t> parent(n, UINT32_MAX);
  struct Frame {
    uint32_t task;
    uint32_t next; // index over explicit deps then stream preds
  };
  std::vector<Frame> stack;
  auto predAt = [&](uint32_t t, uint32_t i, uint32_t &out) {
    const auto &deps = s.tasks[t].deps;
    if (i < deps.size()) {
      out = deps[i].pred;
      return true;
    }
    if (!g)
      return false;
    i -= deps.size();
    uint32_t b = g->streamPredStart[t], e = g->streamPredStart[t + 1];
    if (b + i < e) {
      out = g->streamPreds[b + i];
      return true;
    }
    return false;
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (color[root])
      continue;
    stack.push_back({root, 0});
    color[root] = 1;
    while (!stack.empty()) {
      Frame &f = stack.back();
      uint32_t p;
      if (!predAt(f.task, f.next++, p)) {
        color[f.task] = 2;
        stack.pop_back();
        continue;
      }
      if (p >= n)
        continue;
      if (color[p] == 1) {
        // Cycle: p ... f.task on the stack.
        std::vector<uint32_t> cycle;
        for (size_t i = stack.size(); i-- > 0;) {
          cycle.push_back(stack[i].task);
          if (stack[i].task == p)
            break;
        }
        return cycle;
      }
      if (color[p] == 0) {
        color[p] = 1;
        stack.push_back({p, 0});
      }
    }
  }
  return {};
}
} // namespace

std::vector<uint32_t> findDependencyCycle(const Schedule &sched) {
  return findCycle(sched, nullptr);
}

namespace {
/// Kahn's algorithm over explicit and stream predecessors: tasks in an
/// order where each follows all of its predecessors. False on a cycle.
bool topologicalOrder(const Schedule &s, const Graph &g,
                      std::vector<uint32_t> &order) {
  size_t n = s.tasks.size();
  std::vector<uint32_t> indeg(n, 0), succStart(n + 1, 0), succ;
  auto forEachPred = [&](uint32_t t, auto fn) {
    for (const Dependency &dep : s.tasks[t].deps)
      fn(dep.pred);
    for (uint32_t i = g.streamPredStart[t]; i < g.streamPredStart[t + 1]; ++i)
      fn(g.streamPreds[i]);
  };
  for (uint32_t t = 0; t < n; ++t)
    forEachPred(t, [&](uint32_t p) {
      ++succStart[p + 1];
      ++indeg[t];
    });
  for (size_t i = 0; i < n; ++i)
    succStart[i + 1] += succStart[i];
  succ.resize(succStart[n]);
  {
    std::vector<uint32_t> fill(succStart.begin(), succStart.end() - 1);
    for (uint32_t t = 0; t < n; ++t)
      forEachPred(t, [&](uint32_t p) { succ[fill[p]++] = t; });
  }
  order.clear();
  order.reserve(n);
  std::vector<uint32_t> ready;
  for (uint32_t t = 0; t < n; ++t)
    if (!indeg[t])
      ready.push_back(t);
  while (!ready.empty()) {
    uint32_t t = ready.back();
    ready.pop_back();
    order.push_back(t);
    for (uint32_t i = succStart[t]; i < succStart[t + 1]; ++i)
      if (--indeg[succ[i]] == 0)
        ready.push_back(succ[i]);
  }
  return order.size() == n;
}

/// List scheduling in a topological order, with the durations and the
/// explicit dependencies' lags given (per task; per dependency in the
/// tasks' order, flattened). `recorded` (optional) replaces the tasks'
/// recorded starts (negative: none); `ready` (optional) gets each task's
/// start before its recorded start applies.
void timeInOrder(const Schedule &s, const Graph &g,
                 const std::vector<uint32_t> &order,
                 const std::vector<uint32_t> &depStart,
                 const std::vector<double> &duration,
                 const std::vector<double> &lag, std::vector<double> &start,
                 const std::vector<double> *recorded = nullptr,
                 std::vector<double> *ready = nullptr) {
  start.assign(s.tasks.size(), 0);
  if (ready)
    ready->assign(s.tasks.size(), 0);
  for (uint32_t t : order) {
    const ScheduleTask &task = s.tasks[t];
    double st = task.release;
    for (size_t k = 0; k < task.deps.size(); ++k) {
      const Dependency &dep = task.deps[k];
      double l = lag[depStart[t] + k];
      st = std::max(st, dep.startToStart
                            ? start[dep.pred] + l
                            : start[dep.pred] + duration[dep.pred] + l);
    }
    for (uint32_t i = g.streamPredStart[t]; i < g.streamPredStart[t + 1]; ++i) {
      uint32_t p = g.streamPreds[i];
      st = std::max(st, start[p] + duration[p]);
    }
    // A recorded start is a release; times converted from a trace's
    // integer microseconds carry rounding, so readiness within it of the
    // recorded start keeps the recorded start exactly.
    if (ready)
      (*ready)[t] = st;
    double fixed = recorded ? (*recorded)[t] : task.fixedStart;
    if (fixed >= 0 && st <= fixed + timeTolerance(fixed))
      st = fixed;
    start[t] = st;
  }
}

/// Offsets of each task's dependencies in a flattened per-dependency array.
std::vector<uint32_t> dependencyOffsets(const Schedule &s) {
  std::vector<uint32_t> off(s.tasks.size() + 1, 0);
  for (size_t t = 0; t < s.tasks.size(); ++t)
    off[t + 1] = off[t] + uint32_t(s.tasks[t].deps.size());
  return off;
}

/// From the earliest start of a task without predecessors to the latest end
/// of a task that no task follows (finish-to-start or in stream order):
/// with durations >= 0 the span of every
/// task, and with the Gaussian model's draws (which may be negative) the
/// maximum over paths of their sums, as Clark's moments take it.
double spanOf(const std::vector<uint32_t> &sources,
              const std::vector<uint32_t> &sinks,
              const std::vector<double> &start,
              const std::vector<double> &duration) {
  if (sources.empty())
    return 0;
  double origin = std::numeric_limits<double>::infinity(), end = -origin;
  for (uint32_t t : sources)
    origin = std::min(origin, start[t]);
  for (uint32_t t : sinks)
    end = std::max(end, start[t] + duration[t]);
  return end - origin;
}
} // namespace

double countFromStart(Schedule &sched) {
  double origin = std::numeric_limits<double>::infinity();
  std::set<std::pair<uint32_t, uint32_t>> lanes;
  for (const ScheduleTask &task : sched.tasks) {
    bool first = task.deps.empty();
    for (uint32_t dev : task.devices)
      first &= lanes.insert({dev, task.stream}).second;
    if (first)
      origin = std::min(origin, std::max(task.release, task.fixedStart));
  }
  if (!(origin > 0) || !std::isfinite(origin))
    return 0;
  for (ScheduleTask &task : sched.tasks) {
    task.release = std::max(0.0, task.release - origin);
    if (task.fixedStart >= 0)
      task.fixedStart = std::max(0.0, task.fixedStart - origin);
  }
  return origin;
}

bool computeStartTimes(const Schedule &s, std::vector<double> &start,
                       std::vector<uint32_t> &cycle) {
  Graph g(s);
  std::vector<uint32_t> order;
  if (!topologicalOrder(s, g, order)) {
    cycle = findCycle(s, &g);
    return false;
  }
  std::vector<uint32_t> depStart = dependencyOffsets(s);
  std::vector<double> duration(s.tasks.size()), lag(depStart.back());
  for (size_t t = 0; t < s.tasks.size(); ++t) {
    duration[t] = s.tasks[t].duration;
    for (size_t k = 0; k < s.tasks[t].deps.size(); ++k)
      lag[depStart[t] + k] = s.tasks[t].deps[k].lag;
  }
  timeInOrder(s, g, order, depStart, duration, lag, start);
  return true;
}

uint32_t makespanSamples(size_t tasks) {
  const double visits = 1e7;
  double n = std::max<double>(1, double(tasks));
  return uint32_t(std::clamp(visits / n, 16.0, 4000.0));
}

bool sampleMakespan(const Schedule &s, uint32_t samples, uint64_t seed,
                    MakespanDistribution &out) {
  out = MakespanDistribution();
  Graph g(s);
  std::vector<uint32_t> order;
  if (!topologicalOrder(s, g, order))
    return false;
  std::vector<uint32_t> depStart = dependencyOffsets(s);
  size_t n = s.tasks.size();
  std::vector<double> duration(n), lag(depStart.back()), start;
  bool varies = false;
  bool finite = true; // a variance that overflowed: nothing to sample
  for (size_t t = 0; t < n; ++t) {
    duration[t] = s.tasks[t].duration;
    varies |= s.tasks[t].varT > 0;
    finite &= std::isfinite(s.tasks[t].varT);
    for (size_t k = 0; k < s.tasks[t].deps.size(); ++k) {
      lag[depStart[t] + k] = s.tasks[t].deps[k].lag;
      varies |= s.tasks[t].deps[k].varLag > 0;
      finite &= std::isfinite(s.tasks[t].deps[k].varLag);
    }
  }
  std::vector<uint8_t> hasPred(n, 0), hasSucc(n, 0);
  for (size_t t = 0; t < n; ++t) {
    // A start-to-start successor may end before its predecessor does: it
    // does not cover the predecessor's end.
    for (const Dependency &dep : s.tasks[t].deps) {
      hasPred[t] = 1;
      if (!dep.startToStart)
        hasSucc[dep.pred] = 1;
    }
    for (uint32_t i = g.streamPredStart[t]; i < g.streamPredStart[t + 1]; ++i)
      hasPred[t] = hasSucc[g.streamPreds[i]] = 1;
  }
  std::vector<uint32_t> sources, sinks;
  for (uint32_t t = 0; t < n; ++t) {
    if (!hasPred[t])
      sources.push_back(t);
    if (!hasSucc[t])
      sinks.push_back(t);
  }
  std::vector<double> ready;
  timeInOrder(s, g, order, depStart, duration, lag, start, nullptr, &ready);
  out.makespan = out.mean = spanOf(sources, sinks, start, duration);
  // A recorded start holds a task back only where it is later than the task
  // would be ready: one at its ready time (as --sched-timing writes them)
  // annotates, and a task whose predecessors end early starts early.
  std::vector<double> recorded(n, -1);
  for (size_t t = 0; t < n; ++t) {
    double f = s.tasks[t].fixedStart;
    if (f >= 0 && f > ready[t] + timeTolerance(f))
      recorded[t] = f;
  }
  if (!varies || !finite || samples == 0 || n == 0)
    return true;
  // The control variate: the point schedule's critical path, traced back
  // from the last task to end through binding predecessors. Its sampled
  // length C has mean T exactly and a known variance (its durations' and
  // lags' variances summed); the sample estimates only what the other
  // paths add, D = makespan - C (zero on a chain, so a chain is exact).
  std::vector<uint32_t> pathTasks, pathDeps;
  {
    uint32_t t = 0;
    double end = -std::numeric_limits<double>::infinity();
    for (uint32_t i : sinks)
      if (start[i] + duration[i] > end)
        end = start[i] + duration[i], t = i;
    bool counts = true; // t's duration is on the path (not a start-to-start)
    for (size_t steps = 0; steps <= n; ++steps) {
      if (counts)
        pathTasks.push_back(t);
      const ScheduleTask &task = s.tasks[t];
      double st = start[t], tol = timeTolerance(st);
      int64_t next = -1;
      for (size_t k = 0; k < task.deps.size() && next < 0; ++k) {
        const Dependency &dep = task.deps[k];
        double readyAt = dep.startToStart
                             ? start[dep.pred] + dep.lag
                             : start[dep.pred] + duration[dep.pred] + dep.lag;
        if (std::fabs(readyAt - st) <= tol) {
          pathDeps.push_back(depStart[t] + uint32_t(k));
          next = dep.pred;
          counts = !dep.startToStart;
        }
      }
      for (uint32_t i = g.streamPredStart[t];
           i < g.streamPredStart[t + 1] && next < 0; ++i) {
        uint32_t p = g.streamPreds[i];
        if (std::fabs(start[p] + duration[p] - st) <= tol) {
          next = p;
          counts = true;
        }
      }
      if (next < 0)
        break; // a release, a recorded start or the origin binds
      t = uint32_t(next);
    }
  }
  double varC = 0;
  std::vector<double> lagVar(depStart.back(), 0), lagMean = lag;
  for (size_t t = 0; t < n; ++t)
    for (size_t k = 0; k < s.tasks[t].deps.size(); ++k)
      lagVar[depStart[t] + k] = s.tasks[t].deps[k].varLag;
  for (uint32_t t : pathTasks)
    varC += s.tasks[t].varT;
  for (uint32_t k : pathDeps)
    varC += lagVar[k];
  // Welford's running moments of D and C - T, one stream per sample.
  double meanD = 0, meanC = 0, m2D = 0, cDC = 0;
  for (uint32_t i = 0; i < samples; ++i) {
    Rng rng(seed, i);
    for (size_t t = 0; t < n; ++t) {
      const ScheduleTask &task = s.tasks[t];
      duration[t] = task.varT > 0
                        ? task.duration + std::sqrt(task.varT) * rng.normal()
                        : task.duration;
      for (size_t k = 0; k < task.deps.size(); ++k) {
        size_t j = depStart[t] + k;
        lag[j] = lagVar[j] > 0
                     ? lagMean[j] + std::sqrt(lagVar[j]) * rng.normal()
                     : lagMean[j];
      }
    }
    timeInOrder(s, g, order, depStart, duration, lag, start, &recorded);
    double c = 0; // C - T: the path's deviations
    for (uint32_t t : pathTasks)
      c += duration[t] - s.tasks[t].duration;
    for (uint32_t k : pathDeps)
      c += lag[k] - lagMean[k];
    double d = spanOf(sources, sinks, start, duration) - out.makespan - c;
    double k1 = i + 1.0, dd = d - meanD, dc = c - meanC;
    meanD += dd / k1;
    meanC += dc / k1;
    m2D += dd * (d - meanD);
    cDC += dc * (d - meanD);
  }
  double varD = samples > 1 ? m2D / (samples - 1) : 0;
  double covDC = samples > 1 ? cDC / (samples - 1) : 0;
  double sigma = std::sqrt(std::max(0.0, varC + varD + 2 * covDC));
  if (!std::isfinite(out.makespan + meanD) || !std::isfinite(sigma))
    return true; // draws too wide for doubles: the point makespan stands
  out.mean = out.makespan + meanD;
  out.sigma = sigma;
  // One sample estimates no error: infinite, not 0.
  out.stdError = samples > 1 ? std::sqrt(varD / samples)
                             : std::numeric_limits<double>::infinity();
  out.samples = samples;
  return true;
}

Signature taskShare(const Schedule &s, uint32_t t, uint32_t dev) {
  const ScheduleTask &task = s.tasks[t];
  double n = double(task.devices.size());
  // Shares of a collective split d evenly; each carries var_d / n so that
  // the shares, composed as independent, reproduce the collective's var_d.
  return Signature::measured(s.devices[dev].staticPower, task.duration,
                             task.d / n, task.varT, task.varD / n,
                             DeviceSet::single(dev));
}

LoweredTree lowerSchedule(const Schedule &s, const std::vector<double> &start) {
  LoweredTree tree;
  size_t nDev = s.devices.size();
  // Per-device lists of (task) in start order.
  std::vector<uint32_t> devCount(nDev + 1, 0);
  double origin = std::numeric_limits<double>::infinity(), end = 0;
  for (uint32_t t = 0; t < s.tasks.size(); ++t) {
    for (uint32_t d : s.tasks[t].devices)
      ++devCount[d + 1];
    origin = std::min(origin, start[t]);
    end = std::max(end, start[t] + s.tasks[t].duration);
  }
  if (s.tasks.empty())
    origin = 0;
  end = std::max(end, origin);
  for (size_t i = 0; i < nDev; ++i)
    devCount[i + 1] += devCount[i];
  std::vector<uint32_t> byDev(devCount[nDev]);
  {
    std::vector<uint32_t> fill(devCount.begin(), devCount.end() - 1);
    for (uint32_t t = 0; t < s.tasks.size(); ++t)
      for (uint32_t d : s.tasks[t].devices)
        byDev[fill[d]++] = t;
  }
  tree.origin = origin;
  tree.makespan = end - origin;

  auto &nodes = tree.nodes;
  nodes.reserve(s.tasks.size() * 2 + nDev * 4 + 1);
  nodes.push_back({LoweredNode::Multi});
  // Children lists are built per node in scratch vectors and appended when
  // the node is complete (children of one node are contiguous).
  std::vector<uint32_t> deviceRoots;
  auto addLeaf = [&](LoweredNode::Kind k, uint32_t dev, uint32_t task,
                     double dur) {
    LoweredNode node{k};
    node.device = dev;
    node.task = task;
    node.duration = dur;
    nodes.push_back(node);
    return uint32_t(nodes.size() - 1);
  };
  auto addComposite = [&](LoweredNode::Kind k,
                          const std::vector<uint32_t> &kids) {
    LoweredNode node{k};
    node.firstChild = tree.children.size();
    node.numChildren = kids.size();
    tree.children.insert(tree.children.end(), kids.begin(), kids.end());
    nodes.push_back(node);
    return uint32_t(nodes.size() - 1);
  };

  std::vector<uint32_t> devKids, laneKids, parKids;
  struct Lane {
    uint32_t stream;
    double end;
    std::vector<uint32_t> kids;
  };
  std::vector<Lane> lanes;
  for (uint32_t dev = 0; dev < nDev; ++dev) {
    uint32_t *b = byDev.data() + devCount[dev];
    uint32_t *e = byDev.data() + devCount[dev + 1];
    // Start order; ties in program order (task ids are program order).
    std::sort(b, e, [&](uint32_t x, uint32_t y) {
      return start[x] < start[y] || (start[x] == start[y] && x < y);
    });
    devKids.clear();
    double cursor = origin;
    for (uint32_t *it = b; it != e;) {
      // One busy cluster: [cs, ce).
      double cs = start[*it], ce = cs + s.tasks[*it].duration;
      uint32_t *cend = it + 1;
      while (cend != e && start[*cend] < ce - timeTolerance(ce)) {
        ce = std::max(ce, start[*cend] + s.tasks[*cend].duration);
        ++cend;
      }
      if (cs > cursor + timeTolerance(cursor))
        devKids.push_back(addLeaf(LoweredNode::Idle, dev, 0, cs - cursor));
      if (cend - it == 1) {
        devKids.push_back(addLeaf(LoweredNode::Element, dev, *it, 0));
      } else {
        lanes.clear();
        for (uint32_t *jt = it; jt != cend; ++jt) {
          uint32_t t = *jt;
          double st = start[t];
          Lane *lane = nullptr;
          for (Lane &l : lanes)
            if (l.stream == s.tasks[t].stream &&
                l.end <= st + timeTolerance(st)) {
              lane = &l;
              break;
            }
          if (!lane) {
            lanes.push_back({s.tasks[t].stream, cs, {}});
            lane = &lanes.back();
          }
          if (st > lane->end + timeTolerance(lane->end))
            lane->kids.push_back(
                addLeaf(LoweredNode::Idle, dev, 0, st - lane->end));
          lane->kids.push_back(addLeaf(LoweredNode::Element, dev, t, 0));
          lane->end = st + s.tasks[t].duration;
        }
        parKids.clear();
        for (Lane &l : lanes)
          parKids.push_back(l.kids.size() == 1
                                ? l.kids[0]
                                : addComposite(LoweredNode::Seq, l.kids));
        devKids.push_back(parKids.size() == 1
                              ? parKids[0]
                              : addComposite(LoweredNode::Par, parKids));
      }
      cursor = ce;
      it = cend;
    }
    if (end > cursor + timeTolerance(cursor) || devKids.empty())
      devKids.push_back(addLeaf(LoweredNode::Idle, dev, 0, end - cursor));
    deviceRoots.push_back(addComposite(LoweredNode::Seq, devKids));
  }
  tree.nodes[0].firstChild = tree.children.size();
  tree.nodes[0].numChildren = deviceRoots.size();
  tree.children.insert(tree.children.end(), deviceRoots.begin(),
                       deviceRoots.end());
  return tree;
}

static Signature evalNode(const Schedule &s, const LoweredTree &tree,
                          uint32_t id, CompositionError &err) {
  const LoweredNode &node = tree.nodes[id];
  switch (node.kind) {
  case LoweredNode::Element:
    return taskShare(s, node.task, node.device);
  case LoweredNode::Idle:
    return Signature::idle(s.devices[node.device].staticPower, node.duration,
                           DeviceSet::single(node.device));
  default:
    break;
  }
  Composer c(node.kind == LoweredNode::Seq   ? Op::Seq
             : node.kind == LoweredNode::Par ? Op::Par
                                             : Op::Multi);
  for (uint32_t i = 0; i < node.numChildren && !err; ++i)
    if (!c.add(evalNode(s, tree, tree.children[node.firstChild + i], err)))
      err = c.error();
  return c.result();
}

Signature evaluateLowered(const Schedule &s, const LoweredTree &tree,
                          CompositionError &err) {
  return evalNode(s, tree, 0, err);
}

double intervalAccountingEnergy(const Schedule &s,
                                const std::vector<double> &start,
                                double *makespan) {
  double origin = std::numeric_limits<double>::infinity(), end = 0, d = 0;
  for (uint32_t t = 0; t < s.tasks.size(); ++t) {
    origin = std::min(origin, start[t]);
    end = std::max(end, start[t] + s.tasks[t].duration);
    d += s.tasks[t].d;
  }
  if (s.tasks.empty())
    origin = end = 0;
  double staticPower = 0;
  for (const ScheduleDevice &dev : s.devices)
    staticPower += dev.staticPower;
  if (makespan)
    *makespan = end - origin;
  return staticPower * (end - origin) + d;
}

} // namespace calculus
} // namespace energy
