//===- MaxFlow.h - Dinic's maximum flow for the frontier sweeps -*- C++ -*-===//
//
// One maximum-flow implementation (Dinic 1970: BFS levels, blocking flows
// by DFS with current-arc pointers) shared by the crash sweep's minimum
// cuts (DagCrashSweep.cpp) and the convex relaxation's augmentation phases
// (ConvexFrontier.cpp). Capacities are doubles; >= Inf / 2 is unbounded.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MAXFLOW_H
#define CALCULUS_MAXFLOW_H

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace energy {
namespace calculus {

/// Max flow (Dinic).
class MaxFlow {
public:
  static constexpr double Inf = 1e300;
  /// Empties the network for `nodes` nodes, keeping the storage (one
  /// network per crash step).
  void reset(size_t nodes) {
    head.assign(nodes, -1);
    to.clear();
    next.clear();
    cap_.clear();
  }
  int arc(int u, int v, double cap) {
    to.push_back(v), cap_.push_back(cap), next.push_back(head[u]);
    head[u] = int(to.size()) - 1;
    to.push_back(u), cap_.push_back(0), next.push_back(head[v]);
    head[v] = int(to.size()) - 1;
    return int(to.size()) - 2;
  }
  /// The flow on arc `e` (an index returned by arc()).
  double flowOn(int e) const { return cap_[e ^ 1]; }
  /// Arcs and nodes visited so far (the crash sweep's budget).
  uint64_t steps = 0;
  /// Returns the flow value (>= Inf / 2: no finite cut).
  double run(int s, int t) {
    double total = 0;
    while (levels(s, t)) {
      iter = head;
      while (double f = push(s, t, Inf)) {
        total += f;
        if (total >= Inf / 2)
          return total;
      }
    }
    return total;
  }
  /// Nodes reachable from `s` in the residual graph (the cut's source side).
  const std::vector<char> &sourceSide(int s) {
    seen.assign(head.size(), 0);
    std::vector<int> &stack = queue;
    stack.assign(1, s);
    seen[s] = 1;
    while (!stack.empty()) {
      int u = stack.back();
      stack.pop_back();
      for (int e = head[u]; e >= 0; e = next[e])
        if (cap_[e] > eps && !seen[to[e]]) {
          seen[to[e]] = 1;
          stack.push_back(to[e]);
        }
    }
    return seen;
  }

  /// Every minimum cut is a node set closed under residual arcs that holds
  /// `s` and not `t`. Ranks the nodes so that each S_k = {rank <= k} is
  /// such a set, nested in k: 0 for the nodes reachable from `s`, 1, 2, ...
  /// for the strongly connected components of the rest, each after every
  /// component it reaches (Tarjan's output order), and INT_MAX for the
  /// nodes that reach `t`. Call after run().
  void cutRanks(int s, int t, std::vector<int> &rank) {
    int N = int(head.size());
    rank.assign(N, std::numeric_limits<int>::max());
    // Nodes that reach t: backwards over arcs with residual capacity.
    std::vector<char> reachesSink(N, 0);
    std::vector<int> &stack = queue;
    stack.assign(1, t);
    reachesSink[t] = 1;
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      for (int e = head[v]; e >= 0; e = next[e])
        if (cap_[e ^ 1] > eps && !reachesSink[to[e]]) {
          reachesSink[to[e]] = 1;
          stack.push_back(to[e]);
        }
    }
    const std::vector<char> &fromSource = sourceSide(s);
    for (int v = 0; v < N; ++v)
      if (fromSource[v])
        rank[v] = 0;
    // Tarjan, iteratively, over the nodes in neither set.
    std::vector<int> index(N, -1), low(N, 0), sccStack, callStack, arcAt(N);
    std::vector<char> onStack(N, 0);
    int counter = 0, component = 0;
    for (int root = 0; root < N; ++root) {
      if (fromSource[root] || reachesSink[root] || index[root] >= 0)
        continue;
      callStack.assign(1, root);
      index[root] = low[root] = counter++;
      arcAt[root] = head[root];
      sccStack.push_back(root);
      onStack[root] = 1;
      while (!callStack.empty()) {
        int u = callStack.back();
        int &e = arcAt[u];
        if (e >= 0) {
          int v = to[e];
          bool follow = cap_[e] > eps && !fromSource[v];
          e = next[e];
          if (!follow)
            continue;
          if (index[v] < 0) {
            index[v] = low[v] = counter++;
            arcAt[v] = head[v];
            sccStack.push_back(v);
            onStack[v] = 1;
            callStack.push_back(v);
          } else if (onStack[v]) {
            low[u] = std::min(low[u], index[v]);
          }
          continue;
        }
        callStack.pop_back();
        if (!callStack.empty())
          low[callStack.back()] = std::min(low[callStack.back()], low[u]);
        if (low[u] == index[u]) {
          ++component;
          int v;
          do {
            v = sccStack.back();
            sccStack.pop_back();
            onStack[v] = 0;
            rank[v] = component;
          } while (v != u);
        }
      }
    }
  }

  /// Capacities at or below this count as saturated.
  static constexpr double eps = 1e-12;

private:
  bool levels(int s, int t) {
    level.assign(head.size(), -1);
    queue.assign(1, s);
    level[s] = 0;
    steps += head.size();
    for (size_t i = 0; i < queue.size(); ++i)
      for (int e = head[queue[i]]; e >= 0; e = next[e], ++steps)
        if (cap_[e] > eps && level[to[e]] < 0) {
          level[to[e]] = level[queue[i]] + 1;
          queue.push_back(to[e]);
        }
    return level[t] >= 0;
  }
  /// Blocking-flow DFS: pushes as much of `f` as it can from `u`,
  /// continuing along further arcs after a partial success.
  double push(int u, int t, double f) {
    if (u == t)
      return f;
    double pushed = 0;
    for (int &e = iter[u]; e >= 0; e = next[e]) {
      ++steps;
      if (cap_[e] <= eps || level[to[e]] != level[u] + 1)
        continue;
      double g = push(to[e], t, std::min(f - pushed, cap_[e]));
      if (g <= 0)
        continue;
      if (cap_[e] < Inf / 2)
        cap_[e] -= g;
      if (cap_[e ^ 1] < Inf / 2)
        cap_[e ^ 1] += g;
      pushed += g;
      if (pushed >= f || pushed >= Inf / 2)
        return pushed; // keep iter[u] at e: it may have capacity left
    }
    level[u] = -1; // a dead end for the rest of this phase
    return pushed;
  }
  std::vector<int> head, to, next, iter, level, queue;
  std::vector<double> cap_;
  std::vector<char> seen;
};

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MAXFLOW_H
