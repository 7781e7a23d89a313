//===- DagSeriesParallel.cpp - Exact series-parallel frontiers
//--------------===//

#include "calculus/DagInternal.h"

#include <map>

namespace energy {
namespace calculus {
namespace dag {

/// Series-parallel decomposition of the task DAG, for exact frontiers
/// (docs/FRONTIER.md). Each task is an edge in(v) -> out(v) of a two-terminal
/// multigraph; each finish-to-start dependency (and stream order) a zero
/// edge out(u) -> in(v); tasks without predecessors hang from the source,
/// tasks without successors reach the sink. Series reductions (a node with
/// one edge in and one out) and parallel reductions (two edges between the
/// same nodes) are applied until nothing changes: the DAG is series-parallel
/// exactly when one source-sink edge remains (Valdes, Tarjan and Lawler),
/// and the reductions made are its decomposition tree. Zero edges vanish in
/// either composition (T >= 0). Start-to-start edges are not series-parallel
/// structure: their presence answers no.
constexpr uint32_t SpZero = UINT32_MAX;

bool decomposeSeriesParallel(const Dag &dag, size_t n, SpTree &tree) {
  // Series-parallel composition has no room for a lag on an edge.
  for (const Edge &e : dag.succ)
    if (e.startToStart || e.lag != 0)
      return false;
  tree.nodes.clear();
  for (uint32_t v = 0; v < n; ++v)
    tree.nodes.push_back({SpTree::Node::Leaf, v, 0});
  auto compose = [&](SpTree::Node::Kind kind, uint32_t a, uint32_t b) {
    if (a == SpZero)
      return b;
    if (b == SpZero)
      return a;
    tree.nodes.push_back({kind, a, b});
    return uint32_t(tree.nodes.size() - 1);
  };
  struct GEdge {
    uint32_t from, to, sub;
    bool alive;
  };
  size_t nodes = 2 + 2 * n; // source 0, sink 1, in(v) 2 + 2v, out(v) 3 + 2v
  std::vector<GEdge> edges;
  std::vector<std::vector<uint32_t>> ins(nodes), outs(nodes);
  std::vector<uint32_t> indeg(nodes, 0), outdeg(nodes, 0);
  std::unordered_map<uint64_t, uint32_t> between;
  std::vector<uint32_t> work;
  size_t alive = 0;
  auto key = [](uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; };
  auto addEdge = [&](uint32_t from, uint32_t to, uint32_t sub) {
    auto [it, fresh] = between.try_emplace(key(from, to), 0);
    if (!fresh) { // parallel reduction
      GEdge &e = edges[it->second];
      e.sub = e.sub == SpZero || sub == SpZero
                  ? (e.sub == SpZero ? sub : e.sub)
                  : compose(SpTree::Node::Parallel, e.sub, sub);
      work.push_back(from);
      work.push_back(to);
      return;
    }
    it->second = uint32_t(edges.size());
    edges.push_back({from, to, sub, true});
    outs[from].push_back(it->second);
    ins[to].push_back(it->second);
    ++outdeg[from];
    ++indeg[to];
    ++alive;
  };
  auto kill = [&](uint32_t id) {
    GEdge &e = edges[id];
    e.alive = false;
    between.erase(key(e.from, e.to));
    --outdeg[e.from];
    --indeg[e.to];
    --alive;
  };
  auto only = [&](std::vector<uint32_t> &list) {
    size_t w = 0; // drop dead entries as we go
    for (uint32_t id : list)
      if (edges[id].alive)
        list[w++] = id;
    list.resize(w);
    return list.front();
  };
  // A series composition of parts with several sinks and several sources
  // joins every sink to every source (a complete bipartite K_{X,G}), which
  // is not edge-series-parallel as it stands: each such biclique goes
  // through one junction node instead (zero edges: the same longest
  // paths). A group G of tasks with the same predecessor set X (|X|, |G| >=
  // 2) is one when every task of X has exactly G as its successors.
  std::vector<std::vector<uint32_t>> preds(n), succs(n);
  for (uint32_t v = 0; v < n; ++v) {
    for (uint32_t i = dag.predStart[v]; i < dag.predStart[v + 1]; ++i)
      preds[v].push_back(dag.pred[i].to);
    for (uint32_t i = dag.succStart[v]; i < dag.succStart[v + 1]; ++i)
      succs[v].push_back(dag.succ[i].to);
    for (auto *list : {&preds[v], &succs[v]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
  std::map<std::vector<uint32_t>, std::vector<uint32_t>> byPreds;
  for (uint32_t v = 0; v < n; ++v)
    if (preds[v].size() >= 2)
      byPreds[preds[v]].push_back(v);
  std::vector<uint32_t> junctionFrom(n, UINT32_MAX),
      junctionInto(n, UINT32_MAX);
  for (auto &[X, G] : byPreds) {
    if (G.size() < 2)
      continue;
    bool biclique = true;
    for (uint32_t x : X)
      biclique = biclique && succs[x] == G; // G is sorted: built in order
    if (!biclique)
      continue;
    uint32_t junction = uint32_t(nodes++);
    ins.emplace_back();
    outs.emplace_back();
    indeg.push_back(0);
    outdeg.push_back(0);
    for (uint32_t x : X)
      junctionFrom[x] = junction;
    for (uint32_t v : G)
      junctionInto[v] = junction;
  }
  for (uint32_t v = 0; v < n; ++v) {
    addEdge(2 + 2 * v, 3 + 2 * v, v);
    // A release time is a fixed-length edge from the source.
    if (dag.release[v] > 0) {
      tree.nodes.push_back({SpTree::Node::Release, v, 0});
      addEdge(0, 2 + 2 * v, uint32_t(tree.nodes.size() - 1));
    } else if (preds[v].empty()) {
      addEdge(0, 2 + 2 * v, SpZero);
    }
    if (succs[v].empty())
      addEdge(3 + 2 * v, 1, SpZero);
    if (junctionFrom[v] != UINT32_MAX)
      addEdge(3 + 2 * v, junctionFrom[v], SpZero);
    else
      for (uint32_t w : succs[v])
        addEdge(3 + 2 * v, 2 + 2 * w, SpZero);
    if (junctionInto[v] != UINT32_MAX)
      addEdge(junctionInto[v], 2 + 2 * v, SpZero);
  }
  for (uint32_t x = 2; x < nodes; ++x)
    work.push_back(x);
  while (!work.empty()) {
    uint32_t x = work.back();
    work.pop_back();
    if (x < 2 || indeg[x] != 1 || outdeg[x] != 1)
      continue;
    uint32_t e1 = only(ins[x]), e2 = only(outs[x]);
    uint32_t a = edges[e1].from, b = edges[e2].to;
    uint32_t sub = compose(SpTree::Node::Series, edges[e1].sub, edges[e2].sub);
    kill(e1);
    kill(e2);
    addEdge(a, b, sub);
    work.push_back(a);
    work.push_back(b);
  }
  auto it = between.find(key(0, 1));
  if (alive != 1 || it == between.end())
    return false;
  if (edges[it->second].sub == SpZero)
    return false; // no tasks
  tree.root = edges[it->second].sub;
  return true;
}

/// The exact (T, d) frontier of an SP tree, bottom-up: series is the Pareto
/// of the Minkowski sum, parallel takes for every window each side's
/// cheapest point within it (the max-plus rule of Frontier.h with no idle
/// power: the whole schedule's static power multiplies the root's
/// makespan). Back-pointers rebuild each point's choices. Returns false
/// when the work would exceed `budget` point pairs (the caller falls back).
bool seriesParallelFrontier(const SpTree &tree,
                            const std::vector<TaskOptions> &opts,
                            const std::vector<double> &release, double P,
                            bool keepChoices, uint64_t budget,
                            std::vector<DagPoint> &out) {
  struct Front {
    std::vector<double> T, d;
    std::vector<uint32_t> ia, ib; // children's points
  };
  size_t m = tree.nodes.size();
  std::vector<Front> f(m);
  // Memory: every node's back-pointers (ia, ib: 8 bytes a point) are kept
  // for the choices; its times and energies (16 bytes a point) only until
  // its parent is composed. Past 384 MiB the caller falls back as past the
  // work budget. (A chain of 4,000 tasks of two options stores ~18 million
  // points: its fronts grow by the task's time range at each link.)
  uint64_t work = 0, bytes = 0;
  const uint64_t kMaxBytes = uint64_t(384) << 20;
  const uint64_t kPointBytes = 2 * sizeof(double) + 2 * sizeof(uint32_t);
  const uint64_t kTimesBytes = 2 * sizeof(double);
  struct Cand {
    double T, d;
    uint32_t i, j;
  };
  std::vector<Cand> cand;
  // A time within sameMakespan of the front's last is the same time, summed
  // in another order (a chain's sums of whole milliseconds in seconds differ
  // in their last bits): the cheaper point replaces the last one, with its
  // own time, so that every stored time is its configuration's. Kept apart,
  // such twins doubled to tripled a chain's fronts.
  auto append = [](Front &r, double T, double d, uint32_t i, uint32_t j) {
    if (!r.T.empty() && T - r.T.back() <= sameMakespan(r.T.back())) {
      r.T.back() = T, r.d.back() = d, r.ia.back() = i, r.ib.back() = j;
      return;
    }
    r.T.push_back(T);
    r.d.push_back(d);
    r.ia.push_back(i);
    r.ib.push_back(j);
  };
  auto prune = [&](std::vector<Cand> &c, Front &r) {
    std::sort(c.begin(), c.end(), [](const Cand &x, const Cand &y) {
      return x.T < y.T || (x.T == y.T && x.d < y.d);
    });
    double best = std::numeric_limits<double>::infinity();
    for (const Cand &x : c)
      if (x.d < best) {
        best = x.d;
        append(r, x.T, x.d, x.i, x.j);
      }
  };
  for (size_t k = 0; k < m; ++k) {
    const SpTree::Node &node = tree.nodes[k];
    Front &r = f[k];
    if (node.kind == SpTree::Node::Leaf) {
      r.T = opts[node.a].T;
      r.d = opts[node.a].d;
      bytes += kTimesBytes * r.T.size();
      continue;
    }
    if (node.kind == SpTree::Node::Release) {
      r.T = {release[node.a]};
      r.d = {0};
      bytes += kTimesBytes;
      continue;
    }
    const Front &A = f[node.a], &B = f[node.b];
    cand.clear();
    if (node.kind == SpTree::Node::Series) {
      work += uint64_t(A.T.size()) * B.T.size();
      if (work > budget)
        return false;
      // The Minkowski sum merged in T order, one cursor per point of the
      // smaller side (each side's T ascends): memory grows with the
      // fronts, not with the |A| x |B| pairs (2^27 pairs of 24 bytes
      // would be 3 GB).
      bool aSmall = A.T.size() <= B.T.size();
      const Front &S = aSmall ? A : B, &L = aSmall ? B : A;
      auto at = [&](uint32_t i, uint32_t j) {
        return Cand{S.T[i] + L.T[j], S.d[i] + L.d[j], i, j};
      };
      auto later = [](const Cand &x, const Cand &y) {
        return x.T > y.T || (x.T == y.T && x.d > y.d);
      };
      std::vector<Cand> heap;
      heap.reserve(S.T.size());
      for (uint32_t i = 0; i < S.T.size(); ++i)
        heap.push_back(at(i, 0));
      std::make_heap(heap.begin(), heap.end(), later);
      double best = std::numeric_limits<double>::infinity();
      while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        Cand x = heap.back();
        heap.pop_back();
        if (x.d < best) {
          // The cap (below) checked as the front grows: one composition of
          // non-convex fronts can hold |A| x |B| Pareto points.
          if (bytes + kPointBytes * (r.T.size() + 1) > kMaxBytes)
            return false;
          best = x.d;
          append(r, x.T, x.d, aSmall ? x.i : x.j, aSmall ? x.j : x.i);
        }
        if (x.j + 1 < L.T.size()) {
          heap.push_back(at(x.i, x.j + 1));
          std::push_heap(heap.begin(), heap.end(), later);
        }
      }
    } else {
      work += A.T.size() + B.T.size();
      // Windows: every point's T; each side's cheapest point within it is
      // its last one with T <= the window (T ascending, d descending).
      std::vector<double> windows(A.T);
      windows.insert(windows.end(), B.T.begin(), B.T.end());
      std::sort(windows.begin(), windows.end());
      windows.erase(std::unique(windows.begin(), windows.end()), windows.end());
      long i = -1, j = -1;
      for (double M : windows) {
        while (i + 1 < long(A.T.size()) && A.T[i + 1] <= M)
          ++i;
        while (j + 1 < long(B.T.size()) && B.T[j + 1] <= M)
          ++j;
        if (i >= 0 && j >= 0)
          cand.push_back({std::max(A.T[i], B.T[j]), A.d[i] + B.d[j],
                          uint32_t(i), uint32_t(j)});
      }
      prune(cand, r);
    }
    // Each node is its parent's child only: its children's times go.
    bytes += kPointBytes * r.T.size();
    if (bytes > kMaxBytes)
      return false;
    for (uint32_t child : {node.a, node.b}) {
      bytes -= kTimesBytes * f[child].T.size();
      std::vector<double>().swap(f[child].T);
      std::vector<double>().swap(f[child].d);
    }
  }
  // The root: E = P T + d, Pareto-min in (T, E), fastest first.
  const Front &root = f[tree.root];
  size_t n = opts.size();
  std::vector<std::pair<uint32_t, uint32_t>> stack; // (tree node, point)
  double best = std::numeric_limits<double>::infinity();
  size_t first = out.size();
  for (uint32_t p = 0; p < root.T.size(); ++p) {
    double E = P * root.T[p] + root.d[p];
    if (!(E < best))
      continue;
    best = E;
    DagPoint point;
    point.T = root.T[p];
    point.E = E;
    point.lowerBound = E;
    if (keepChoices) {
      point.choice.assign(n, 0);
      stack.assign(1, {tree.root, p});
      while (!stack.empty()) {
        auto [k, q] = stack.back();
        stack.pop_back();
        const SpTree::Node &node = tree.nodes[k];
        if (node.kind == SpTree::Node::Leaf) {
          point.choice[node.a] = opts[node.a].original[q];
          continue;
        }
        if (node.kind == SpTree::Node::Release)
          continue;
        stack.push_back({node.a, f[k].ia[q]});
        stack.push_back({node.b, f[k].ib[q]});
      }
    }
    // A makespan within sameMakespan of the last one is the same time
    // (summed in another order): the lower energy replaces it at that
    // time (see paretoPrune in DagFrontier.cpp).
    if (out.size() > first &&
        point.T - out.back().T <= sameMakespan(out.back().T)) {
      point.T = out.back().T;
      out.back() = std::move(point);
      continue;
    }
    out.push_back(std::move(point));
  }
  return true;
}

} // namespace dag
} // namespace calculus
} // namespace energy
