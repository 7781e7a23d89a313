//===- FrontierTest.cpp - frontier algebra against brute force ------------===//
//
// Every combination of options is placed on a timeline and its energy is
// counted by interval accounting: dynamic energy, static power while a
// device is busy (the running element's), idle static power while it waits
// for the makespan. The Pareto-min of those (T, E) pairs must equal the
// composed frontier exactly (integer inputs keep the arithmetic exact).
//
//===----------------------------------------------------------------------===//

#include "calculus/Frontier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>

using namespace energy::calculus;

namespace {

struct Node {
  enum Kind { Elem, Seq, Par, Multi } kind;
  uint32_t device = 0;
  std::vector<Option> options;
  std::vector<std::unique_ptr<Node>> kids;
};

struct Case {
  std::unique_ptr<Node> root;
  std::vector<double> idle; // per device
  std::vector<Node *> elems;
};

std::unique_ptr<Node> makeDeviceTree(std::mt19937_64 &g, uint32_t dev,
                                     int budget, bool allowPar, double sbar,
                                     bool h2, int maxOpts,
                                     std::vector<Node *> &elems) {
  std::uniform_int_distribution<int> T(1, 20), D(0, 50), S(1, 15),
      nOpt(1, maxOpts), coin(0, 2);
  auto node = std::make_unique<Node>();
  node->device = dev;
  if (budget == 1) {
    node->kind = Node::Elem;
    int k = nOpt(g);
    for (int i = 0; i < k; ++i)
      node->options.push_back(
          {double(T(g)), double(D(g)), h2 ? double(S(g)) : sbar});
    elems.push_back(node.get());
    return node;
  }
  node->kind = (allowPar && coin(g) == 0) ? Node::Par : Node::Seq;
  int parts = std::min(budget, 2 + coin(g) % 2);
  for (int i = 0; i < parts; ++i) {
    int b = budget / parts + (i < budget % parts ? 1 : 0);
    node->kids.push_back(
        makeDeviceTree(g, dev, b, allowPar, sbar, h2, maxOpts, elems));
  }
  return node;
}

Case makeCase(std::mt19937_64 &g, int elements, int maxOpts, bool h2) {
  Case c;
  std::uniform_int_distribution<int> devs(1, 3), sb(1, 10);
  int nDev = std::min(elements, devs(g));
  c.root = std::make_unique<Node>();
  c.root->kind = Node::Multi;
  for (int d = 0; d < nDev; ++d) {
    c.idle.push_back(sb(g));
    int b = elements / nDev + (d < elements % nDev ? 1 : 0);
    // H.2 (op-point-dependent static power) only where no par shares a
    // device: par operands must share one static power.
    c.root->kids.push_back(
        makeDeviceTree(g, d, b, !h2, c.idle[d], h2, maxOpts, c.elems));
  }
  return c;
}

Frontier compose(const Node &n, const Case &c) {
  CompositionError err;
  if (n.kind == Node::Elem)
    return elementFrontier(n.options, c.idle[n.device],
                           DeviceSet::single(n.device));
  std::vector<Frontier> kids;
  for (const auto &k : n.kids)
    kids.push_back(compose(*k, c));
  Frontier f;
  if (n.kind == Node::Seq) {
    f = kids[0];
    for (size_t i = 1; i < kids.size(); ++i)
      f = seqFrontier(f, kids[i], err);
  } else {
    std::vector<const Frontier *> ops;
    for (const Frontier &k : kids)
      ops.push_back(&k);
    f = parallelFrontier(ops, n.kind == Node::Par, err);
  }
  EXPECT_FALSE(err) << err.message;
  return f;
}

struct Interval {
  uint32_t device;
  double start, end, s, d;
};

/// Places the tree for one assignment; returns its duration.
double place(const Node &n, double start, const std::vector<int> &choice,
             const std::map<const Node *, int> &index,
             std::vector<Interval> &out) {
  if (n.kind == Node::Elem) {
    const Option &o = n.options[choice[index.at(&n)]];
    out.push_back({n.device, start, start + o.T, o.s, o.d});
    return o.T;
  }
  double t = 0;
  for (const auto &k : n.kids) {
    if (n.kind == Node::Seq)
      t += place(*k, start + t, choice, index, out);
    else
      t = std::max(t, place(*k, start, choice, index, out));
  }
  return t;
}

std::vector<std::pair<double, double>> bruteForce(const Case &c) {
  std::map<const Node *, int> index;
  for (size_t i = 0; i < c.elems.size(); ++i)
    index[c.elems[i]] = i;
  std::vector<int> choice(c.elems.size(), 0);
  std::vector<std::pair<double, double>> all;
  std::vector<Interval> iv;
  while (true) {
    iv.clear();
    double M = place(*c.root, 0, choice, index, iv);
    double E = 0;
    for (uint32_t dev = 0; dev < c.idle.size(); ++dev) {
      std::vector<Interval> mine;
      for (const Interval &i : iv)
        if (i.device == dev) {
          mine.push_back(i);
          E += i.d;
        }
      std::sort(mine.begin(), mine.end(),
                [](const Interval &a, const Interval &b) {
                  return a.start < b.start;
                });
      // Busy union at the running element's static power (elements that
      // overlap on a device share it); idle power elsewhere up to M.
      double busy = 0, cursor = 0;
      for (const Interval &i : mine) {
        double from = std::max(cursor, i.start);
        if (i.end > from) {
          busy += i.end - from;
          E += i.s * (i.end - from);
          cursor = i.end;
        }
      }
      E += c.idle[dev] * (M - busy);
    }
    all.push_back({M, E});
    size_t k = 0;
    while (k < choice.size() && ++choice[k] == int(c.elems[k]->options.size()))
      choice[k++] = 0;
    if (k == choice.size())
      break;
  }
  std::sort(all.begin(), all.end());
  std::vector<std::pair<double, double>> front;
  double best = std::numeric_limits<double>::infinity();
  for (auto &p : all)
    if (p.second < best) {
      best = p.second;
      front.push_back(p);
    }
  return front;
}

/// Compares with brute force; returns the frontier's number of points.
size_t checkCase(const Case &c) {
  Frontier f = compose(*c.root, c);
  auto points = timeEnergy(f);
  EXPECT_EQ(points, bruteForce(c));
  return points.size();
}

TEST(Frontier, EqualsBruteForceOnRandomTrees) {
  std::mt19937_64 g(4242);
  std::uniform_int_distribution<int> elems(1, 8), opts(1, 6);
  // The comparison must bite: a good share of the cases have a real
  // tradeoff (several frontier points), not one point that any composition
  // gets right.
  int tradeoffs = 0;
  for (int i = 0; i < 400; ++i) {
    int n = elems(g), k = opts(g);
    // Keep each brute force under ~10^5 combinations here; the full
    // 8 x 6 case is its own test.
    while (std::pow(double(k), n) > 1e5)
      --n;
    Case c = makeCase(g, n, k, /*h2=*/i % 3 == 0);
    tradeoffs += checkCase(c) > 1;
  }
  EXPECT_GT(tradeoffs, 80); // 115 of the 400 with this seed
}

TEST(Frontier, EqualsBruteForceAtEightElementsSixOptions) {
  std::mt19937_64 g(777);
  for (bool h2 : {false, true}) {
    Case c = makeCase(g, 8, 6, h2);
    // Force six options everywhere: 6^8 = 1,679,616 combinations.
    std::uniform_int_distribution<int> T(1, 20), D(0, 50), S(1, 15);
    for (Node *e : c.elems) {
      e->options.clear();
      for (int i = 0; i < 6; ++i)
        e->options.push_back({double(T(g)), double(D(g)),
                              h2 ? double(S(g)) : c.idle[e->device]});
    }
    checkCase(c);
  }
}

TEST(Frontier, SlackMakesSlowOptionsOptimal) {
  // Two elements in par on a 10 W device. B has a fast, costly option and a
  // slow one whose energy alone is higher than its minimum (slower than its
  // minimum-energy point) but which fits in A's shadow: at makespan 10 the
  // composite takes B's slow option.
  Frontier a = elementFrontier({{10, 5, 10}}, 10, DeviceSet::single(0));
  Frontier b =
      elementFrontier({{2, 8, 10}, {9, 3, 10}}, 10, DeviceSet::single(0));
  // B alone: (2 s, 28 J) and (9 s, 93 J): the slow option is not on B's
  // own (T, E) frontier...
  EXPECT_EQ(timeEnergy(b), (std::vector<std::pair<double, double>>{{2, 28}}));
  CompositionError err;
  Frontier p = parallelFrontier({&a, &b}, /*sameDevice=*/true, err);
  // ...but in the composite it saves 5 J: 10 W x 10 s + 5 + 3 = 108 J.
  EXPECT_EQ(timeEnergy(p), (std::vector<std::pair<double, double>>{{10, 108}}));
}

TEST(Frontier, EndsAtTheEnergyMinimizingMakespan) {
  // High static power makes slowing down cost more than it saves.
  Frontier a = elementFrontier({{1, 10, 100}, {2, 4, 100}, {4, 1, 100}}, 100,
                               DeviceSet::single(0));
  auto te = timeEnergy(a);
  ASSERT_EQ(te.size(), 1u);
  EXPECT_EQ(te[0], (std::pair<double, double>{1, 110}));
}

TEST(Frontier, SideConditions) {
  Frontier a = elementFrontier({{1, 1, 1}}, 1, DeviceSet::single(0));
  Frontier b = elementFrontier({{1, 1, 1}}, 1, DeviceSet::single(1));
  CompositionError err;
  seqFrontier(a, b, err);
  EXPECT_EQ(err.kind, CompositionError::SeqDevices);
  err = {};
  parallelFrontier({&a, &a}, false, err);
  EXPECT_EQ(err.kind, CompositionError::MultiOverlap);
  err = {};
  parallelFrontier({&a, &b}, true, err);
  EXPECT_EQ(err.kind, CompositionError::ParDevices);
}

} // namespace
