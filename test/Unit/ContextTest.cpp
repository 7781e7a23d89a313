//===- ContextTest.cpp - contexts and the Reduction Theorem ---------------===//
//
// Expected values are computed here from the models' closed forms (RC
// relaxation, linear leakage, Axiom P5 thresholds), not read back from the
// code under test.
//
//===----------------------------------------------------------------------===//

#include "calculus/Context.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace energy::calculus;

namespace {

Signature sig(double s, double T, double d, double sigmaT = 0,
              double sigmaD = 0) {
  return Signature::measured(s, T, d, sigmaT * sigmaT, sigmaD * sigmaD,
                             DeviceSet::single(0));
}

ThermalModel model() {
  ThermalModel m;
  m.resistance = 0.1; // K/W
  m.capacitance = 50; // J/K, tau = 5 s
  m.ambient = 30;
  m.reference = 30;
  m.leakage = 0.004; // +0.4 % static power per K
  return m;
}

TEST(Thermal, RcRelaxation) {
  // 300 W for 5 s from 30 degC: target 60 degC, one time constant.
  EXPECT_NEAR(model().exit(30, 300, 5), 60 - 30 * std::exp(-1.0), 1e-12);
  // Cooling towards ambient at zero power.
  EXPECT_NEAR(model().exit(60, 0, 10), 30 + 30 * std::exp(-2.0), 1e-12);
}

TEST(Thermal, NonCommutativityByTheModelsAmount) {
  ThermalModel m = model();
  // A hot element (insensitive itself) and a leakage-sensitive one.
  ChainElement hot{sig(60, 5, 1440), false}; // 60 W static + 288 W dynamic
  ChainElement cool{sig(60, 2, 100), true};
  Signature hs = composeThermalChain({hot, cool}, m, 30);
  Signature sh = composeThermalChain({cool, hot}, m, 30);
  // Hot first: the sensitive one enters at the hot one's exit temperature.
  double theta = 30 + (348 * 0.1) * (1 - std::exp(-1.0)); // P = 60 + 1440 / 5
  double expected = 60 * 0.004 * (theta - 30) * 2;        // extra leakage
  EXPECT_NEAR(hs.E() - sh.E(), expected, 1e-9);
  EXPECT_GT(expected, 1); // a real difference
  // Insensitive elements: both orders are the context-free composition.
  m.leakage = 0;
  Signature a = composeThermalChain({hot, cool}, m, 30),
            b = composeThermalChain({cool, hot}, m, 30);
  EXPECT_DOUBLE_EQ(a.E(), b.E());
  EXPECT_DOUBLE_EQ(a.E(), hot.null.E() + cool.null.E());
}

TEST(Thermal, ReductionBoundHoldsForInsensitiveElements) {
  ThermalModel m = model();
  m.leakage = 1e-5; // barely sensitive
  ChainElement a{sig(60, 1, 100, 0.01, 2), true},
      b{sig(60, 1, 80, 0.01, 2), true};
  std::vector<Signature> realized;
  Signature ab = composeThermalChain({a, b}, m, 30, &realized);
  // Each element insensitive between its realized and null context ...
  EXPECT_TRUE(insensitive(realized[1], b.null, b.null.sigmaE(), 0.95));
  // ... so |E - E0| <= m1 c s1 + m2 c s2 with m1 = 0 (null start), m2 = 1.
  double bound = biasBound({0, 1}, {a.null.sigmaE(), b.null.sigmaE()}, 0.95);
  EXPECT_LE(std::fabs(ab.E() - (a.null.E() + b.null.E())), bound);
}

TEST(Thermal, PrefixFailureThatEveryPairPasses) {
  // Identical elements that heat the device a little each; the pair check
  // (one predecessor from the null context) passes, but the cumulative
  // heating crosses the throttle threshold several elements later.
  ThermalModel m = model();
  m.leakage = 0;
  m.throttleAt = 45;
  m.throttleSlope = 0.05; // 5 % slower per K above 45 degC
  ChainElement e{sig(50, 2, 500, 0.01, 3), true}; // 300 W mean
  std::vector<ChainElement> chain(12, e);
  // Pairwise: the second element enters at exit(30, 300, 2) < 45: no effect.
  double afterOne = m.exit(30, 300, 2);
  EXPECT_LT(afterOne, 45);
  Signature second = m.atTemperature(e.null, afterOne);
  EXPECT_TRUE(insensitive(second, e.null, e.null.sigmaE(), 0.95));
  // The prefix check finds where the chain stops reducing. By hand: iterate
  // the RC model (mean power drops once throttled: same energy over a
  // longer time), accumulate the throttling's extra static energy, and
  // compare with the bound c (0 + sigma + sigma + ...).
  double theta = 30, extra = 0, sigma = e.null.sigmaE();
  size_t expected = 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    double slow = theta > 45 ? 1 + 0.05 * (theta - 45) : 1;
    double T = 2 * slow;
    extra += 50 * (T - 2); // static power over the extra time
    double bound = 1.959963984540054 * sigma * double(i);
    if (extra > bound) {
      expected = i + 1;
      break;
    }
    theta = m.exit(theta, (50 * T + 500) / T, T);
  }
  ASSERT_GT(expected, 2u) << "every pair reduces";
  EXPECT_EQ(firstIrreduciblePrefix(chain, m, 30, 0.95), expected);
}

