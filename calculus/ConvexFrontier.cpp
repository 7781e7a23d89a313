//===- ConvexFrontier.cpp - Exact frontier of the convex relaxation -------===//
//
// Successive longest augmenting paths on the time-cost tradeoff's dual
// (ConvexFrontier.h). The network: a source s, a sink t, and per task i a
// start node in_i and a finish node out_i joined by the task's arc, whose
// gain per unit of flow is the duration its price selects -- hull vertex k
// while the flow x_i lies in [sigma_k, sigma_k+1), sigma_k the hull's k-th
// slope (sigma_0 = 0, the last segment unbounded): g_i is concave, so the
// arc is a chain of segments of decreasing gain. Dependencies are arcs of
// gain `lag` and unbounded capacity (out_i -> in_j finish-to-start, in_i ->
// in_j start-to-start), s -> in_i has gain release_i, out_i -> t gain 0.
//
// Potentials pi (longest distances from s, kept exact for the nodes each
// search settles and shifted uniformly for the rest, as in Dijkstra with an
// early exit) make every residual arc's reduced cost pi(v) - pi(u) - gain
// non-negative, so each search is a Dijkstra; an augmenting path of length
// L raises G by L per unit, until a segment boundary or an arc's flow stops
// it. Optimality of every intermediate flow for its value is the classical
// successive-shortest-path invariant (no positive residual cycle).
//
//===----------------------------------------------------------------------===//

#include "calculus/ConvexFrontier.h"
#include "calculus/MaxFlow.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace energy {
namespace calculus {

ConvexHull::ConvexHull(const std::vector<double> &oT,
                       const std::vector<double> &od) {
  for (size_t k = oT.size(); k-- > 0;) {
    while (T.size() >= 2) {
      size_t m = T.size();
      // Drop the last vertex if it lies on or above the chord.
      double cross = (T[m - 1] - T[m - 2]) * (od[k] - d[m - 2]) -
                     (d[m - 1] - d[m - 2]) * (oT[k] - T[m - 2]);
      if (cross < 0)
        break;
      T.pop_back();
      d.pop_back();
      index.pop_back();
    }
    T.push_back(oT[k]);
    d.push_back(od[k]);
    index.push_back(uint32_t(k));
  }
}

double ConvexHull::lagrangian(double f) const {
  double best = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < T.size(); ++k) {
    double v = d[k] + f * T[k];
    if (v > best)
      break; // convex along the hull: past the minimum
    best = v;
  }
  return best;
}

std::pair<double, double> ConvexBreakpoint::bound() const {
  return {G - errC, F + errF};
}

double ConvexFrontier::lowerBound(double D, double P) const {
  double lb = -std::numeric_limits<double>::infinity();
  // A flow's bound C + (P - F) M at the worst M in [fastest, D].
  auto value = [&](double C, double F) {
    return C + (P - F) * (F > P ? D : fastest);
  };
  for (size_t k = 0; k < breakpoints.size(); ++k) {
    const ConvexBreakpoint &b = breakpoints[k];
    auto [C, F] = b.bound();
    lb = std::max(lb, value(C, F));
    if (auto at = flowAtP(k, P))
      lb = std::max(lb, value(at->first, at->second));
  }
  return lb;
}

std::optional<std::pair<double, double>>
ConvexFrontier::flowAtP(size_t k, double P) const {
  // The flow value P itself, inside segment k (both forms of the bound
  // agree there): the convex combination of its two ends' flows, with the
  // larger of their error terms.
  const ConvexBreakpoint &b = breakpoints[k];
  if (!(b.F < P) || k + 1 >= breakpoints.size() || !(P < breakpoints[k + 1].F))
    return std::nullopt;
  const ConvexBreakpoint &c = breakpoints[k + 1];
  // The slope of G between the two flows, as they measure it (the phase's
  // paths may be up to its tolerance shorter than L).
  double slope = std::min(b.L, (c.G - b.G) / (c.F - b.F));
  return std::make_pair(b.G + (P - b.F) * slope - std::max(b.errC, c.errC),
                        P + std::max(b.errF, c.errF));
}

