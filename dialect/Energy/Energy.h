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
} // namespace energy

#endif // DIALECT_ENERGY_ENERGY_H
