//===- Units.h - SI quantities for the energy dialect -----------*- C++ -*-===//
//
// Quantities in the IR carry SI units and are stored in base units (W, s, J).
// A quantity `<m> <unit>` denotes the decimal number m x 10^k exactly (k the
// unit's power of ten), correctly rounded once: `1.55 ms` is the double
// nearest 1.55e-3, not 1.55 * 0.001 rounded twice. Printing picks the prefix
// that keeps the mantissa in [1, 1000) and the shortest mantissa that parses
// back to the identical double, so printed IR round-trips exactly.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECT_ENERGY_UNITS_H
#define DIALECT_ENERGY_UNITS_H

#include <optional>
#include <string>
#include <string_view>

namespace energy {

enum class Dimension { Power, Time, Energy };

/// The accepted units of a dimension, for diagnostics: "s, ms, us, ns".
const char *acceptedUnits(Dimension dim);
/// Power of ten of `unit` (ms -> -3), or nullopt if `unit` is not a unit of
/// `dim`.
std::optional<int> unitExponent(std::string_view unit, Dimension dim);
/// Accepted on input only, not decimal multiples of the base unit: h (3600
/// s), min (60 s), Wh (3600 J), kWh (3.6e6 J), MWh (3.6e9 J); the factor,
/// or nullopt. Values print back in the decimal units.
std::optional<double> unitFactor(std::string_view unit, Dimension dim);
/// The value of `mantissa` x 10^exp10, where `mantissa` stands for its
/// shortest decimal representation; correctly rounded.
double applyScale(double mantissa, int exp10);
/// Formats a base-unit value as "<mantissa> <unit>", e.g. 0.00155 -> "1.55 ms".
/// With `significant` > 0 the value is first rounded to that many significant
/// digits (for people; IR always prints exactly).
std::string formatQuantity(double value, Dimension dim, int significant = 0);
/// The shortest decimal that parses back to `value`, with a '.' before any
/// exponent so MLIR's lexer reads it as a float ("1.0e-12", "0.5", "13009").
std::string formatNumber(double value);

} // namespace energy

#endif // DIALECT_ENERGY_UNITS_H
