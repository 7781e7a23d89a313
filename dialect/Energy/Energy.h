//===- Energy.h - The energy dialect ----------------------------*- C++ -*-===//

#ifndef DIALECT_ENERGY_ENERGY_H
#define DIALECT_ENERGY_ENERGY_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "dialect/Energy/Units.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/bit.h"

#include <optional>

namespace energy {
/// A double as an attribute parameter: MLIR uniques attributes by hash and
/// LLVM hashes no double, so this compares and hashes the bit pattern.
struct Real {
  double value = 0;
  bool operator==(const Real &o) const {
    return llvm::bit_cast<uint64_t>(value) == llvm::bit_cast<uint64_t>(o.value);
  }
  static std::optional<Real> optional(std::optional<double> v) {
    if (!v)
      return std::nullopt;
    return Real{*v};
  }
  static std::optional<double> unwrap(std::optional<Real> r) {
    if (!r)
      return std::nullopt;
    return r->value;
  }
};
inline llvm::hash_code hash_value(Real r) {
  return llvm::hash_value(llvm::bit_cast<uint64_t>(r.value));
}
} // namespace energy

#include "dialect/Energy/EnergyDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/Energy/EnergyAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/Energy/EnergyOps.h.inc"

namespace energy {
/// Parses `<number> <unit>` of dimension `dim` into base SI units, with a
/// located diagnostic for a missing or wrong unit.
mlir::ParseResult parseQuantity(mlir::AsmParser &parser, Dimension dim,
                                double &value);
/// Prints a base-unit value with the prefix that reads best; round-trips.
void printQuantity(mlir::AsmPrinter &printer, double value, Dimension dim);
/// parseQuantity into an F64 attribute (custom directives of both dialects).
mlir::ParseResult parseQuantityAttr(mlir::AsmParser &parser,
                                    mlir::FloatAttr &attr, Dimension dim);
} // namespace energy

#endif // DIALECT_ENERGY_ENERGY_H
