//===- Units.cpp - SI quantities for the energy dialect -------------------===//

#include "dialect/Energy/Units.h"

#include <charconv>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace energy {

namespace {
struct UnitDef {
  std::string_view name; // a length, not a strlen per comparison
  int exp10;
};
// Ordered from the largest down: formatting takes the first unit not larger
// than the value.
const UnitDef powerUnits[] = {{"kW", 3}, {"W", 0}, {"mW", -3}};
const UnitDef timeUnits[] = {{"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}};
const UnitDef energyUnits[] = {{"MJ", 6},  {"kJ", 3},  {"J", 0},
                               {"mJ", -3}, {"uJ", -6}, {"nJ", -9}};

struct Units {
  const UnitDef *begin, *end;
};
Units unitsOf(Dimension dim) {
  switch (dim) {
  case Dimension::Power:
    return {std::begin(powerUnits), std::end(powerUnits)};
  case Dimension::Time:
    return {std::begin(timeUnits), std::end(timeUnits)};
  case Dimension::Energy:
    return {std::begin(energyUnits), std::end(energyUnits)};
  }
  return {nullptr, nullptr};
}

/// Shortest scientific digits of `v`: sign, digit string and the exponent of
/// the first digit ("1.55e-03" -> "155", -3).
struct Decimal {
  bool negative = false;
  std::string digits;
  int exp10 = 0;
};
Decimal shortestDecimal(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v,
                           std::chars_format::scientific);
  std::string text(buf, res.ptr);
  Decimal d;
  size_t i = 0;
  if (text[0] == '-') {
    d.negative = true;
    i = 1;
  }
  size_t e = text.find('e');
  for (; i < e; ++i)
    if (text[i] != '.')
      d.digits += text[i];
  d.exp10 = std::atoi(text.c_str() + e + 1);
  return d;
}

/// Writes digits x 10^(exp10 - len + 1) in positional notation.
std::string positional(const Decimal &d, int shift) {
  int point = d.exp10 - shift + 1; // digits before the decimal point
  std::string s;
  if (point <= 0)
    s = "0." + std::string(-point, '0') + d.digits;
  else if (point >= int(d.digits.size()))
    s = d.digits + std::string(point - d.digits.size(), '0');
  else
    s = d.digits.substr(0, point) + "." + d.digits.substr(point);
  return (d.negative ? "-" : "") + s;
}
} // namespace

const char *baseUnit(Dimension dim) {
  switch (dim) {
  case Dimension::Power:
    return "W";
  case Dimension::Time:
    return "s";
  case Dimension::Energy:
    return "J";
  }
  return "";
}

const char *acceptedUnits(Dimension dim) {
  switch (dim) {
  case Dimension::Power:
    return "kW, W, mW";
  case Dimension::Time:
    return "s, ms, us, ns";
  case Dimension::Energy:
    return "MJ, kJ, J, mJ, uJ, nJ";
  }
  return "";
}

std::optional<int> unitExponent(std::string_view unit, Dimension dim) {
  Units units = unitsOf(dim);
  for (const UnitDef *u = units.begin; u != units.end; ++u)
    if (unit == u->name)
      return u->exp10;
  return std::nullopt;
}

// Exact powers of ten: 10^k for k <= 22 is representable in a double.
static const double exactPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                    1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
                                    1e18, 1e19, 1e20, 1e21, 1e22};

double applyScale(double mantissa, int exp10) {
  if (exp10 == 0 || mantissa == 0 || !std::isfinite(mantissa))
    return mantissa;
  // Fast path (Clinger): an integer mantissa below 2^53 and a power of ten
  // that is exact make one IEEE multiplication or division, which is
  // correctly rounded.
  if (std::fabs(mantissa) < 9007199254740992.0 &&
      mantissa == std::trunc(mantissa) && exp10 >= -22 && exp10 <= 22)
    return exp10 > 0 ? mantissa * exactPow10[exp10]
                     : mantissa / exactPow10[-exp10];
  Decimal d = shortestDecimal(mantissa);
  std::string text = (d.negative ? "-" : "") + d.digits + "e" +
                     std::to_string(d.exp10 - int(d.digits.size()) + 1 + exp10);
  double out = 0;
  std::from_chars(text.data(), text.data() + text.size(), out);
  return out;
}

std::string formatQuantity(double value, Dimension dim, int significant) {
  if (significant > 0 && value != 0 && std::isfinite(value)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*e", significant - 1, value);
    value = std::strtod(buf, nullptr);
  }
  Units units = unitsOf(dim);
  const UnitDef *base = nullptr;
  for (const UnitDef *u = units.begin; u != units.end; ++u)
    if (u->exp10 == 0)
      base = u;
  if (value == 0 || !std::isfinite(value))
    return std::string(value == 0 ? "0" : std::isnan(value) ? "nan" : "inf") +
           " " + std::string(base->name);
  double mag = std::fabs(value);
  const UnitDef *chosen = units.end - 1; // below every prefix: the smallest
  for (const UnitDef *u = units.begin; u != units.end; ++u)
    if (mag >= (u->exp10 >= 0 ? exactPow10[u->exp10]
                              : 1 / exactPow10[-u->exp10])) {
      chosen = u;
      break;
    }
  // Fast path: a whole number of the chosen unit ("120 W", "350 us").
  double whole = chosen->exp10 >= 0 ? value / exactPow10[chosen->exp10]
                                    : value * exactPow10[-chosen->exp10];
  whole = std::nearbyint(whole);
  if (std::fabs(whole) < 1e15 && applyScale(whole, chosen->exp10) == value) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof(buf), (long long)whole);
    return std::string(buf, res.ptr) + " " + std::string(chosen->name);
  }
  Decimal d = shortestDecimal(value);
  // Mantissas stay positional unless far outside the prefix range.
  if (d.exp10 - chosen->exp10 < 9 && d.exp10 - chosen->exp10 > -6) {
    std::string text = positional(d, chosen->exp10);
    double m = std::strtod(text.c_str(), nullptr);
    if (applyScale(m, chosen->exp10) == value)
      return text + " " + std::string(chosen->name);
  }
  // Rare: no mantissa in that unit reproduces the double. The base unit
  // always does (the mantissa is the value itself).
  return formatNumber(value) + " " + std::string(base->name);
}

std::string formatNumber(double value) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  std::string text(buf, res.ptr);
  size_t e = text.find('e');
  if (e != std::string::npos && text.find('.') == std::string::npos)
    text.insert(e, ".0"); // MLIR float literals need a '.' before 'e'
  return text;
}

} // namespace energy
