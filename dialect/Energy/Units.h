//===- Units.h - SI quantities for the energy dialect -----------*- C++ -*-===//
//
// Quantities in the IR carry SI units and are stored in base units (W, s, J).
// Printing picks the prefix that keeps the mantissa in [1, 1000) and the
// shortest mantissa that parses back to the identical double, so printed IR
// round-trips exactly.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECT_ENERGY_UNITS_H
#define DIALECT_ENERGY_UNITS_H

#include <optional>
#include <string>

namespace energy {

enum class Dimension { Power, Time, Energy };

/// "W", "s" or "J".
const char *baseUnit(Dimension dim);
/// The accepted units of a dimension, for diagnostics: "s, ms, us, ns".
const char *acceptedUnits(Dimension dim);
/// Scale of `unit` to base units (ms -> 1e-3), or nullopt if `unit` is not a
/// unit of `dim`.
std::optional<double> unitScale(const std::string &unit, Dimension dim);
/// `value * scale`, the one conversion used by parser and printer alike.
inline double applyScale(double mantissa, double scale) {
  return mantissa * scale;
}
/// Formats a base-unit value as "<mantissa> <unit>", e.g. 0.00155 -> "1.55 ms".
std::string formatQuantity(double value, Dimension dim);

} // namespace energy

#endif // DIALECT_ENERGY_UNITS_H