// Co-runners nested in sequences, by hand: lane 1 runs a (2 s, 0.6 of
// HBM) then b (2 s, 0.2), lane 2 runs c (3 s, 0.6); capacity 1. While a and
// c co-run the demand is 1.2: both progress at 1/1.2, a ends at 2.4 s with
// c 2 s into its work; then b + c demand 0.8 fits: c ends at 3.4 s, b at
// 4.4 s. Realized: a 2.4, b 2.0, c 3.4.
TEST(Contention, CoRunnersNestedInSequences) {
  std::vector<std::vector<LaneElement>> lanes = {{{2, {0.6}}, {2, {0.2}}},
                                                 {{3, {0.6}}}};
  auto r = coRunLanes(lanes, {1.0});
  EXPECT_NEAR(r[0][0], 2.4, 1e-12);
  EXPECT_NEAR(r[0][1], 2.0, 1e-12);
  EXPECT_NEAR(r[1][0], 3.4, 1e-12);
  // An idle gap elapses in wall time and demands nothing: lane 1 idles
  // 1 s, then a; c runs alone for 1 s, then a and c (2 s of work each)
  // co-run at 1/1.2 and both end at 1 + 2.4 = 3.4 s: a took 2.4 s.
  lanes = {{{1, {}, true}, {2, {0.6}}}, {{3, {0.6}}}};
  r = coRunLanes(lanes, {1.0});
  EXPECT_NEAR(r[0][0], 1.0, 1e-12);
  EXPECT_NEAR(r[0][1], 2.4, 1e-12);
  EXPECT_NEAR(r[1][0], 3.4, 1e-12);
  // While the co-runner set is constant this is Axiom P5: D / K.
  lanes = {{{2, {0.6}}}, {{2, {0.9}}}};
  r = coRunLanes(lanes, {1.0});
  EXPECT_NEAR(r[0][0], 2 * contentionSlowdown({0.6, 0.9}, 1.0), 1e-12);
  EXPECT_NEAR(r[1][0], 3.0, 1e-12);
  // Within capacity nothing changes; unlimited capacity likewise.
  r = coRunLanes({{{2, {0.3}}}, {{1, {0.3}}}}, {1.0});
  EXPECT_DOUBLE_EQ(r[0][0], 2);
  EXPECT_DOUBLE_EQ(r[1][0], 1);
  r = coRunLanes({{{2, {5}}}, {{1, {5}}}}, {0.0});
  EXPECT_DOUBLE_EQ(r[0][0], 2);
}

// Deeper nesting: par{ seq{a, par{b, c}}, d }, every element demanding 0.5
// of a capacity of 1. By hand: a and d co-run within capacity, a ends at
// 1 s; then b, c and d demand 1.5: rate 1/1.5, so b and c (1 s of work each)
// end at 1 + 1.5 = 2.5 s while d does 1 s more of its 3; d alone then ends
// at 3.5 s. Realized: a 1, b 1.5, c 1.5, d 3.5.
TEST(Contention, CoRunnersNestedDeeper) {
  std::vector<CoRunNode> nodes(7);
  nodes[0] = {CoRunNode::Par, {}, {1, 6}};
  nodes[1] = {CoRunNode::Seq, {}, {2, 3}};
  nodes[2] = {CoRunNode::Leaf, {1, {0.5}}, {}};
  nodes[3] = {CoRunNode::Par, {}, {4, 5}};
  nodes[4] = {CoRunNode::Leaf, {1, {0.5}}, {}};
  nodes[5] = {CoRunNode::Leaf, {1, {0.5}}, {}};
  nodes[6] = {CoRunNode::Leaf, {3, {0.5}}, {}};
  std::vector<double> r = coRun(nodes, 0, {1.0});
  EXPECT_NEAR(r[2], 1.0, 1e-12);
  EXPECT_NEAR(r[4], 1.5, 1e-12);
  EXPECT_NEAR(r[5], 1.5, 1e-12);
  EXPECT_NEAR(r[6], 3.5, 1e-12);
  // An empty sequence and a zero-length element finish at once.
  nodes = {{CoRunNode::Par, {}, {1, 2}},
           {CoRunNode::Seq, {}, {}},
           {CoRunNode::Seq, {}, {3, 4}},
           {CoRunNode::Leaf, {0, {0.5}}, {}},
           {CoRunNode::Leaf, {2, {0.5}}, {}}};
  r = coRun(nodes, 0, {1.0});
  EXPECT_EQ(r[3], 0.0);
  EXPECT_NEAR(r[4], 2.0, 1e-12);
}

