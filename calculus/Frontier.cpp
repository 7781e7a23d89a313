//===- Frontier.cpp - Time-energy frontiers of compositions ---------------===//

#include "calculus/Frontier.h"

#include <algorithm>
#include <limits>

namespace energy {
namespace calculus {

void paretoPrune(std::vector<FrontierPoint> &points) {
  std::sort(points.begin(), points.end(),
            [](const FrontierPoint &a, const FrontierPoint &b) {
              return a.T < b.T || (a.T == b.T && a.x < b.x);
            });
  size_t out = 0;
  double best = std::numeric_limits<double>::infinity();
  for (const FrontierPoint &p : points)
    if (p.x < best) {
      best = p.x;
      points[out++] = p;
    }
  points.resize(out);
}

Frontier elementFrontier(const std::vector<Option> &options, double sbar,
                         DeviceSet devices) {
  Frontier f;
  f.sbar = sbar;
  f.devices = std::move(devices);
  f.points.reserve(options.size());
  for (const Option &o : options)
    f.points.push_back({o.T, o.d + (o.s - sbar) * o.T}); // H.2 split
  paretoPrune(f.points);
  return f;
}

Frontier seqFrontier(const Frontier &a, const Frontier &b,
                     CompositionError &err) {
  if (a.devices != b.devices) {
    err.kind = CompositionError::SeqDevices;
    err.message = "operands of seq must run on the same set of devices";
  }
  Frontier f;
  f.sbar = a.sbar;
  f.devices = a.devices;
  f.points.reserve(a.points.size() * b.points.size());
  for (const FrontierPoint &p : a.points)
    for (const FrontierPoint &q : b.points)
      f.points.push_back({p.T + q.T, p.x + q.x});
  paretoPrune(f.points);
  return f;
}

Frontier parallelFrontier(const std::vector<const Frontier *> &ops,
                          bool sameDevice, CompositionError &err) {
  Frontier f;
  if (ops.empty())
    return f;
  f.devices = ops[0]->devices;
  f.sbar = ops[0]->sbar;
  for (size_t i = 1; i < ops.size(); ++i) {
    if (sameDevice) {
      if (ops[i]->devices != f.devices) {
        err.kind = CompositionError::ParDevices;
        err.message = "operands of par must share one device";
      }
    } else {
      if (ops[i]->devices.intersects(f.devices)) {
        err.kind = CompositionError::MultiOverlap;
        err.message = "operands of multi must run on disjoint device sets";
      }
      f.devices.unite(ops[i]->devices);
      f.sbar += ops[i]->sbar;
    }
  }
  // Candidate windows: every operand point's T.
  std::vector<double> windows;
  for (const Frontier *op : ops)
    for (const FrontierPoint &p : op->points)
      windows.push_back(p.T);
  std::sort(windows.begin(), windows.end());
  windows.erase(std::unique(windows.begin(), windows.end()), windows.end());
  // Sweep: operand i's choice at window M is its last point with T <= M
  // (points are Pareto: later is cheaper).
  std::vector<size_t> next(ops.size(), 0);
  for (double M : windows) {
    bool feasible = true;
    double T = 0, x = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto &pts = ops[i]->points;
      while (next[i] < pts.size() && pts[next[i]].T <= M)
        ++next[i];
      if (next[i] == 0) {
        feasible = false;
        break;
      }
      const FrontierPoint &p = pts[next[i] - 1];
      T = std::max(T, p.T);
      x += p.x;
    }
    if (feasible)
      f.points.push_back({T, x});
  }
  paretoPrune(f.points);
  return f;
}

std::vector<std::pair<double, double>> timeEnergy(const Frontier &f) {
  std::vector<std::pair<double, double>> out;
  double best = std::numeric_limits<double>::infinity();
  for (const FrontierPoint &p : f.points) { // T ascending
    double e = f.energy(p);
    if (e < best) {
      best = e;
      out.push_back({p.T, e});
    }
  }
  return out;
}

} // namespace calculus
} // namespace energy
