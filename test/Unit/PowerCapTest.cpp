//===- PowerCapTest.cpp - power-limit choices
//------------------------------===//
//
// Against Zeus's own choices on its published table:
// test/RealData/ZeusPowerCapTest.cpp.

#include "calculus/PowerCap.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace energy::calculus;

namespace {

TEST(PowerCap, MinEnergyUnderSlowdown) {
  // bert-huge: 300 W 6.355 s 6819 J; 275 W 6.546 s 6517 J; 250 W 6.867 s
  // 6299 J. Within 5% of the fastest (6.673 s) only 300 and 275 qualify.
  std::vector<CapPoint> t{{300, 6.354814670704029, 6819.0174444439235},
                          {275, 6.545744878274424, 6516.6108518513265},
                          {250, 6.867364627343637, 6298.68407407403}};
  CapObjective obj;
  obj.kind = CapObjective::MinEnergyUnderSlowdown;
  obj.maxSlowdownPct = 5;
  size_t i;
  std::string err;
  ASSERT_TRUE(choosePowerCap(t, obj, i, err));
  EXPECT_EQ(t[i].cap, 275);
  obj.maxSlowdownPct = 10;
  ASSERT_TRUE(choosePowerCap(t, obj, i, err));
  EXPECT_EQ(t[i].cap, 250);
  EXPECT_FALSE(choosePowerCap({}, obj, i, err));
  obj.kind = CapObjective::ZeusCost;
  obj.eta = 2;
  EXPECT_FALSE(choosePowerCap(t, obj, i, err));
}

// Equal objective values (exact ties of Zeus's cost, or of the energy
// within the slowdown) are broken by time, then energy, then the higher
// limit -- the same row whatever the table's order, never one another
// row dominates. The costs worked by hand: at eta 0.5 and MAXPOWER 400 W,
// 400 W costs 0.5 x 7000 + 200 x 6 = 4700 and 300 W 0.5 x 6600 + 200 x 7
// = 4700: the faster, 400 W.
TEST(PowerCap, TiesDoNotDependOnTheRowsOrder) {
  auto choose = [](std::vector<CapPoint> t, const CapObjective &obj) {
    size_t i = 0;
    std::string err;
    EXPECT_TRUE(choosePowerCap(t, obj, i, err)) << err;
    double first = t[i].cap;
    std::reverse(t.begin(), t.end());
    EXPECT_TRUE(choosePowerCap(t, obj, i, err)) << err;
    EXPECT_EQ(t[i].cap, first) << "the reversed table chose another row";
    return first;
  };
  CapObjective zeus;
  zeus.eta = 0.5;
  zeus.maxPower = 400;
  EXPECT_EQ(choose({{400, 6, 7000}, {300, 7, 6600}, {200, 9, 6800}}, zeus),
            400);
  // 350 W: as fast as 400 W for less energy, as cheap as 300 W in less
  // time. eta 0 ranks by time alone (400 and 350 W tie), eta 1 by energy
  // (350 and 300 W tie), the slowdown bound by energy within it.
  std::vector<CapPoint> t{
      {400, 6, 7000}, {350, 6, 6500}, {300, 7, 6500}, {200, 9, 6800}};
  zeus.eta = 0;
  EXPECT_EQ(choose(t, zeus), 350);
  zeus.eta = 1;
  EXPECT_EQ(choose(t, zeus), 350);
  CapObjective slow;
  slow.kind = CapObjective::MinEnergyUnderSlowdown;
  slow.maxSlowdownPct = 20;
  EXPECT_EQ(choose(t, slow), 350);
  // Identical rows but for the limit: the higher.
  EXPECT_EQ(choose({{250, 6, 6000}, {300, 6, 6000}}, slow), 300);
  // A row of 0 J (a counter that did not count) is refused.
  size_t i;
  std::string err;
  EXPECT_FALSE(choosePowerCap({{300, 6, 0}, {250, 7, 5000}}, zeus, i, err));
}

} // namespace