namespace {

constexpr double Inf = std::numeric_limits<double>::infinity();

struct Arc {
  uint32_t from, to;
  double gain, flow;
};

/// A residual arc: a regular arc forwards or backwards, or a task arc
/// forwards (in -> out) or backwards.
struct Residual {
  enum Kind : uint8_t { None, ArcFwd, ArcBwd, TaskFwd, TaskBwd } kind = None;
  uint32_t id = 0;
};

bool finite(double v) { return std::isfinite(v); }

} // namespace

bool convexFrontier(
    const ConvexProblem &pb, const std::vector<double> &levels,
    const std::function<void(double, const std::vector<double> &)> &onLevel,
    uint64_t workBudget, ConvexFrontier &out, std::string &err) {
  out = {};
  size_t n = pb.tasks.size();
  if (!pb.release.empty() && pb.release.size() != n) {
    err = "need one release time per task";
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const ConvexHull &h = pb.tasks[i];
    if (h.T.empty() || h.T.size() != h.d.size()) {
      err = "task " + std::to_string(i) + " has an empty hull";
      return false;
    }
    for (size_t k = 0; k < h.T.size(); ++k)
      if (!finite(h.T[k]) || !finite(h.d[k]) || h.T[k] < 0 ||
          (k && !(h.T[k] < h.T[k - 1] && h.d[k] >= h.d[k - 1]))) {
        err = "task " + std::to_string(i) + "'s hull is not slowest-first";
        return false;
      }
    if (!pb.release.empty() && !(finite(pb.release[i]) && pb.release[i] >= 0)) {
      err = "task " + std::to_string(i) + " has a bad release time";
      return false;
    }
  }
  if (n == 0) { // nothing to run: makespan 0, energy 0
    out.breakpoints.push_back({0, 0, 0});
    out.complete = true;
    return true;
  }
  for (const ConvexArc &a : pb.arcs)
    if (a.from >= n || a.to >= n || a.from == a.to || !finite(a.lag)) {
      err = "an arc is out of range or has a non-finite lag";
      return false;
    }

  const double ulp = std::numeric_limits<double>::epsilon();
  // What counts as zero next to a flow value v: the max-flow's saturation
  // threshold, or a few ulps of v.
  auto capEps = [&](double v) {
    return std::max(MaxFlow::eps, 4 * ulp * std::abs(v));
  };
  auto slopes = [](const ConvexHull &h) {
    std::vector<double> sg(h.T.size() + 1, 0);
    for (size_t k = 1; k < h.T.size(); ++k)
      sg[k] = (h.d[k] - h.d[k - 1]) / (h.T[k - 1] - h.T[k]);
    sg[h.T.size()] = Inf;
    return sg;
  };
  // Hull slopes: sigma[i][k] = price at which vertex k takes over; they
  // must not fall (a convex hull; ConvexHull's constructor makes one).
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> sg = slopes(pb.tasks[i]);
    for (size_t k = 1; k + 1 < sg.size(); ++k)
      if (!finite(sg[k]) || sg[k] < sg[k - 1] * (1 - 1e-12)) {
        err = "task " + std::to_string(i) + "'s hull is not convex";
        return false;
      }
  }
  // A price segment no wider than zero would hide its task arc from the
  // searches: its vertex is dropped (vertex 0 raises the least energy to
  // vertex 1's; a middle one leaves the chord of its neighbours), which
  // can raise the relaxation's optimum by at most the sum of the rises in
  // each task: `merged`, subtracted from every bound.
  std::vector<ConvexHull> work(pb.tasks.begin(), pb.tasks.end());
  double merged = 0;
  for (ConvexHull &h : work) {
    double rise = 0;
    for (bool again = true; again && h.T.size() > 1;) {
      again = false;
      std::vector<double> sg = slopes(h);
      for (size_t k = 0; k + 1 < h.T.size(); ++k) {
        if (sg[k + 1] - sg[k] > 2 * capEps(sg[k + 1]))
          continue;
        double above = k == 0 ? h.d[1] - h.d[0]
                              : h.d[k - 1] +
                                    (h.d[k + 1] - h.d[k - 1]) *
                                        (h.T[k - 1] - h.T[k]) /
                                        (h.T[k - 1] - h.T[k + 1]) -
                                    h.d[k];
        rise += std::max(0.0, above); // drops at one place add up
        h.T.erase(h.T.begin() + k);
        h.d.erase(h.d.begin() + k);
        if (k < h.index.size())
          h.index.erase(h.index.begin() + k);
        again = true;
        break;
      }
    }
    merged += rise;
  }
  const std::vector<ConvexHull> &tasks = work;
  std::vector<std::vector<double>> sigma(n);
  for (size_t i = 0; i < n; ++i)
    sigma[i] = slopes(tasks[i]);

  // Nodes: s = 0, t = 1, in_i = 2 + 2i, out_i = 3 + 2i.
  const uint32_t S = 0, Tn = 1;
  size_t V = 2 + 2 * n;
  auto inNode = [](size_t i) { return uint32_t(2 + 2 * i); };
  auto outNode = [](size_t i) { return uint32_t(3 + 2 * i); };
  std::vector<Arc> arcs;
  arcs.reserve(pb.arcs.size() + 2 * n);
  for (const ConvexArc &a : pb.arcs)
    arcs.push_back({a.startToStart ? inNode(a.from) : outNode(a.from),
                    inNode(a.to), a.lag, 0});
  // S_i >= release_i and S_i + t_i <= M: arcs from the source and to the
  // sink, left out where other constraints imply them (a task whose every
  // predecessor arc has a lag >= 0 and that has no release of its own starts
  // after a source-connected task; one with a finish-to-start successor of
  // lag >= 0 ends before that successor does).
  std::vector<uint8_t> needSource(n, 1), needSink(n, 1);
  std::vector<uint8_t> hasPred(n, 0), negativeIn(n, 0);
  for (const ConvexArc &a : pb.arcs) {
    hasPred[a.to] = 1;
    negativeIn[a.to] |= a.lag < 0;
    if (!a.startToStart && a.lag >= 0)
      needSink[a.from] = 0;
  }
  for (size_t i = 0; i < n; ++i) {
    double r = pb.release.empty() ? 0 : pb.release[i];
    needSource[i] = !hasPred[i] || negativeIn[i] || r > 0;
    if (needSource[i])
      arcs.push_back({S, inNode(i), r, 0});
    if (needSink[i])
      arcs.push_back({outNode(i), Tn, 0, 0});
  }
  // CSR adjacency: arcs leaving and entering each node.
  std::vector<uint32_t> outStart(V + 1, 0), inStart(V + 1, 0), outList, inList;
  for (const Arc &a : arcs) {
    ++outStart[a.from + 1];
    ++inStart[a.to + 1];
  }
  for (size_t v = 0; v < V; ++v) {
    outStart[v + 1] += outStart[v];
    inStart[v + 1] += inStart[v];
  }
  outList.resize(arcs.size());
  inList.resize(arcs.size());
  {
    std::vector<uint32_t> fo(outStart.begin(), outStart.end() - 1),
        fi(inStart.begin(), inStart.end() - 1);
    for (uint32_t a = 0; a < arcs.size(); ++a) {
      outList[fo[arcs[a].from]++] = a;
      inList[fi[arcs[a].to]++] = a;
    }
  }

  // Topological order of the tasks (Kahn), for the initial potentials.
  std::vector<uint32_t> indeg(n, 0), topo;
  std::vector<std::vector<uint32_t>> succ(n);
  for (const ConvexArc &a : pb.arcs) {
    succ[a.from].push_back(a.to);
    ++indeg[a.to];
  }
  for (uint32_t i = 0; i < n; ++i)
    if (!indeg[i])
      topo.push_back(i);
  for (size_t k = 0; k < topo.size(); ++k)
    for (uint32_t j : succ[topo[k]])
      if (--indeg[j] == 0)
        topo.push_back(j);
  if (topo.size() != n) {
    err = "the arcs form a cycle";
    return false;
  }

  // Initial potentials: longest distances with every task at its
  // least-energy vertex (no flow: only forward arcs are residual). `pi` is
  // stored as pi(v) = base[v] - offset (the early exit's uniform shift).
  std::vector<double> base(V, 0);
  double offset = 0;
  auto longest = [&](auto duration) {
    std::vector<double> at(V, 0);
    for (uint32_t i : topo) {
      double st = pb.release.empty() ? 0 : pb.release[i];
      for (uint32_t k = inStart[inNode(i)]; k < inStart[inNode(i) + 1]; ++k) {
        const Arc &a = arcs[inList[k]];
        if (a.from != S)
          st = std::max(st, at[a.from] + a.gain);
      }
      at[inNode(i)] = st;
      at[outNode(i)] = st + duration(i);
      at[Tn] = std::max(at[Tn], at[outNode(i)]);
    }
    return at;
  };
  base = longest([&](size_t i) { return tasks[i].T.front(); });
  out.fastest = longest([&](size_t i) { return tasks[i].T.back(); })[Tn];

  std::vector<double> x(n, 0);
  std::vector<uint32_t> seg(n, 0);
  double F = 0, G = 0;
  for (const ConvexHull &h : tasks)
    G += h.d.front();
  // Floating-point: G and F are sums of n + arcs products (each within
  // `terms` ulps of the exact sum of |terms|), and snapping a flow to a
  // segment boundary or to zero leaves a node imbalance (its Lagrangian
  // term is at most the imbalance x the makespan). Each breakpoint carries
  // errC + errF x M, by which its bound may exceed the exact one at M.
  const double terms = double(n + arcs.size() + 4);
  double snapped = 0, absG = std::abs(G);
  double errC = terms * ulp * absG + merged, errF = 0;

  auto pot = [&](uint32_t v) { return base[v] - offset; };
  // A task arc's residual (gain, capacity) forwards and backwards.
  auto taskFwd = [&](size_t i, double &gain, double &cap) {
    gain = tasks[i].T[seg[i]];
    cap = sigma[i][seg[i] + 1] - x[i];
  };
  auto taskBwd = [&](size_t i, double &gain, double &cap) -> bool {
    if (x[i] <= 0)
      return false;
    uint32_t k = seg[i];
    if (x[i] > sigma[i][k]) {
      gain = -tasks[i].T[k];
      cap = x[i] - sigma[i][k];
    } else {
      gain = -tasks[i].T[k - 1];
      cap = sigma[i][k] - sigma[i][k - 1];
    }
    return true;
  };

  std::vector<double> dist(V, Inf);
  std::vector<uint8_t> settled(V, 0);
  std::vector<uint32_t> touched;
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  std::vector<double> durations(n), net(n);
  MaxFlow mf;
  struct Admitted {
    int arc;
    Residual how;
  };
  std::vector<Admitted> admitted;
  size_t nextLevel = 0;
  uint64_t visits = 0;
  // Augmentations stop once the longest path is within this of the fastest
  // makespan: past it, more flow cannot raise any bound at D >= fastest.
  double stopAt = out.fastest * (1 + 1e-12) + 1e-15;
  int stalls = 0; // searches in a row that moved no flow

  while (true) {
    // Dijkstra on reduced costs from s, stopping when t is settled.
    for (uint32_t v : touched) {
      dist[v] = Inf;
      settled[v] = 0;
    }
    touched.clear();
    dist[S] = 0;
    touched.push_back(S);
    heap.push({0, S});
    auto relax = [&](uint32_t u, uint32_t v, double gain) {
      double rc = std::max(0.0, pot(v) - pot(u) - gain);
      double nd = dist[u] + rc;
      if (nd < dist[v]) {
        if (dist[v] == Inf)
          touched.push_back(v);
        dist[v] = nd;
        heap.push({nd, v});
      }
    };
    while (!heap.empty()) {
      auto [du, u] = heap.top();
      heap.pop();
      if (settled[u] || du > dist[u])
        continue;
      settled[u] = 1;
      ++visits;
      if (u == Tn)
        break;
      for (uint32_t k = outStart[u]; k < outStart[u + 1]; ++k) {
        const Arc &a = arcs[outList[k]];
        ++visits;
        if (!settled[a.to])
          relax(u, a.to, a.gain);
      }
      for (uint32_t k = inStart[u]; k < inStart[u + 1]; ++k) {
        const Arc &a = arcs[inList[k]];
        ++visits;
        if (a.from != S && a.flow > MaxFlow::eps && !settled[a.from])
          relax(u, a.from, -a.gain);
      }
      if (u >= 2) {
        size_t i = (u - 2) / 2;
        double gain, cap;
        if (u == inNode(i)) {
          taskFwd(i, gain, cap);
          if (cap > MaxFlow::eps && !settled[outNode(i)])
            relax(u, outNode(i), gain);
        } else if (taskBwd(i, gain, cap) && cap > MaxFlow::eps &&
                   !settled[inNode(i)]) {
          relax(u, inNode(i), gain);
        }
      }
    }
    while (!heap.empty())
      heap.pop();
    double dt = dist[Tn];
    if (!(dt < Inf)) {
      // No residual path to the sink (every task arc keeps a usable
      // segment, so this is not expected): stop, incomplete.
      out.breakpoints.push_back({F, G, pot(Tn) - pot(S), errC, errF});
      break;
    }
    // Potentials: settled nodes by their distance, the rest by dt.
    offset += dt;
    for (uint32_t v : touched)
      if (settled[v])
        base[v] += dt - dist[v];
    double L = pot(Tn) - pot(S);

    // The relaxation's optimal schedule at makespan L, for the levels at
    // or above it.
    if (onLevel && nextLevel < levels.size() && levels[nextLevel] >= L) {
      for (size_t i = 0; i < n; ++i) {
        const ConvexHull &h = tasks[i];
        durations[i] = std::clamp(pot(outNode(i)) - pot(inNode(i)), h.T.back(),
                                  h.T.front());
      }
      onLevel(L, durations);
      while (nextLevel < levels.size() && levels[nextLevel] >= L)
        ++nextLevel;
    }
    if (L <= stopAt) {
      out.breakpoints.push_back({F, G, L, errC, errF});
      out.complete = true;
      break;
    }
    if (workBudget && visits > workBudget) {
      out.breakpoints.push_back({F, G, L, errC, errF});
      break;
    }

    // One phase (the primal-dual method): a maximum flow over the admissible
    // residual arcs (reduced cost 0: every source-sink path of them has
    // length L), so each search is followed by every augmentation at L.
    double tol = 1e-12 * std::max(1.0, L);
    mf.reset(V);
    admitted.clear();
    auto admit = [&](uint32_t u, uint32_t v, double gain, double cap,
                     Residual how) {
      if (v == S || u == Tn || cap <= MaxFlow::eps ||
          pot(v) - pot(u) - gain > tol)
        return;
      admitted.push_back(
          {mf.arc(int(u), int(v), cap < Inf ? cap : MaxFlow::Inf), how});
    };
    for (uint32_t a = 0; a < arcs.size(); ++a) {
      admit(arcs[a].from, arcs[a].to, arcs[a].gain, Inf, {Residual::ArcFwd, a});
      if (arcs[a].flow > 0)
        admit(arcs[a].to, arcs[a].from, -arcs[a].gain, arcs[a].flow,
              {Residual::ArcBwd, a});
    }
    for (uint32_t i = 0; i < n; ++i) {
      double gain, cap;
      taskFwd(i, gain, cap);
      admit(inNode(i), outNode(i), gain, cap, {Residual::TaskFwd, i});
      if (taskBwd(i, gain, cap))
        admit(outNode(i), inNode(i), gain, cap, {Residual::TaskBwd, i});
    }
    visits += V + 2 * admitted.size();
    double pushed = mf.run(int(S), int(Tn));
    visits += mf.steps;
    mf.steps = 0;
    if (pushed >= MaxFlow::Inf / 2) {
      // Unbounded: every task on a longest path is at its fastest, so L is
      // the fastest makespan (up to rounding).
      out.breakpoints.push_back({F, G, L, errC, errF});
      out.complete = true;
      break;
    }
    if (!(pushed > 0)) {
      // Rounding left no admissible path at this L. The next search starts
      // from the potentials just refined and usually finds it; after a few
      // searches without progress the sweep stops (reported as incomplete;
      // every bound recorded stays valid).
      if (++stalls < 4)
        continue;
      out.breakpoints.push_back({F, G, L, errC, errF});
      break;
    }
    stalls = 0;
    out.breakpoints.push_back({F, G, L, errC, errF});
    ++out.augmentations;
    // Apply the phase's flows, net per task arc, snapping to segment
    // boundaries and to zero.
    std::fill(net.begin(), net.end(), 0.0);
    for (const Admitted &ad : admitted) {
      double f = mf.flowOn(ad.arc);
      if (!(f > 0))
        continue;
      switch (ad.how.kind) {
      case Residual::ArcFwd:
        arcs[ad.how.id].flow += f;
        break;
      case Residual::ArcBwd: {
        double &fl = arcs[ad.how.id].flow;
        fl -= f;
        if (fl <= capEps(f)) {
          snapped += std::abs(fl);
          fl = 0;
        }
        break;
      }
      case Residual::TaskFwd:
        net[ad.how.id] += f;
        break;
      case Residual::TaskBwd:
        net[ad.how.id] -= f;
        break;
      case Residual::None:
        break;
      }
    }
    // Within the max-flow's saturation threshold (or a few ulps) of a
    // boundary counts as on it: a residual the max-flow cannot use must not
    // stay visible to the searches.
    auto near = [&](double a, double b) {
      return std::abs(a - b) <= capEps(std::abs(a) + std::abs(b));
    };
    auto snap = [&](double &v, double to) {
      snapped += std::abs(v - to);
      v = to;
    };
    for (uint32_t i = 0; i < n; ++i) {
      double f = net[i];
      if (f > 0) {
        x[i] += f;
      } else if (f < 0) {
        if (x[i] <= sigma[i][seg[i]])
          --seg[i]; // leaving the boundary into the segment below
        x[i] += f;
      } else {
        continue;
      }
      // Within zero of either end of the segment is on it, so that no
      // residual too small for the max-flow stays visible to the searches
      // (segments are wider than that: see `merged`).
      double top = sigma[i][seg[i] + 1]; // Inf on the last segment
      if (top < Inf && (near(x[i], top) || x[i] > top)) {
        snap(x[i], top);
        ++seg[i];
      } else if (x[i] != sigma[i][seg[i]] &&
                 (near(x[i], sigma[i][seg[i]]) || x[i] < sigma[i][seg[i]])) {
        snap(x[i], sigma[i][seg[i]]);
      }
    }
    // G and F of the new flow, exactly (every non-negative conserving flow
    // gives a valid bound, whatever the rounding of the phases).
    G = 0;
    F = 0;
    absG = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const ConvexHull &h = tasks[i];
      G += h.lagrangian(x[i]);
      absG += h.d.back() + x[i] * h.T.front();
    }
    for (const Arc &a : arcs) {
      G += a.gain * a.flow;
      absG += std::abs(a.gain * a.flow);
      if (a.to == Tn)
        F += a.flow;
    }
    errC = terms * ulp * absG + merged;
    errF = terms * ulp * F + snapped;
  }
  return true;
}

} // namespace calculus
} // namespace energy
