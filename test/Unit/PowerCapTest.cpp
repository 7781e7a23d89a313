//===- PowerCapTest.cpp - power-limit choices
//------------------------------===//
//
// Against Zeus's own choices on its published table:
// test/RealData/ZeusPowerCapTest.cpp.

#include "calculus/PowerCap.h"

#include <gtest/gtest.h>

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

} // namespace