TEST(Contention, ThreeWaySaturationThatEveryPairFits) {
  std::vector<double> three{0.4, 0.4, 0.4};
  EXPECT_EQ(contentionSlowdown({0.4, 0.4}, 1.0), 1.0);
  EXPECT_EQ(contentionSlowdown({0.4, 0.4}, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(contentionSlowdown(three, 1.0), 1.2);
  EXPECT_EQ(contentionSlowdown({1.0}, 1.0), 1.0); // at capacity: nothing
}

TEST(Reduction, BiasBoundByHand) {
  // m = (0, 1, 2), sigma = (1, 2, 3) J at 95 %: 1.959964 x (0 + 2 + 6).
  EXPECT_NEAR(biasBound({0, 1, 2}, {1, 2, 3}, 0.95), 1.959963984540054 * 8,
              1e-12);
}

TEST(Reduction, DeviationIsEq11) {
  Signature a = sig(60, 2, 10), b = sig(62, 2.5, 11);
  // Ds T' + DT s' + Ds DT + Dd = 2 x 2.5 + 0.5 x 62 + 2 x 0.5 + 1 = 38.
  EXPECT_DOUBLE_EQ(contextDeviation(a, b), 38);
  // It bounds the energy difference: |E - E'| = |130 - 166| = 36 <= 38.
  EXPECT_LE(std::fabs(a.E() - b.E()), contextDeviation(a, b));
}

TEST(Thermal, NonMonotonicityUnderContext) {
  // Paper E.5: replacing A by A' -- no cheaper in any component (same s and
  // d, longer T) -- lowers the total because A' leaves the device cooler for
  // a long leakage-sensitive successor.
  ThermalModel m;
  m.resistance = 0.2;
  m.capacitance = 1; // tau = 0.2 s: fast, exit ~ ambient + P R
  m.ambient = 25;
  m.reference = 25;
  m.leakage = 0.01;
  ChainElement A{sig(50, 1, 100), false}, Aprime{sig(50, 2, 100), false};
  ChainElement S{sig(100, 100, 1000), true};
  double withA = composeThermalChain({A, S}, m, 25).E();
  double withAprime = composeThermalChain({Aprime, S}, m, 25).E();
  EXPECT_GT(Aprime.null.E(), A.null.E());
  EXPECT_LT(withAprime, withA);
  // By the model: exits 25 + 150 x 0.2 (1 - e^-5) vs 25 + 100 x 0.2 (1 -
  // e^-10).
  double thA = 25 + 30 * (1 - std::exp(-5.0)),
         thAp = 25 + 20 * (1 - std::exp(-10.0));
  double expected =
      (A.null.E() - Aprime.null.E()) + 100 * 0.01 * (thA - thAp) * 100;
  EXPECT_NEAR(withA - withAprime, expected, 1e-9);
}

TEST(Cache, ResidencyAndInterpolation) {
  CacheModel l2{40e6};
  EXPECT_DOUBLE_EQ(l2.residency(0), 1);
  EXPECT_DOUBLE_EQ(l2.residency(10e6), 0.75);
  EXPECT_DOUBLE_EQ(l2.residency(80e6), 0);
  CacheSignature cs{sig(60, 2e-3, 0.5), sig(60, 1e-3, 0.3)};
  Signature half = cs.at(0.5);
  EXPECT_DOUBLE_EQ(half.T, 1.5e-3);
  EXPECT_DOUBLE_EQ(half.d, 0.4);
}

TEST(PowerDelivery, TransientMattersOnlyForShortElements) {
  PowerDeliveryModel pd{1e-6, 5e-6};                    // 1 uJ per W, 5 us
  EXPECT_NEAR(pd.extraEnergy(200, 1.0), 200e-6, 1e-15); // all of it
  EXPECT_NEAR(pd.extraEnergy(200, 5e-6), 200e-6 * (1 - std::exp(-1.0)), 1e-15);
  EXPECT_EQ(pd.extraEnergy(0, 1.0), 0);
}

// realizeElement and realizeIdle: the steps --energy-propagate-context
// runs, each mechanism checked against its closed form.

TEST(RealizeElement, CacheResidencyFromTheTrafficSinceTheProducer) {
  DeviceMechanisms dev;
  dev.staticPower = 50;
  dev.cache = CacheModel{1000};
  DeviceContext ctx;
  ctx.traffic = 250; // bytes since the producer's mark of 0
  ContextElement el;
  el.null = sig(50, 2, 100);
  el.warm = sig(50, 1, 40);
  el.producerTraffic = 0;
  el.traffic = 30;
  ContextOutcome o = realizeElement(dev, ctx, el);
  ASSERT_TRUE(o.residency);
  EXPECT_DOUBLE_EQ(*o.residency, 0.75); // 1 - 250 / 1000
  EXPECT_DOUBLE_EQ(o.realized.T, 2 + 0.75 * (1 - 2));
  EXPECT_DOUBLE_EQ(o.realized.d, 100 + 0.75 * (40 - 100));
  EXPECT_TRUE(o.changed);
  EXPECT_DOUBLE_EQ(ctx.traffic, 280);
  // Insensitive: the null signature, traffic still counted.
  el.sensitive = false;
  ContextOutcome same = realizeElement(dev, ctx, el);
  EXPECT_FALSE(same.changed);
  EXPECT_DOUBLE_EQ(same.realized.E(), el.null.E());
  EXPECT_DOUBLE_EQ(ctx.traffic, 310);
}

TEST(RealizeElement, PowerDeliveryStepFromThePreviousMeanPower) {
  DeviceMechanisms dev;
  dev.staticPower = 40;
  dev.delivery = PowerDeliveryModel{1e-7, 1e-6}; // a |dP| (1 - e^(-T/tau))
  DeviceContext ctx;
  ContextElement el;
  el.null = sig(40, 1e-6, 160e-6); // mean power 40 + 160 = 200 W
  // The device's first element steps from idle (its static power), as its
  // null signature was measured: nothing to add (paper section 3.4: the
  // null context carries no delivery state).
  ContextOutcome first = realizeElement(dev, ctx, el);
  EXPECT_FALSE(first.deliveryEnergy);
  EXPECT_FALSE(first.changed);
  EXPECT_DOUBLE_EQ(first.realized.d, 160e-6);
  // The step is from the element's own power, before its transient.
  EXPECT_DOUBLE_EQ(*ctx.power, 200);
  // After an equal draw there is no step at all: it pays less than its
  // null by the transient of the 160 W step from idle.
  ContextOutcome second = realizeElement(dev, ctx, el);
  double fromIdle = 1e-7 * 160 * (1 - std::exp(-1.0));
  ASSERT_TRUE(second.deliveryEnergy);
  EXPECT_NEAR(*second.deliveryEnergy, -fromIdle, 1e-18);
  EXPECT_NEAR(second.realized.d, 160e-6 - fromIdle, 1e-18);
  // A 120 W element after the 200 W one: a step of 80 W, as large as its
  // own from idle (120 - 40): it pays what its null did.
  ContextElement half;
  half.null = sig(40, 1e-6, 80e-6);
  ContextOutcome third = realizeElement(dev, ctx, half);
  EXPECT_FALSE(third.deliveryEnergy);
  EXPECT_DOUBLE_EQ(third.realized.d, 80e-6);
  // A 200 W element after the 120 W one: an 80 W step where its null had
  // 160 W.
  ContextOutcome fourth = realizeElement(dev, ctx, el);
  ASSERT_TRUE(fourth.deliveryEnergy);
  EXPECT_NEAR(*fourth.deliveryEnergy, 1e-7 * (80 - 160) * (1 - std::exp(-1.0)),
              1e-18);
}

TEST(RealizeElement, ContentionSlowsTimeNotDynamicEnergy) {
  DeviceMechanisms dev;
  dev.staticPower = 60;
  DeviceContext ctx;
  ContextElement el;
  el.null = sig(60, 2, 100, 0.1, 2);
  el.slowdown = 1.5;
  ContextOutcome o = realizeElement(dev, ctx, el);
  EXPECT_DOUBLE_EQ(o.realized.T, 3);
  EXPECT_DOUBLE_EQ(o.realized.d, 100);
  EXPECT_DOUBLE_EQ(o.realized.varT, 0.01 * 2.25);
  // Axiom P1 on the realized element: var_E = s^2 var_T + var_d.
  EXPECT_DOUBLE_EQ(o.realized.varE, 3600 * 0.0225 + 4);
  ASSERT_TRUE(o.slowdown);
  EXPECT_DOUBLE_EQ(*o.slowdown, 1.5);
}

TEST(RealizeElement, ThermalTableInterpolatesAndFillsStaticPower) {
  DeviceMechanisms dev;
  dev.staticPower = 50;
  ThermalModel m = model(); // reference 30 degC, leakage 0.004 / K
  dev.thermal = m;
  std::vector<MeasuredPoint> table = {{30, sig(55, 1, 10), true},
                                      {50, sig(0, 2, 30), false}};
  DeviceContext ctx;
  ctx.theta = 40;
  ContextElement el;
  el.null = sig(50, 1, 10);
  el.thermalTable = &table;
  ContextOutcome o = realizeElement(dev, ctx, el);
  // At 50 degC without a measured s: the device's, 50 (1 + 0.004 x 20).
  double s50 = 50 * (1 + 0.004 * 20);
  EXPECT_DOUBLE_EQ(o.realized.s, 55 + 0.5 * (s50 - 55));
  EXPECT_DOUBLE_EQ(o.realized.T, 1.5);
  EXPECT_DOUBLE_EQ(o.realized.d, 20);
  ASSERT_TRUE(o.entryTemperature);
  EXPECT_DOUBLE_EQ(*o.entryTemperature, 40);
  // The device heats over the element at its realized mean power.
  double P = o.realized.E() / o.realized.T;
  EXPECT_DOUBLE_EQ(*ctx.theta, m.exit(40, P, 1.5));
  // Clamped beyond the table.
  ctx.theta = 90;
  EXPECT_DOUBLE_EQ(realizeElement(dev, ctx, el).realized.T, 2);
  // Inside a par the temperature is not advanced.
  ctx.theta = 40;
  el.advanceTemperature = false;
  realizeElement(dev, ctx, el);
  EXPECT_DOUBLE_EQ(*ctx.theta, 40);
}

TEST(RealizeIdle, LeakageAtTheEntryTemperature) {
  DeviceMechanisms dev;
  dev.staticPower = 50;
  ThermalModel m = model();
  dev.thermal = m;
  DeviceContext ctx;
  ctx.theta = 55;
  double s = realizeIdle(dev, ctx, 10, true);
  EXPECT_DOUBLE_EQ(s, 50 * (1 + 0.004 * 25));
  EXPECT_DOUBLE_EQ(*ctx.theta, m.exit(55, s, 10));
  EXPECT_DOUBLE_EQ(*ctx.power, s);
  // Without a thermal model: the device's static power, no temperature.
  DeviceMechanisms plain;
  plain.staticPower = 50;
  DeviceContext c2;
  EXPECT_DOUBLE_EQ(realizeIdle(plain, c2, 10, true), 50);
  EXPECT_FALSE(c2.theta);
}

// checkReduction by hand: device 0 runs a then b in a sequence, device 1
// runs c inside a par (m = 2). The first element on each device enters at
// the null context (m - 1).
TEST(Reduction, PerDevicePrefixesAndTheTreesBound) {
  double c95 = 1.959963984540054;
  Signature a = sig(10, 1, 10, 0, 1), b = sig(10, 1, 10, 0, 2),
            c = sig(10, 1, 10, 0, 3);
  auto shifted = [](Signature x, double dE) {
    x.d += dE;
    return x;
  };
  // Device 0: a moves by 0 (it starts at the null context), b by more than
  // c95 x sigma_b; device 1: c by less than c95 x sigma_c.
  std::vector<ReductionEntry> entries = {
      {a, a, 1, true, 0},
      {shifted(b, 1.1 * c95 * 2), b, 1, false, 0},
      {shifted(c, 0.5 * c95 * 3), c, 2, true, 1}};
  ReductionCheck r = checkReduction(entries, 0.95);
  EXPECT_NEAR(r.biasBound, c95 * (0 * 1 + 1 * 2 + 1 * 3), 1e-12);
  EXPECT_TRUE(r.prefixOk[0]);
  EXPECT_FALSE(r.prefixOk[1]); // 1.1 c sigma_b > c sigma_b
  EXPECT_TRUE(r.prefixOk[2]);  // device 1's prefix has its own bound
  EXPECT_TRUE(r.elementOk[0]);
  EXPECT_FALSE(r.elementOk[1]);
  EXPECT_TRUE(r.elementOk[2]);
  EXPECT_FALSE(r.reducible());
  entries[1].realized = shifted(b, 0.9 * c95 * 2);
  EXPECT_TRUE(checkReduction(entries, 0.95).reducible());
}

} // namespace
