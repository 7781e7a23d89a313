//===- Units.cpp - SI quantities for the energy dialect -------------------===//

#include "dialect/Energy/Units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace energy {

namespace {
struct UnitDef {
  const char *name;
  double scale;
};
// Ordered from the largest scale down: formatting takes the first unit whose
// scale does not exceed the value.
const UnitDef powerUnits[] = {{"kW", 1e3}, {"W", 1}, {"mW", 1e-3}};
const UnitDef timeUnits[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6},
                             {"ns", 1e-9}};
const UnitDef energyUnits[] = {{"MJ", 1e6}, {"kJ", 1e3}, {"J", 1},
                               {"mJ", 1e-3}, {"uJ", 1e-6}, {"nJ", 1e-9}};

template <size_t N>
static std::optional<double> lookup(const UnitDef (&defs)[N],
                                    const std::string &unit) {
  for (const UnitDef &u : defs)
    if (unit == u.name)
      return u.scale;
  return std::nullopt;
}

template <size_t N>
static std::string format(const UnitDef (&defs)[N], double value) {
  const UnitDef *chosen = nullptr;
  double mag = std::fabs(value);
  for (const UnitDef &u : defs)
    if (mag >= u.scale) {
      chosen = &u;
      break;
    }
  if (!chosen || value == 0) {
    // Zero prints in the base unit; values below the smallest prefix in it.
    for (const UnitDef &u : defs)
      if (u.scale == 1)
        chosen = &u;
    if (value != 0 && mag < defs[N - 1].scale)
      chosen = &defs[N - 1];
  }
  double mantissa = value / chosen->scale;
  char buf[64];
  // Fixed notation reads best for mantissas in the prefix range; %g covers
  // the extremes. Either way, the fewest digits that parse back exactly.
  bool fixed = std::fabs(mantissa) >= 1e-3 && std::fabs(mantissa) < 1e6;
  for (int prec = fixed ? 0 : 1; prec <= (fixed ? 24 : 17); ++prec) {
    std::snprintf(buf, sizeof(buf), fixed ? "%.*f" : "%.*g", prec, mantissa);
    if (applyScale(std::strtod(buf, nullptr), chosen->scale) == value)
      break;
  }
  std::string text = buf;
  // MLIR float literals need a '.' before an exponent ("1.0e-12").
  size_t e = text.find('e');
  if (e != std::string::npos && text.find('.') == std::string::npos)
    text.insert(e, ".0");
  return text + " " + chosen->name;
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

std::optional<double> unitScale(const std::string &unit, Dimension dim) {
  switch (dim) {
  case Dimension::Power:
    return lookup(powerUnits, unit);
  case Dimension::Time:
    return lookup(timeUnits, unit);
  case Dimension::Energy:
    return lookup(energyUnits, unit);
  }
  return std::nullopt;
}

std::string formatQuantity(double value, Dimension dim) {
  switch (dim) {
  case Dimension::Power:
    return format(powerUnits, value);
  case Dimension::Time:
    return format(timeUnits, value);
  case Dimension::Energy:
    return format(energyUnits, value);
  }
  return "";
}

} // namespace energy
