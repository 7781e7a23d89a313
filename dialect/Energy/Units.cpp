//===- Units.cpp - SI quantities for the energy dialect -------------------===//

#include "dialect/Energy/Units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
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
/// the first digit ("1.55e-03" -> "155", -3). Fixed buffers: printing a
/// million signatures formats four million quantities.
struct Decimal {
  bool negative = false;
  char digits[24]; // at most 17 significant digits for a double
  int len = 0;
  int exp10 = 0;
};
Decimal shortestDecimal(double v) {
  char buf[64];
  auto res =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  Decimal d;
  const char *p = buf;
  if (*p == '-') {
    d.negative = true;
    ++p;
  }
  for (; p < res.ptr && *p != 'e'; ++p)
    if (*p != '.')
      d.digits[d.len++] = *p;
  int exp = 0;
  if (p < res.ptr)
    std::from_chars(p + 1 + (p[1] == '+'), res.ptr, exp);
  d.exp10 = exp;
  return d;
}

/// Writes digits x 10^(exp10 - len + 1 - shift) in positional notation into
/// `out` (room for 64 chars); returns the length.
int positional(const Decimal &d, int shift, char *out) {
  int point = d.exp10 - shift + 1; // digits before the decimal point
  int n = 0;
  if (d.negative)
    out[n++] = '-';
  if (point <= 0) {
    out[n++] = '0';
    out[n++] = '.';
    for (int i = 0; i < -point; ++i)
      out[n++] = '0';
    for (int i = 0; i < d.len; ++i)
      out[n++] = d.digits[i];
  } else if (point >= d.len) {
    for (int i = 0; i < d.len; ++i)
      out[n++] = d.digits[i];
    for (int i = d.len; i < point; ++i)
      out[n++] = '0';
  } else {
    for (int i = 0; i < point; ++i)
      out[n++] = d.digits[i];
    out[n++] = '.';
    for (int i = point; i < d.len; ++i)
      out[n++] = d.digits[i];
  }
  return n;
}
} // namespace

const char *acceptedUnits(Dimension dim) {
  switch (dim) {
  case Dimension::Power:
    return "kW, W, mW";
  case Dimension::Time:
    return "h, min, s, ms, us, ns";
  case Dimension::Energy:
    return "MWh, kWh, Wh, MJ, kJ, J, mJ, uJ, nJ";
  }
  return "";
}

std::optional<double> unitFactor(std::string_view unit, Dimension dim) {
  if (dim == Dimension::Time) {
    if (unit == "h")
      return 3600.0;
    if (unit == "min")
      return 60.0;
  } else if (dim == Dimension::Energy) {
    if (unit == "Wh")
      return 3600.0;
    if (unit == "kWh")
      return 3.6e6;
    if (unit == "MWh")
      return 3.6e9;
  }
  return std::nullopt;
}

std::optional<int> unitExponent(std::string_view unit, Dimension dim) {
  Units units = unitsOf(dim);
  for (const UnitDef *u = units.begin; u != units.end; ++u)
    if (unit == u->name)
      return u->exp10;
  return std::nullopt;
}

// Exact powers of ten: 10^k for k <= 22 is representable in a double.
static const double exactPow10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

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
  char text[64];
  int n = 0;
  if (d.negative)
    text[n++] = '-';
  for (int i = 0; i < d.len; ++i)
    text[n++] = d.digits[i];
  text[n++] = 'e';
  n = int(
      std::to_chars(text + n, text + sizeof(text), d.exp10 - d.len + 1 + exp10)
          .ptr -
      text);
  double out = 0;
  // Out of a double's range, from_chars leaves `out` alone: the value is
  // then an infinity (the callers refuse it) or, below the least
  // subnormal, zero.
  if (std::from_chars(text, text + n, out).ec == std::errc::result_out_of_range)
    out = std::fabs(mantissa) * (exp10 > 0 ? HUGE_VAL : 0.0);
  return d.negative ? -std::fabs(out) : out;
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
    return std::string(value == 0          ? "0"
                       : std::isnan(value) ? "nan"
                                           : "inf") +
           " " + std::string(base->name);
  double mag = std::fabs(value);
  const UnitDef *chosen = units.end - 1; // below every prefix: the smallest
  for (const UnitDef *u = units.begin; u != units.end; ++u)
    if (mag >=
        (u->exp10 >= 0 ? exactPow10[u->exp10] : 1 / exactPow10[-u->exp10])) {
      chosen = u;
      break;
    }
  // Fast path: a whole number of the chosen unit ("120 W", "350 us").
  double whole = chosen->exp10 >= 0 ? value / exactPow10[chosen->exp10]
                                    : value * exactPow10[-chosen->exp10];
  whole = std::nearbyint(whole);
  if (std::fabs(whole) < 1e15 && applyScale(whole, chosen->exp10) == value) {
    char buf[40];
    char *end = std::to_chars(buf, buf + 32, (long long)whole).ptr;
    *end++ = ' ';
    for (char c : chosen->name)
      *end++ = c;
    return std::string(buf, end);
  }
  Decimal d = shortestDecimal(value);
  // Mantissas stay positional unless far outside the prefix range.
  if (d.exp10 - chosen->exp10 < 9 && d.exp10 - chosen->exp10 > -6) {
    char text[80];
    int n = positional(d, chosen->exp10, text);
    double m = 0;
    std::from_chars(text, text + n, m);
    if (applyScale(m, chosen->exp10) == value) {
      text[n++] = ' ';
      for (char c : chosen->name)
        text[n++] = c;
      return std::string(text, n);
    }
  }
  // Rare: no mantissa in that unit reproduces the double. The base unit
  // always does (the mantissa is the value itself).
  return formatNumber(value) + " " + std::string(base->name);
}

std::string formatNumber(double value) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  std::string text(buf, res.ptr);
  // The shortest form of a large whole double can be a bare integer
  // ("12345678901234567168"), which the IR's parser reads as an integer
  // literal and refuses past 2^63: such values print with an exponent.
  if (text.find_first_of(".e") == std::string::npos &&
      text.size() > (value < 0 ? 16u : 15u)) {
    res = std::to_chars(buf, buf + sizeof(buf), value,
                        std::chars_format::scientific);
    text.assign(buf, res.ptr);
  }
  size_t e = text.find('e');
  if (e != std::string::npos && text.find('.') == std::string::npos)
    text.insert(e, ".0"); // MLIR float literals need a '.' before 'e'
  return text;
}

} // namespace energy
