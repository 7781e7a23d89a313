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

#include "calculus/Signature.h"
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

/// A signature's fields as plain doubles (W, s, J), as `#energy.sig` holds
/// them. `energy.element` stores its signature this way, inline in the op
/// (a property): a uniqued attribute per element cost 0.9 s of a 10^6-
/// element parse (bench/RESULTS.md). The accessors match SignatureAttr's.
struct SigData {
  double T = 0, d = 0, sigmaT = 0, sigmaD = 0;
  std::optional<double> s, sigmaE;

  double time() const { return T; }
  double dynamicEnergy() const { return d; }
  double sigmaTime() const { return sigmaT; }
  double sigmaDynamic() const { return sigmaD; }
  std::optional<double> staticPower() const { return s; }
  std::optional<double> sigmaEnergy() const { return sigmaE; }

  /// Bitwise, as attribute uniquing compares.
  bool operator==(const SigData &o) const {
    auto opt = [](std::optional<double> a, std::optional<double> b) {
      return a.has_value() == b.has_value() && (!a || Real{*a} == Real{*b});
    };
    return Real{T} == Real{o.T} && Real{d} == Real{o.d} &&
           Real{sigmaT} == Real{o.sigmaT} && Real{sigmaD} == Real{o.sigmaD} &&
           opt(s, o.s) && opt(sigmaE, o.sigmaE);
  }
};
inline llvm::hash_code hash_value(const SigData &v) {
  return llvm::hash_combine(Real{v.T}, Real{v.d}, Real{v.sigmaT},
                            Real{v.sigmaD}, Real::optional(v.s),
                            Real::optional(v.sigmaE));
}
} // namespace energy

#define GET_ATTRDEF_CLASSES
#include "dialect/Energy/EnergyAttrs.h.inc"

// After the attributes: the dialect's discardable-attribute helpers name
// them (EnergyDialect.td).
#include "dialect/Energy/EnergyDialect.h.inc"

namespace energy {
/// Between SigData and `#energy.sig` (SignatureAttr).
SigData sigData(SignatureAttr attr);
SignatureAttr sigAttr(mlir::MLIRContext *ctx, const SigData &v);

/// The one conversion pair between `#energy.sig` and the calculus'
/// signature: sigmas become variances and back; a signature without its
/// own static power takes `deviceStatic` (its device's). The attribute
/// keeps the calculus' static power explicitly.
calculus::Signature toSignature(SignatureAttr attr, double deviceStatic,
                                calculus::DeviceSet devices = {});
calculus::Signature toSignature(const SigData &v, double deviceStatic,
                                calculus::DeviceSet devices = {});
SignatureAttr toSignatureAttr(mlir::MLIRContext *ctx,
                              const calculus::Signature &s);
/// The checks of SignatureAttr::verify (Axiom P1: finite, non-negative).
mlir::LogicalResult
verifySigData(llvm::function_ref<mlir::InFlightDiagnostic()> emit,
              const SigData &v);
/// `<T = ..., d = ..., ...>`, as `#energy.sig` writes its fields.
mlir::ParseResult parseSigData(mlir::AsmParser &parser, SigData &v);
void printSigData(mlir::AsmPrinter &printer, const SigData &v);
/// How the generic form and bytecode write an absent optional property of
/// our dialects: `none` (a TypeAttr of NoneType).
inline mlir::Attribute absentPropertyAttr(mlir::MLIRContext *ctx) {
  return mlir::TypeAttr::get(mlir::NoneType::get(ctx));
}
inline bool isAbsentPropertyAttr(mlir::Attribute attr) {
  auto t = llvm::dyn_cast<mlir::TypeAttr>(attr);
  return t && llvm::isa<mlir::NoneType>(t.getValue());
}
/// energy.element's `sig` property as an attribute (generic form,
/// bytecode): `#energy.sig<...>`, or `none` when absent; and back.
mlir::Attribute sigPropertyAttr(mlir::MLIRContext *ctx,
                                const std::optional<SigData> &v);
mlir::LogicalResult
sigPropertyFromAttr(std::optional<SigData> &v, mlir::Attribute attr,
                    llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
} // namespace energy

#define GET_OP_CLASSES
#include "dialect/Energy/EnergyOps.h.inc"

namespace energy {
/// Sets the `closure` of an energy.seq, energy.par or energy.multi (other
/// ops: nothing).
void setClosure(mlir::Operation *op, const SigData &closure);
/// Drops what --energy-evaluate wrote on a tree (composites' closures and
/// energy.total): a pass that changes its signatures makes them stale.
void dropEvaluation(mlir::Operation *root);
} // namespace energy

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

/// Hand-written assembly of large-count ops (both dialects). ODS's
/// generated printers pass `getAttrs()` to the attr-dict printer, which
/// builds and uniques a dictionary of every inherent attribute of every op
/// only to elide them all; ours print the discardable ones.
///
/// `attr-dict` (`attributes {...}` with `withKeyword`), rejecting an
/// inherent attribute given there.
template <typename OpT>
mlir::ParseResult parseOpAttrDict(mlir::OpAsmParser &parser,
                                  mlir::OperationState &result,
                                  bool withKeyword) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (withKeyword ? parser.parseOptionalAttrDictWithKeyword(result.attributes)
                  : parser.parseOptionalAttrDict(result.attributes))
    return mlir::failure();
  return OpT::verifyInherentAttrs(result.name, result.attributes, [&]() {
    return parser.emitError(loc)
           << "'" << result.name.getStringRef() << "' op ";
  });
}
/// `keyword $attr`.
template <typename AttrT>
mlir::ParseResult parseKeywordAttr(mlir::OpAsmParser &parser,
                                   llvm::StringRef keyword, AttrT &attr,
                                   mlir::Type type) {
  if (parser.parseKeyword(keyword))
    return mlir::failure();
  return parser.parseCustomAttributeWithFallback(attr, type);
}
/// `(keyword $attr)?`.
template <typename AttrT>
mlir::ParseResult parseOptionalKeywordAttr(mlir::OpAsmParser &parser,
                                           llvm::StringRef keyword, AttrT &attr,
                                           mlir::Type type) {
  if (mlir::failed(parser.parseOptionalKeyword(keyword)))
    return mlir::success();
  return parser.parseCustomAttributeWithFallback(attr, type);
}
/// ` keyword $attr` when `attr` is set; builtin attributes print without
/// their type, ours (`stripped`) without the dialect prefix.
template <typename AttrT>
void printKeywordAttr(mlir::OpAsmPrinter &p, llvm::StringRef keyword,
                      AttrT attr, bool stripped = false) {
  if (!attr)
    return;
  p << ' ' << keyword << ' ';
  if (stripped)
    p.printStrippedAttrOrType(attr); // needs the concrete attribute class
  else
    p.printAttributeWithoutType(attr);
}
/// The discardable attributes only, as `attr-dict` prints them.
inline void printDiscardableAttrs(mlir::OpAsmPrinter &p, mlir::Operation *op,
                                  bool withKeyword) {
  auto attrs = op->getDiscardableAttrDictionary().getValue();
  if (withKeyword)
    p.printOptionalAttrDictWithKeyword(attrs);
  else
    p.printOptionalAttrDict(attrs);
}
} // namespace energy

#endif // DIALECT_ENERGY_ENERGY_H
