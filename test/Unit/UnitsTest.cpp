//===- UnitsTest.cpp - SI quantities parse and print exactly
//---------------===//

#include "dialect/Energy/Units.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

using namespace energy;

namespace {

double parseBack(const std::string &text, Dimension dim) {
  size_t space = text.find(' ');
  double mantissa = std::strtod(text.substr(0, space).c_str(), nullptr);
  std::optional<int> exp10 = unitExponent(text.substr(space + 1), dim);
  EXPECT_TRUE(exp10.has_value()) << text;
  return applyScale(mantissa, exp10.value_or(0));
}

TEST(Units, ChoosesReadablePrefixes) {
  EXPECT_EQ(formatQuantity(1.55e-3, Dimension::Time), "1.55 ms");
  EXPECT_EQ(formatQuantity(120, Dimension::Power), "120 W");
  EXPECT_EQ(formatQuantity(0.9, Dimension::Energy), "900 mJ");
  EXPECT_EQ(formatQuantity(2.8, Dimension::Energy), "2.8 J");
  EXPECT_EQ(formatQuantity(10e-6, Dimension::Time), "10 us");
  EXPECT_EQ(formatQuantity(0, Dimension::Time), "0 s");
}

TEST(Units, RejectsWrongDimension) {
  EXPECT_FALSE(unitExponent("ms", Dimension::Energy));
  EXPECT_FALSE(unitExponent("kg", Dimension::Time));
  EXPECT_EQ(*unitExponent("uJ", Dimension::Energy), -6);
}

TEST(Units, ScalingIsCorrectlyRoundedDecimal) {
  // 1.55 ms is the double nearest 1.55e-3, not 1.55 * 0.001.
  EXPECT_EQ(applyScale(1.55, -3), 1.55e-3);
  EXPECT_EQ(applyScale(2.77, -3), 2.77e-3);
  EXPECT_EQ(applyScale(502, -3), 0.502);
  EXPECT_EQ(applyScale(-7.5, 3), -7500.0);
}

TEST(Units, ScalingPastADoublesRangeIsInfiniteNotZero) {
  // 1.8e305 kW is 1.8e308 W, past the largest double: an infinity (which
  // the verifiers refuse), never the 0 it once read as.
  EXPECT_EQ(applyScale(1.8e305, 3), HUGE_VAL);
  EXPECT_EQ(applyScale(-1e303, 6), -HUGE_VAL);
  EXPECT_EQ(applyScale(1.5e305, 3), 1.5e308);
  // Below the least subnormal: zero, with its sign.
  EXPECT_EQ(applyScale(1.5e-320, -6), 0.0);
  EXPECT_TRUE(std::signbit(applyScale(-1.5e-320, -6)));
}

TEST(Units, RoundTripsExactly) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> exp10(-13, 7), unit(1, 10);
  for (int i = 0; i < 100000; ++i) {
    double v = unit(gen) * std::pow(10.0, exp10(gen));
    for (Dimension dim : {Dimension::Power, Dimension::Time, Dimension::Energy})
      EXPECT_EQ(parseBack(formatQuantity(v, dim), dim), v)
          << formatQuantity(v, dim);
  }
}

/// The significant digits of a decimal numeral: no sign, point, exponent,
/// leading or trailing zeros ("-0.00150" -> "15").
std::string significantDigits(const std::string &numeral) {
  std::string digits;
  for (char c : numeral) {
    if (c == 'e' || c == 'E')
      break;
    if (c >= '0' && c <= '9')
      digits += c;
  }
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos)
    return "";
  digits = digits.substr(first);
  return digits.substr(0, digits.find_last_not_of('0') + 1);
}

TEST(Units, PrintsTheShortestDigits) {
  // Whatever unit is chosen, the mantissa carries exactly the digits of the
  // shortest decimal that reads back as the double (what std::to_chars
  // guarantees), so "1.55 ms" and never "1.5500000000000001 ms".
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> exp10(-13, 7), unit(1, 10);
  std::uniform_int_distribution<int> digits(1, 17);
  for (int i = 0; i < 100000; ++i) {
    double v = unit(gen) * std::pow(10.0, exp10(gen));
    if (i % 2) { // also values with few digits, as measured data has
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.*e", digits(gen) - 1, v);
      v = std::strtod(buf, nullptr);
    }
    if (i % 3 == 0)
      v = -v;
    char buf[64];
    auto res =
        std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
    std::string shortest = significantDigits(std::string(buf, res.ptr));
    for (Dimension dim :
         {Dimension::Power, Dimension::Time, Dimension::Energy}) {
      std::string text = formatQuantity(v, dim);
      EXPECT_EQ(significantDigits(text.substr(0, text.find(' '))), shortest)
          << text;
      EXPECT_EQ(parseBack(text, dim), v) << text; // negatives too
    }
  }
}

} // namespace
